import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, test } from 'vitest';
import { issueApiKey } from '../../src/commands/api-keys/issue/handler.ts';
import { transactionStream } from '../../src/commands/transactions/shared/stream.ts';
import { boletoCancelAt } from '../../src/providers/simulator.ts';
import { assertError } from '../support/admin.ts';
import { addDays, boletoBody, pixBody, today } from '../support/charges.ts';
import { commandDeps, type SeededKey, seedChildTenant, seedTenantAndKey } from '../support/fixtures.ts';
import { startTestApp, type TestApp } from '../support/http.ts';

/** SPEC 3.1, 4.8, 5.3, 5.5, 7: POST /v1/transactions/{id}/refund and PATCH /v1/transactions/{id}/boleto. */

const SECRET = 'refund-due-date-document-signing-secret-012345';
let app: TestApp;
let key: SeededKey;
let child: SeededKey;
let pixOnly: SeededKey;
let counter = 0;
const idem = () => `chg-${++counter}`;

async function create(k: string, path: '/v1/pix' | '/v1/boleto', json: unknown): Promise<string> {
  const res = await app.request('POST', path, {
    headers: { 'x-api-key': k, 'idempotency-key': idem() },
    json,
  });
  assert.equal(res.status, 201, res.text);
  return res.body.data.id;
}

async function paid(k: string, path: '/v1/pix' | '/v1/boleto', json: unknown): Promise<string> {
  const id = await create(k, path, json);
  const res = await app.request('POST', `/v1/transactions/${id}/simulate`, {
    headers: { 'x-api-key': k },
    json: { status: 'paid' },
  });
  assert.equal(res.status, 200, res.text);
  return id;
}

function refund(k: string, id: string, json?: unknown, key_ = idem()) {
  return app.request('POST', `/v1/transactions/${id}/refund`, {
    headers: { 'x-api-key': k, 'idempotency-key': key_ },
    ...(json === undefined ? {} : { json }),
  });
}

function moveDue(k: string, id: string, due_date: string, key_ = idem()) {
  return app.request('PATCH', `/v1/transactions/${id}/boleto`, {
    headers: { 'x-api-key': k, 'idempotency-key': key_ },
    json: { due_date },
  });
}

async function eventCount(): Promise<number> {
  const { rows } = await sql<{ n: string }>`select count(*) as n from events`.execute(app.gateway.ctx.db);
  return Number(rows[0]?.n);
}

const BANK = {
  bank_code: '001',
  branch: '1234',
  account: '12345-6',
  account_type: 'checking',
  holder_name: 'Joao Souza',
  holder_document: '12345678000190',
};

beforeAll(async () => {
  app = await startTestApp({
    DOCUMENT_SIGNING_SECRET: SECRET,
    ENABLE_SIMULATOR: 'true',
    // The key that wraps the vault's data keys: a refund to a bank account needs it (issue 22 item 4.4).
    CREDENTIALS_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
  });
  key = await seedTenantAndKey(app.gateway.ctx, { livemode: false });
  child = await seedChildTenant(app.gateway.ctx, key.tenantId, { livemode: false });
  pixOnly = await seedTenantAndKey(app.gateway.ctx, {
    livemode: false,
    scopes: ['transactions:read', 'pix:write'],
  });
});
afterAll(() => app.close());

describe('POST /v1/transactions/{id}/refund (SPEC 4.8, 3.1)', () => {
  test('a paid Pix is refunded in full: 200, status refunded, refund.status; the reservation, then one Refunded event', async () => {
    const id = await paid(key.key, '/v1/pix', pixBody());
    const res = await refund(key.key, id);
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.data.status, 'refunded');
    assert.deepEqual(res.body.data.refund, { status: 'succeeded' });
    assert.equal(res.headers.get('idempotency-replayed'), null);
    const events = await app.gateway.ctx.store.read(transactionStream(id));
    // Issue 22: reserved before the provider (the simulator) is called, then recorded.
    assert.deepEqual(events.map((e) => e.type).slice(-3), [
      'Transaction.Paid',
      'Transaction.RefundRequested',
      'Transaction.Refunded',
    ]);
    assert.equal(events.at(-1)?.metadata.request_id, res.headers.get('x-request-id'));
    // A transaction read shows the refund too; an unrefunded one shows null.
    const got = await app.request('GET', `/v1/transactions/${id}`, { headers: { 'x-api-key': key.key } });
    assert.deepEqual(got.body.data.refund, { status: 'succeeded' });
  });

  test('replay: same key 200 + Idempotency-Replayed, no new event; same key on another charge 409', async () => {
    const id = await paid(key.key, '/v1/pix', pixBody());
    const k = idem();
    assert.equal((await refund(key.key, id, {}, k)).status, 200);
    const before_ = await eventCount();
    const again = await refund(key.key, id, {}, k);
    assert.equal(again.status, 200, again.text);
    assert.equal(again.headers.get('idempotency-replayed'), 'true');
    assert.equal(again.body.data.status, 'refunded');
    assert.equal(await eventCount(), before_);
    const other = await paid(key.key, '/v1/pix', pixBody());
    assertError(await refund(key.key, other, {}, k), 409, 'idempotency_conflict');
    // A creation key is not a refund key either (tenant scope shared, route in the hash).
    const creationKey = idem();
    await app.request('POST', '/v1/pix', {
      headers: { 'x-api-key': key.key, 'idempotency-key': creationKey },
      json: pixBody(),
    });
    assertError(await refund(key.key, other, {}, creationKey), 409, 'idempotency_conflict');
  });

  test('a refunded charge with a new key answers 200 unchanged (the key is claimed, no charge event)', async () => {
    const id = await paid(key.key, '/v1/pix', pixBody());
    assert.equal((await refund(key.key, id)).status, 200);
    const events = (await app.gateway.ctx.store.read(transactionStream(id))).length;
    const res = await refund(key.key, id);
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.data.status, 'refunded');
    assert.equal((await app.gateway.ctx.store.read(transactionStream(id))).length, events);
  });

  test('an unpaid charge: 409 conflict with error.transaction_id; the key stays unused', async () => {
    const id = await create(key.key, '/v1/pix', pixBody());
    const k = idem();
    const res = await refund(key.key, id, undefined, k);
    assertError(res, 409, 'conflict');
    assert.equal(res.body.error.transaction_id, id);
    // Paid later, the same key now refunds it: the refused attempt did not claim the key.
    await app.request('POST', `/v1/transactions/${id}/simulate`, {
      headers: { 'x-api-key': key.key },
      json: { status: 'paid' },
    });
    assert.equal((await refund(key.key, id, undefined, k)).status, 200);
  });

  test('a boleto paid by boleto needs bank_account (422) and is refunded to it (202 pending); a Pix refund refuses one (422)', async () => {
    const boleto = await paid(key.key, '/v1/boleto', boletoBody());
    const missing = await refund(key.key, boleto, {});
    assertError(missing, 422, 'validation_error');
    assert.equal(missing.body.error.param, 'bank_account');
    // Issue 22 item 4: the money goes back by a transfer to the payer's own account; this record has no
    // payouts, so a person makes it (202, refund pending, the charge still paid until the money has gone).
    const ok = await refund(key.key, boleto, { bank_account: BANK });
    assert.equal(ok.status, 202, ok.text);
    assert.equal(ok.body.data.status, 'paid');
    assert.deepEqual(ok.body.data.refund, { status: 'pending' });
    const pix = await paid(key.key, '/v1/pix', pixBody());
    const extra = await refund(key.key, pix, { bank_account: BANK });
    assertError(extra, 422, 'validation_error');
    assert.equal(extra.body.error.param, 'bank_account');
  });

  test('bad input: unknown field 400, bad account 422, no key 400; nothing appended', async () => {
    const id = await paid(key.key, '/v1/boleto', boletoBody());
    const before_ = await eventCount();
    assertError(await refund(key.key, id, { amount: 100 }), 400, 'invalid_json');
    assertError(
      await refund(key.key, id, { bank_account: { ...BANK, bank_code: '1' } }),
      422,
      'validation_error',
    );
    assertError(
      await app.request('POST', `/v1/transactions/${id}/refund`, { headers: { 'x-api-key': key.key } }),
      400,
      'idempotency_key_required',
    );
    assert.equal(await eventCount(), before_);
  });

  test('scopes, hierarchy and mode: 403 insufficient_scope, 403 forbidden for a child, 404 elsewhere', async () => {
    const pix = await paid(key.key, '/v1/pix', pixBody());
    const boletoOnly = await issueApiKey(
      commandDeps(app.gateway.ctx),
      {
        tenantId: key.tenantId,
        livemode: false,
        name: 'boleto only',
        scopes: ['transactions:read', 'boleto:write'],
        accessProfile: 'standard',
        createdBy: 'system:test',
      },
      { actor: 'system:test', request_id: 'req_test' },
    );
    assertError(await refund(boletoOnly.key, pix), 403, 'insufficient_scope');
    assertError(await refund(pixOnly.key, pix), 404, 'not_found');
    const live = await seedTenantAndKey(app.gateway.ctx, { livemode: true });
    assertError(await refund(live.key, pix), 404, 'not_found');
    const childPaid = await paid(child.key, '/v1/pix', pixBody());
    assertError(await refund(key.key, childPaid), 403, 'forbidden');
    assert.equal((await refund(child.key, childPaid)).status, 200);
  });
});

describe('PATCH /v1/transactions/{id}/boleto (SPEC 4.8)', () => {
  test('an open boleto gets a new due date: 200, the reservation then one DueDateChanged event, no new charge', async () => {
    const id = await create(key.key, '/v1/boleto', boletoBody());
    const due = addDays(today(), 20);
    const before_ = await eventCount();
    const res = await moveDue(key.key, id, due);
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.data.id, id);
    assert.equal(res.body.data.boleto_due_date, due);
    assert.equal(res.body.data.status, 'pending');
    // The reservation (issue 22), one DueDateChanged, the key's claim and its completion (issue 12); no
    // Reserved (no new charge).
    const appended = await sql<{ type: string }>`
      select type from events order by global_position desc limit ${(await eventCount()) - before_}`.execute(
      app.gateway.ctx.db,
    );
    assert.deepEqual(appended.rows.map((r) => r.type).sort(), [
      'Idempotency.Claimed',
      'Idempotency.Completed',
      'Transaction.DueDateChangeRequested',
      'Transaction.DueDateChanged',
    ]);
  });

  test('cancel_after_due: the simulated expiry moves with the date (SPEC 4.2)', async () => {
    const id = await create(
      key.key,
      '/v1/boleto',
      boletoBody({ cancel_after_due: true, days_before_cancel: 2 }),
    );
    const due = addDays(today(), 30);
    const res = await moveDue(key.key, id, due);
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.data.expires_at, boletoCancelAt(due, 2));
  });

  test('replay and conflicts: same key 200 replayed; other date with the key 409; same date no event', async () => {
    const id = await create(key.key, '/v1/boleto', boletoBody());
    const k = idem();
    const due = addDays(today(), 10);
    assert.equal((await moveDue(key.key, id, due, k)).status, 200);
    const before_ = await eventCount();
    const again = await moveDue(key.key, id, due, k);
    assert.equal(again.status, 200);
    assert.equal(again.headers.get('idempotency-replayed'), 'true');
    assertError(await moveDue(key.key, id, addDays(today(), 11), k), 409, 'idempotency_conflict');
    assert.equal(await eventCount(), before_);
    const same = await moveDue(key.key, id, due);
    assert.equal(same.status, 200);
    assert.equal(same.body.data.boleto_due_date, due);
  });

  test('window and state: 422 outside today..+365; 409 for a Pix or a paid boleto; nothing appended', async () => {
    const id = await create(key.key, '/v1/boleto', boletoBody());
    const pix = await create(key.key, '/v1/pix', pixBody());
    const paidBoleto = await paid(key.key, '/v1/boleto', boletoBody());
    const before_ = await eventCount();
    for (const bad of [addDays(today(), -1), addDays(today(), 366)]) {
      const res = await moveDue(key.key, id, bad);
      assertError(res, 422, 'validation_error');
      assert.equal(res.body.error.param, 'due_date');
    }
    assertError(await moveDue(key.key, id, '2026-02-30'), 422, 'validation_error');
    assertError(await moveDue(key.key, pix, addDays(today(), 3)), 409, 'conflict');
    assertError(await moveDue(key.key, paidBoleto, addDays(today(), 3)), 409, 'conflict');
    assertError(
      await app.request('PATCH', `/v1/transactions/${id}/boleto`, {
        headers: { 'x-api-key': key.key, 'idempotency-key': idem() },
        json: { due_date: addDays(today(), 3), amount: 1 },
      }),
      400,
      'invalid_json',
    );
    assert.equal(await eventCount(), before_);
  });

  test('scope boleto:write is required (403 insufficient_scope)', async () => {
    const id = await create(pixOnly.key, '/v1/pix', pixBody());
    assertError(await moveDue(pixOnly.key, id, addDays(today(), 3)), 403, 'insufficient_scope');
  });
});
