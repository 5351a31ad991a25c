import { z } from 'zod';
import { defineEvent } from '../events/event-registry.ts';
import { type Decider, DomainError, type DomainEvent } from './decider.ts';
import { isValidRegistryName } from './registry-name.ts';
import type { TransitionTable } from './transition-table.ts';

/**
 * A tenant type (SPEC 2.7 "Tenants, types"; stream `tenant_type-<id>`): a name, unique case-insensitively,
 * and whether tenants of the type may have children. Name uniqueness spans streams, so it is enforced by the
 * command layer with a reservation stream (`tenant_type_name-<sha256(lower(name))>`), not here.
 */

const typeId = z.string().startsWith('tty_');

const createdData = z.strictObject({ type_id: typeId, name: z.string(), allows_children: z.boolean() });
/** The claim on a name, in `tenant_type_name-<hash>`. It carries the whole request, so a claim left without
 * its TenantType.Created can be completed by whoever finds it (docs/decisions.md "Identity"). */
const nameReservedData = createdData;

export const tenantTypeEvents = [
  defineEvent({
    type: 'TenantType.Created',
    audit: { action: 'tenant_type.created', when: 'a tenant type was created' },
    schema: createdData,
  }),
  defineEvent({ type: 'TenantTypeName.Reserved', schema: nameReservedData }),
];

export type TenantTypeCreatedData = z.infer<typeof createdData>;
export type TenantTypeNameReservedData = z.infer<typeof nameReservedData>;
export type TenantTypeEvent = DomainEvent<'TenantType.Created', TenantTypeCreatedData>;

export type TenantTypeState =
  | { readonly status: 'none' }
  | {
      readonly status: 'created';
      readonly typeId: string;
      readonly name: string;
      readonly allowsChildren: boolean;
    };

export interface CreateTenantType {
  readonly kind: 'create';
  readonly typeId: string;
  readonly name: string;
  readonly allowsChildren: boolean;
}
export type TenantTypeCommand = CreateTenantType;

/**
 * State table. A type is created once and never changes (no event edits it), so `allows_children` read
 * when a child tenant is created cannot be withdrawn behind its back.
 *
 *   state    | create
 *   ---------+--------------------------------------------------
 *   none     | TenantType.Created -> created
 *   created  | same facts: no-op (a retry); other facts: 409 conflict
 */
export const tenantTypeTransitions: TransitionTable<
  'created',
  TenantTypeCommand['kind'],
  TenantTypeEvent['type']
> = {
  none: { create: { emits: 'TenantType.Created', to: 'created' } },
  created: { create: { repeat: 'same_facts_or_conflict' } },
};

export const tenantType: Decider<TenantTypeCommand, TenantTypeEvent, TenantTypeState> = {
  initialState: { status: 'none' },

  evolve(_state, event) {
    switch (event.type) {
      case 'TenantType.Created':
        return {
          status: 'created',
          typeId: event.data.type_id,
          name: event.data.name,
          allowsChildren: event.data.allows_children,
        };
    }
  },

  decide(command, state) {
    const move = tenantTypeTransitions[state.status][command.kind];
    if ('repeat' in move) {
      const same =
        state.status === 'created' &&
        state.typeId === command.typeId &&
        state.name === command.name &&
        state.allowsChildren === command.allowsChildren;
      return same ? [] : new DomainError('conflict', 'This tenant type already exists with other values.');
    }
    if (!('emits' in move)) return 'noop' in move ? [] : new DomainError(move.refuse, 'Refused.');
    if (!isValidRegistryName(command.name)) {
      return new DomainError('validation_error', 'The name must have 2 to 120 bytes.', { param: 'name' });
    }
    return [
      {
        type: move.emits,
        data: { type_id: command.typeId, name: command.name, allows_children: command.allowsChildren },
      },
    ];
  },
};
