import { updateRoutingRule as updateRoutingRuleOperation } from '../../../contract/operations/routing-rules.ts';
import { bind } from '../../bind.ts';
import { providerDeps } from '../../providers/deps.ts';
import { updateRoutingRule } from './handler.ts';

/** SPEC 4.14: a rule's priority, ceiling or switch; new charges only. */
export const updateRoute = bind(updateRoutingRuleOperation, async (call, ctx) => {
  const b = call.body;
  const rule = await updateRoutingRule(
    providerDeps(ctx),
    call.params.id,
    { priority: b.priority, maxAmount: b.max_amount, enabled: b.enabled },
    call.metadata(),
  );
  return { data: rule };
});
