import assert from 'node:assert/strict';
import fc from 'fast-check';
import { describe, test } from 'vitest';
import { fold } from '../../src/aggregates/decider.ts';
import {
  type CreateTenant,
  type ParentFacts,
  type TenantCommand,
  type TenantEvent,
  tenant,
  tenantTransitions,
} from '../../src/aggregates/tenant.ts';
import {
  type TenantTypeCommand,
  type TenantTypeEvent,
  tenantType,
  tenantTypeTransitions,
} from '../../src/aggregates/tenant-type.ts';
import { scenario } from '../support/given-when-then.ts';
import { stepByTable, transcribedTable } from '../support/state-table.ts';

const ctx = { now: new Date('2026-03-01T12:00:00Z') };
const parent: ParentFacts = {
  kind: 'found',
  tenantId: 'ten_parent',
  ancestorIds: ['ten_root', 'ten_parent'],
  typeAllowsChildren: true,
};

function create(over: Partial<CreateTenant> = {}): CreateTenant {
  return {
    kind: 'create',
    tenantId: 'ten_a',
    name: 'Acme Pagamentos',
    typeId: 'tty_company',
    typeExists: true,
    parent,
    ...over,
  };
}

const created: TenantEvent = {
  type: 'Tenant.Created',
  data: {
    tenant_id: 'ten_a',
    name: 'Acme Pagamentos',
    type_id: 'tty_company',
    parent_id: 'ten_parent',
    ancestor_ids: ['ten_root', 'ten_parent', 'ten_a'],
  },
};
const suspended: TenantEvent = { type: 'Tenant.Suspended', data: { tenant_id: 'ten_a' } };
const reactivated: TenantEvent = { type: 'Tenant.Reactivated', data: { tenant_id: 'ten_a' } };

/**
 * SPEC 5.5's tenant table, transcribed here (issue 24 item 7): the oracle of the property
 * below, never `tenantTransitions`, so a wrong cell in the code fails.
 */
const TENANT_TABLE = transcribedTable(
  [
    `
    # SPEC 5.5 rule 5: a suspended tenant blocks credentials, "keys work again after reactivation";
    # suspending or reactivating twice changes nothing; a repeated creation replays.
    state     | create         | suspend             | reactivate
    none      | Created>active | not_found           | not_found
    active    | replay         | Suspended>suspended | =
    suspended | replay         | =                   | Reactivated>active
    `,
  ],
  'Tenant.',
);

/**
 * SPEC 2.7's tenant type table, transcribed here (issue 24 item 7): the oracle of the property
 * below, never `tenantTypeTransitions`, so a wrong cell in the code fails.
 */
const TENANT_TYPE_TABLE = transcribedTable(
  [
    `
    # SPEC 2.7: a tenant type is created once (a retry replays).
    state   | create
    none    | Created>created
    created | replay
    `,
  ],
  'TenantType.',
);

describe('tenant decider: creation (SPEC 2.7, 5.5)', () => {
  test('a root tenant: its ancestors are itself alone', () => {
    const state = scenario(tenant)
      .given([])
      .when(create({ parent: { kind: 'root' } }))
      .thenEmits([
        {
          type: 'Tenant.Created',
          data: {
            tenant_id: 'ten_a',
            name: 'Acme Pagamentos',
            type_id: 'tty_company',
            parent_id: null,
            ancestor_ids: ['ten_a'],
          },
        },
      ]);
    assert.equal(state.status, 'active');
  });

  test("a child: the parent's ancestors, root first, then itself", () => {
    const state = scenario(tenant).given([]).when(create()).thenEmits([created]);
    assert.equal(state.status, 'active');
    assert.deepEqual(state.ancestorIds, ['ten_root', 'ten_parent', 'ten_a']);
  });

  test('SPEC 7 validation_error: a name outside 2 to 120 bytes, padded or with control characters', () => {
    for (const name of ['A', '', ' Acme', 'Acme ', 'Ac\nme', 'x'.repeat(121), 'é'.repeat(61)]) {
      scenario(tenant).given([]).when(create({ name })).thenFails('validation_error');
    }
    // Bytes, not characters: 60 two-byte characters fit.
    scenario(tenant)
      .given([])
      .when(create({ name: 'é'.repeat(60) }))
      .thenEmits([{ ...created, data: { ...created.data, name: 'é'.repeat(60) } }]);
  });

  test('SPEC 7 not_found: the type does not exist', () => {
    scenario(tenant)
      .given([])
      .when(create({ typeExists: false }))
      .thenFails('not_found');
  });

  test('SPEC 7 not_found: the parent does not exist, or is the tenant itself', () => {
    scenario(tenant)
      .given([])
      .when(create({ parent: { kind: 'missing', tenantId: 'ten_nope' } }))
      .thenFails('not_found');
    scenario(tenant)
      .given([])
      .when(create({ parent: { ...parent, tenantId: 'ten_a' } }))
      .thenFails('not_found');
  });

  test("SPEC 7 409 registry conflict: the parent's type does not allow children", () => {
    const error = scenario(tenant)
      .given([])
      .when(create({ parent: { ...parent, typeAllowsChildren: false } }))
      .thenFails('conflict');
    assert.equal(error.details.param, 'parent_id');
  });

  test('an exact repeat of the creation is a no-op (a retry), in either status', () => {
    scenario(tenant).given([created]).when(create()).thenEmits([]);
    scenario(tenant).given([created, suspended]).when(create()).thenEmits([]);
  });

  test('parent, type and name are immutable: a creation with other facts is 409 conflict', () => {
    for (const other of [
      create({ parent: { kind: 'root' } }),
      create({ parent: { ...parent, tenantId: 'ten_other', ancestorIds: ['ten_other'] } }),
      create({ typeId: 'tty_other' }),
      create({ name: 'Another Name' }),
    ]) {
      scenario(tenant).given([created]).when(other).thenFails('conflict');
    }
  });
});

describe('tenant decider: active <-> suspended (SPEC 5.5)', () => {
  test('none: suspend and reactivate are 404 not_found', () => {
    scenario(tenant).given([]).when({ kind: 'suspend' }).thenFails('not_found');
    scenario(tenant).given([]).when({ kind: 'reactivate' }).thenFails('not_found');
  });

  test('active -> suspend -> suspended', () => {
    const state = scenario(tenant).given([created]).when({ kind: 'suspend' }).thenEmits([suspended]);
    assert.equal(state.status, 'suspended');
  });

  test('suspended -> reactivate -> active', () => {
    const state = scenario(tenant)
      .given([created, suspended])
      .when({ kind: 'reactivate' })
      .thenEmits([reactivated]);
    assert.equal(state.status, 'active');
  });

  test('suspending a suspended tenant and reactivating an active one append nothing', () => {
    scenario(tenant).given([created, suspended]).when({ kind: 'suspend' }).thenEmits([]);
    scenario(tenant).given([created]).when({ kind: 'reactivate' }).thenEmits([]);
    scenario(tenant).given([created, suspended, reactivated]).when({ kind: 'reactivate' }).thenEmits([]);
  });

  test('time plays no part: the same history and command decide the same at any instant', () => {
    const a = tenant.decide({ kind: 'suspend' }, fold(tenant, [created]), { now: new Date(0) });
    const b = tenant.decide({ kind: 'suspend' }, fold(tenant, [created]), ctx);
    assert.deepEqual(a, b);
  });
});

const parentFacts: fc.Arbitrary<ParentFacts> = fc.oneof(
  fc.constant<ParentFacts>({ kind: 'root' }),
  fc.constant<ParentFacts>({ kind: 'missing', tenantId: 'ten_gone' }),
  fc.boolean().map<ParentFacts>((typeAllowsChildren) => ({ ...parent, typeAllowsChildren })),
  fc.constant<ParentFacts>({ ...parent, tenantId: 'ten_a' }),
);
const tenantCommand: fc.Arbitrary<TenantCommand> = fc.oneof(
  fc.record({
    kind: fc.constant('create' as const),
    tenantId: fc.constant('ten_a'),
    name: fc.constantFrom('Acme', 'Beta Ltda', 'x', ' padded '),
    typeId: fc.constantFrom('tty_company', 'tty_branch'),
    typeExists: fc.boolean(),
    parent: parentFacts,
  }),
  fc.constant<TenantCommand>({ kind: 'suspend' }),
  fc.constant<TenantCommand>({ kind: 'reactivate' }),
);

describe('tenant state table (property)', () => {
  test('no command sequence leaves the table; status alternates only through suspend and reactivate', () => {
    fc.assert(
      fc.property(fc.array(tenantCommand, { maxLength: 40 }), (commands) => {
        const history: TenantEvent[] = [];
        let fixed: string | undefined;
        for (const command of commands) {
          const before = fold(tenant, history);
          history.push(
            ...stepByTable(tenant, TENANT_TABLE, history, command, ctx, {
              creation: 'create',
              creationRefusals: ['validation_error', 'not_found', 'conflict'],
            }),
          );
          const after = fold(tenant, history);
          if (before.status !== after.status && before.status !== 'none') {
            assert.equal(command.kind, after.status === 'suspended' ? 'suspend' : 'reactivate');
          }
          if (after.status !== 'none') {
            // Parent, type and ancestors never change once created.
            const facts = JSON.stringify([after.parentId, after.typeId, after.ancestorIds, after.name]);
            fixed ??= facts;
            assert.equal(facts, fixed);
            assert.equal(after.ancestorIds.at(-1), after.tenantId);
          }
        }
        // Created once, first; then Suspended and Reactivated strictly alternate.
        const types = history.map((e) => e.type);
        assert.ok(types.slice(1).every((t) => t !== 'Tenant.Created'));
        types.slice(1).forEach((t, i) => {
          assert.equal(t, i % 2 === 0 ? 'Tenant.Suspended' : 'Tenant.Reactivated');
        });
      }),
    );
  });
});

describe('tenant type decider (SPEC 2.7)', () => {
  const createType = { kind: 'create', typeId: 'tty_1', name: 'Franchise', allowsChildren: true } as const;
  const typeCreated: TenantTypeEvent = {
    type: 'TenantType.Created',
    data: { type_id: 'tty_1', name: 'Franchise', allows_children: true },
  };

  test('none -> create -> created', () => {
    const state = scenario(tenantType).given([]).when(createType).thenEmits([typeCreated]);
    assert.equal(state.status, 'created');
  });

  test('SPEC 7 validation_error: an invalid name', () => {
    scenario(tenantType)
      .given([])
      .when({ ...createType, name: 'F' })
      .thenFails('validation_error');
  });

  test('an exact repeat is a no-op; other facts are 409 conflict (allows_children never changes)', () => {
    scenario(tenantType).given([typeCreated]).when(createType).thenEmits([]);
    scenario(tenantType)
      .given([typeCreated])
      .when({ ...createType, allowsChildren: false })
      .thenFails('conflict');
    scenario(tenantType)
      .given([typeCreated])
      .when({ ...createType, name: 'Other' })
      .thenFails('conflict');
  });

  test('property: no command sequence leaves the table; one TenantType.Created at most', () => {
    const command: fc.Arbitrary<TenantTypeCommand> = fc.record({
      kind: fc.constant('create' as const),
      typeId: fc.constant('tty_1'),
      name: fc.constantFrom('Franchise', 'Store', 'x'),
      allowsChildren: fc.boolean(),
    });
    fc.assert(
      fc.property(fc.array(command, { maxLength: 20 }), (commands) => {
        const history: TenantTypeEvent[] = [];
        for (const c of commands) {
          history.push(
            ...stepByTable(tenantType, TENANT_TYPE_TABLE, history, c, ctx, { creation: 'create' }),
          );
        }
        assert.ok(history.length <= 1);
      }),
    );
  });
});

describe('the state table against its SPEC transcription', () => {
  test('tenantTransitions is the transcription, cell for cell', () => {
    assert.deepEqual(tenantTransitions, TENANT_TABLE);
  });

  test('tenantTypeTransitions is the transcription, cell for cell', () => {
    assert.deepEqual(tenantTypeTransitions, TENANT_TYPE_TABLE);
  });
});
