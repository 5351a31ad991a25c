import assert from 'node:assert/strict';
import fc from 'fast-check';
import { describe, test } from 'vitest';
import { DomainError } from '../../src/aggregates/decider.ts';
import { PAYMENT_SETTINGS_STREAM } from '../../src/aggregates/payment-settings.ts';
import { createEventRegistry } from '../../src/commands/index.ts';
import type { LivePaymentsConfig } from '../../src/commands/payment-settings/effective-setting.ts';
import {
  authorizeLiveIssuance,
  authorizeLiveRefresh,
  type LiveCharge,
  type LivePaymentsContext,
} from '../../src/commands/transactions/shared/live-payments.ts';
import type { LiveScopeEntry } from '../../src/config.ts';
import { type EventStore, type RecordedEvent, START } from '../../src/events/event-store.ts';

/** A store holding at most the settings stream in memory; `failing` makes every read reject. */
function memoryStore(saved: boolean | undefined, failing = false): EventStore {
  const events: RecordedEvent[] =
    saved === undefined
      ? []
      : [
          {
            id: '00000000-0000-4000-8000-000000000001',
            stream: PAYMENT_SETTINGS_STREAM,
            version: 1,
            position: 1,
            checkpoint: { tx: 1, pos: 1 },
            type: 'PaymentSettings.Updated',
            schemaVersion: 1,
            data: {
              allow_live_payments: saved,
              previous_allow_live_payments: !saved,
              previous_source: 'environment',
              updated_by: 'usr_admin',
              updated_at: '2026-01-15T12:00:00.000Z',
            },
            metadata: { actor: 'user:usr_admin', request_id: 'req_1' },
            recordedAt: new Date('2026-01-15T12:00:00.000Z'),
          },
        ];
  return {
    kind: 'postgres',
    supportsInlineProjections: false,
    async append() {
      throw new Error('read-only');
    },
    async read(stream) {
      if (failing) throw new Error('connection refused');
      return events.filter((e) => e.stream === stream);
    },
    async readAll() {
      return [];
    },
    async headCheckpoint() {
      return START;
    },
    onAppended() {
      return () => {};
    },
    async close() {},
  };
}

const scopeEntry: LiveScopeEntry = {
  tenant_id: 'ten_1',
  provider_id: 'prv_1',
  reference: 'order-1',
  idempotency_key: 'key-1',
  amount: 1250,
  method: 'pix',
};
const charge: LiveCharge = {
  tenantId: 'ten_1',
  providerId: 'prv_1',
  reference: 'order-1',
  idempotencyKey: 'key-1',
  amount: 1250,
  method: 'pix',
};

function ctx(
  opts: { saved?: boolean; failing?: boolean } & Partial<LivePaymentsConfig> = {},
): LivePaymentsContext {
  return {
    deps: { store: memoryStore(opts.saved, opts.failing), registry: createEventRegistry() },
    config: {
      ALLOW_LIVE_PAYMENTS: opts.ALLOW_LIVE_PAYMENTS ?? false,
      ALLOW_UNSCOPED_LIVE_PAYMENTS: opts.ALLOW_UNSCOPED_LIVE_PAYMENTS ?? false,
      LIVE_PAYMENT_SCOPE_JSON: opts.LIVE_PAYMENT_SCOPE_JSON,
    },
  };
}

async function refusedWith(promise: Promise<void>, code: string): Promise<void> {
  await assert.rejects(promise, (error: unknown) => {
    assert.ok(error instanceof DomainError, String(error));
    assert.equal(error.code, code);
    return true;
  });
}

describe('authorizeLiveIssuance (SPEC 5.8, 7)', () => {
  test('SPEC 7: unreadable control is 503 payment_settings_unavailable, with no fallback to the environment', async () => {
    await refusedWith(
      authorizeLiveIssuance(
        ctx({ failing: true, ALLOW_LIVE_PAYMENTS: true, ALLOW_UNSCOPED_LIVE_PAYMENTS: true }),
        charge,
      ),
      'payment_settings_unavailable',
    );
  });

  test('SPEC 5.8: off (environment default, nothing saved) is 403 live_payments_disabled', async () => {
    await refusedWith(
      authorizeLiveIssuance(ctx({ LIVE_PAYMENT_SCOPE_JSON: [scopeEntry] }), charge),
      'live_payments_disabled',
    );
  });

  test('SPEC 4.14: a saved off overrides ALLOW_LIVE_PAYMENTS=true', async () => {
    await refusedWith(
      authorizeLiveIssuance(
        ctx({ saved: false, ALLOW_LIVE_PAYMENTS: true, ALLOW_UNSCOPED_LIVE_PAYMENTS: true }),
        charge,
      ),
      'live_payments_disabled',
    );
  });

  test('SPEC 5.8: on alone does not unlock real payments (no scope, no unscoped authorization)', async () => {
    await refusedWith(authorizeLiveIssuance(ctx({ saved: true }), charge), 'live_payment_out_of_scope');
    await refusedWith(
      authorizeLiveIssuance(ctx({ ALLOW_LIVE_PAYMENTS: true }), charge),
      'live_payment_out_of_scope',
    );
  });

  test('SPEC 5.8: on with the explicit unscoped authorization issues anything', async () => {
    await authorizeLiveIssuance(ctx({ saved: true, ALLOW_UNSCOPED_LIVE_PAYMENTS: true }), charge);
    await authorizeLiveIssuance(ctx({ ALLOW_LIVE_PAYMENTS: true, ALLOW_UNSCOPED_LIVE_PAYMENTS: true }), {
      ...charge,
      method: 'boleto',
    });
  });

  test('SPEC 5.8: on with a scope issues exactly the scoped combination', async () => {
    await authorizeLiveIssuance(ctx({ saved: true, LIVE_PAYMENT_SCOPE_JSON: [scopeEntry] }), charge);
    const second = { ...scopeEntry, reference: 'order-2', method: 'boleto' as const };
    await authorizeLiveIssuance(ctx({ saved: true, LIVE_PAYMENT_SCOPE_JSON: [scopeEntry, second] }), {
      ...charge,
      reference: 'order-2',
      method: 'boleto',
    });
  });

  test('SPEC 5.8: a Pix scope does not authorize boleto', async () => {
    await refusedWith(
      authorizeLiveIssuance(ctx({ saved: true, LIVE_PAYMENT_SCOPE_JSON: [scopeEntry] }), {
        ...charge,
        method: 'boleto',
      }),
      'live_payment_out_of_scope',
    );
  });

  test('SPEC 5.8: any field outside the exact combination is 403 live_payment_out_of_scope (property)', async () => {
    const c = ctx({ saved: true, LIVE_PAYMENT_SCOPE_JSON: [scopeEntry] });
    const mutation = fc.oneof(
      fc.string().map((v) => ({ tenantId: `ten_${v}x` })),
      fc.string().map((v) => ({ providerId: `prv_${v}x` })),
      fc.string().map((v) => ({ reference: `${v}x` })),
      fc.string().map((v) => ({ idempotencyKey: `${v}x` })),
      fc
        .integer({ min: 1, max: 10_000_000 })
        .filter((a) => a !== 1250)
        .map((amount) => ({ amount })),
      fc.constant({ method: 'boleto' as const }),
    );
    await fc.assert(
      fc.asyncProperty(mutation, async (change) => {
        await refusedWith(authorizeLiveIssuance(c, { ...charge, ...change }), 'live_payment_out_of_scope');
      }),
    );
  });

  test('docs/decisions.md: a configured scope restricts even with ALLOW_UNSCOPED_LIVE_PAYMENTS=true', async () => {
    const c = ctx({ saved: true, ALLOW_UNSCOPED_LIVE_PAYMENTS: true, LIVE_PAYMENT_SCOPE_JSON: [scopeEntry] });
    await authorizeLiveIssuance(c, charge);
    await refusedWith(authorizeLiveIssuance(c, { ...charge, amount: 1251 }), 'live_payment_out_of_scope');
  });
});

describe('authorizeLiveRefresh (SPEC 4.6, 5.8)', () => {
  const target = { providerId: 'prv_1' };

  test('SPEC 4.6: unreadable control is 503 payment_settings_unavailable', async () => {
    await refusedWith(
      authorizeLiveRefresh(ctx({ failing: true, ALLOW_LIVE_PAYMENTS: true }), target),
      'payment_settings_unavailable',
    );
  });

  test('SPEC 4.6: off is 403 live_payments_disabled', async () => {
    await refusedWith(
      authorizeLiveRefresh(ctx({ saved: false, ALLOW_UNSCOPED_LIVE_PAYMENTS: true }), target),
      'live_payments_disabled',
    );
  });

  test('SPEC 5.8: the scope blocks financial queries to another provider', async () => {
    const c = ctx({ saved: true, LIVE_PAYMENT_SCOPE_JSON: [scopeEntry] });
    await authorizeLiveRefresh(c, target);
    await refusedWith(authorizeLiveRefresh(c, { providerId: 'prv_2' }), 'live_payment_out_of_scope');
  });

  test('SPEC 5.8: without a scope, refresh needs the unscoped authorization', async () => {
    await refusedWith(authorizeLiveRefresh(ctx({ saved: true }), target), 'live_payment_out_of_scope');
    await authorizeLiveRefresh(ctx({ saved: true, ALLOW_UNSCOPED_LIVE_PAYMENTS: true }), target);
  });
});
