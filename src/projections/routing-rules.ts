import { routingRuleEvents } from '../aggregates/routing-rule.ts';
import { decodedProjection } from './decoded-projection.ts';

/**
 * The `routing_rules` read model, inline because the resolver reads it for every new charge (SPEC 2.8:
 * routing changes apply to the next charge). `created_at` is the recorded time of RoutingRule.Created: the
 * "oldest creation date" tie-break, reproduced exactly by a rebuild.
 */
export const routingRulesProjection = decodedProjection({
  name: 'routing_rules',
  definitions: routingRuleEvents,
  eventTypes: ['RoutingRule.Created', 'RoutingRule.Updated'],
  tables: ['routing_rules'],

  async apply(event, at, trx) {
    switch (event.type) {
      case 'RoutingRule.Created': {
        const { rule_id, ...d } = event.data;
        await trx
          .insertInto('routing_rules')
          .values({ id: rule_id, ...d, created_at: at, updated_at: at })
          .execute();
        return;
      }
      case 'RoutingRule.Updated': {
        const d = event.data;
        await trx
          .updateTable('routing_rules')
          .set({
            updated_at: at,
            ...(d.priority !== undefined ? { priority: d.priority } : {}),
            ...(d.max_amount !== undefined ? { max_amount: d.max_amount } : {}),
            ...(d.enabled !== undefined ? { enabled: d.enabled } : {}),
          })
          .where('id', '=', d.rule_id)
          .execute();
        return;
      }
    }
  },
});
