import { describe, test } from 'vitest';
import {
  type CreateRoutingRule,
  type RoutingRuleEvent,
  routingRule,
} from '../../src/aggregates/routing-rule.ts';
import { scenario } from '../support/given-when-then.ts';

const rule = {
  rule_id: 'rul_1',
  method: 'pix' as const,
  tenant_id: null,
  provider_id: 'prv_1',
  priority: 100,
  max_amount: 5000,
  enabled: true,
};
const create: CreateRoutingRule = { kind: 'create', rule, providerExists: true, tenantExists: true };
const created: RoutingRuleEvent = { type: 'RoutingRule.Created', data: rule };

describe('routing rule decider (SPEC 2.7)', () => {
  test('creation; missing provider or tenant is 404 not_found; ranges are 422 validation_error', () => {
    scenario(routingRule).given([]).when(create).thenEmits([created]);
    scenario(routingRule)
      .given([])
      .when({ ...create, providerExists: false })
      .thenFails('not_found');
    scenario(routingRule)
      .given([])
      .when({ ...create, tenantExists: false })
      .thenFails('not_found');
    scenario(routingRule)
      .given([])
      .when({ ...create, rule: { ...rule, max_amount: 100_000_001 } })
      .thenFails('validation_error');
    scenario(routingRule)
      .given([])
      .when({ ...create, rule: { ...rule, priority: -1 } })
      .thenFails('validation_error');
  });

  test('SPEC 2.7: priority, limit and enablement change; only changed fields are recorded', () => {
    scenario(routingRule).given([]).when({ kind: 'update', enabled: false }).thenFails('not_found');
    scenario(routingRule)
      .given([created])
      .when({ kind: 'update', priority: 100, maxAmount: 10, enabled: false })
      .thenEmits([
        { type: 'RoutingRule.Updated', data: { rule_id: 'rul_1', max_amount: 10, enabled: false } },
      ]);
    scenario(routingRule).given([created]).when({ kind: 'update', priority: 100 }).thenEmits([]);
    scenario(routingRule)
      .given([created])
      .when({ kind: 'update', maxAmount: 0 })
      .thenFails('validation_error');
  });

  test('a repeated creation: same facts no-op, other facts 409 conflict', () => {
    scenario(routingRule).given([created]).when(create).thenEmits([]);
    scenario(routingRule)
      .given([created])
      .when({ ...create, rule: { ...rule, provider_id: 'prv_2' } })
      .thenFails('conflict');
  });
});
