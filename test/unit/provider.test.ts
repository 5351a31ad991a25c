import assert from 'node:assert/strict';
import fc from 'fast-check';
import { describe, test } from 'vitest';
import { fold } from '../../src/aggregates/decider.ts';
import {
  type CreateProvider,
  type ProviderCommand,
  type ProviderEvent,
  provider,
  providerTransitions,
} from '../../src/aggregates/provider.ts';
import { scenario } from '../support/given-when-then.ts';
import { cellOf, transcribedTable } from '../support/state-table.ts';

const create: CreateProvider = {
  kind: 'create',
  providerId: 'prv_1',
  name: 'Acme',
  providerKind: 'external',
  environment: 'production',
  enabledMethods: ['pix'],
  isMarketplace: false,
  credentialsCiphertext: 'v1.a.b.c',
};
const created: ProviderEvent = {
  type: 'Provider.Created',
  data: {
    provider_id: 'prv_1',
    name: 'Acme',
    kind: 'external',
    environment: 'production',
    enabled_methods: ['pix'],
    is_marketplace: false,
    credentials_ciphertext: 'v1.a.b.c',
  },
};

/**
 * SPEC 2.7's provider table, transcribed here (issue 24 item 7): the oracle of the property
 * below, never `providerTransitions`, so a wrong cell in the code fails.
 */
const PROVIDER_TABLE = transcribedTable(
  [
    `
    # SPEC 2.7 and 4.14 ('PATCH /admin/providers/{id}'): a provider is created once (a retry replays) and
    # then updated; an unknown provider is not found.
    state  | create         | update
    none   | Created>active | not_found
    active | replay         | Updated>active
    `,
  ],
  'Provider.',
);

describe('provider decider (SPEC 2.7)', () => {
  test('creation records the facts and only the sealed credentials', () => {
    const state = scenario(provider).given([]).when(create).thenEmits([created]);
    assert.equal(state.status === 'active' && state.enabled, true);
  });

  test('SPEC 2.7: [] disables all methods; duplicates are 422 validation_error', () => {
    scenario(provider)
      .given([])
      .when({ ...create, enabledMethods: [] })
      .thenEmits([{ ...created, data: { ...created.data, enabled_methods: [] } }]);
    scenario(provider)
      .given([])
      .when({ ...create, enabledMethods: ['pix', 'pix'] })
      .thenFails('validation_error');
    scenario(provider)
      .given([created])
      .when({ kind: 'update', enabledMethods: ['boleto', 'boleto'] })
      .thenFails('validation_error');
  });

  test('SPEC 1: a simulator is sandbox only; names follow SPEC 8 (422 validation_error)', () => {
    scenario(provider)
      .given([])
      .when({ ...create, providerKind: 'simulator', environment: 'production' })
      .thenFails('validation_error');
    scenario(provider)
      .given([])
      .when({ ...create, name: 'x' })
      .thenFails('validation_error');
  });

  test('update: 404 not_found before creation; only changed fields; nothing changed appends nothing', () => {
    scenario(provider).given([]).when({ kind: 'update', enabled: false }).thenFails('not_found');
    scenario(provider)
      .given([created])
      .when({ kind: 'update', enabled: false, name: 'Acme', enabledMethods: ['pix', 'boleto'] })
      .thenEmits([
        {
          type: 'Provider.Updated',
          data: {
            provider_id: 'prv_1',
            enabled: false,
            enabled_methods: ['pix', 'boleto'],
            // Issue 23 item 2.3: what the changed fields were, for the audit's `before`.
            previous: { enabled: true, enabled_methods: ['pix'] },
          },
        },
      ]);
    scenario(provider).given([created]).when({ kind: 'update', enabled: true, name: 'Acme' }).thenEmits([]);
  });

  test('a repeated creation: same facts is a no-op (bootstrap race), other facts 409 conflict', () => {
    scenario(provider)
      .given([created])
      .when({ ...create, credentialsCiphertext: 'v1.x.y.z' })
      .thenEmits([]);
    scenario(provider)
      .given([created])
      .when({ ...create, name: 'Other' })
      .thenFails('conflict');
  });

  test('issue 13: hosts are optional facts; events written before them fold to the defaults (null)', () => {
    const state = fold(provider, [created]);
    assert.equal(state.status === 'active' && state.paymentHost, null);
    assert.equal(state.status === 'active' && state.apiHost, null);
    const hosts = { paymentHost: 'https://pay.example.test', apiHost: 'https://api.example.test' };
    const withHosts = {
      ...created,
      data: { ...created.data, payment_host: hosts.paymentHost, api_host: hosts.apiHost },
    };
    scenario(provider)
      .given([])
      .when({ ...create, ...hosts })
      .thenEmits([withHosts]);
    // Only the host that changed; null returns to the default. A record without credentials needs none.
    const keyless = { ...withHosts, data: { ...withHosts.data, credentials_ciphertext: null } };
    scenario(provider)
      .given([keyless])
      .when({ kind: 'update', paymentHost: null, apiHost: hosts.apiHost })
      .thenEmits([
        {
          type: 'Provider.Updated',
          data: { provider_id: 'prv_1', payment_host: null, previous: { payment_host: hosts.paymentHost } },
        },
      ]);
    scenario(provider)
      .given([])
      .when({ ...create, providerKind: 'simulator', environment: 'sandbox', ...hosts })
      .thenFails('validation_error');
  });

  test('issue 23 item 2.3: a host change of a record with credentials needs them again, sealed for the new hosts', () => {
    const hosts = { paymentHost: 'https://pay.example.test', apiHost: 'https://api.example.test' };
    // The stored secret never follows a host change: 422 naming credentials, nothing appended.
    scenario(provider)
      .given([created])
      .when({ kind: 'update', paymentHost: hosts.paymentHost })
      .thenFails('validation_error');
    scenario(provider)
      .given([created])
      .when({ kind: 'update', paymentHost: hosts.paymentHost, apiHost: hosts.apiHost })
      .thenFails('validation_error');
    // With new credentials sealed for the resulting hosts: one event, the previous hosts and a flag.
    scenario(provider)
      .given([created])
      .when({
        kind: 'update',
        paymentHost: hosts.paymentHost,
        credentialsCiphertext: 'v2.n.e.w',
        credentialsBinding: [hosts.paymentHost, null],
      })
      .thenEmits([
        {
          type: 'Provider.Updated',
          data: {
            provider_id: 'prv_1',
            credentials_ciphertext: 'v2.n.e.w',
            payment_host: hosts.paymentHost,
            previous: { had_credentials: true, payment_host: null },
          },
        },
      ]);
    // Sealed for other hosts than the result (a concurrent host change): 409, never stored.
    scenario(provider)
      .given([created])
      .when({
        kind: 'update',
        paymentHost: hosts.paymentHost,
        credentialsCiphertext: 'v2.n.e.w',
        credentialsBinding: [null, null],
      })
      .thenFails('conflict');
  });

  test('state table (property): kind, environment and is_marketplace never change; table cells hold', () => {
    const command: fc.Arbitrary<ProviderCommand> = fc.oneof(
      fc.constant(create),
      fc.record({
        kind: fc.constant('update' as const),
        name: fc.option(fc.constantFrom('Acme', 'Beta', ''), { nil: undefined }),
        enabled: fc.option(fc.boolean(), { nil: undefined }),
        enabledMethods: fc.option(fc.subarray(['pix', 'boleto'] as const), { nil: undefined }),
      }),
    );
    fc.assert(
      fc.property(fc.array(command, { maxLength: 20 }), (commands) => {
        const history: ProviderEvent[] = [];
        for (const c of commands) {
          const before = fold(provider, history);
          const move = cellOf(PROVIDER_TABLE, before.status, c.kind);
          const decision = provider.decide(c, before, { now: new Date() });
          if ('refuse' in move) assert.ok(!Array.isArray(decision));
          if (Array.isArray(decision)) history.push(...decision);
          const after = fold(provider, history);
          if (after.status === 'active') {
            assert.deepEqual(
              [after.kind, after.environment, after.isMarketplace],
              ['external', 'production', false],
            );
            assert.equal(after.credentialsCiphertext, 'v1.a.b.c');
          }
        }
        assert.ok(history.slice(1).every((e) => e.type === 'Provider.Updated'));
      }),
    );
  });
});

describe('the state table against its SPEC transcription', () => {
  test('providerTransitions is the transcription, cell for cell', () => {
    assert.deepEqual(providerTransitions, PROVIDER_TABLE);
  });
});
