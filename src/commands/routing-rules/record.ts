import type { RoutingRuleCreatedData, RoutingRuleState } from '../../aggregates/routing-rule.ts';

/** A routing rule (SPEC 2.7, 2.8): its stream and what the panel sees of it. */

export const routingRuleStream = (ruleId: string) => `routing_rule-${ruleId}`;

export type RoutingRuleView = Omit<RoutingRuleCreatedData, 'rule_id'> & { id: string };

/** The view of the rule a command just created or changed. */
export function routingRuleView(state: RoutingRuleState): RoutingRuleView {
  if (state.status === 'none') throw new Error('a routing rule command ended without a rule');
  const { status: _status, rule_id, ...rest } = state;
  return { id: rule_id, ...rest };
}
