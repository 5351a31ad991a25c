import assert from 'node:assert/strict';
import fc from 'fast-check';
import { describe, test } from 'vitest';
import { fold } from '../../src/aggregates/decider.ts';
import {
  type SubaccountCommand,
  type SubaccountEvent,
  type SubaccountReservedData,
  subaccount,
} from '../../src/aggregates/subaccount.ts';
import { scenario } from '../support/given-when-then.ts';
import { stepByTable, transcribedTable } from '../support/state-table.ts';

const ctx = { now: new Date('2026-11-27T12:00:00Z') };

const data: SubaccountReservedData = {
  subaccount_id: 'sac_a',
  provider_id: 'prv_m',
  tenant_id: 'ten_a',
  name: 'Loja Filha Ltda',
  document: '11222333000181',
  email: 'financeiro@lojafilha.example',
};
const reserve = (over: Partial<SubaccountReservedData> = {}): SubaccountCommand => ({
  kind: 'reserve',
  data: { ...data, ...over },
});
const reserved: SubaccountEvent = { type: 'Subaccount.Reserved', data };
const createdCmd: SubaccountCommand = {
  kind: 'record_created',
  providerReference: '9001',
  tokensCiphertext: 'v2.sealed',
  via: 'creation',
};
const created: SubaccountEvent = {
  type: 'Subaccount.Created',
  data: {
    subaccount_id: 'sac_a',
    provider_reference: '9001',
    tokens_ciphertext: 'v2.sealed',
    via: 'creation',
  },
};
const uncertain: SubaccountEvent = {
  type: 'Subaccount.Uncertain',
  data: { subaccount_id: 'sac_a', last_error_code: 'timeout', provider_reference: null },
};
const disabled: SubaccountEvent = { type: 'Subaccount.Disabled', data: { subaccount_id: 'sac_a' } };

/**
 * SPEC 3.6 and 4.14 transcribed (the oracle, never `subaccountTransitions`): `creating`/`unknown` need the
 * provider's answer or a consult; `failed` is final (a new attempt is a new record with a new key); linking is
 * disabled and enabled locally, only once the account exists.
 */
const SUBACCOUNT_TABLE = transcribedTable(
  [
    `
    # SPEC 3.6: reserve before the call; the answer (or a consult) resolves creating/unknown.
    state    | reserve           | record_created   | record_failed  | record_uncertain
    none     | Reserved>creating | not_found        | not_found      | not_found
    creating | replay            | Created>active   | Failed>failed  | Uncertain>unknown
    unknown  | replay            | Created>active   | Failed>failed  | =
    failed   | replay            | =                | =              | =
    active   | replay            | =                | =              | =
    disabled | replay            | =                | =              | =
    `,
    `
    # SPEC 4.14: "Disabling a link is local"; credentials replaced locally, only on an existing account.
    state    | disable            | enable          | replace_token
    none     | not_found          | not_found       | not_found
    creating | conflict           | conflict        | conflict
    unknown  | conflict           | conflict        | conflict
    failed   | conflict           | conflict        | conflict
    active   | Disabled>disabled  | =               | TokenReplaced>active
    disabled | =                  | Enabled>active  | TokenReplaced>disabled
    `,
  ],
  'Subaccount.',
);

describe('subaccount decider (SPEC 3.6)', () => {
  test('reserve -> creating, before any provider call; the record has no remote id yet', () => {
    const state = scenario(subaccount).given([]).when(reserve()).thenEmits([reserved]);
    assert.ok(state.status === 'creating' && state.providerReference === null);
  });

  test('created -> active with the remote id and the sealed tokens', () => {
    const state = scenario(subaccount).given([reserved]).when(createdCmd).thenEmits([created]);
    assert.ok(state.status === 'active');
    assert.equal(state.providerReference, '9001');
    assert.equal(state.tokensCiphertext, 'v2.sealed');
  });

  test('refused -> failed, sanitized: a non-numeric provider code is dropped, never stored', () => {
    const state = scenario(subaccount)
      .given([reserved])
      .when({
        kind: 'record_failed',
        errorCode: 'matrix_sandbox_key',
        providerErrorCode: '301',
        message: 'm',
      })
      .thenEmits([
        {
          type: 'Subaccount.Failed',
          data: {
            subaccount_id: 'sac_a',
            last_error_code: 'matrix_sandbox_key',
            last_provider_error_code: '301',
            last_error_message: 'm',
          },
        },
      ]);
    assert.ok(state.status === 'failed' && state.providerReference === null);
    for (const bad of ['abc', '12345678901', '', '3 1']) {
      const decision = subaccount.decide(
        { kind: 'record_failed', errorCode: 'provider_error', providerErrorCode: bad, message: 'm' },
        fold(subaccount, [reserved]),
        ctx,
      );
      assert.ok(Array.isArray(decision));
      const [event] = decision;
      assert.ok(event?.type === 'Subaccount.Failed');
      assert.equal(event.data.last_provider_error_code, null);
    }
  });

  test('uncertain -> unknown; a consult that finds it -> active; one that does not -> failed, no remote id', () => {
    scenario(subaccount)
      .given([reserved])
      .when({ kind: 'record_uncertain', errorCode: 'timeout', providerReference: null })
      .thenEmits([uncertain]);
    const found = scenario(subaccount)
      .given([reserved, uncertain])
      .when({ ...createdCmd, via: 'consult' })
      .thenEmits([{ ...created, data: { ...created.data, via: 'consult' } }]);
    assert.equal(found.status, 'active');
    const after = scenario(subaccount)
      .given([reserved, uncertain])
      .when({
        kind: 'record_failed',
        errorCode: 'not_found_at_provider',
        providerErrorCode: null,
        message: 'm',
      })
      .thenEmits([
        {
          type: 'Subaccount.Failed',
          data: {
            subaccount_id: 'sac_a',
            last_error_code: 'not_found_at_provider',
            last_provider_error_code: null,
            last_error_message: 'm',
          },
        },
      ]);
    assert.ok(after.status === 'failed' && after.providerReference === null);
  });

  test('a repeated reservation with the same facts is a no-op; other facts are 409 conflict', () => {
    scenario(subaccount).given([reserved]).when(reserve()).thenEmits([]);
    scenario(subaccount).given([reserved, created]).when(reserve()).thenEmits([]);
    scenario(subaccount)
      .given([reserved])
      .when(reserve({ document: '11222333000262' }))
      .thenFails('conflict');
  });

  test('replace_token keeps the status and stores the new sealed set; refused before the account exists', () => {
    const state = scenario(subaccount)
      .given([reserved, created, disabled])
      .when({ kind: 'replace_token', environment: 'sandbox', tokensCiphertext: 'v2.new' })
      .thenEmits([
        {
          type: 'Subaccount.TokenReplaced',
          data: { subaccount_id: 'sac_a', environment: 'sandbox', tokens_ciphertext: 'v2.new' },
        },
      ]);
    assert.ok(state.status === 'disabled' && state.tokensCiphertext === 'v2.new');
    scenario(subaccount)
      .given([reserved, uncertain])
      .when({ kind: 'replace_token', environment: 'sandbox', tokensCiphertext: 'v2.new' })
      .thenFails('conflict');
  });

  test('disable and enable are local toggles of an active link only', () => {
    scenario(subaccount).given([reserved, created]).when({ kind: 'disable' }).thenEmits([disabled]);
    scenario(subaccount).given([reserved, created, disabled]).when({ kind: 'disable' }).thenEmits([]);
    scenario(subaccount)
      .given([reserved, created, disabled])
      .when({ kind: 'enable' })
      .thenEmits([{ type: 'Subaccount.Enabled', data: { subaccount_id: 'sac_a' } }]);
    scenario(subaccount).given([reserved]).when({ kind: 'disable' }).thenFails('conflict');
    scenario(subaccount).given([]).when({ kind: 'enable' }).thenFails('not_found');
  });
});

const command: fc.Arbitrary<SubaccountCommand> = fc.oneof(
  fc.constantFrom(reserve(), reserve({ tenant_id: 'ten_b' })),
  fc.record({
    kind: fc.constant('record_created' as const),
    providerReference: fc.constantFrom('9001', '9002'),
    tokensCiphertext: fc.constantFrom('v2.a', null),
    via: fc.constantFrom('creation' as const, 'consult' as const),
  }),
  fc.record({
    kind: fc.constant('record_failed' as const),
    errorCode: fc.constantFrom('matrix_sandbox_key', 'provider_error', 'not_found_at_provider'),
    providerErrorCode: fc.constantFrom('301', '1343', null, 'x1'),
    message: fc.constant('static'),
  }),
  fc.record({
    kind: fc.constant('record_uncertain' as const),
    errorCode: fc.constantFrom('timeout', 'connection'),
    providerReference: fc.constantFrom('9001', null),
  }),
  fc.constant<SubaccountCommand>({ kind: 'disable' }),
  fc.constant<SubaccountCommand>({ kind: 'enable' }),
  fc.record({
    kind: fc.constant('replace_token' as const),
    environment: fc.constantFrom('production' as const, 'sandbox' as const),
    tokensCiphertext: fc.constant('v2.b'),
  }),
);

describe('subaccount state table (property)', () => {
  test('every decision is the SPEC cell; the first truth is never overwritten; tenant fixed; provider codes digits only', () => {
    fc.assert(
      fc.property(fc.array(command, { maxLength: 30 }), (commands) => {
        const history: SubaccountEvent[] = [];
        let firstReference: string | null = null;
        for (const c of commands) {
          history.push(
            ...stepByTable(subaccount, SUBACCOUNT_TABLE, history, c, ctx, {
              creation: 'reserve',
              sameFacts: (s, cmd) =>
                cmd.kind === 'reserve' && s.status !== 'none' && s.tenantId === cmd.data.tenant_id,
            }),
          );
          const after = fold(subaccount, history);
          if (after.status === 'active' || after.status === 'disabled') {
            firstReference ??= after.providerReference;
            assert.equal(after.providerReference, firstReference);
          }
          if (after.status !== 'none') {
            assert.equal(
              after.tenantId,
              history[0]?.type === 'Subaccount.Reserved' && history[0].data.tenant_id,
            );
            if (after.lastProviderErrorCode !== null) assert.match(after.lastProviderErrorCode, /^\d{1,10}$/);
          }
        }
      }),
    );
  });
});
