import { sql } from 'kysely';
import { type RoutingRuleEvent, routingRuleEvents } from '../aggregates/routing-rule.ts';
import { EventRegistry } from '../events/event-registry.ts';
import type { Projection } from '../events/projection.ts';

const registry = new EventRegistry(routingRuleEvents);

/**
 * The `routing_rules` read model, inline because the resolver reads it for every new charge (SPEC 2.8:
 * routing changes apply to the next charge). `created_at` is the recorded time of RoutingRule.Created: the
 * "oldest creation date" tie-break, reproduced exactly by a rebuild.
 */
export const routingRulesProjection: Projection = {
  name: 'routing_rules',
  eventTypes: ['RoutingRule.Created', 'RoutingRule.Updated'],

  async handle(recorded, trx) {
    const at = recorded.recordedAt;
    const event = registry.decode(recorded) as RoutingRuleEvent;
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

  async reset(trx) {
    await sql`truncate routing_rules`.execute(trx);
  },
};
