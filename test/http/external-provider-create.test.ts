import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { isValidPixPayload } from '@brazilian-utils/brazilian-utils';
import { describe, test } from 'vitest';
import type { Fault } from '../../src/providers/emulator/faults.ts';
import { assertError } from '../support/admin.ts';
import {
  CHARGE_CASES,
  type ChargeCase,
  chargeRequest,
  keyOf as keyOfWorld,
  transactionIdOf,
  useExternalProviderWorld,
} from '../support/external-provider.ts';
import { seedTenantAndKey } from '../support/fixtures.ts';
import type { TestResponse } from '../support/http.ts';

/**
 * Issue 13, first slice: charge creation through the provider port, against the provider emulator on a real
 * socket (docs/provider-emulator.md). Expected values come from SPEC 1 (modes), 2.2 (artifacts, diagnostics),
 * 2.3 (provider_request), 3.1 (outcomes), 4.1, 4.2, 4.4, 5.8 and 7.
 */

/** A raw provider text holding personal data (a CPF and an e-mail): it must never leave the adapter. */
const RAW_TEXT = 'Erro no pagador CPF 123.456.789-09 fulano.secreto@example.com';
const RAW_PIECES = ['123.456.789-09', 'fulano.secreto@example.com', 'Erro no pagador'];

const world = useExternalProviderWorld();

type Case = ChargeCase;
const CASES = CHARGE_CASES;
const keyOf = (c: Case) => keyOfWorld(world, c);
const create = (c: Case, key?: string, idempotencyKey?: string) =>
  chargeRequest(world, c, key, idempotencyKey);

async function creationCalls(transactionId: string) {
  return world.control.calls({ reference: transactionId, operation: 'create' });
}

/** SPEC 2.3: the stored provider_request is exactly the body the provider received. */
async function assertSentBodyIsStored(c: Case, transactionId: string) {
  const calls = await creationCalls(transactionId);
  assert.equal(calls.length, 1, 'one provider call');
  const call = calls[0];
  assert.ok(call);
  assert.equal(call.environment, c.environment);
  const stored = await world.app.request('GET', `/v1/transactions/${transactionId}/request`, {
    headers: { 'x-api-key': keyOf(c) },
  });
  assert.equal(stored.status, 200, stored.text);
  assert.equal(stored.body.data.source, 'captured');
  assert.deepEqual(stored.body.data.provider_request, call.body);
  const sent = call.body as Record<string, unknown>;
  assert.equal(sent.Reference, transactionId);
  assert.equal(sent.IsSandbox, c.environment === 'sandbox');
  assert.equal(sent.PaymentMethod, c.method === 'pix' ? '6' : '1');
}

/** SPEC 3.1: a replay answers the stored record with 200 and never calls the provider again. */
async function assertReplay(
  send: () => Promise<TestResponse>,
  transactionId: string,
  status: string,
): Promise<void> {
  const replay = await send();
  assert.equal(replay.status, 200, replay.text);
  assert.equal(replay.headers.get('idempotency-replayed'), 'true');
  assert.equal(replay.body.data.id, transactionId);
  assert.equal(replay.body.data.status, status);
  assert.equal((await creationCalls(transactionId)).length, 1, 'no second provider call');
}

/** SPEC 4.4, 7: another tenant, or the other mode of the same tenant, reads 404. */
async function assertHiddenFromOthers(transactionId: string): Promise<void> {
  for (const key of [world.stranger.key, world.productionTestKey]) {
    for (const path of [`/v1/transactions/${transactionId}`, `/v1/transactions/${transactionId}/request`]) {
      assertError(await world.app.request('GET', path, { headers: { 'x-api-key': key } }), 404, 'not_found');
    }
  }
}

function assertMode(data: Record<string, unknown>, c: Case): void {
  // SPEC 1: the external provider is never simulated; sandbox boletos are test boletos on a live key.
  assert.equal(data.simulated, false);
  assert.equal(data.environment, c.environment);
  assert.equal(data.livemode, true);
  assert.equal(data.method, c.method);
}

describe.each(CASES)('SPEC 3.1 creation at the external provider: $name', (c) => {
  test('issued: 201 pending with the provider artifacts; provider_request is the body sent; replay 200 without a call; hidden from others', async () => {
    const { send } = create(c);
    const res = await send();
    assert.equal(res.status, 201, res.text);
    const data = res.body.data;
    const id = transactionIdOf(res);
    assert.equal(data.status, 'pending');
    assertMode(data, c);
    assert.equal(data.failure_code, null);
    assert.equal(data.provider_error_code, null);
    // The external id is the provider's own id of the charge it holds under our reference.
    const held = await world.control.charges(id);
    assert.equal(held.length, 1);
    assert.equal(data.provider_reference, String(held[0]?.id));
    if (c.method === 'pix') {
      // SPEC 2.2: a payable BR Code and its QR data; no boleto fields.
      assert.ok(isValidPixPayload(data.pix_copy_paste), data.pix_copy_paste);
      assert.equal(typeof data.pix_qr_code, 'string');
      assert.equal(typeof data.expires_at, 'string');
      assert.equal(data.boleto_url, null);
      assert.equal(data.boleto_digitable_line, null);
    } else {
      // SPEC 2.2, 4.2: our PDF URL, never the provider's; line and barcode as digit strings; the attached Pix
      // lives until the end of the due day in Brasilia time.
      assert.equal(data.boleto_url, `${data.document_url}/boleto.pdf`);
      assert.match(data.boleto_digitable_line, /^[0-9]{47,48}$/);
      assert.match(data.boleto_barcode, /^[0-9]{44}$/);
      if (c.environment === 'production') {
        assert.ok(isValidPixPayload(data.boleto_pix_copy_paste), data.boleto_pix_copy_paste);
        const due: string = data.boleto_due_date;
        const next = new Date(`${due}T00:00:00Z`);
        next.setUTCDate(next.getUTCDate() + 1);
        assert.equal(data.boleto_pix_expires_at, `${next.toISOString().slice(0, 10)}T02:59:59.000Z`);
      } else {
        // SPEC 1 (sandbox: no Pix payable), 2.2; issue 22 item 2.2: no Pix, no Pix deadline.
        assert.equal(data.boleto_pix_copy_paste, null);
        assert.equal(data.boleto_pix_expires_at, null);
      }
      assert.equal(data.pix_copy_paste, null);
      assert.equal(data.expires_at, null);
    }
    await assertSentBodyIsStored(c, id);
    await assertReplay(send, id, 'pending');
    const read = await world.app.request('GET', `/v1/transactions/${id}`, {
      headers: { 'x-api-key': keyOf(c) },
    });
    assert.equal(read.status, 200);
    assert.deepEqual({ ...read.body.data, updated_at: null }, { ...data, updated_at: null });
    await assertHiddenFromOthers(id);
  });

  test('refused (HasError on HTTP 200 with a code): 502 provider_rejected with the direct diagnostics, never the raw text; failed kept; replay 200', async () => {
    await world.control.fault({
      operation: 'create',
      fault: { type: 'has_error', code: '4117', message: RAW_TEXT },
    });
    const { send } = create(c);
    const res = await send();
    assertError(res, 502, 'provider_rejected');
    const id = transactionIdOf(res);
    const error = res.body.error;
    assert.equal(error.provider_error_code, '4117');
    assert.equal(error.provider_http_status, 200);
    assert.equal(typeof error.provider_error_message, 'string');
    assert.ok(error.provider_error_message.length <= 400);
    assert.equal('metadata' in error, false);

    const read = await world.app.request('GET', `/v1/transactions/${id}`, {
      headers: { 'x-api-key': keyOf(c) },
    });
    assert.equal(read.status, 200);
    assert.equal(read.body.data.status, 'failed');
    assert.equal(read.body.data.failure_code, 'provider_rejected');
    assert.equal(read.body.data.provider_error_code, '4117');
    assert.equal(read.body.data.provider_error_message, error.provider_error_message);
    assert.equal(read.body.data.provider_http_status, 200);
    assertMode(read.body.data, c);
    await assertSentBodyIsStored(c, id);
    await assertReplay(send, id, 'failed');

    // SPEC 2.2 rule 3: the provider's text is in no response, event or log line.
    const events = await world.app.gateway.ctx.db.selectFrom('events').select(['data', 'metadata']).execute();
    const haystacks = [res.text, read.text, JSON.stringify(events), world.app.logs.join('\n')];
    for (const piece of RAW_PIECES) {
      for (const hay of haystacks) assert.ok(!hay.includes(piece), `raw provider text leaked: ${piece}`);
    }
    await assertHiddenFromOthers(id);
  });

  const uncertain: Array<{ name: string; fault: Fault; httpStatus: number | null }> = [
    { name: 'no answer before PROVIDER_TIMEOUT_MS', fault: { type: 'no_answer' }, httpStatus: null },
    { name: 'connection reset', fault: { type: 'reset' }, httpStatus: null },
    { name: 'HTTP 503', fault: { type: 'http_error', status: 503 }, httpStatus: 503 },
  ];
  test.each(uncertain)(
    'uncertain ($name): 202 unknown without artifacts; replay 200 without a call',
    async (u) => {
      await world.control.fault({ operation: 'create', fault: u.fault });
      const { send } = create(c);
      const res = await send();
      assert.equal(res.status, 202, res.text);
      const data = res.body.data;
      const id = transactionIdOf(res);
      assert.equal(data.status, 'unknown');
      assertMode(data, c);
      assert.equal(data.pix_copy_paste, null);
      assert.equal(data.pix_qr_code, null);
      assert.equal(data.boleto_digitable_line, null);
      assert.equal(data.boleto_url, null);
      assert.equal(data.provider_http_status, u.httpStatus);
      assert.equal(typeof data.provider_error_message, 'string');
      await assertSentBodyIsStored(c, id);
      await assertReplay(send, id, 'unknown');
      await assertHiddenFromOthers(id);
    },
  );
});

describe('SPEC 1 modes and SPEC 5.8 controls at creation', () => {
  test('Pix on the external sandbox is 422 provider_pix_sandbox_unsupported before reservation: no call, key unused', async () => {
    const key = randomUUID();
    const res = await create(
      { name: 'pix sandbox', method: 'pix', environment: 'sandbox' },
      world.sandbox.key,
      key,
    ).send();
    assertError(res, 422, 'provider_pix_sandbox_unsupported');
    assert.equal(res.body.error.transaction_id, undefined);
    assert.deepEqual(await world.control.calls({ operation: 'create' }), []);
    // Nothing was claimed: the same key serves a boleto afterwards.
    const boleto = await create(
      { name: 'boleto', method: 'boleto', environment: 'sandbox' },
      world.sandbox.key,
      key,
    ).send();
    assert.equal(boleto.status, 201, boleto.text);
  });

  test('a test key of a tenant routed to the production provider is served by the simulator: nothing reaches the provider', async () => {
    const res = await create(
      { name: 'test key', method: 'pix', environment: 'production' },
      world.productionTestKey,
    ).send();
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.data.simulated, true);
    assert.equal(res.body.data.livemode, false);
    assert.deepEqual(await world.control.calls(), []);
    const request = await world.app.request('GET', `/v1/transactions/${res.body.data.id}/request`, {
      headers: { 'x-api-key': world.productionTestKey },
    });
    assert.equal(request.body.data.provider_request, null);
  });

  test('production off (allow_live_payments false): 403 live_payments_disabled, no call; the boleto sandbox does not consult it', async () => {
    const off = await world.app.request('PATCH', '/admin/settings/payments', {
      headers: world.admin,
      json: { allow_live_payments: false },
    });
    assert.equal(off.status, 200, off.text);
    try {
      for (const method of ['pix', 'boleto'] as const) {
        const res = await create({ name: method, method, environment: 'production' }).send();
        assertError(res, 403, 'live_payments_disabled');
      }
      assert.deepEqual(await world.control.calls(), []);
      const sandboxBoleto = await create({ name: 'boleto', method: 'boleto', environment: 'sandbox' }).send();
      assert.equal(sandboxBoleto.status, 201, sandboxBoleto.text);
    } finally {
      const on = await world.app.request('PATCH', '/admin/settings/payments', {
        headers: world.admin,
        json: { allow_live_payments: true },
      });
      assert.equal(on.status, 200, on.text);
    }
  });
});

describe('issue 13: the provider record decides what can be sent', () => {
  test('no credentials: 422 provider_not_configured before reservation; a key the provider refuses: 502 provider_rejected (HTTP 401)', async () => {
    const { app, admin, emulator } = world;
    const created = await app.request('POST', '/admin/providers', {
      headers: admin,
      json: {
        name: 'Safe2Pay without key',
        kind: 'external',
        environment: 'sandbox',
        enabled_methods: ['boleto'],
        payment_host: emulator.paymentUrl,
        api_host: emulator.apiUrl,
      },
    });
    assert.equal(created.status, 201, created.text);
    const providerId = created.body.data.id;
    const tenant = await seedTenantAndKey(app.gateway.ctx, { livemode: true });
    const rule = await app.request('POST', '/admin/rules', {
      headers: admin,
      json: { method: 'boleto', tenant_id: tenant.tenantId, provider_id: providerId, priority: 1 },
    });
    assert.equal(rule.status, 201, rule.text);
    const boleto = { name: 'boleto', method: 'boleto' as const, environment: 'sandbox' as const };
    const idempotencyKey = randomUUID();
    const missing = await create(boleto, tenant.key, idempotencyKey).send();
    assertError(missing, 422, 'provider_not_configured');
    assert.equal(missing.body.error.transaction_id, undefined);
    assert.deepEqual(await world.control.calls(), []);

    const patched = await app.request('PATCH', `/admin/providers/${providerId}`, {
      headers: admin,
      json: { credentials: { api_key: 'a-key-the-provider-does-not-know' } },
    });
    assert.equal(patched.status, 200, patched.text);
    // The same Idempotency-Key: the refused attempt above claimed nothing.
    const refused = await create(boleto, tenant.key, idempotencyKey).send();
    assertError(refused, 502, 'provider_rejected');
    assert.equal(refused.body.error.provider_http_status, 401);
    transactionIdOf(refused);
    // One call, refused at the door (the emulator does not read the body of an unknown key).
    const calls = await world.control.calls();
    assert.deepEqual(
      calls.map((c) => c.httpStatus),
      [401],
    );
  });
});
