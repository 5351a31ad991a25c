import { createRoutingRule as createRoutingRuleOperation } from '../../../contract/operations/routing-rules.ts';
import { Answer, bind } from '../../bind.ts';
import { providerDeps } from '../../providers/deps.ts';
import { createRoutingRule } from './handler.ts';

/** SPEC 4.14: a routing rule is created (201). */
export const createRoute = bind(createRoutingRuleOperation, async (call, ctx) => {
  const b = call.body;
  const { rule } = await createRoutingRule(
    providerDeps(ctx),
    {
      method: b.method,
      tenantId: b.tenant_id,
      providerId: b.provider_id,
      priority: b.priority,
      maxAmount: b.max_amount,
      enabled: b.enabled,
    },
    call.metadata(),
  );
  return new Answer(201, { data: rule });
});
