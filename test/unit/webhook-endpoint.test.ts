import assert from 'node:assert/strict';
import fc from 'fast-check';
import { describe, test } from 'vitest';
import { DomainError, fold } from '../../src/aggregates/decider.ts';
import {
  isValidWebhookUrl,
  PREVIOUS_SECRET_TTL_MS,
  type RegisterWebhookEndpoint,
  type WebhookEndpointCommand,
  type WebhookEndpointEvent,
  webhookEndpoint,
  webhookEndpointTransitions,
} from '../../src/aggregates/webhook-endpoint.ts';
import {
  endpointSigningSecrets,
  openWebhookSecret,
  sealWebhookSecret,
} from '../../src/commands/webhook-endpoints/secrets.ts';
import { CredentialsDecryptError } from '../../src/crypto/credentials.ts';
import { stripSecrets } from '../../src/projections/audit.ts';
import { generateWebhookSecret } from '../../src/webhooks/signing.ts';
import { scenario } from '../support/given-when-then.ts';
import { cellOf, transcribedTable } from '../support/state-table.ts';

const ctx = { now: new Date('2026-01-15T12:00:00.000Z') };
const register: RegisterWebhookEndpoint = {
  kind: 'register',
  endpointId: 'whe_1',
  tenantId: 'ten_1',
  url: 'https://hooks.example.com/calebe',
  mode: 'test',
  enabled: true,
  secretSealed: 'v1.a.b.c',
};
const registered: WebhookEndpointEvent = {
  type: 'WebhookEndpoint.Registered',
  data: {
    endpoint_id: 'whe_1',
    tenant_id: 'ten_1',
    url: 'https://hooks.example.com/calebe',
    mode: 'test',
    enabled: true,
    secret_sealed: 'v1.a.b.c',
    created_at: '2026-01-15T12:00:00.000Z',
  },
};
const deleted: WebhookEndpointEvent = { type: 'WebhookEndpoint.Deleted', data: { endpoint_id: 'whe_1' } };

/**
 * SPEC 6's webhook endpoint table, transcribed here (issue 24 item 7): the oracle of the property
 * below, never `webhookEndpointTransitions`, so a wrong cell in the code fails.
 */
const WEBHOOK_ENDPOINT_TABLE = transcribedTable(
  [
    `
    # SPEC 6 and docs/decisions.md "Webhooks": an endpoint is registered once (a retry replays), updated,
    # its secret rotated, disabled when the receiver answers 410 Gone, deleted; a deleted endpoint is gone
    # for every command (404 not_found).
    state   | register          | update         | rotate_secret        | disable_gone    | delete
    none    | Registered>active | not_found      | not_found            | not_found       | not_found
    active  | replay            | Updated>active | SecretRotated>active | Disabled>active | Deleted>deleted
    deleted | not_found         | not_found      | not_found            | not_found       | not_found
    `,
  ],
  'WebhookEndpoint.',
);

describe('webhook endpoint decider (SPEC 6, docs/decisions.md "Webhooks")', () => {
  test('registration records the facts, the decided instant and only the sealed secret', () => {
    const state = scenario(webhookEndpoint).given([]).when(register, ctx).thenEmits([registered]);
    assert.equal(state.status, 'active');
    assert.equal(state.status === 'active' && state.disabledReason, null);
  });

  test('registration refuses a URL that is not absolute http(s) or is longer than 2048 (422 on url)', () => {
    for (const url of ['ftp://example.com/', 'not a url', '', `https://example.com/${'a'.repeat(2040)}`]) {
      const error = scenario(webhookEndpoint)
        .given([])
        .when({ ...register, url }, ctx)
        .thenFails('validation_error');
      assert.equal(error.details.param, 'url');
    }
    assert.equal(isValidWebhookUrl(`https://example.com/${'a'.repeat(2028)}`), true);
  });

  test('a repeated registration: same facts is a no-op (a completed claim), other facts 409 conflict', () => {
    scenario(webhookEndpoint)
      .given([registered])
      .when({ ...register, secretSealed: 'v1.x.y.z' }, ctx)
      .thenEmits([]);
    scenario(webhookEndpoint)
      .given([registered])
      .when({ ...register, mode: 'live' }, ctx)
      .thenFails('conflict');
  });

  test('update: changed fields only, with their previous values; nothing changed appends nothing', () => {
    const state = scenario(webhookEndpoint)
      .given([registered])
      .when({ kind: 'update', url: 'https://hooks.example.com/v2', enabled: true }, ctx)
      .thenEmits([
        {
          type: 'WebhookEndpoint.Updated',
          data: {
            endpoint_id: 'whe_1',
            url: 'https://hooks.example.com/v2',
            previous_url: 'https://hooks.example.com/calebe',
          },
        },
      ]);
    assert.equal(state.status === 'active' && state.url, 'https://hooks.example.com/v2');
    const disabled = scenario(webhookEndpoint)
      .given([registered])
      .when({ kind: 'update', enabled: false }, ctx)
      .thenEmits([
        {
          type: 'WebhookEndpoint.Updated',
          data: { endpoint_id: 'whe_1', enabled: false, previous_enabled: true },
        },
      ]);
    assert.equal(disabled.status === 'active' && disabled.disabledReason, 'panel');
    scenario(webhookEndpoint)
      .given([registered])
      .when({ kind: 'update', url: register.url, enabled: true }, ctx)
      .thenEmits([]);
    scenario(webhookEndpoint)
      .given([registered])
      .when({ kind: 'update', url: 'http//broken' }, ctx)
      .thenFails('validation_error');
  });

  test('rotation: the current secret becomes the previous one, valid 24 hours from now', () => {
    const state = scenario(webhookEndpoint)
      .given([registered])
      .when({ kind: 'rotate_secret', secretSealed: 'v1.new' }, ctx)
      .thenEmits([
        {
          type: 'WebhookEndpoint.SecretRotated',
          data: {
            endpoint_id: 'whe_1',
            secret_sealed: 'v1.new',
            previous_secret_sealed: 'v1.a.b.c',
            previous_expires_at: new Date(ctx.now.getTime() + PREVIOUS_SECRET_TTL_MS).toISOString(),
          },
        },
      ]);
    assert.equal(state.status === 'active' && state.previousExpiresAt, '2026-01-16T12:00:00.000Z');
  });

  test('disable_gone (the receiver answered 410): disabled with reason gone; already disabled: no event', () => {
    const state = scenario(webhookEndpoint)
      .given([registered])
      .when({ kind: 'disable_gone' }, ctx)
      .thenEmits([{ type: 'WebhookEndpoint.Disabled', data: { endpoint_id: 'whe_1', reason: 'gone' } }]);
    assert.equal(state.status === 'active' && state.disabledReason, 'gone');
    scenario(webhookEndpoint)
      .given([
        registered,
        { type: 'WebhookEndpoint.Disabled', data: { endpoint_id: 'whe_1', reason: 'gone' } },
      ])
      .when({ kind: 'disable_gone' }, ctx)
      .thenEmits([]);
    // The panel enables it again.
    const enabled = scenario(webhookEndpoint)
      .given([
        registered,
        { type: 'WebhookEndpoint.Disabled', data: { endpoint_id: 'whe_1', reason: 'gone' } },
      ])
      .when({ kind: 'update', enabled: true }, ctx)
      .thenEmits([
        {
          type: 'WebhookEndpoint.Updated',
          data: { endpoint_id: 'whe_1', enabled: true, previous_enabled: false },
        },
      ]);
    assert.equal(enabled.status === 'active' && enabled.disabledReason, null);
  });

  test('before registration and after deletion every command is 404 not_found (deletion is final)', () => {
    const commands: WebhookEndpointCommand[] = [
      { kind: 'update', enabled: false },
      { kind: 'rotate_secret', secretSealed: 'v1.n' },
      { kind: 'disable_gone' },
      { kind: 'delete' },
    ];
    for (const c of commands) scenario(webhookEndpoint).given([]).when(c, ctx).thenFails('not_found');
    scenario(webhookEndpoint).given([registered]).when({ kind: 'delete' }, ctx).thenEmits([deleted]);
    for (const c of [...commands, register]) {
      scenario(webhookEndpoint).given([registered, deleted]).when(c, ctx).thenFails('not_found');
    }
  });

  test('state table (property): deleted never reopens; an update never changes tenant or mode', () => {
    const command: fc.Arbitrary<WebhookEndpointCommand> = fc.oneof(
      fc.constant(register),
      fc
        .record({
          kind: fc.constant('register' as const),
          mode: fc.constantFrom('live' as const, 'test' as const),
        })
        .map((c) => ({ ...register, mode: c.mode, tenantId: c.mode === 'live' ? 'ten_2' : 'ten_1' })),
      fc.record({
        kind: fc.constant('update' as const),
        url: fc.option(fc.constantFrom('https://a.example.com/', 'https://b.example.com/', 'bad'), {
          nil: undefined,
        }),
        enabled: fc.option(fc.boolean(), { nil: undefined }),
      }),
      fc.constant({ kind: 'rotate_secret' as const, secretSealed: 'v1.rotated' }),
      fc.constant({ kind: 'disable_gone' as const }),
      fc.constant({ kind: 'delete' as const }),
    );
    fc.assert(
      fc.property(fc.array(command, { maxLength: 25 }), (commands) => {
        const history: WebhookEndpointEvent[] = [];
        let wasDeleted = false;
        let facts: string | undefined;
        for (const c of commands) {
          const before = fold(webhookEndpoint, history);
          const move = cellOf(WEBHOOK_ENDPOINT_TABLE, before.status, c.kind);
          const decision = webhookEndpoint.decide(c, before, ctx);
          if ('refuse' in move) {
            assert.ok(decision instanceof DomainError && decision.code === move.refuse);
          } else if ('emits' in move && Array.isArray(decision) && decision.length > 0) {
            assert.deepEqual(
              decision.map((e) => e.type),
              [move.emits],
            );
          }
          if (Array.isArray(decision)) history.push(...decision);
          const after = fold(webhookEndpoint, history);
          if (after.status === 'deleted') wasDeleted = true;
          if (wasDeleted) assert.equal(after.status, 'deleted', 'a deleted endpoint never reopens');
          if (after.status !== 'none') {
            const now = JSON.stringify([after.endpointId, after.tenantId, after.mode]);
            facts ??= now;
            assert.equal(now, facts, 'tenant and mode never change');
          }
        }
        const types = history.map((e) => e.type);
        assert.ok(types.slice(1).every((t) => t !== 'WebhookEndpoint.Registered'));
        const del = types.indexOf('WebhookEndpoint.Deleted');
        assert.ok(del === -1 || del === types.length - 1, 'nothing follows a deletion');
      }),
    );
  });

  test('the audit record of every event keeps no secret, sealed or not', () => {
    const rotated: WebhookEndpointEvent = {
      type: 'WebhookEndpoint.SecretRotated',
      data: {
        endpoint_id: 'whe_1',
        secret_sealed: 'v1.new',
        previous_secret_sealed: 'v1.a.b.c',
        previous_expires_at: '2026-01-16T12:00:00.000Z',
      },
    };
    for (const event of [registered, rotated]) {
      const audited = JSON.stringify(stripSecrets(event.data));
      assert.doesNotMatch(audited, /v1\.|secret_sealed/);
    }
    assert.deepEqual(stripSecrets(rotated.data), {
      endpoint_id: 'whe_1',
      previous_expires_at: '2026-01-16T12:00:00.000Z',
    });
  });
});

describe('webhook signing secrets (Standard Webhooks format, sealed like provider credentials)', () => {
  const key = Buffer.alloc(32, 7);
  const config = { CREDENTIALS_ENCRYPTION_KEY: key.toString('base64'), CALEBE_DATA_DIR: '/nonexistent' };

  test('whsec_ + base64 of 24 random bytes', () => {
    const secret = generateWebhookSecret();
    assert.match(secret, /^whsec_[A-Za-z0-9+/]{32}$/);
    assert.equal(Buffer.from(secret.slice(6), 'base64').length, 24);
    assert.notEqual(secret, generateWebhookSecret());
  });

  test('sealed bound to the endpoint id: another endpoint cannot open it', () => {
    const sealed = sealWebhookSecret(key, 'whe_1', 'whsec_abc');
    assert.equal(openWebhookSecret(key, 'whe_1', sealed), 'whsec_abc');
    assert.doesNotMatch(sealed, /whsec/);
    assert.throws(() => openWebhookSecret(key, 'whe_2', sealed), CredentialsDecryptError);
  });

  test('endpointSigningSecrets: [current, previous] within 24 h of a rotation, then [current]', async () => {
    const row = {
      id: 'whe_1',
      secret_sealed: sealWebhookSecret(key, 'whe_1', 'whsec_new'),
      previous_secret_sealed: sealWebhookSecret(key, 'whe_1', 'whsec_old'),
      previous_expires_at: new Date('2026-01-16T12:00:00.000Z'),
    };
    assert.deepEqual(await endpointSigningSecrets({ config }, row, new Date('2026-01-16T11:59:59.999Z')), [
      'whsec_new',
      'whsec_old',
    ]);
    assert.deepEqual(await endpointSigningSecrets({ config }, row, new Date('2026-01-16T12:00:00.000Z')), [
      'whsec_new',
    ]);
    assert.deepEqual(
      await endpointSigningSecrets(
        { config },
        { ...row, previous_secret_sealed: null, previous_expires_at: null },
        new Date('2026-01-15T00:00:00Z'),
      ),
      ['whsec_new'],
    );
    assert.deepEqual(
      await endpointSigningSecrets(
        { config },
        { ...row, secret_sealed: null, previous_secret_sealed: null },
        new Date('2026-01-15T00:00:00Z'),
      ),
      [],
      'a deleted endpoint has no secret',
    );
  });
});

describe('the state table against its SPEC transcription', () => {
  test('webhookEndpointTransitions is the transcription, cell for cell', () => {
    assert.deepEqual(webhookEndpointTransitions, WEBHOOK_ENDPOINT_TABLE);
  });
});
