import assert from 'node:assert/strict';
import { afterAll, beforeAll, describe, test } from 'vitest';
import { saoPauloDate } from '../../src/aggregates/transaction.ts';
import { claimIdempotencyKey, type JsonValue, readClaim } from '../../src/commands/idempotency.ts';
import { sha256Hex } from '../../src/crypto/secrets.ts';
import { newId } from '../../src/ids.ts';
import { type ProviderPort, sanitizeDiagnostics } from '../../src/providers/port.ts';
import { pixBody } from '../support/charges.ts';
import { commandDeps, type SeededKey, seedTenantAndKey } from '../support/fixtures.ts';
import { startTestApp, type TestApp } from '../support/http.ts';
import { decorateProviders, withCharges } from '../support/provider-registry.ts';

/**
 * SPEC 3.1 (creation rows), 4 common rules (idempotency), 4.1/4.2 responses, 7: one claim, one transaction,
 * one provider call; replays answer the stored record. DESIGN.md "Command handlers".
 */

const SECRET = 'idem-test-document-signing-secret-0123456789';
const metadata = { actor: 'system:test', request_id: 'req_test' };
let app: TestApp;
let a: SeededKey;
let b: SeededKey;
let counter = 0;

type Mode = 'issue' | 'refuse' | 'uncertain' | 'throw';
const sim = {
  calls: 0,
  mode: 'issue' as Mode,
  /** When set, calls wait for it (a charge stays `processing` meanwhile). */
  gate: null as Promise<void> | null,
};
/** The simulator, counting and steering its creations (SPEC 3.1 creation outcomes). */
const counting = (simulator: ProviderPort): ProviderPort =>
  withCharges(simulator, {
    async create(charge, body, ctx, now) {
      sim.calls++;
      if (sim.gate) await sim.gate;
      switch (sim.mode) {
        case 'refuse':
          return {
            kind: 'refused',
            reason: 'provider_error',
            providerReference: null,
            diagnostics: sanitizeDiagnostics({
              code: '1234',
              httpStatus: 200,
              guidance: 'The provider refused the payer data.',
            }),
          };
        case 'uncertain':
          return {
            kind: 'uncertain',
            reason: 'timeout',
            providerReference: null,
            providerStatus: null,
            diagnostics: sanitizeDiagnostics({ code: 'raw text secret', httpStatus: 504 }),
          };
        case 'throw':
          throw new Error('socket hang up');
        default:
          return simulator.charges.create(charge, body, ctx, now);
      }
    },
  });

function boletoBody() {
  const { expires_in: _e, ...rest } = pixBody();
  return {
    ...rest,
    customer: { ...(rest.customer as Record<string, unknown>), email: 'a@b.co' },
    boleto: { due_date: saoPauloDate(new Date()) },
  };
}

function post(path: string, key: string, idem: string, json: unknown) {
  return app.request('POST', path, { headers: { 'x-api-key': key, 'idempotency-key': idem }, json });
}
const idem = () => `idem-${++counter}`;

beforeAll(async () => {
  app = await startTestApp({ DOCUMENT_SIGNING_SECRET: SECRET, ENABLE_SIMULATOR: 'true' }, (gw) =>
    decorateProviders(gw.ctx, (adapter, kind) => (kind === 'simulator' ? counting(adapter) : adapter)),
  );
  a = await seedTenantAndKey(app.gateway.ctx, { livemode: true });
  b = await seedTenantAndKey(app.gateway.ctx, { livemode: true });
});
afterAll(() => app.close());

describe('Idempotency-Key on charges (SPEC 4 common rules, 4.1, 4.2)', () => {
  test('replay: 200, Idempotency-Replayed, same record, no provider call; property order irrelevant', async () => {
    const key = idem();
    const first = await post('/v1/pix', a.key, key, pixBody());
    assert.equal(first.status, 201, first.text);
    const calls = sim.calls;
    const reordered = Object.fromEntries(Object.entries(pixBody()).reverse());
    const replay = await post('/v1/pix', a.key, key, reordered);
    assert.equal(replay.status, 200, replay.text);
    assert.equal(replay.headers.get('idempotency-replayed'), 'true');
    assert.equal(replay.body.data.id, first.body.data.id);
    assert.equal(replay.body.data.pix_copy_paste, first.body.data.pix_copy_paste);
    assert.equal(sim.calls, calls);
  });

  test('expiration is part of the normalized body: omitted = 0 = 3600, 600 conflicts', async () => {
    const key = idem();
    assert.equal((await post('/v1/pix', a.key, key, pixBody())).status, 201);
    assert.equal((await post('/v1/pix', a.key, key, pixBody({ expires_in: 0 }))).status, 200);
    assert.equal((await post('/v1/pix', a.key, key, pixBody({ expires_in: 3600 }))).status, 200);
    const other = await post('/v1/pix', a.key, key, pixBody({ expires_in: 600 }));
    assert.equal(other.status, 409);
    assert.equal(other.body.error.code, 'idempotency_conflict');
  });

  test('another body (even trimmed-equal) is 409; original values are hashed (SPEC 4.1)', async () => {
    const key = idem();
    assert.equal((await post('/v1/pix', a.key, key, pixBody())).status, 201);
    assert.equal((await post('/v1/pix', a.key, key, pixBody({ amount: 1251 }))).status, 409);
    assert.equal((await post('/v1/pix', a.key, key, pixBody({ reference: ' order-1 ' }))).status, 409);
  });

  test('a Pix key reused on boleto is 409 idempotency_conflict; the scope is tenant + key', async () => {
    const key = idem();
    assert.equal((await post('/v1/pix', a.key, key, pixBody())).status, 201);
    const res = await post('/v1/boleto', a.key, key, boletoBody());
    assert.equal(res.status, 409, res.text);
    assert.equal(res.body.error.code, 'idempotency_conflict');
    const otherTenant = await post('/v1/pix', b.key, key, pixBody());
    assert.equal(otherTenant.status, 201);
  });

  test('a validation failure claims nothing: the key stays usable', async () => {
    const key = idem();
    assert.equal((await post('/v1/pix', a.key, key, pixBody({ expires_in: 5 }))).status, 422);
    assert.equal((await post('/v1/pix', a.key, key, pixBody())).status, 201);
  });
});

describe('creation outcomes (SPEC 3.1, 4.1, 4.2, 7)', () => {
  test('refusal: 502 provider_rejected with transaction_id and diagnostics; record failed; replay 200', async () => {
    sim.mode = 'refuse';
    const key = idem();
    try {
      const res = await post('/v1/boleto', a.key, key, boletoBody());
      assert.equal(res.status, 502, res.text);
      assert.equal(res.body.error.code, 'provider_rejected');
      assert.match(res.body.error.transaction_id, /^txn_/);
      assert.equal(res.body.error.provider_error_code, '1234');
      assert.equal(res.body.error.provider_error_message, 'The provider refused the payer data.');
      assert.equal(res.body.error.provider_http_status, 200);
      const got = await app.request('GET', `/v1/transactions/${res.body.error.transaction_id}`, {
        headers: { 'x-api-key': a.key },
      });
      assert.equal(got.body.data.status, 'failed');
      const calls = sim.calls;
      const replay = await post('/v1/boleto', a.key, key, boletoBody());
      assert.equal(replay.status, 200);
      assert.equal(replay.headers.get('idempotency-replayed'), 'true');
      assert.equal(replay.body.data.status, 'failed');
      assert.equal(sim.calls, calls);
    } finally {
      sim.mode = 'issue';
    }
  });

  test('uncertain answer or a thrown call: 202 unknown, Pix payload null, diagnostics sanitized; replay 200', async () => {
    for (const mode of ['uncertain', 'throw'] as const) {
      sim.mode = mode;
      const key = idem();
      try {
        const res = await post('/v1/pix', a.key, key, pixBody());
        assert.equal(res.status, 202, res.text);
        assert.equal(res.body.data.status, 'unknown');
        assert.equal(res.body.data.pix_copy_paste, null);
        assert.equal(res.body.data.pix_qr_code, null);
        assert.equal(res.body.data.provider_error_code, null, 'raw text never stored');
        assert.equal(res.body.data.provider_http_status, mode === 'uncertain' ? 504 : null);
        const replay = await post('/v1/pix', a.key, key, pixBody());
        assert.equal(replay.status, 200);
        assert.equal(replay.body.data.status, 'unknown');
        assert.equal(replay.headers.get('idempotency-replayed'), 'true');
      } finally {
        sim.mode = 'issue';
      }
    }
  });

  test('a replay while the first request is still at the provider: 202 processing, no second call', async () => {
    let open: () => void = () => {};
    sim.gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    const key = idem();
    const calls = sim.calls;
    try {
      const first = post('/v1/pix', a.key, key, pixBody());
      while (sim.calls === calls) await new Promise((r) => setTimeout(r, 5));
      const replay = await post('/v1/pix', a.key, key, pixBody());
      assert.equal(replay.status, 202, replay.text);
      assert.equal(replay.body.data.status, 'processing');
      assert.equal(replay.body.data.pix_copy_paste, null);
      assert.equal(replay.headers.get('idempotency-replayed'), 'true');
      sim.gate = null;
      open();
      const done = await first;
      assert.equal(done.status, 201);
      assert.equal(done.body.data.id, replay.body.data.id);
      assert.equal(sim.calls, calls + 1);
    } finally {
      sim.gate = null;
      open();
    }
  });

  test('a claim left without its reservation (crash between the appends) is completed by the replay', async () => {
    const donorKey = idem();
    await post('/v1/pix', a.key, donorKey, pixBody({ reference: 'crash' }));
    const donor = await readClaim({ store: app.gateway.ctx.store }, a.tenantId, donorKey);
    assert.ok(donor);
    const reserve = donor.payload.reserve as Record<string, JsonValue>;
    const key = idem();
    const transactionId = newId('txn');
    await claimIdempotencyKey(
      commandDeps(app.gateway.ctx),
      {
        scope: a.tenantId,
        key,
        method: 'POST',
        route: '/v1/pix',
        body: reserve.request,
        resourceId: transactionId,
        payload: { reserve: { ...reserve, transactionId, idempotencyKeySha256: sha256Hex(key) } },
      },
      metadata,
    );
    const calls = sim.calls;
    const res = await post('/v1/pix', a.key, key, pixBody({ reference: 'crash' }));
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.data.id, transactionId);
    assert.equal(sim.calls, calls + 1);
  });

  test('100 concurrent identical POSTs over real sockets: one transaction, one provider call', async () => {
    const racer = await seedTenantAndKey(app.gateway.ctx, { livemode: true });
    const key = idem();
    const calls = sim.calls;
    const body = pixBody({ reference: 'race' });
    const responses = await Promise.all(
      Array.from({ length: 100 }, () => post('/v1/pix', racer.key, key, body)),
    );
    const statuses = responses.map((r) => r.status);
    assert.ok(
      statuses.every((s) => s === 201 || s === 200 || s === 202),
      statuses.join(','),
    );
    assert.equal(statuses.filter((s) => s === 201).length, 1);
    assert.equal(new Set(responses.map((r) => r.body.data.id)).size, 1);
    assert.equal(sim.calls, calls + 1);
    // The read model, once the async runner (TEST_PROJECTIONS=async) has applied the log.
    await app.settle();
    const rows = await app.gateway.ctx.db
      .selectFrom('transactions')
      .select('id')
      .where('tenant_id', '=', racer.tenantId)
      .execute();
    assert.equal(rows.length, 1);
  });
});
