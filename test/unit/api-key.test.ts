import assert from 'node:assert/strict';
import fc from 'fast-check';
import { describe, test } from 'vitest';
import { SCOPES, type Scope } from '../../src/aggregates/access.ts';
import {
  type ApiKeyCommand,
  type ApiKeyEvent,
  apiKey,
  apiKeyTransitions,
  type IssueApiKey,
} from '../../src/aggregates/api-key.ts';
import { fold } from '../../src/aggregates/decider.ts';
import { livemodeOfKey } from '../../src/crypto/secrets.ts';
import { scenario } from '../support/given-when-then.ts';
import { stepByTable, transcribedTable } from '../support/state-table.ts';

const ctx = { now: new Date('2026-03-01T12:00:00Z') };
const digest = 'a'.repeat(64);

function issue(over: Partial<IssueApiKey> = {}): IssueApiKey {
  return {
    kind: 'issue',
    keyId: 'key_1',
    tenantId: 'ten_a',
    tenantExists: true,
    livemode: false,
    name: 'ERP integration',
    scopes: ['pix:write', 'transactions:read'],
    accessProfile: 'standard',
    secretSha256: digest,
    prefix: 'clb_test_AbCd',
    createdBy: 'user:usr_1',
    ...over,
  };
}

const issued: ApiKeyEvent = {
  type: 'ApiKey.Issued',
  data: {
    key_id: 'key_1',
    tenant_id: 'ten_a',
    livemode: false,
    name: 'ERP integration',
    scopes: ['pix:write', 'transactions:read'],
    access_profile: 'standard',
    secret_sha256: digest,
    prefix: 'clb_test_AbCd',
    created_by: 'user:usr_1',
  },
};
const revoked: ApiKeyEvent = { type: 'ApiKey.Revoked', data: { key_id: 'key_1' } };

/**
 * SPEC 5's API key table, transcribed here (issue 24 item 7): the oracle of the property
 * below, never `apiKeyTransitions`, so a wrong cell in the code fails.
 */
const API_KEY_TABLE = transcribedTable(
  [
    `
    # SPEC 5 and 7 ('unauthorized': key "revoked"): a key is issued once (a retry replays), revoked once
    # (again: unchanged), and a revoked key is never issued again.
    state   | issue         | revoke
    none    | Issued>issued | not_found
    issued  | replay        | Revoked>revoked
    revoked | conflict      | =
    `,
  ],
  'ApiKey.',
);

describe('API key decider: issue (SPEC 2.7, 5)', () => {
  test('none -> issue -> issued: the event carries the digest, never a secret', () => {
    const state = scenario(apiKey).given([]).when(issue()).thenEmits([issued]);
    // Only an issued key authenticates (src/http/api-key-auth.ts reads revoked_at of the same record).
    assert.equal(state.status, 'issued', 'usable');
  });

  test('SPEC 5.2: a live key carries the live prefix; the older live prefix states live mode too', () => {
    scenario(apiKey)
      .given([])
      .when(issue({ livemode: true, prefix: 'clb_live_AbCd' }))
      .thenEmits([{ ...issued, data: { ...issued.data, livemode: true, prefix: 'clb_live_AbCd' } }]);
    scenario(apiKey)
      .given([])
      .when(issue({ livemode: true, prefix: 'clb_AbCd' }))
      .thenEmits([{ ...issued, data: { ...issued.data, livemode: true, prefix: 'clb_AbCd' } }]);
  });

  test('SPEC 5.2: a prefix that claims the other mode is refused (422 validation_error)', () => {
    scenario(apiKey)
      .given([])
      .when(issue({ livemode: true, prefix: 'clb_test_AbCd' }))
      .thenFails('validation_error');
    scenario(apiKey)
      .given([])
      .when(issue({ livemode: false, prefix: 'clb_live_AbCd' }))
      .thenFails('validation_error');
    scenario(apiKey)
      .given([])
      .when(issue({ prefix: 'sk_test_AbCd' }))
      .thenFails('validation_error');
  });

  test('SPEC 7 not_found: the tenant does not exist', () => {
    scenario(apiKey)
      .given([])
      .when(issue({ tenantExists: false }))
      .thenFails('not_found');
  });

  test('SPEC 7 validation_error: empty, unknown or repeated scopes; an invalid name', () => {
    for (const scopes of [[], ['pix:read'], ['pix:write', 'pix:write']]) {
      const error = scenario(apiKey)
        .given([])
        .when(issue({ scopes: scopes as Scope[] }))
        .thenFails('validation_error');
      assert.equal(error.details.param, 'scopes');
    }
    scenario(apiKey)
      .given([])
      .when(issue({ name: 'k' }))
      .thenFails('validation_error');
  });

  test('SPEC 5.4: the developer access profile is recorded as given', () => {
    scenario(apiKey)
      .given([])
      .when(issue({ accessProfile: 'developer' }))
      .thenEmits([{ ...issued, data: { ...issued.data, access_profile: 'developer' } }]);
  });

  test('issued: an exact repeat is a no-op (a retry); other facts are 409 conflict', () => {
    scenario(apiKey).given([issued]).when(issue()).thenEmits([]);
    scenario(apiKey)
      .given([issued])
      .when(issue({ scopes: ['pix:write'] }))
      .thenFails('conflict');
    scenario(apiKey)
      .given([issued])
      .when(issue({ secretSha256: 'b'.repeat(64) }))
      .thenFails('conflict');
  });
});

describe('API key decider: revoke (SPEC 5, 7 unauthorized)', () => {
  test('none: revoke is 404 not_found', () => {
    scenario(apiKey).given([]).when({ kind: 'revoke' }).thenFails('not_found');
  });

  test('issued -> revoke -> revoked: no longer usable', () => {
    const state = scenario(apiKey).given([issued]).when({ kind: 'revoke' }).thenEmits([revoked]);
    assert.equal(state.status, 'revoked', 'no longer usable');
  });

  test('revoked: revoking again appends nothing', () => {
    scenario(apiKey).given([issued, revoked]).when({ kind: 'revoke' }).thenEmits([]);
  });

  test('revoked: nothing comes after, not even the exact issue again (409 conflict)', () => {
    scenario(apiKey).given([issued, revoked]).when(issue()).thenFails('conflict');
  });
});

const apiKeyCommand: fc.Arbitrary<ApiKeyCommand> = fc.oneof(
  fc
    .record({
      tenantExists: fc.boolean(),
      livemode: fc.boolean(),
      prefix: fc.constantFrom('clb_test_AbCd', 'clb_live_AbCd', 'clb_AbCdEf', 'xx_AbCd'),
      scopes: fc.subarray([...SCOPES]),
      accessProfile: fc.constantFrom('standard' as const, 'developer' as const),
      secretSha256: fc.constantFrom(digest, 'b'.repeat(64)),
    })
    .map((over) => issue(over)),
  fc.constant<ApiKeyCommand>({ kind: 'revoke' }),
);

describe('API key state table (property)', () => {
  test('no command sequence leaves the table; a revoked key never becomes usable again', () => {
    fc.assert(
      fc.property(fc.array(apiKeyCommand, { maxLength: 40 }), (commands) => {
        const history: ApiKeyEvent[] = [];
        let revokedAt: number | undefined;
        for (const command of commands) {
          history.push(
            ...stepByTable(apiKey, API_KEY_TABLE, history, command, ctx, {
              creation: 'issue',
              creationRefusals: ['validation_error', 'not_found'],
            }),
          );
          const after = fold(apiKey, history);
          if (after.status === 'revoked') revokedAt ??= history.length;
          if (revokedAt !== undefined) {
            assert.equal(after.status, 'revoked', 'no longer usable');
            assert.equal(history.length, revokedAt, 'nothing is appended after the revocation');
          }
          if (after.status !== 'none') {
            // A key's facts never change after issue; its mode always matches its prefix.
            const { status: _status, ...facts } = after;
            assert.deepEqual(history[0], { type: 'ApiKey.Issued', data: facts });
            assert.equal(livemodeOfKey(facts.prefix), facts.livemode);
          }
        }
        const types = history.map((e) => e.type);
        assert.ok(['', 'ApiKey.Issued', 'ApiKey.Issued,ApiKey.Revoked'].includes(types.join(',')));
      }),
    );
  });
});

describe('the state table against its SPEC transcription', () => {
  test('apiKeyTransitions is the transcription, cell for cell', () => {
    assert.deepEqual(apiKeyTransitions, API_KEY_TABLE);
  });
});
