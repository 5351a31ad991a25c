import { z } from 'zod';
import { defineEvent, type EventOf } from '../events/event-registry.ts';
import { type Decider, DomainError } from './decider.ts';
import { PAYMENT_METHODS } from './provider.ts';
import type { TransitionTable } from './transition-table.ts';

/**
 * A routing rule (SPEC 2.7, 2.8; stream `routing_rule-<id>`). Method, tenant and provider are fixed at
 * creation; priority, `max_amount` and enablement can change. Rules are never deleted: disabling one lets
 * another own, ancestor or global rule take over (SPEC 2.8).
 */

/** SPEC 8: `amount` is 1 to 100000000 centavos, and so is a rule's `max_amount`. */
export const MAX_AMOUNT_CEILING = 100_000_000;
export const PRIORITY_MAX = 1_000_000;

const createdData = z.strictObject({
  rule_id: z.string().startsWith('rul_'),
  method: z.enum(PAYMENT_METHODS),
  tenant_id: z.string().startsWith('ten_').nullable(),
  provider_id: z.string().startsWith('prv_'),
  priority: z.number().int(),
  max_amount: z.number().int(),
  enabled: z.boolean(),
});
export type RoutingRuleCreatedData = z.infer<typeof createdData>;
const updatedData = z.strictObject({
  rule_id: z.string().startsWith('rul_'),
  priority: z.number().int().optional(),
  max_amount: z.number().int().optional(),
  enabled: z.boolean().optional(),
});
export type RoutingRuleUpdatedData = z.infer<typeof updatedData>;

export type RoutingRuleState =
  | { readonly status: 'none' }
  | ({ readonly status: 'active' } & Readonly<RoutingRuleCreatedData>);

export const routingRuleEvents = [
  defineEvent({
    type: 'RoutingRule.Created',
    audit: { action: 'routing_rule.created', when: 'a routing rule was created' },
    schema: createdData,
  }),
  defineEvent({
    type: 'RoutingRule.Updated',
    audit: { action: 'routing_rule.updated', when: "a rule's priority, limit or enablement changed" },
    schema: updatedData,
  }),
];

export type RoutingRuleEvent = EventOf<(typeof routingRuleEvents)[number]>;

export type RoutingRuleCommand = CreateRoutingRule | UpdateRoutingRule;
export interface CreateRoutingRule {
  readonly kind: 'create';
  readonly rule: RoutingRuleCreatedData;
  /** Facts the command layer read from the other streams. */
  readonly providerExists: boolean;
  readonly tenantExists: boolean;
}
export interface UpdateRoutingRule {
  readonly kind: 'update';
  readonly priority?: number | undefined;
  readonly maxAmount?: number | undefined;
  readonly enabled?: boolean | undefined;
}

/**
 *   state   | create                              | update
 *   --------+-------------------------------------+-----------------------------------------------
 *   none    | RoutingRule.Created -> active (*)   | 404 not_found
 *   active  | same facts: no-op; else 409         | RoutingRule.Updated -> active (changed fields
 *           |                                     | only; nothing changed: no event)
 *
 * (*) refused with 404 not_found when the provider or tenant does not exist, 422 validation_error for a
 * priority or max_amount out of range.
 */
export const routingRuleTransitions: TransitionTable<
  'active',
  RoutingRuleCommand['kind'],
  RoutingRuleEvent['type']
> = {
  none: { create: { emits: 'RoutingRule.Created', to: 'active' }, update: { refuse: 'not_found' } },
  active: {
    create: { repeat: 'same_facts_or_conflict' },
    update: { emits: 'RoutingRule.Updated', to: 'active' },
  },
};

function checkRange(priority?: number, maxAmount?: number): DomainError | undefined {
  if (priority !== undefined && (!Number.isInteger(priority) || priority < 0 || priority > PRIORITY_MAX)) {
    return new DomainError('validation_error', `priority must be 0 to ${PRIORITY_MAX}.`, {
      param: 'priority',
    });
  }
  if (
    maxAmount !== undefined &&
    (!Number.isInteger(maxAmount) || maxAmount < 1 || maxAmount > MAX_AMOUNT_CEILING)
  ) {
    return new DomainError('validation_error', `max_amount must be 1 to ${MAX_AMOUNT_CEILING} centavos.`, {
      param: 'max_amount',
    });
  }
  return undefined;
}

const creationFacts = (r: RoutingRuleCreatedData) =>
  [r.rule_id, r.method, r.tenant_id, r.provider_id, r.priority, r.max_amount, r.enabled].join('|');

export const routingRule: Decider<RoutingRuleCommand, RoutingRuleEvent, RoutingRuleState> = {
  initialState: { status: 'none' },

  evolve(state, event) {
    switch (event.type) {
      case 'RoutingRule.Created':
        return { status: 'active', ...event.data };
      case 'RoutingRule.Updated': {
        if (state.status === 'none') return state;
        const d = event.data;
        return {
          ...state,
          priority: d.priority ?? state.priority,
          max_amount: d.max_amount ?? state.max_amount,
          enabled: d.enabled ?? state.enabled,
        };
      }
    }
  },

  decide(command, state) {
    const move = routingRuleTransitions[state.status][command.kind];
    if ('refuse' in move) return new DomainError(move.refuse, 'The routing rule does not exist.');
    if ('noop' in move) return [];
    if ('repeat' in move) {
      if (state.status === 'none' || command.kind !== 'create') return [];
      const { status: _status, ...stored } = state;
      return creationFacts(stored) === creationFacts(command.rule)
        ? []
        : new DomainError('conflict', 'This routing rule already exists with other values.');
    }
    if (command.kind === 'create') {
      const refused = checkRange(command.rule.priority, command.rule.max_amount);
      if (refused) return refused;
      if (!command.providerExists) {
        return new DomainError('not_found', 'The provider does not exist.', { param: 'provider_id' });
      }
      if (!command.tenantExists) {
        return new DomainError('not_found', 'The tenant does not exist.', { param: 'tenant_id' });
      }
      return [{ type: 'RoutingRule.Created', data: { ...command.rule } }];
    }
    if (state.status === 'none') throw new Error('routing rule state table: update reached a missing rule');
    const refused = checkRange(command.priority, command.maxAmount);
    if (refused) return refused;
    const data: RoutingRuleUpdatedData = { rule_id: state.rule_id };
    if (command.priority !== undefined && command.priority !== state.priority)
      data.priority = command.priority;
    if (command.maxAmount !== undefined && command.maxAmount !== state.max_amount) {
      data.max_amount = command.maxAmount;
    }
    if (command.enabled !== undefined && command.enabled !== state.enabled) data.enabled = command.enabled;
    return Object.keys(data).length === 1 ? [] : [{ type: 'RoutingRule.Updated', data }];
  },
};
