import { routingRule } from '../../../aggregates/routing-rule.ts';
import type { EventMetadata } from '../../../events/event-store.ts';
import { type CommandDeps, handleCommand } from '../../command-handler.ts';
import { type RoutingRuleView, routingRuleStream, routingRuleView } from '../record.ts';

/** Changing a routing rule (SPEC 2.7, 4.14; super_admin only, checked by the operation's access). */

export interface UpdateRoutingRuleInput {
  priority?: number | undefined;
  maxAmount?: number | undefined;
  enabled?: boolean | undefined;
}

export async function updateRoutingRule(
  deps: CommandDeps,
  ruleId: string,
  input: UpdateRoutingRuleInput,
  metadata: EventMetadata,
): Promise<RoutingRuleView> {
  const r = await handleCommand(
    deps,
    routingRule,
    routingRuleStream(ruleId),
    { kind: 'update', priority: input.priority, maxAmount: input.maxAmount, enabled: input.enabled },
    { metadata, retryOnConflict: true },
  );
  return routingRuleView(r.state);
}
