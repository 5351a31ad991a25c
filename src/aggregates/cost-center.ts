import { z } from 'zod';
import { defineEvent, type EventOf } from '../events/event-registry.ts';
import { type Decider, DomainError } from './decider.ts';
import type { TransitionTable } from './transition-table.ts';

/**
 * A cost center (SPEC 4.12; stream `cost_center-<id>`): a label a tenant classifies its charges and
 * subscriptions with. It belongs to the tenant of the key that created it, for ever, and is the same in
 * test and production (no `livemode`). Its name can change and it can be deactivated and reactivated;
 * nothing deletes it, so charges and subscriptions that point at it keep their classification
 * (SPEC 4.10 "deactivating a linked center preserves classification and continuity").
 */

const costCenterId = z.string().startsWith('cc_');
const tenantId = z.string().startsWith('ten_');

const createdData = z.strictObject({ cost_center_id: costCenterId, tenant_id: tenantId, name: z.string() });
const renamedData = z.strictObject({ cost_center_id: costCenterId, name: z.string() });
const statusData = z.strictObject({ cost_center_id: costCenterId });

export const costCenterEvents = [
  defineEvent({
    type: 'CostCenter.Created',
    audit: { action: 'cost_center.created', when: 'a cost center was created' },
    schema: createdData,
  }),
  defineEvent({
    type: 'CostCenter.Renamed',
    audit: { action: 'cost_center.renamed', when: 'a cost center was renamed' },
    schema: renamedData,
  }),
  defineEvent({
    type: 'CostCenter.Deactivated',
    audit: { action: 'cost_center.deactivated', when: 'a cost center was deactivated' },
    schema: statusData,
  }),
  defineEvent({
    type: 'CostCenter.Reactivated',
    audit: { action: 'cost_center.reactivated', when: 'a cost center was reactivated' },
    schema: statusData,
  }),
];

export type CostCenterEvent = EventOf<(typeof costCenterEvents)[number]>;

export type CostCenterStatus = 'active' | 'inactive';

export type CostCenterState =
  | { readonly status: 'none' }
  | {
      readonly status: CostCenterStatus;
      readonly costCenterId: string;
      readonly tenantId: string;
      readonly name: string;
    };

export interface CreateCostCenter {
  readonly kind: 'create';
  readonly costCenterId: string;
  /** The tenant of the key (SPEC 4.12); never taken from a body. */
  readonly tenantId: string;
  /** Already trimmed by the command layer. */
  readonly name: string;
}
export interface RenameCostCenter {
  readonly kind: 'rename';
  /** Already trimmed by the command layer. */
  readonly name: string;
}
export type CostCenterCommand =
  | CreateCostCenter
  | RenameCostCenter
  | { readonly kind: 'deactivate' }
  | { readonly kind: 'reactivate' };

/** docs/decisions.md "Charges": 1 to 100 bytes of UTF-8, already trimmed, no control characters. */
export const COST_CENTER_NAME_MAX_BYTES = 100;

export function isValidCostCenterName(name: string): boolean {
  if (name !== name.trim()) return false;
  if (/\p{Cc}/u.test(name)) return false;
  const bytes = Buffer.byteLength(name, 'utf8');
  return bytes >= 1 && bytes <= COST_CENTER_NAME_MAX_BYTES;
}

/**
 * State table (SPEC 4.12: rename, `active` false or true). Repeating a move is a no-op, so a PATCH can be
 * retried and "deactivated at" keeps meaning the first deactivation. Renaming to the current name is a no-op
 * too. An inactive center can be renamed: it stays inactive.
 *
 *   state     | create                        | rename                       | deactivate                  | reactivate
 *   ----------+-------------------------------+------------------------------+-----------------------------+----------------------------
 *   none      | CostCenter.Created -> active  | 404 not_found                | 404 not_found               | 404 not_found
 *   active    | same facts: no-op; else 409   | CostCenter.Renamed -> active | CostCenter.Deactivated ->   | no-op
 *             |                               |   (same name: no-op)         |   inactive                  |
 *   inactive  | same facts: no-op; else 409   | CostCenter.Renamed ->        | no-op                       | CostCenter.Reactivated ->
 *             |                               |   inactive (same: no-op)     |                             |   active
 *
 * create and rename refuse an invalid name with 422 validation_error.
 */
export const costCenterTransitions: TransitionTable<
  CostCenterStatus,
  CostCenterCommand['kind'],
  CostCenterEvent['type']
> = {
  none: {
    create: { emits: 'CostCenter.Created', to: 'active' },
    rename: { refuse: 'not_found' },
    deactivate: { refuse: 'not_found' },
    reactivate: { refuse: 'not_found' },
  },
  active: {
    create: { repeat: 'same_facts_or_conflict' },
    rename: { emits: 'CostCenter.Renamed', to: 'active' },
    deactivate: { emits: 'CostCenter.Deactivated', to: 'inactive' },
    reactivate: { noop: true },
  },
  inactive: {
    create: { repeat: 'same_facts_or_conflict' },
    rename: { emits: 'CostCenter.Renamed', to: 'inactive' },
    deactivate: { noop: true },
    reactivate: { emits: 'CostCenter.Reactivated', to: 'active' },
  },
};

const invalidName = () =>
  new DomainError('validation_error', 'The name must have 1 to 100 bytes after trim.', { param: 'name' });

export const costCenter: Decider<CostCenterCommand, CostCenterEvent, CostCenterState> = {
  initialState: { status: 'none' },

  evolve(state, event) {
    switch (event.type) {
      case 'CostCenter.Created':
        return {
          status: 'active',
          costCenterId: event.data.cost_center_id,
          tenantId: event.data.tenant_id,
          name: event.data.name,
        };
      case 'CostCenter.Renamed':
        return state.status === 'none' ? state : { ...state, name: event.data.name };
      case 'CostCenter.Deactivated':
        return state.status === 'none' ? state : { ...state, status: 'inactive' };
      case 'CostCenter.Reactivated':
        return state.status === 'none' ? state : { ...state, status: 'active' };
    }
  },

  decide(command, state) {
    const move = costCenterTransitions[state.status][command.kind];
    if ('refuse' in move) return new DomainError(move.refuse, 'The cost center does not exist.');
    if ('noop' in move) return [];
    if ('repeat' in move) {
      const same =
        state.status !== 'none' &&
        command.kind === 'create' &&
        state.costCenterId === command.costCenterId &&
        state.tenantId === command.tenantId &&
        state.name === command.name;
      return same ? [] : new DomainError('conflict', 'This cost center already exists with other values.');
    }
    switch (command.kind) {
      case 'create':
        if (!isValidCostCenterName(command.name)) return invalidName();
        return [
          {
            type: 'CostCenter.Created',
            data: { cost_center_id: command.costCenterId, tenant_id: command.tenantId, name: command.name },
          },
        ];
      case 'rename':
        if (state.status === 'none') throw new Error('cost center state table: rename of a missing center');
        if (!isValidCostCenterName(command.name)) return invalidName();
        if (command.name === state.name) return [];
        return [
          { type: 'CostCenter.Renamed', data: { cost_center_id: state.costCenterId, name: command.name } },
        ];
      case 'deactivate':
      case 'reactivate': {
        if (
          state.status === 'none' ||
          move.emits === 'CostCenter.Created' ||
          move.emits === 'CostCenter.Renamed'
        ) {
          throw new Error(
            `cost center state table: ${command.kind} cannot emit ${move.emits} from ${state.status}`,
          );
        }
        return [{ type: move.emits, data: { cost_center_id: state.costCenterId } }];
      }
    }
  },
};
