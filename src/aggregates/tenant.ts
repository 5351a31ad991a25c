import { z } from 'zod';
import { defineEvent, type EventOf } from '../events/event-registry.ts';
import { type Decider, DomainError } from './decider.ts';
import { isValidRegistryName } from './registry-name.ts';
import type { TransitionTable } from './transition-table.ts';

/**
 * A tenant (SPEC 2.7, 5.5; stream `tenant-<id>`): a node of the tenant tree. Its place in the tree (parent,
 * ancestors) and its type are fixed at creation; only its status moves, between `active` and `suspended`.
 * A suspended tenant or ancestor blocks credentials (SPEC 5.5); reactivation restores keys.
 */

const tenantId = z.string().startsWith('ten_');

const createdData = z.strictObject({
  tenant_id: tenantId,
  name: z.string(),
  type_id: z.string().startsWith('tty_'),
  parent_id: tenantId.nullable(),
  /** Root first, the tenant itself last: subtree checks need no recursive walk. */
  ancestor_ids: z.array(tenantId).min(1),
});
export type TenantCreatedData = z.infer<typeof createdData>;
const statusData = z.strictObject({ tenant_id: tenantId });

export type TenantStatus = 'active' | 'suspended';

export type TenantState =
  | { readonly status: 'none' }
  | {
      readonly status: TenantStatus;
      readonly tenantId: string;
      readonly name: string;
      readonly typeId: string;
      readonly parentId: string | null;
      readonly ancestorIds: readonly string[];
    };

export const tenantEvents = [
  defineEvent({
    type: 'Tenant.Created',
    audit: { action: 'tenant.created', when: 'a tenant was created' },
    schema: createdData,
  }),
  defineEvent({
    type: 'Tenant.Suspended',
    audit: { action: 'tenant.suspended', when: 'a tenant was suspended' },
    schema: statusData,
  }),
  defineEvent({
    type: 'Tenant.Reactivated',
    audit: { action: 'tenant.reactivated', when: 'a tenant was reactivated' },
    schema: statusData,
  }),
];

export type TenantEvent = EventOf<(typeof tenantEvents)[number]>;

export type TenantCommand = CreateTenant | { readonly kind: 'suspend' } | { readonly kind: 'reactivate' };
export interface CreateTenant {
  readonly kind: 'create';
  readonly tenantId: string;
  readonly name: string;
  readonly typeId: string;
  /** Whether `tenant_type-<typeId>` exists. */
  readonly typeExists: boolean;
  readonly parent: ParentFacts;
}

/**
 * The parent as the command layer found it when the command was built. A decider sees only its own stream,
 * so facts about other aggregates come in the command. They cannot go stale in a way that matters: tenants
 * and types are never deleted, and neither a parent's place in the tree nor its type's `allows_children`
 * ever changes.
 */
export type ParentFacts =
  | { readonly kind: 'root' }
  | { readonly kind: 'missing'; readonly tenantId: string }
  | {
      readonly kind: 'found';
      readonly tenantId: string;
      readonly ancestorIds: readonly string[];
      readonly typeAllowsChildren: boolean;
    };

/**
 * State table (SPEC 5.5: active <-> suspended; repeating a move is a no-op, so an operator's retry appends
 * nothing and "reactivated at" keeps meaning the first reactivation).
 *
 *   state      | create                           | suspend                        | reactivate
 *   -----------+----------------------------------+--------------------------------+----------------------------------
 *   none       | Tenant.Created -> active (*)     | 404 not_found                  | 404 not_found
 *   active     | same facts: no-op; else 409      | Tenant.Suspended -> suspended  | no-op
 *   suspended  | same facts: no-op; else 409      | no-op                          | Tenant.Reactivated -> active
 *
 * (*) refused when the name is invalid (422 validation_error), the type or the parent does not exist
 * (404 not_found), or the parent's type does not allow children (409 conflict: a registry conflict, SPEC 7;
 * the request is well formed, the registry refuses it — docs/decisions.md "Identity").
 */
export const tenantTransitions: TransitionTable<TenantStatus, TenantCommand['kind'], TenantEvent['type']> = {
  none: {
    create: { emits: 'Tenant.Created', to: 'active' },
    suspend: { refuse: 'not_found' },
    reactivate: { refuse: 'not_found' },
  },
  active: {
    create: { repeat: 'same_facts_or_conflict' },
    suspend: { emits: 'Tenant.Suspended', to: 'suspended' },
    reactivate: { noop: true },
  },
  suspended: {
    create: { repeat: 'same_facts_or_conflict' },
    suspend: { noop: true },
    reactivate: { emits: 'Tenant.Reactivated', to: 'active' },
  },
};

function parentIdOf(parent: ParentFacts): string | null {
  return parent.kind === 'root' ? null : parent.tenantId;
}

/** The checks of a creation, in the order a caller would fix them. */
function create(command: CreateTenant): Decision {
  if (!isValidRegistryName(command.name)) {
    return new DomainError('validation_error', 'The name must have 2 to 120 bytes.', { param: 'name' });
  }
  if (!command.typeExists) {
    return new DomainError('not_found', 'The tenant type does not exist.', { param: 'type_id' });
  }
  const { parent } = command;
  // A tenant cannot be its own parent; its stream is empty, so the facts would be stale anyway.
  if (parent.kind === 'missing' || (parent.kind === 'found' && parent.tenantId === command.tenantId)) {
    return new DomainError('not_found', 'The parent tenant does not exist.', { param: 'parent_id' });
  }
  if (parent.kind === 'found' && !parent.typeAllowsChildren) {
    return new DomainError('conflict', "The parent's tenant type does not allow children.", {
      param: 'parent_id',
    });
  }
  const ancestors = parent.kind === 'found' ? parent.ancestorIds : [];
  return [
    {
      type: 'Tenant.Created',
      data: {
        tenant_id: command.tenantId,
        name: command.name,
        type_id: command.typeId,
        parent_id: parentIdOf(parent),
        ancestor_ids: [...ancestors, command.tenantId],
      },
    },
  ];
}

type Decision = readonly TenantEvent[] | DomainError;

export const tenant: Decider<TenantCommand, TenantEvent, TenantState> = {
  initialState: { status: 'none' },

  evolve(state, event) {
    switch (event.type) {
      case 'Tenant.Created':
        return {
          status: 'active',
          tenantId: event.data.tenant_id,
          name: event.data.name,
          typeId: event.data.type_id,
          parentId: event.data.parent_id,
          ancestorIds: event.data.ancestor_ids,
        };
      case 'Tenant.Suspended':
        return state.status === 'none' ? state : { ...state, status: 'suspended' };
      case 'Tenant.Reactivated':
        return state.status === 'none' ? state : { ...state, status: 'active' };
    }
  },

  decide(command, state) {
    const move = tenantTransitions[state.status][command.kind];
    if ('refuse' in move) return new DomainError(move.refuse, 'The tenant does not exist.');
    if ('noop' in move) return [];
    if ('repeat' in move) {
      const same =
        state.status !== 'none' &&
        command.kind === 'create' &&
        state.tenantId === command.tenantId &&
        state.name === command.name &&
        state.typeId === command.typeId &&
        state.parentId === parentIdOf(command.parent);
      return same ? [] : new DomainError('conflict', 'This tenant already exists with other values.');
    }
    if (command.kind === 'create') return create(command);
    // Only an existing tenant reaches here (the table refuses suspend/reactivate in `none`).
    if (state.status === 'none' || move.emits === 'Tenant.Created') {
      throw new Error(`tenant state table: ${command.kind} cannot emit ${move.emits} from ${state.status}`);
    }
    return [{ type: move.emits, data: { tenant_id: state.tenantId } }];
  },
};
