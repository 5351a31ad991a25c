import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, test } from 'vitest';
import { settlePendingChangesJob } from '../../src/commands/transactions/settle-pending-changes/job.ts';
import { createUser } from '../../src/commands/users/create/handler.ts';
import { identityDeps } from '../../src/commands/users/identity-deps.ts';
import type { Fault } from '../../src/providers/emulator/faults.ts';
import { assertError, bearer, logIn, PASSWORD } from '../support/admin.ts';
import { boletoBody } from '../support/charges.ts';
import { dumpEveryTable } from '../support/database-dump.ts';
import {
  CHARGE_CASES,
  type ChargeCase,
  chargeRequest,
  keyOf,
  transactionIdOf,
  useExternalProviderWorld,
} from '../support/external-provider.ts';
import { seedTenantAndKey } from '../support/fixtures.ts';
import { startTestApp, type TestApp, type TestResponse } from '../support/http.ts';

/**
 * Issue 22 item 4 (SPEC 4.8: "a boleto paid by boleto needs a bank account of the payer"): the provider has
 * no refund for it, so the money goes back by a transfer to an account in the payer's own name. Where the
 * provider record enables payouts, through the provider's transfer API (reserve -> call -> record, polled
 * by the reconciler until transferred or returned, an uncertain answer reconciled by Identification);
 * otherwise, or after a returned transfer, by a person who completes it in the panel with its evidence or
 * cancels it. The account is sealed in the vault, never in an event, a log or a webhook, and its key is
 * destroyed when the refund ends. Against the provider emulator over HTTP.
 */

const world = useExternalProviderWorld({ RATE_LIMIT_PER_MINUTE: '100000' });
// Production: payouts switched on for its record in beforeAll; sandbox: left off, so a person refunds.
const [, PAYOUT, OPERATOR] = CHARGE_CASES as [ChargeCase, ChargeCase, ChargeCase];

// The boleto payer of boletoBody (test/support/charges.ts): Joao Souza, CNPJ 12345678000190.
const ACCOUNT = '4455667-8';
const BANK = {
  bank_code: '341',
  branch: '2938',
  account: ACCOUNT,
  account_type: 'checking',
  holder_name: 'Joao Souza',
  holder_document: '12345678000190',
};

async function paidBoleto(c: ChargeCase): Promise<string> {
  const res = await chargeRequest(world, c).send();
  assert.equal(res.status, 201, res.text);
  await world.control.move(res.body.data.provider_reference, 'paid_boleto');
  const refreshed = await world.app.request('POST', `/v1/transactions/${transactionIdOf(res)}/refresh`, {
    headers: { 'x-api-key': keyOf(world, c) },
  });
  assert.equal(refreshed.status, 200, refreshed.text);
  assert.equal(refreshed.body.data.paid_with, 'boleto');
  return transactionIdOf(res);
}

function refund(c: ChargeCase, id: string, json: unknown = { bank_account: BANK }, key = randomUUID()) {
  return world.app.request('POST', `/v1/transactions/${id}/refund`, {
    headers: { 'x-api-key': keyOf(world, c), 'idempotency-key': key },
    json,
  });
}

async function read(c: ChargeCase, id: string) {
  const res = await world.app.request('GET', `/v1/transactions/${id}`, {
    headers: { 'x-api-key': keyOf(world, c) },
  });
  assert.equal(res.status, 200, res.text);
  return res.body.data;
}

interface EmulatedTransfer {
  id: number;
  identification: string;
  identity: string;
  amount: number | string;
  transferred: boolean;
  returned: boolean;
}

async function transfersOf(id: string): Promise<EmulatedTransfer[]> {
  const res = await fetch(`${world.emulator.url}/_emulator/transfers`);
  const { transfers } = (await res.json()) as { transfers: EmulatedTransfer[] };
  return transfers.filter((t) => t.identification.startsWith(`refund:${id}:`));
}

async function moveTransfer(transferId: number, to: 'transferred' | 'returned') {
  const res = await fetch(`${world.emulator.url}/_emulator/transfers/${transferId}/move`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ to, ...(to === 'returned' ? { reason: '01' } : {}) }),
  });
  assert.equal(res.status, 200, await res.text());
}

/** The settler's tick, past RECONCILE_AFTER_SECONDS and any backoff (src/commands/transactions/settle-pending-changes/job.ts). */
async function reconcile(hoursLater = 1) {
  await world.app.settle();
  return settlePendingChangesJob().run(world.app.gateway.ctx, {
    now: new Date(Date.now() + hoursLater * 3_600_000),
  });
}

async function eventTypes(id: string): Promise<string[]> {
  const { rows } = await sql<{ type: string }>`
    select type from events where stream_id = ${`transaction-${id}`} order by version`.execute(
    world.app.gateway.ctx.db,
  );
  return rows.map((r) => r.type);
}

/** The charge's vault records, once the projections caught up (the shredding one runs async in async mode). */
async function vaultRows(id: string) {
  await world.app.settle();
  return world.app.gateway.ctx.db
    .selectFrom('personal_data_vault')
    .selectAll()
    .where('subject_id', '=', id)
    .execute();
}

/** The account's number never rests in clear: not in any table, not in a log line. */
async function assertAccountNowhere(): Promise<void> {
  await world.app.settle();
  const dump = await dumpEveryTable(world.app.gateway.ctx.db);
  for (const needle of [ACCOUNT, ACCOUNT.replace('-', '')]) {
    assert.ok(!dump.includes(needle), `the account ${needle} is in a table`);
    assert.ok(!world.app.logs.some((l) => l.includes(needle)), `the account ${needle} is in a log line`);
  }
}

/** A panel request, once the read models caught up (the refund queue is one; async mode trails the log). */
async function panel(method: string, path: string, json?: unknown, headers = world.admin) {
  await world.app.settle();
  return world.app.request(method, path, { headers, ...(json === undefined ? {} : { json }) });
}

beforeAll(async () => {
  const list = await world.app.request('GET', '/admin/providers?limit=100', { headers: world.admin });
  const production = list.body.data.find(
    (p: { environment: string; payment_host: string }) =>
      p.environment === 'production' && p.payment_host === world.emulator.paymentUrl,
  );
  const patched = await world.app.request('PATCH', `/admin/providers/${production.id}`, {
    headers: world.admin,
    json: { boleto_refund_payout: true },
  });
  assert.equal(patched.status, 200, patched.text);
});

describe('payout through the provider (the record enables it)', () => {
  test('202 pending, one transfer to the payer at the emulator; polled: processing stays pending, transferred is refunded; the account destroyed and nowhere in clear', async () => {
    const id = await paidBoleto(PAYOUT);
    const res = await refund(PAYOUT, id);
    assert.equal(res.status, 202, res.text);
    assert.equal(res.body.data.status, 'paid', 'paid until the money has gone');
    assert.deepEqual(res.body.data.refund, { status: 'pending' });

    const [transfer, ...more] = await transfersOf(id);
    assert.ok(transfer, 'one transfer at the emulator');
    assert.deepEqual(more, []);
    assert.equal(transfer.identity, '12345678000190', "the payer's document");
    assert.equal(Number(transfer.amount), 9990, 'the whole charge (centavos in the emulator control view)');
    const types = await eventTypes(id);
    assert.deepEqual(types.slice(-2), ['Transaction.RefundRequested', 'Transaction.RefundPayoutSent']);

    // The bank has not confirmed yet: still pending after a poll.
    const polled = await reconcile();
    assert.ok(polled.open.includes(id), JSON.stringify(polled));
    assert.deepEqual((await read(PAYOUT, id)).refund, { status: 'pending' });

    await moveTransfer(transfer.id, 'transferred');
    const settled = await reconcile(2);
    assert.ok(settled.settled.includes(id), JSON.stringify(settled));
    const after = await read(PAYOUT, id);
    assert.equal(after.status, 'refunded');
    assert.deepEqual(after.refund, { status: 'succeeded' });
    assert.equal((await transfersOf(id)).length, 1, 'one transfer in all');

    // Crypto-shredded with the refund's end: the key is gone, the hash and who/when stay.
    const [vault] = await vaultRows(id);
    assert.equal(vault?.wrapped_key, null);
    assert.equal(vault?.shred_reason, 'refund_completed');
    assert.match(String(vault?.hash), /^[0-9a-f]{64}$/);
    assertError(await panel('GET', `/admin/refunds/${id}/bank-account`), 404, 'not_found');
    await assertAccountNowhere();
  });

  test('a refresh reads the transfer too: refunded as soon as the bank confirmed it, without waiting for the reconciler', async () => {
    const id = await paidBoleto(PAYOUT);
    assert.equal((await refund(PAYOUT, id)).status, 202);
    const refresh = () =>
      world.app.request('POST', `/v1/transactions/${id}/refresh`, {
        headers: { 'x-api-key': keyOf(world, PAYOUT) },
      });
    const before = await refresh();
    assert.equal(before.status, 200, before.text);
    assert.deepEqual(before.body.data.refund, { status: 'pending' });
    const [transfer] = await transfersOf(id);
    assert.ok(transfer);
    await moveTransfer(transfer.id, 'transferred');
    const after = await refresh();
    assert.equal(after.status, 200, after.text);
    assert.equal(after.body.data.status, 'refunded');
    assert.deepEqual(after.body.data.refund, { status: 'succeeded' });
  });

  test('a transfer the bank returns: refund failed, the charge paid, listed for an operator, who completes it with evidence exactly once', async () => {
    const id = await paidBoleto(PAYOUT);
    assert.equal((await refund(PAYOUT, id)).status, 202);
    const [transfer] = await transfersOf(id);
    assert.ok(transfer);
    await moveTransfer(transfer.id, 'returned');
    assert.ok((await reconcile()).settled.includes(id));
    const returned = await read(PAYOUT, id);
    assert.equal(returned.status, 'paid');
    assert.deepEqual(returned.refund, { status: 'failed' });

    const queue = await panel('GET', '/admin/refunds?limit=100');
    assert.equal(queue.status, 200, queue.text);
    const listed = queue.body.data.find((r: { transaction_id: string }) => r.transaction_id === id);
    assert.deepEqual(listed?.refund, { status: 'failed' });
    assert.equal(listed?.amount, 9990);

    const evidence = { reference: 'E60701190202611271200AbCdEf012345', paid_on: null, amount: 9990 };
    const [first, second] = await Promise.all([
      panel('POST', `/admin/refunds/${id}/complete`, { evidence }),
      panel('POST', `/admin/refunds/${id}/complete`, { evidence }),
    ]);
    const answers = [first, second].map((r) => r?.status).sort();
    assert.deepEqual(answers, [200, 409], `${first?.text} ${second?.text}`);
    const done = (await read(PAYOUT, id)) as { status: string; refund: unknown };
    assert.equal(done.status, 'refunded');
    assert.equal((await eventTypes(id)).filter((t) => t === 'Transaction.Refunded').length, 1);
    assert.equal((await vaultRows(id))[0]?.wrapped_key, null);
  });

  test('an answer lost after the transfer was made is found by its Identification, never sent twice', async () => {
    const id = await paidBoleto(PAYOUT);
    await world.control.fault({ operation: 'transfer_create', fault: { type: 'reset' }, commit: true });
    const res = await refund(PAYOUT, id);
    assert.equal(res.status, 202, res.text);
    assert.equal((await transfersOf(id)).length, 1, 'the provider made it');
    assert.ok((await eventTypes(id)).includes('Transaction.RefundUnconfirmed'));
    // Asking again sends nothing.
    assert.equal((await refund(PAYOUT, id)).status, 202);
    assert.ok((await reconcile()).open.includes(id), 'found and recorded; not transferred yet');
    assert.ok((await eventTypes(id)).includes('Transaction.RefundPayoutSent'));
    const [transfer] = await transfersOf(id);
    assert.ok(transfer);
    await moveTransfer(transfer.id, 'transferred');
    assert.ok((await reconcile(2)).settled.includes(id));
    assert.equal((await read(PAYOUT, id)).status, 'refunded');
    assert.equal((await transfersOf(id)).length, 1, 'one transfer in all');
  });

  test('an uncertain answer for a transfer the provider never made (503 before the work): sent once more after the list shows none', async () => {
    const id = await paidBoleto(PAYOUT);
    const fault: Fault = { type: 'http_error', status: 503 };
    await world.control.fault({ operation: 'transfer_create', fault });
    assert.equal((await refund(PAYOUT, id)).status, 202);
    assert.equal((await transfersOf(id)).length, 0);
    await reconcile();
    const transfers = await transfersOf(id);
    assert.equal(transfers.length, 1, 'sent again once the list showed none');
    assert.ok((await eventTypes(id)).includes('Transaction.RefundPayoutSent'));
  });

  test('an answer asking the merchant to fund the lot by boleto is never shown as done: handed to an operator', async () => {
    const id = await paidBoleto(PAYOUT);
    await world.control.fault({
      operation: 'transfer_create',
      fault: { type: 'override', field: 'BankSlipUrl', value: 'https://emulator.invalid/lote.pdf' },
    });
    const res = await refund(PAYOUT, id);
    assert.equal(res.status, 202, res.text);
    assert.deepEqual(res.body.data.refund, { status: 'pending' });
    assert.ok((await eventTypes(id)).includes('Transaction.RefundHandedToOperator'));
    const queue = await panel('GET', '/admin/refunds?limit=100');
    assert.ok(queue.body.data.some((r: { transaction_id: string }) => r.transaction_id === id));
    // The reconciler leaves it to the person.
    const tick = await reconcile();
    assert.ok(!tick.open.includes(id) && !tick.settled.includes(id), JSON.stringify(tick));
  });

  test('10 refunds at once with a bank account: one reservation, one transfer, 409 refund_in_progress for the rest; no readable account left but the winner', async () => {
    const id = await paidBoleto(PAYOUT);
    await world.control.fault({ operation: 'transfer_create', fault: { type: 'latency', ms: 1500 } });
    const answers = await Promise.all(Array.from({ length: 10 }, () => refund(PAYOUT, id)));
    const statuses = answers.map((a) => a.status);
    assert.equal(statuses.filter((s) => s === 202).length >= 1, true, statuses.join());
    for (const a of answers.filter((x) => x.status !== 202)) assertError(a, 409, 'refund_in_progress');
    assert.equal((await transfersOf(id)).length, 1);
    const readable = (await vaultRows(id)).filter((v) => v.wrapped_key !== null);
    assert.equal(readable.length, 1, 'the losers sealed accounts are destroyed');
  });
});

describe('completed by a person (no payouts on the record)', () => {
  test('202 pending; listed; a super_admin reads the account (each read recorded); completes with evidence; the account then destroyed', async () => {
    const id = await paidBoleto(OPERATOR);
    const res = await refund(OPERATOR, id);
    assert.equal(res.status, 202, res.text);
    assert.deepEqual(res.body.data.refund, { status: 'pending' });
    assert.equal((await transfersOf(id)).length, 0, 'nothing sent to the provider');

    const queue = await panel('GET', '/admin/refunds?limit=100&livemode=true');
    assert.ok(
      queue.body.data.some((r: { transaction_id: string }) => r.transaction_id === id),
      queue.text,
    );

    const account = await panel('GET', `/admin/refunds/${id}/bank-account`);
    assert.equal(account.status, 200, account.text);
    assert.equal(account.headers.get('cache-control'), 'no-store');
    assert.deepEqual(account.body.data.bank_account, BANK);
    assert.match(account.body.data.hmac, /^[0-9a-f]{64}$/);
    assert.equal((await eventTypes(id)).filter((t) => t === 'Transaction.RefundBankAccountViewed').length, 1);
    await world.app.settle();
    const audit = await panel('GET', `/admin/audit?action=transaction.refund_bank_account_viewed&limit=100`);
    assert.equal(audit.status, 200, audit.text);
    assert.ok(JSON.stringify(audit.body).includes(id), 'the read is in the audit log');
    assert.ok(!JSON.stringify(audit.body).includes(ACCOUNT), 'the audit holds no account');

    const wrongAmount = await panel('POST', `/admin/refunds/${id}/complete`, {
      evidence: { reference: 'E123', paid_on: null, amount: 100 },
    });
    assertError(wrongAmount, 422, 'validation_error');
    assert.equal(wrongAmount.body.error.param, 'evidence.amount');

    const done = await panel('POST', `/admin/refunds/${id}/complete`, {
      evidence: { reference: 'E60701190202611271200XyZ', paid_on: '2026-11-26', amount: 9990 },
    });
    assert.equal(done.status, 200, done.text);
    assert.equal(done.body.data.status, 'refunded');
    assert.deepEqual(done.body.data.refund, { status: 'succeeded' });
    assertError(await panel('GET', `/admin/refunds/${id}/bank-account`), 404, 'not_found');
    assert.equal((await vaultRows(id))[0]?.shred_reason, 'refund_completed');
    await assertAccountNowhere();
  });

  test('a person cancels it with a reason: refund failed, the charge paid, the account destroyed; a new request may follow', async () => {
    const id = await paidBoleto(OPERATOR);
    assert.equal((await refund(OPERATOR, id)).status, 202);
    assertError(
      await panel('POST', `/admin/refunds/${id}/cancel`, { reason: 'no' }),
      422,
      'validation_error',
    );
    const cancelled = await panel('POST', `/admin/refunds/${id}/cancel`, {
      reason: 'The payer closed that account; a new one was asked for.',
    });
    assert.equal(cancelled.status, 200, cancelled.text);
    assert.equal(cancelled.body.data.status, 'paid');
    assert.deepEqual(cancelled.body.data.refund, { status: 'failed' });
    assert.equal((await vaultRows(id))[0]?.shred_reason, 'refund_cancelled');
    assertError(
      await panel('POST', `/admin/refunds/${id}/complete`, { evidence: { reference: 'E1', amount: 9990 } }),
      409,
      'conflict',
    );
    assert.equal((await refund(OPERATOR, id)).status, 202, 'a new refund may be requested');
  });

  test("the account must be in the payer's name: 422 naming holder_document, nothing stored", async () => {
    const id = await paidBoleto(OPERATOR);
    const before = await eventTypes(id);
    const res = await refund(OPERATOR, id, { bank_account: { ...BANK, holder_document: '98765432000110' } });
    assertError(res, 422, 'validation_error');
    assert.equal(res.body.error.param, 'bank_account.holder_document');
    assert.deepEqual(await eventTypes(id), before);
    assert.deepEqual(await vaultRows(id), []);
  });

  test('panel roles: only a super_admin lists, reads, completes or cancels (tenant_admin and viewer 403); unknown ids 404', async () => {
    const id = await paidBoleto(OPERATOR);
    assert.equal((await refund(OPERATOR, id)).status, 202);
    const ctx = world.app.gateway.ctx;
    const { tenantId } = await seedTenantAndKey(ctx);
    for (const role of ['tenant_admin', 'viewer'] as const) {
      const email = `${role}-${randomUUID()}@example.com`;
      await createUser(
        identityDeps(ctx),
        { email, password: PASSWORD, role, tenant_id: tenantId },
        { actor: 'system:test', request_id: 'req_test' },
      );
      const headers = bearer(await logIn(world.app, email));
      const calls: TestResponse[] = [
        await panel('GET', '/admin/refunds', undefined, headers),
        await panel('GET', `/admin/refunds/${id}/bank-account`, undefined, headers),
        await panel(
          'POST',
          `/admin/refunds/${id}/complete`,
          { evidence: { reference: 'x', amount: 9990 } },
          headers,
        ),
        await panel('POST', `/admin/refunds/${id}/cancel`, { reason: 'not mine to cancel' }, headers),
      ];
      for (const c of calls) assertError(c, 403, 'forbidden');
    }
    assertError(await panel('GET', '/admin/refunds/txn_unknown/bank-account'), 404, 'not_found');
    assertError(
      await panel('POST', '/admin/refunds/txn_unknown/complete', { evidence: { reference: 'x', amount: 1 } }),
      404,
      'not_found',
    );
    // The charge itself is untouched by the refused calls.
    assert.deepEqual((await read(OPERATOR, id)).refund, { status: 'pending' });
  });
});

describe('without a key to seal the account', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({ ENABLE_SIMULATOR: 'true' });
  });
  afterAll(() => app.close());

  test('422 naming bank_account and the setting; nothing reserved', async () => {
    const key = await seedTenantAndKey(app.gateway.ctx, { livemode: false });
    const created = await app.request('POST', '/v1/boleto', {
      headers: { 'x-api-key': key.key, 'idempotency-key': randomUUID() },
      json: boletoBody(),
    });
    assert.equal(created.status, 201, created.text);
    const id = created.body.data.id;
    const paid = await app.request('POST', `/v1/transactions/${id}/simulate`, {
      headers: { 'x-api-key': key.key },
      json: { status: 'paid' },
    });
    assert.equal(paid.status, 200, paid.text);
    const res = await app.request('POST', `/v1/transactions/${id}/refund`, {
      headers: { 'x-api-key': key.key, 'idempotency-key': randomUUID() },
      json: { bank_account: BANK },
    });
    assertError(res, 422, 'validation_error');
    assert.equal(res.body.error.param, 'bank_account');
    assert.match(res.body.error.message, /CREDENTIALS_ENCRYPTION_KEY/);
    const got = await app.request('GET', `/v1/transactions/${id}`, { headers: { 'x-api-key': key.key } });
    assert.equal(got.body.data.refund, null);
  });
});
