import assert from 'node:assert/strict';
import { afterAll, beforeAll, describe, test } from 'vitest';
import { boletoCancelAt } from '../../src/providers/simulator.ts';
import { addDays, boletoBody, today } from '../support/charges.ts';
import { type SeededKey, seedTenantAndKey } from '../support/fixtures.ts';
import { startTestApp, type TestApp } from '../support/http.ts';

/** SPEC 1 (simulator row), 2.2, 2.3, 4.2, 7: POST /v1/boleto. */

const SECRET = 'boleto-test-document-signing-secret-0123456789';
let app: TestApp;
let live: SeededKey;
let test_: SeededKey;
let counter = 0;

function post(key: string, json: unknown, idem = `boleto-${++counter}`) {
  return app.request('POST', '/v1/boleto', { headers: { 'x-api-key': key, 'idempotency-key': idem }, json });
}

beforeAll(async () => {
  app = await startTestApp({ DOCUMENT_SIGNING_SECRET: SECRET, ENABLE_SIMULATOR: 'true' });
  live = await seedTenantAndKey(app.gateway.ctx, { livemode: true });
  test_ = await seedTenantAndKey(app.gateway.ctx, { livemode: false });
});
afterAll(() => app.close());

describe('POST /v1/boleto (SPEC 4.2, 1 simulator row)', () => {
  test('simulator: 201, simulated, artifacts null, no expiry without cancel_after_due', async () => {
    const res = await post(live.key, boletoBody());
    assert.equal(res.status, 201, res.text);
    const t = res.body.data;
    assert.equal(t.method, 'boleto');
    assert.equal(t.status, 'pending');
    assert.equal(t.simulated, true);
    assert.equal(t.environment, 'sandbox');
    assert.equal(t.boleto_due_date, addDays(today(), 5));
    for (const f of [
      'boleto_url',
      'boleto_digitable_line',
      'boleto_barcode',
      'boleto_pix_copy_paste',
      'boleto_pix_expires_at',
      'pix_copy_paste',
      'expires_at',
    ]) {
      assert.equal(t[f], null, f);
    }
    assert.match(t.document_url, /\/cobranca\/txn_/);
  });

  test('cancel_after_due: start of the day after due date + days_before_cancel, Sao Paulo (SPEC 4.2)', async () => {
    const due = addDays(today(), 3);
    const res = await post(
      live.key,
      boletoBody({ due_date: due, cancel_after_due: true, days_before_cancel: 2 }),
    );
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.data.expires_at, `${addDays(due, 3)}T03:00:00.000Z`);
    assert.equal(boletoCancelAt('2026-12-31', 0), '2027-01-01T03:00:00.000Z');
  });

  test('test-mode key: livemode false, simulated true (SPEC 1, 5.2)', async () => {
    const res = await post(test_.key, boletoBody());
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.data.livemode, false);
    assert.equal(res.body.data.simulated, true);
  });

  test('due_date: today..today+365 in America/Sao_Paulo (SPEC 4.2)', async () => {
    assert.equal((await post(live.key, boletoBody({ due_date: today() }))).status, 201);
    assert.equal((await post(live.key, boletoBody({ due_date: addDays(today(), 365) }))).status, 201);
    for (const due_date of [addDays(today(), -1), addDays(today(), 366), '2026-02-30', '20261201']) {
      const res = await post(live.key, boletoBody({ due_date }));
      assert.equal(res.status, 422, `${due_date}: ${res.text}`);
      assert.equal(res.body.error.code, 'validation_error');
    }
    const { boleto: _b, ...noBoleto } = boletoBody();
    assert.equal((await post(live.key, noBoleto)).status, 422);
  });

  test('penalty/interest: 0..100 with at most two decimals, read from the JSON text (SPEC 4.2)', async () => {
    const raw = (rate: string) =>
      JSON.stringify(boletoBody({ penalty_rate: 0 })).replace('"penalty_rate":0', `"penalty_rate":${rate}`);
    const send = (rate: string) =>
      app.request('POST', '/v1/boleto', {
        headers: { 'x-api-key': live.key, 'idempotency-key': `boleto-${++counter}` },
        raw: raw(rate),
      });
    for (const ok of ['0', '2', '2.5', '2.50', '100', '99.99']) {
      const res = await send(ok);
      assert.equal(res.status, 201, `${ok}: ${res.text}`);
    }
    for (const bad of ['2.505', '100.01', '101', '-1', '1e1', '"2"']) {
      const res = await send(bad);
      assert.equal(res.status, 422, `${bad}: ${res.text}`);
    }
    assert.equal((await post(live.key, boletoBody({ interest_rate: 1.234 }))).status, 422);
    const ok = await post(live.key, boletoBody({ interest_rate: 1.5, penalty_rate: 2 }));
    const snap = await app.request('GET', `/v1/transactions/${ok.body.data.id}/request`, {
      headers: { 'x-api-key': live.key },
    });
    assert.equal(snap.body.data.request.boleto.interest_rate, 1.5);
    assert.equal(snap.body.data.request.boleto.penalty_rate, 2);
  });

  test('instruction up to 200 bytes; days_before_cancel 0..120 (SPEC 4.2)', async () => {
    assert.equal((await post(live.key, boletoBody({ instruction: 'i'.repeat(200) }))).status, 201);
    assert.equal((await post(live.key, boletoBody({ instruction: 'ç'.repeat(101) }))).status, 422);
    assert.equal((await post(live.key, boletoBody({ days_before_cancel: 120 }))).status, 201);
    assert.equal((await post(live.key, boletoBody({ days_before_cancel: 121 }))).status, 422);
    assert.equal((await post(live.key, boletoBody({ days_before_cancel: -1 }))).status, 422);
  });

  test('email and phone both required; phone 1..20 bytes after trim (SPEC 4.2)', async () => {
    const body = boletoBody();
    const { email: _e, ...noEmail } = body.customer;
    assert.equal((await post(live.key, { ...body, customer: noEmail })).status, 422);
    const { phone: _p, ...noPhone } = body.customer;
    assert.equal((await post(live.key, { ...body, customer: noPhone })).status, 422);
    assert.equal(
      (await post(live.key, { ...body, customer: { ...body.customer, phone: '  ' } })).status,
      422,
    );
    const padded = { ...body.customer, phone: `  ${'1'.repeat(20)}  ` };
    assert.equal((await post(live.key, { ...body, customer: padded })).status, 201);
  });

  test('expires_in, tenant_id, provider_id (SPEC 4.2)', async () => {
    assert.equal(
      (await post(live.key, boletoBody({}, { expires_in: 3600 }))).body.error.code,
      'invalid_json',
    );
    assert.equal(
      (await post(live.key, boletoBody({}, { tenant_id: live.tenantId }))).body.error.code,
      'tenant_from_api_key',
    );
    assert.equal((await post(live.key, boletoBody({}, { provider_id: 'prv_x' }))).status, 400);
  });

  test('scope boleto:write is explicit: pix:write is not enough (SPEC 4.2, 5.3)', async () => {
    const pixOnly = await seedTenantAndKey(app.gateway.ctx, { livemode: true, scopes: ['pix:write'] });
    const res = await post(pixOnly.key, boletoBody());
    assert.equal(res.status, 403);
    assert.equal(res.body.error.code, 'insufficient_scope');
  });

  test('the snapshot has no expires_in and omits zero defaults (SPEC 2.3)', async () => {
    const res = await post(live.key, boletoBody({ penalty_rate: 0, cancel_after_due: false }));
    const snap = await app.request('GET', `/v1/transactions/${res.body.data.id}/request`, {
      headers: { 'x-api-key': live.key },
    });
    const r = snap.body.data.request;
    assert.equal(r.method, 'boleto');
    assert.equal(r.expires_in, undefined);
    assert.deepEqual(r.boleto, { due_date: addDays(today(), 5) });
  });
});
