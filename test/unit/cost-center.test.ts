import assert from 'node:assert/strict';
import fc from 'fast-check';
import { describe, test } from 'vitest';
import {
  type CostCenterCommand,
  type CostCenterEvent,
  type CreateCostCenter,
  costCenter,
  costCenterTransitions,
  isValidCostCenterName,
} from '../../src/aggregates/cost-center.ts';
import { DomainError, fold } from '../../src/aggregates/decider.ts';
import { scenario } from '../support/given-when-then.ts';
import { cellOf, transcribedTable } from '../support/state-table.ts';

const ctx = { now: new Date('2026-03-01T12:00:00Z') };

function create(over: Partial<CreateCostCenter> = {}): CreateCostCenter {
  return { kind: 'create', costCenterId: 'cc_a', tenantId: 'ten_a', name: 'Marketing', ...over };
}

const created: CostCenterEvent = {
  type: 'CostCenter.Created',
  data: { cost_center_id: 'cc_a', tenant_id: 'ten_a', name: 'Marketing' },
};
const renamed = (name: string): CostCenterEvent => ({
  type: 'CostCenter.Renamed',
  data: { cost_center_id: 'cc_a', name },
});
const deactivated: CostCenterEvent = { type: 'CostCenter.Deactivated', data: { cost_center_id: 'cc_a' } };
const reactivated: CostCenterEvent = { type: 'CostCenter.Reactivated', data: { cost_center_id: 'cc_a' } };

/**
 * SPEC 4.12's cost center table, transcribed here (issue 24 item 7): the oracle of the property
 * below, never `costCenterTransitions`, so a wrong cell in the code fails.
 */
const COST_CENTER_TABLE = transcribedTable(
  [
    `
    # SPEC 4.12: create, rename, 'active' false or true. A center is renamed whether active or not;
    # deactivating or reactivating twice changes nothing; a repeated creation replays.
    state    | create         | rename          | deactivate           | reactivate
    none     | Created>active | not_found       | not_found            | not_found
    active   | replay         | Renamed>active  | Deactivated>inactive | =
    inactive | replay         | Renamed>inactive| =                    | Reactivated>active
    `,
  ],
  'CostCenter.',
);

describe('cost center decider: creation (SPEC 4.12)', () => {
  test('none -> create -> active, for the tenant of the command', () => {
    const state = scenario(costCenter).given([]).when(create()).thenEmits([created]);
    assert.deepEqual(state, { status: 'active', costCenterId: 'cc_a', tenantId: 'ten_a', name: 'Marketing' });
  });

  test('SPEC 7 validation_error: a name outside 1 to 100 bytes, padded or with control characters', () => {
    for (const name of [
      '',
      ' ',
      ' Marketing',
      'Marketing ',
      'Mar\nketing',
      'x'.repeat(101),
      'é'.repeat(51),
    ]) {
      scenario(costCenter).given([]).when(create({ name })).thenFails('validation_error');
    }
    // Bytes, not characters: one byte and 50 two-byte characters fit.
    for (const name of ['x', 'é'.repeat(50), 'x'.repeat(100)]) {
      scenario(costCenter)
        .given([])
        .when(create({ name }))
        .thenEmits([{ ...created, data: { ...created.data, name } }]);
    }
  });

  test('an exact repeat is a no-op (a completed idempotency claim); other facts are 409 conflict', () => {
    scenario(costCenter).given([created]).when(create()).thenEmits([]);
    scenario(costCenter).given([created, deactivated]).when(create()).thenEmits([]);
    scenario(costCenter)
      .given([created])
      .when(create({ tenantId: 'ten_b' }))
      .thenFails('conflict');
    scenario(costCenter)
      .given([created])
      .when(create({ name: 'Sales' }))
      .thenFails('conflict');
  });
});

describe('cost center decider: rename, deactivate, reactivate (SPEC 4.12)', () => {
  test('none: every change is 404 not_found', () => {
    for (const command of [
      { kind: 'rename', name: 'Sales' },
      { kind: 'deactivate' },
      { kind: 'reactivate' },
    ] as const) {
      scenario(costCenter).given([]).when(command).thenFails('not_found');
    }
  });

  test('rename: a new name emits CostCenter.Renamed; the same name is a no-op; status is kept', () => {
    const state = scenario(costCenter)
      .given([created])
      .when({ kind: 'rename', name: 'Sales' })
      .thenEmits([renamed('Sales')]);
    assert.ok(state.status === 'active' && state.name === 'Sales');
    scenario(costCenter).given([created]).when({ kind: 'rename', name: 'Marketing' }).thenEmits([]);
    const inactive = scenario(costCenter)
      .given([created, deactivated])
      .when({ kind: 'rename', name: 'Sales' })
      .thenEmits([renamed('Sales')]);
    assert.equal(inactive.status, 'inactive');
  });

  test('rename: SPEC 7 validation_error for an invalid name', () => {
    scenario(costCenter).given([created]).when({ kind: 'rename', name: '' }).thenFails('validation_error');
    scenario(costCenter)
      .given([created])
      .when({ kind: 'rename', name: 'x'.repeat(101) })
      .thenFails('validation_error');
  });

  test('active -> deactivate -> inactive -> reactivate -> active', () => {
    const off = scenario(costCenter).given([created]).when({ kind: 'deactivate' }).thenEmits([deactivated]);
    assert.equal(off.status, 'inactive');
    const on = scenario(costCenter)
      .given([created, deactivated])
      .when({ kind: 'reactivate' })
      .thenEmits([reactivated]);
    assert.equal(on.status, 'active');
  });

  test('repeating a move appends nothing', () => {
    scenario(costCenter).given([created]).when({ kind: 'reactivate' }).thenEmits([]);
    scenario(costCenter).given([created, deactivated]).when({ kind: 'deactivate' }).thenEmits([]);
  });

  test('names are checked after trim by the command layer; the decider wants them trimmed', () => {
    assert.equal(isValidCostCenterName('Sales'), true);
    assert.equal(isValidCostCenterName(' Sales'), false);
  });
});

const command: fc.Arbitrary<CostCenterCommand> = fc.oneof(
  fc.record({
    kind: fc.constant('create' as const),
    costCenterId: fc.constant('cc_a'),
    tenantId: fc.constantFrom('ten_a', 'ten_b'),
    name: fc.constantFrom('Marketing', 'Sales', '', 'x'.repeat(101)),
  }),
  fc.record({ kind: fc.constant('rename' as const), name: fc.constantFrom('Marketing', 'Sales', 'Ops', '') }),
  fc.constant<CostCenterCommand>({ kind: 'deactivate' }),
  fc.constant<CostCenterCommand>({ kind: 'reactivate' }),
);

describe('cost center state table (property)', () => {
  test('every decision is the cell of the table; tenant and id never change; status moves only by (de|re)activate', () => {
    fc.assert(
      fc.property(fc.array(command, { maxLength: 40 }), (commands) => {
        const history: CostCenterEvent[] = [];
        for (const c of commands) {
          const before = fold(costCenter, history);
          const move = cellOf(COST_CENTER_TABLE, before.status, c.kind);
          const decision = costCenter.decide(c, before, ctx);
          const validName = !('name' in c) || isValidCostCenterName(c.name);
          if ('refuse' in move) {
            assert.ok(decision instanceof DomainError && decision.code === move.refuse);
          } else if ('noop' in move) {
            assert.deepEqual(decision, []);
          } else if ('repeat' in move) {
            const same =
              before.status !== 'none' &&
              c.kind === 'create' &&
              c.tenantId === before.tenantId &&
              c.name === before.name;
            if (same) assert.deepEqual(decision, []);
            else assert.ok(decision instanceof DomainError && decision.code === 'conflict');
          } else if (!validName) {
            assert.ok(decision instanceof DomainError && decision.code === 'validation_error');
          } else if (c.kind === 'rename' && before.status !== 'none' && before.name === c.name) {
            assert.deepEqual(decision, []);
          } else {
            assert.ok(Array.isArray(decision));
            assert.deepEqual(
              decision.map((e) => e.type),
              [move.emits],
            );
            assert.equal(fold(costCenter, [...history, ...decision]).status, move.to);
          }
          if (Array.isArray(decision)) history.push(...decision);
          const after = fold(costCenter, history);
          if (before.status !== 'none' && after.status !== 'none') {
            assert.equal(after.tenantId, before.tenantId);
            assert.equal(after.costCenterId, before.costCenterId);
            if (before.status !== after.status) {
              assert.equal(c.kind, after.status === 'inactive' ? 'deactivate' : 'reactivate');
            }
          }
        }
        // Created once, first; Deactivated and Reactivated strictly alternate.
        const types = history.map((e) => e.type);
        assert.ok(types.slice(1).every((t) => t !== 'CostCenter.Created'));
        types
          .filter((t) => t === 'CostCenter.Deactivated' || t === 'CostCenter.Reactivated')
          .forEach((t, i) => {
            assert.equal(t, i % 2 === 0 ? 'CostCenter.Deactivated' : 'CostCenter.Reactivated');
          });
      }),
    );
  });
});

describe('the state table against its SPEC transcription', () => {
  test('costCenterTransitions is the transcription, cell for cell', () => {
    assert.deepEqual(costCenterTransitions, COST_CENTER_TABLE);
  });
});
