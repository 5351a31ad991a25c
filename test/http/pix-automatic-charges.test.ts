import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, test } from 'vitest';
import { debitPollerJob } from '../../src/commands/pix-automatic/debits/poll/job.ts';
import { hasUnconfirmedDebit } from '../../src/commands/pix-automatic/debits/revoke-guard.ts';
import { SIMULATOR_PROVIDER_ID } from '../../src/commands/providers/bootstrap-simulator.ts';
import { WebhookDeliveryWorker } from '../../src/workers/webhook-delivery.ts';
import { addDays, pixBody, today } from '../support/charges.ts';
import { type SeededKey, seedChildTenant, seedTenantAndKey } from '../support/fixtures.ts';
import { startTestApp, type TestApp } from '../support/http.ts';
import { seedAuthorization } from '../support/pix-automatic.ts';

/**
 * SPEC 4.11 `POST /v1/pix-automatic/charges` on the simulator (test keys, and a live key routed to the
 * simulator), SPEC 2.2 (the two facts), 3.1 (`pending` = scheduled, never a QR code), 4.3 (lists), 4.6
 * (refresh), 4.7 (simulate), 4.8 (refund refused), 5.3/5.5 (scopes, own tenant), 6 (webhooks to a real
 * socket), 7 (the automatic_* codes), 8 (polling: a debit found paid after its due date).
 */

let app: TestApp;
let test_: SeededKey;
let live: SeededKey;
let child: SeededKey;
let outsider: SeededKey;
let readOnly: SeededKey;
let counter = 0;
const received: { path: string; body: string }[] = [];
let receiver: Server;
let receiverPort = 0;

/** A due date `days` ahead in America/Sao_Paulo. */
const dueIn = (days: number) => addDays(today(), days);

function debitBody(authorizationId: string, dueDate: string, over: Record<string, unknown> = {}) {
  return {
    authorization_id: authorizationId,
    due_date: dueDate,
    amount: 4990,
    reference: `assinatura-${++counter}`,
    description: 'Assinatura mensal',
    customer: pixBody().customer,
    ...over,
  };
}

function post(key: string, json: unknown, idem: string | null = `debit-${++counter}`) {
  return app.request('POST', '/v1/pix-automatic/charges', {
    headers: { 'x-api-key': key, ...(idem === null ? {} : { 'idempotency-key': idem }) },
    json,
  });
}

/** An approved monthly authorization whose calendar holds `dueIn(days)`. */
function approved(
  key: SeededKey,
  days = 5,
  over: Parameters<typeof seedAuthorization>[1] extends infer T ? Partial<T> : never = {},
) {
  return seedAuthorization(app.gateway.ctx, {
    tenantId: key.tenantId,
    livemode: key === live,
    firstDueDate: dueIn(days),
    ...(key === live ? { providerId: SIMULATOR_PROVIDER_ID } : {}),
    ...over,
  });
}

beforeAll(async () => {
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ path: req.url ?? '', body: Buffer.concat(chunks).toString('utf8') });
      res.statusCode = 204;
      res.end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverPort = (receiver.address() as AddressInfo).port;
  app = await startTestApp({
    ENABLE_SIMULATOR: 'true',
    WEBHOOK_ALLOWED_PRIVATE_HOSTS: `127.0.0.1:${receiverPort}`,
  });
  test_ = await seedTenantAndKey(app.gateway.ctx, { livemode: false });
  live = await seedTenantAndKey(app.gateway.ctx, { livemode: true });
  child = await seedChildTenant(app.gateway.ctx, test_.tenantId, { livemode: false });
  outsider = await seedTenantAndKey(app.gateway.ctx, { livemode: false });
  readOnly = await seedTenantAndKey(app.gateway.ctx, { livemode: false, scopes: ['transactions:read'] });
});
afterAll(async () => {
  await app.close();
  await new Promise((resolve) => receiver.close(resolve));
});

describe('POST /v1/pix-automatic/charges (SPEC 4.11)', () => {
  test('a test key schedules a debit: 201 pending (scheduled), method pix, the two facts, no expiry, no QR (SPEC 2.2, 3.1)', async () => {
    const auth = await approved(test_);
    const due = dueIn(5);
    const res = await post(test_.key, debitBody(auth, due));
    assert.equal(res.status, 201, res.text);
    const t = res.body.data;
    assert.match(t.id, /^txn_/);
    assert.equal(t.status, 'pending');
    assert.equal(t.method, 'pix');
    assert.equal(t.amount, 4990);
    assert.equal(t.pix_automatic_authorization_id, auth);
    assert.equal(t.scheduled_due_date, due);
    assert.equal(t.expires_at, null);
    assert.equal(t.pix_copy_paste, null);
    assert.equal(t.pix_qr_code, null);
    assert.equal(t.simulated, true);
    assert.equal(t.livemode, false);
    assert.equal(t.provider_reference, `sim_${t.id}`);

    // GET and the list (method=pix) show it with its facts (SPEC 4.3, 4.4).
    await app.settle();
    const got = await app.request('GET', `/v1/transactions/${t.id}`, { headers: { 'x-api-key': test_.key } });
    assert.equal(got.status, 200, got.text);
    assert.equal(got.body.data.scheduled_due_date, due);
    const list = await app.request('GET', `/v1/transactions?method=pix&reference=${t.reference}`, {
      headers: { 'x-api-key': test_.key },
    });
    assert.equal(list.status, 200, list.text);
    assert.deepEqual(
      list.body.data.map((x: { id: string; pix_automatic_authorization_id: string }) => [
        x.id,
        x.pix_automatic_authorization_id,
      ]),
      [[t.id, auth]],
    );
    // SPEC 2.3: the creation snapshot names the authorization and the due date.
    const request = await app.request('GET', `/v1/transactions/${t.id}/request`, {
      headers: { 'x-api-key': test_.key },
    });
    assert.equal(request.status, 200, request.text);
    assert.equal(request.body.data.request.authorization_id, auth);
    assert.equal(request.body.data.request.due_date, due);
    assert.equal(request.body.data.provider_request, null);
  });

  test('replay: same key and body 200 + Idempotency-Replayed, no second debit; another body under the key 409 idempotency_conflict', async () => {
    const auth = await approved(test_);
    const body = debitBody(auth, dueIn(5));
    const key = `replay-${randomUUID()}`;
    const first = await post(test_.key, body, key);
    assert.equal(first.status, 201, first.text);
    const again = await post(test_.key, body, key);
    assert.equal(again.status, 200, again.text);
    assert.equal(again.headers.get('idempotency-replayed'), 'true');
    assert.equal(again.body.data.id, first.body.data.id);
    const other = await post(test_.key, { ...body, reference: 'other' }, key);
    assert.equal(other.status, 409, other.text);
    assert.equal(other.body.error.code, 'idempotency_conflict');
  });

  test('one debit per due date per authorization, whatever the key: 409 automatic_charge_exists (SPEC 4.11, 7)', async () => {
    const auth = await approved(test_);
    const due = dueIn(5);
    const first = await post(test_.key, debitBody(auth, due));
    assert.equal(first.status, 201, first.text);
    const second = await post(test_.key, debitBody(auth, due));
    assert.equal(second.status, 409, second.text);
    assert.equal(second.body.error.code, 'automatic_charge_exists');
  });

  test('six requests at once for one authorization and date, six keys: one 201, five 409 automatic_charge_exists, one transaction', async () => {
    const auth = await approved(test_);
    const due = dueIn(5);
    const answers = await Promise.all(Array.from({ length: 6 }, () => post(test_.key, debitBody(auth, due))));
    const statuses = answers.map((r) => r.status).sort();
    assert.deepEqual(statuses, [201, 409, 409, 409, 409, 409], answers.map((r) => r.text).join('\n'));
    for (const r of answers.filter((a) => a.status === 409)) {
      assert.equal(r.body.error.code, 'automatic_charge_exists');
    }
    await app.settle();
    const rows = await app.gateway.ctx.db
      .selectFrom('transactions')
      .select('id')
      .where('pix_automatic_authorization_id', '=', auth)
      .execute();
    assert.equal(rows.length, 1);
  });

  test('the authorized calendar: first due date + k × interval months, else 422 automatic_calendar_mismatch (checked before the window)', async () => {
    const monthly = await approved(test_, 5);
    const off = await post(test_.key, debitBody(monthly, dueIn(6)));
    assert.equal(off.status, 422, off.text);
    assert.equal(off.body.error.code, 'automatic_calendar_mismatch');
    const quarterly = await approved(test_, 5, { intervalMonths: 3 });
    const oneMonth = await post(test_.key, debitBody(quarterly, addMonthsClamped(dueIn(5), 1)));
    assert.equal(oneMonth.status, 422, oneMonth.text);
    assert.equal(oneMonth.body.error.code, 'automatic_calendar_mismatch');
    // In the calendar (3 months on) but too far ahead: the calendar passed, the window refuses it.
    const threeMonths = await post(test_.key, debitBody(quarterly, addMonthsClamped(dueIn(5), 3)));
    assert.equal(threeMonths.status, 422, threeMonths.text);
    assert.equal(threeMonths.body.error.code, 'automatic_schedule_window');
    // A date before the first due date is in no calendar.
    const before = await approved(test_, 8);
    const early = await post(test_.key, debitBody(before, addMonthsClamped(dueIn(8), -1)));
    assert.equal(early.status, 422, early.text);
    assert.equal(early.body.error.code, 'automatic_calendar_mismatch');
  });

  test('2 to 10 days ahead in Brasilia time, else 422 automatic_schedule_window', async () => {
    for (const [days, status] of [
      [1, 422],
      [2, 201],
      [10, 201],
      [11, 422],
    ] as const) {
      // A daily anchor is impossible (monthly minimum): one authorization per date, first due that day.
      const auth = await approved(test_, days);
      const res = await post(test_.key, debitBody(auth, dueIn(days)));
      assert.equal(res.status, status, `${days} days: ${res.text}`);
      if (status === 422) assert.equal(res.body.error.code, 'automatic_schedule_window');
    }
  });

  test('amount or payer document other than the contract: 422 automatic_contract_mismatch', async () => {
    const auth = await approved(test_);
    const amount = await post(test_.key, debitBody(auth, dueIn(5), { amount: 4991 }));
    assert.equal(amount.status, 422, amount.text);
    assert.equal(amount.body.error.code, 'automatic_contract_mismatch');
    const customer = { ...(pixBody().customer as Record<string, unknown>), document: '98765432100' };
    const document = await post(test_.key, debitBody(auth, dueIn(5), { customer }));
    assert.equal(document.status, 422, document.text);
    assert.equal(document.body.error.code, 'automatic_contract_mismatch');
    // The same document spelled with spaces and lower case is the same document (trimmed, upper-cased).
    const spaced = { ...(pixBody().customer as Record<string, unknown>), document: ' 12345678901 ' };
    const same = await post(test_.key, debitBody(auth, dueIn(5), { customer: spaced }));
    assert.equal(same.status, 201, same.text);
  });

  test('not approved yet: 422 automatic_not_approved', async () => {
    const auth = await approved(test_, 5, { status: 'pending' });
    const res = await post(test_.key, debitBody(auth, dueIn(5)));
    assert.equal(res.status, 422, res.text);
    assert.equal(res.body.error.code, 'automatic_not_approved');
  });

  test('missing, another tree or another mode: 404 not_found; a descendant’s: 403 forbidden (SPEC 4.10, 5.5)', async () => {
    const missing = await post(test_.key, debitBody('pxa_doesnotexist', dueIn(5)));
    assert.equal(missing.status, 404, missing.text);
    assert.equal(missing.body.error.code, 'not_found');
    const others = await approved(outsider);
    const otherTree = await post(test_.key, debitBody(others, dueIn(5)));
    assert.equal(otherTree.status, 404, otherTree.text);
    assert.equal(otherTree.body.error.code, 'not_found');
    const liveOne = await approved(live);
    const otherMode = await post(test_.key, debitBody(liveOne, dueIn(5)));
    assert.equal(otherMode.status, 404, otherMode.text);
    const childs = await approved(child);
    const descendant = await post(test_.key, debitBody(childs, dueIn(5)));
    assert.equal(descendant.status, 403, descendant.text);
    assert.equal(descendant.body.error.code, 'forbidden');
    // The child's own key schedules it.
    const own = await post(child.key, debitBody(childs, dueIn(5)));
    assert.equal(own.status, 201, own.text);
  });

  test('scope pix:write, Idempotency-Key, strict body, tenant_id (SPEC 4 common rules, 5.3, 5.5)', async () => {
    const auth = await approved(test_);
    const scope = await post(readOnly.key, debitBody(auth, dueIn(5)));
    assert.equal(scope.status, 403, scope.text);
    assert.equal(scope.body.error.code, 'insufficient_scope');
    const noKey = await post(test_.key, debitBody(auth, dueIn(5)), null);
    assert.equal(noKey.status, 400, noKey.text);
    assert.equal(noKey.body.error.code, 'idempotency_key_required');
    const unknownField = await post(test_.key, { ...debitBody(auth, dueIn(5)), expires_in: 600 });
    assert.equal(unknownField.status, 400, unknownField.text);
    assert.equal(unknownField.body.error.code, 'invalid_json');
    const tenant = await post(test_.key, { ...debitBody(auth, dueIn(5)), tenant_id: test_.tenantId });
    assert.equal(tenant.status, 422, tenant.text);
    assert.equal(tenant.body.error.code, 'tenant_from_api_key');
  });

  test('SPEC 8 text limits and a NUL byte: 422 validation_error naming the field, nothing stored', async () => {
    const auth = await approved(test_);
    const events = async () =>
      Number(
        (await sql<{ n: string }>`select count(*)::text as n from events`.execute(app.db.db)).rows[0]?.n,
      );
    const before = await events();
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ reference: 'x'.repeat(101) }, 'reference'],
      [{ description: 'x'.repeat(201) }, 'description'],
      [
        { customer: { ...(pixBody().customer as Record<string, unknown>), name: 'x'.repeat(121) } },
        'customer.name',
      ],
      [{ reference: 'a\u0000b' }, 'reference'],
      [{ description: 'a\u0000b' }, 'description'],
      [{ authorization_id: `${auth}\u0000` }, 'authorization_id'],
    ];
    for (const [over, param] of cases) {
      const res = await post(test_.key, debitBody(auth, dueIn(5), over));
      assert.equal(res.status, 422, `${param}: ${res.text}`);
      assert.equal(res.body.error.code, 'validation_error', param);
      assert.equal(res.body.error.param, param, res.text);
    }
    assert.equal(await events(), before, 'no event appended by a refused request');
  });

  test('a live key routed to the simulator schedules its simulated authorization’s debit (SPEC 1 simulator row)', async () => {
    const auth = await approved(live);
    const res = await post(live.key, debitBody(auth, dueIn(5)));
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.data.livemode, true);
    assert.equal(res.body.data.simulated, true);
    assert.equal(res.body.data.status, 'pending');
  });

  test('the charge page never shows a QR code or a copy-and-paste for a debit (SPEC 3.1 `pending`)', async () => {
    const auth = await approved(test_);
    const res = await post(test_.key, debitBody(auth, dueIn(5)));
    assert.equal(res.status, 201, res.text);
    const page = await fetch(res.body.data.document_url.replace(/^https?:\/\/[^/]+/, app.baseUrl));
    assert.equal(page.status, 200);
    const html = await page.text();
    assert.ok(!html.includes('class="qr"'), 'no QR code');
    assert.ok(!html.includes('<textarea'), 'no copy-and-paste');
  });

  test('simulate paid and expired work on a debit as on a Pix; a paid debit is not refunded by the Pix path (SPEC 4.7, 4.8)', async () => {
    const auth = await approved(test_);
    const a = await post(test_.key, debitBody(auth, dueIn(5)));
    assert.equal(a.status, 201, a.text);
    const paid = await app.request('POST', `/v1/transactions/${a.body.data.id}/simulate`, {
      headers: { 'x-api-key': test_.key },
      json: { status: 'paid' },
    });
    assert.equal(paid.status, 200, paid.text);
    assert.equal(paid.body.data.status, 'paid');
    assert.equal(paid.body.data.paid_with, 'pix');
    const refund = await app.request('POST', `/v1/transactions/${a.body.data.id}/refund`, {
      headers: { 'x-api-key': test_.key, 'idempotency-key': randomUUID() },
    });
    assert.equal(refund.status, 502, refund.text);
    assert.equal(refund.body.error.code, 'provider_rejected');
    assert.equal(refund.body.error.transaction_id, a.body.data.id);
    const after = await app.request('GET', `/v1/transactions/${a.body.data.id}`, {
      headers: { 'x-api-key': test_.key },
    });
    assert.equal(after.body.data.status, 'paid');

    const other = await approved(test_);
    const b = await post(test_.key, debitBody(other, dueIn(5)));
    const expired = await app.request('POST', `/v1/transactions/${b.body.data.id}/simulate`, {
      headers: { 'x-api-key': test_.key },
      json: { status: 'expired' },
    });
    assert.equal(expired.status, 200, expired.text);
    assert.equal(expired.body.data.status, 'expired');
  });

  test('refresh before the due date reads it scheduled at the provider (queryDebit): still pending (SPEC 4.6)', async () => {
    const auth = await approved(test_);
    const res = await post(test_.key, debitBody(auth, dueIn(5)));
    const refreshed = await app.request('POST', `/v1/transactions/${res.body.data.id}/refresh`, {
      headers: { 'x-api-key': test_.key },
    });
    assert.equal(refreshed.status, 200, refreshed.text);
    assert.equal(refreshed.body.data.status, 'pending');
    assert.equal(await hasUnconfirmedDebit(app.gateway.ctx.db, auth), false);
  });

  test('webhooks to a real socket: transaction.created at scheduling, transaction.updated paid when the poller reads it paid after the due date (SPEC 6, 8)', async () => {
    const auth = await approved(test_);
    const due = dueIn(5);
    const path = `/debit-${randomUUID()}`;
    const res = await post(
      test_.key,
      debitBody(auth, due, { callback_url: `http://127.0.0.1:${receiverPort}${path}` }),
    );
    assert.equal(res.status, 201, res.text);
    const id = res.body.data.id as string;
    let clock = Date.now();
    const worker = new WebhookDeliveryWorker(app.gateway.ctx, {
      intervalMs: 1000,
      concurrency: 4,
      now: () => new Date(Math.max(clock, Date.now())),
    });
    const drain = async () => {
      await app.settle();
      while ((await worker.runOnce()) > 0) {}
    };
    await drain();
    const types = () =>
      received
        .filter((r) => r.path === path)
        .map((r) => JSON.parse(r.body) as { type: string; data: { id: string; status: string } });
    assert.deepEqual(
      types().map((m) => [m.type, m.data.id]),
      [
        ['transaction.created', id],
        ['transaction.updated', id],
      ],
    );
    // The poller at the due date's first hour (Brasilia): the simulator reports it paid.
    const job = debitPollerJob();
    const at = new Date(Date.parse(`${due}T03:00:00.000Z`) + 3_600_000);
    clock = at.getTime();
    const ctx = app.gateway.ctx;
    const run = await job.run(
      {
        config: ctx.config,
        logger: ctx.logger,
        db: ctx.db,
        store: ctx.store,
        events: ctx.events,
        providers: ctx.providers,
      },
      { now: at },
    );
    assert.ok(run.polled.some((p) => p.transactionId === id && p.next === null));
    await drain();
    const last = types().at(-1);
    assert.equal(last?.type, 'transaction.updated');
    assert.equal(last?.data.status, 'paid');
    const got = await app.request('GET', `/v1/transactions/${id}`, { headers: { 'x-api-key': test_.key } });
    assert.equal(got.body.data.status, 'paid');
  });
});

/** `date` plus `months` months, the day clamped to a short month's last day (SPEC 4.10 calendar words). */
function addMonthsClamped(date: string, months: number): string {
  const [y, m, d] = date.split('-').map(Number) as [number, number, number];
  const index = y * 12 + (m - 1) + months;
  const year = Math.floor(index / 12);
  const month = index % 12;
  const last = new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
  return `${year}-${String(month + 1).padStart(2, '0')}-${String(Math.min(d, last)).padStart(2, '0')}`;
}
