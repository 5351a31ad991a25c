import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { describe, test } from 'vitest';
import { settlePendingChangesJob } from '../../src/commands/transactions/settle-pending-changes/job.ts';
import type { Fault, Operation } from '../../src/providers/emulator/faults.ts';
import type { Move } from '../../src/providers/emulator/server.ts';
import { assertError } from '../support/admin.ts';
import { addDays, today } from '../support/charges.ts';
import {
  CHARGE_CASES,
  type ChargeCase,
  chargeRequest,
  keyOf,
  transactionIdOf,
  useExternalProviderWorld,
} from '../support/external-provider.ts';
import type { TestResponse } from '../support/http.ts';

/**
 * Issue 13 item 8: refund and due-date change through the provider port (SPEC 3.1, 4.8, 7), against the
 * provider emulator on a real socket. Each uncertain answer leaves a pending state that a later call or the
 * reconciler settles by reading the provider first, never with a second money movement or a second change.
 */

const world = useExternalProviderWorld();

const [PIX, BOLETO] = CHARGE_CASES as [ChargeCase, ChargeCase, ChargeCase];

const BANK = {
  bank_code: '001',
  branch: '1234',
  account: '5566778-9',
  account_type: 'checking',
  // The boleto payer's own account (issue 22 item 4: the provider's panel requires the payer's document).
  holder_name: 'Joao Souza',
  holder_document: '12345678000190',
};

async function pendingCharge(c: ChargeCase): Promise<{ id: string; providerReference: string }> {
  const res = await chargeRequest(world, c).send();
  assert.equal(res.status, 201, res.text);
  return { id: transactionIdOf(res), providerReference: res.body.data.provider_reference };
}

/** A charge the provider reports paid (`move`), read into the gateway by a refresh (SPEC 4.6). */
async function paidCharge(c: ChargeCase, move: Move) {
  const charge = await pendingCharge(c);
  await world.control.move(charge.providerReference, move);
  const res = await world.app.request('POST', `/v1/transactions/${charge.id}/refresh`, {
    headers: { 'x-api-key': keyOf(world, c) },
  });
  assert.equal(res.status, 200, res.text);
  assert.equal(res.body.data.status, 'paid');
  return charge;
}

function refund(c: ChargeCase, id: string, json?: unknown, key = randomUUID()): Promise<TestResponse> {
  return world.app.request('POST', `/v1/transactions/${id}/refund`, {
    headers: { 'x-api-key': keyOf(world, c), 'idempotency-key': key },
    ...(json === undefined ? {} : { json }),
  });
}

function moveDue(id: string, due_date: string, key = randomUUID()): Promise<TestResponse> {
  return world.app.request('PATCH', `/v1/transactions/${id}/boleto`, {
    headers: { 'x-api-key': keyOf(world, BOLETO), 'idempotency-key': key },
    json: { due_date },
  });
}

async function read(c: ChargeCase, id: string) {
  const res = await world.app.request('GET', `/v1/transactions/${id}`, {
    headers: { 'x-api-key': keyOf(world, c) },
  });
  assert.equal(res.status, 200, res.text);
  return res.body.data;
}

async function calls(id: string, operation: Operation): Promise<number> {
  return (await world.control.calls({ reference: id, operation })).length;
}

async function remote(id: string) {
  const [charge] = (await world.control.charges(id)) as unknown as Array<{
    status: number;
    boleto: { dueDate: string; digitableLine: string } | null;
  }>;
  assert.ok(charge, 'the emulator holds the charge');
  return charge;
}

async function fault(operation: Operation, reference: string, f: Fault, commit?: boolean) {
  await world.control.fault({ operation, reference, fault: f, ...(commit === undefined ? {} : { commit }) });
}

/** Events of the charge, by type; for checks that nothing holds what it must not. */
async function eventsOf(id: string) {
  const { rows } = await sql<{ type: string; data: unknown }>`
    select type, data from events where stream_id = ${`transaction-${id}`} order by version`.execute(
    world.app.gateway.ctx.db,
  );
  return rows;
}

/**
 * The reconciler's tick, as if RECONCILE_AFTER_SECONDS had passed (and `afterSeconds` more: a charge whose
 * last attempt failed waits out its backoff); it reads the read model, caught up first.
 */
async function reconcileLater(afterSeconds = 0) {
  await world.app.settle();
  return settlePendingChangesJob().run(world.app.gateway.ctx, {
    now: new Date(Date.now() + (24 * 3_600 + afterSeconds) * 1000),
  });
}

describe('SPEC 4.8 refund through the provider', () => {
  test('a paid Pix: 200 refunded, refund.status succeeded; one Pix/Cancel at the provider (status 6)', async () => {
    const { id } = await paidCharge(PIX, 'paid_pix');
    const res = await refund(PIX, id);
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.data.status, 'refunded');
    assert.deepEqual(res.body.data.refund, { status: 'succeeded' });
    assert.equal(await calls(id, 'refund'), 1);
    assert.equal((await remote(id)).status, 6);
    const replay = await refund(PIX, id, undefined, randomUUID());
    assert.equal(replay.status, 200);
    assert.equal(await calls(id, 'refund'), 1, 'a refunded charge is never sent again');
  });

  test('a boleto settled by its Pix is refunded by Pix (no bank account)', async () => {
    const { id } = await paidCharge(BOLETO, 'paid_pix');
    assert.equal((await read(BOLETO, id)).paid_with, 'pix');
    const res = await refund(BOLETO, id);
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.data.status, 'refunded');
    const [call] = await world.control.calls({ reference: id, operation: 'refund' });
    assert.match(call?.path ?? '', /\/api\/v2\/Pix\/Cancel\/[0-9]+$/);
    assert.equal((await remote(id)).status, 6);
  });

  test('a boleto paid by boleto: the wire has no refund, so without payouts on the record a person transfers it: 202 pending, nothing sent, account never in an event', async () => {
    const { id } = await paidCharge(BOLETO, 'paid_boleto');
    const res = await refund(BOLETO, id, { bank_account: BANK });
    assert.equal(res.status, 202, res.text);
    assert.equal(res.body.data.status, 'paid');
    assert.deepEqual(res.body.data.refund, { status: 'pending' });
    assert.equal(
      (await world.control.calls({ reference: id })).filter((c) => c.method === 'DELETE').length,
      0,
    );
    assert.equal((await remote(id)).status, 3);
    const stored = JSON.stringify(await eventsOf(id));
    assert.ok(!stored.includes('5566778'), 'no bank account in events');
  });

  test('refused by the provider: 502 provider_rejected with its code, sanitized; still paid, refund failed; a new request may try again', async () => {
    const { id } = await paidCharge(PIX, 'paid_pix');
    await fault('refund', id, {
      type: 'has_error',
      code: '4321',
      message: 'Estorno negado para maria@example.com CPF 12345678909',
    });
    const res = await refund(PIX, id);
    assertError(res, 502, 'provider_rejected');
    assert.equal(res.body.error.transaction_id, id);
    assert.equal(res.body.error.provider_error_code, '4321');
    assert.equal(res.body.error.provider_http_status, 200);
    assert.ok(!res.text.includes('maria@example.com') && !res.text.includes('Estorno negado'));
    const after = await read(PIX, id);
    assert.equal(after.status, 'paid');
    assert.deepEqual(after.refund, { status: 'failed' });
    // The creation diagnostics are not overwritten by the refund's (SPEC 4.6 by analogy).
    assert.equal(after.provider_error_code, null);
    assert.equal((await remote(id)).status, 3);
    const again = await refund(PIX, id);
    assert.equal(again.status, 200, again.text);
    assert.equal(again.body.data.status, 'refunded');
  });

  test('uncertain (reset after the provider refunded): 202 pending; the next call reads status 6 and sends nothing', async () => {
    const { id } = await paidCharge(PIX, 'paid_pix');
    await fault('refund', id, { type: 'reset' }, true);
    const first = await refund(PIX, id);
    assert.equal(first.status, 202, first.text);
    assert.equal(first.body.data.status, 'paid');
    assert.deepEqual(first.body.data.refund, { status: 'pending' });
    assert.equal((await remote(id)).status, 6, 'the provider did refund');

    const second = await refund(PIX, id);
    assert.equal(second.status, 200, second.text);
    assert.equal(second.body.data.status, 'refunded');
    assert.deepEqual(second.body.data.refund, { status: 'succeeded' });
    assert.equal(await calls(id, 'refund'), 1, 'one money movement');
    assert.ok((await calls(id, 'query')) >= 2, 'the retry read the provider first');
  });

  test('uncertain (503, nothing done): asking again only reads (202, nothing sent); a day later the reconciler closes it not applied, and a new request refunds once', async () => {
    const { id } = await paidCharge(PIX, 'paid_pix');
    const key = randomUUID();
    await fault('refund', id, { type: 'http_error', status: 503 });
    const first = await refund(PIX, id, undefined, key);
    assert.equal(first.status, 202, first.text);
    assert.equal((await remote(id)).status, 3);
    // Issue 22: an uncertain outcome is never followed by a second call, whatever the key.
    for (const again of [key, randomUUID()]) {
      const res = await refund(PIX, id, undefined, again);
      assert.equal(res.status, 202, res.text);
      assert.deepEqual(res.body.data.refund, { status: 'pending' });
    }
    assert.equal(await calls(id, 'refund'), 1, 'asking again sent nothing');
    // A day of reads showing it still paid: not applied, refund.status failed, a new request may send it.
    const closed = await reconcileLater();
    assert.ok(closed.settled.includes(id), JSON.stringify(closed));
    const failed = await read(PIX, id);
    assert.equal(failed.status, 'paid');
    assert.deepEqual(failed.refund, { status: 'failed' });
    const second = await refund(PIX, id, undefined, key);
    assert.equal(second.status, 200, second.text);
    assert.equal(second.body.data.status, 'refunded');
    assert.equal((await remote(id)).status, 6);
    assert.equal(await calls(id, 'refund'), 2, 'the first never happened; one refund in all');
    // The same key after confirmation: the stored answer, no provider call.
    const before = (await world.control.calls({ reference: id })).length;
    const replay = await refund(PIX, id, undefined, key);
    assert.equal(replay.status, 200);
    assert.equal(replay.headers.get('idempotency-replayed'), 'true');
    assert.equal((await world.control.calls({ reference: id })).length, before);
  });

  test('SPEC 5.8: production payments off is 403 live_payments_disabled with nothing sent; on again, the refund goes', async () => {
    const { id } = await paidCharge(PIX, 'paid_pix');
    const toggle = async (on: boolean) => {
      const res = await world.app.request('PATCH', '/admin/settings/payments', {
        headers: world.admin,
        json: { allow_live_payments: on },
      });
      assert.equal(res.status, 200, res.text);
    };
    const key = randomUUID();
    await toggle(false);
    try {
      assertError(await refund(PIX, id, undefined, key), 403, 'live_payments_disabled');
      assert.equal(await calls(id, 'refund'), 0);
      assert.equal((await read(PIX, id)).status, 'paid');
    } finally {
      await toggle(true);
    }
    const res = await refund(PIX, id, undefined, key);
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.data.status, 'refunded');
  });

  test('uncertain and nobody asks again: the reconciler reads the provider and records the refund, no second refund', async () => {
    const { id } = await paidCharge(PIX, 'paid_pix');
    await fault('refund', id, { type: 'reset' }, true);
    assert.equal((await refund(PIX, id)).status, 202);
    // While the provider cannot answer, it stays pending.
    await fault('query', id, { type: 'http_error', status: 502 });
    const blind = await reconcileLater();
    assert.ok(blind.open.includes(id));
    assert.deepEqual((await read(PIX, id)).refund, { status: 'pending' });
    // Not before its backoff is over (src/commands/transactions/shared/reconcile-backoff.ts): then the read answers.
    assert.ok(!(await reconcileLater()).open.includes(id), 'waiting: not read again at once');
    const settled = await reconcileLater(world.app.gateway.config.RECONCILE_BACKOFF_MAX_SECONDS + 1);
    assert.ok(settled.settled.includes(id), JSON.stringify(settled));
    const after = await read(PIX, id);
    assert.equal(after.status, 'refunded');
    assert.deepEqual(after.refund, { status: 'succeeded' });
    assert.equal(await calls(id, 'refund'), 1);
  });
});

describe('SPEC 4.8 due date through the provider (wire doc 2.7, Command 1)', () => {
  test('issued: 200 with the new date, the provider’s new line and barcode, boleto_pix_expires_at at the end of the new day', async () => {
    const { id } = await pendingCharge(BOLETO);
    const before = await read(BOLETO, id);
    const due = addDays(today(), 40);
    const res = await moveDue(id, due);
    assert.equal(res.status, 200, res.text);
    const data = res.body.data;
    assert.equal(data.boleto_due_date, due);
    assert.equal(data.status, 'pending');
    const emulated = await remote(id);
    assert.equal(emulated.boleto?.dueDate, due);
    assert.equal(data.boleto_digitable_line, emulated.boleto?.digitableLine);
    assert.notEqual(data.boleto_digitable_line, before.boleto_digitable_line);
    assert.notEqual(data.boleto_barcode, before.boleto_barcode);
    // SPEC 2.2: end of the due day in Brasilia (23:59:59 -03:00) in UTC.
    assert.equal(data.boleto_pix_expires_at, new Date(`${due}T23:59:59-03:00`).toISOString());
    assert.equal(await calls(id, 'change_due_date'), 1);
    // No new charge (SPEC 4.8).
    assert.equal((await world.control.charges(id)).length, 1);
  });

  test('refused: 502 provider_rejected with the code; the date and line stay', async () => {
    const { id } = await pendingCharge(BOLETO);
    const before = await read(BOLETO, id);
    await fault('change_due_date', id, { type: 'has_error', code: '88', message: 'Data inválida.' });
    const res = await moveDue(id, addDays(today(), 30));
    assertError(res, 502, 'provider_rejected');
    assert.equal(res.body.error.provider_error_code, '88');
    assert.equal(res.body.error.transaction_id, id);
    const after = await read(BOLETO, id);
    assert.equal(after.boleto_due_date, before.boleto_due_date);
    assert.equal(after.boleto_digitable_line, before.boleto_digitable_line);
  });

  test('uncertain: 202 with the old date; another date is 409; the same date reads the provider and changes nothing twice', async () => {
    const { id } = await pendingCharge(BOLETO);
    const before = await read(BOLETO, id);
    const due = addDays(today(), 33);
    await fault('change_due_date', id, { type: 'reset' }, true);
    const first = await moveDue(id, due);
    assert.equal(first.status, 202, first.text);
    assert.equal(first.body.data.boleto_due_date, before.boleto_due_date);
    assert.equal((await remote(id)).boleto?.dueDate, due, 'the provider did change it');

    assertError(await moveDue(id, addDays(today(), 50)), 409, 'change_in_progress');
    const second = await moveDue(id, due);
    assert.equal(second.status, 200, second.text);
    assert.equal(second.body.data.boleto_due_date, due);
    assert.equal(second.body.data.boleto_digitable_line, (await remote(id)).boleto?.digitableLine);
    assert.equal(await calls(id, 'change_due_date'), 1, 'one change');
  });

  test('uncertain but applied at the provider: a refresh reads the pending date and records the change, nothing sent again', async () => {
    const { id } = await pendingCharge(BOLETO);
    const before = await read(BOLETO, id);
    const due = addDays(today(), 37);
    await fault('change_due_date', id, { type: 'reset' }, true);
    assert.equal((await moveDue(id, due)).status, 202);
    const emulated = await remote(id);
    assert.equal(emulated.boleto?.dueDate, due, 'the provider did change it');

    // SPEC 3.1, 4.6: the refresh answers the provider's state; SPEC 4.8: the change is the one requested.
    const res = await world.app.request('POST', `/v1/transactions/${id}/refresh`, {
      headers: { 'x-api-key': keyOf(world, BOLETO) },
    });
    assert.equal(res.status, 200, res.text);
    const data = res.body.data;
    assert.equal(data.status, 'pending');
    assert.equal(data.boleto_due_date, due);
    assert.equal(data.boleto_digitable_line, emulated.boleto?.digitableLine);
    assert.notEqual(data.boleto_digitable_line, before.boleto_digitable_line);
    assert.notEqual(data.boleto_barcode, before.boleto_barcode);
    // SPEC 2.2: the boleto's Pix valid until the end of the new due day in Brasilia.
    assert.equal(data.boleto_pix_expires_at, new Date(`${due}T23:59:59-03:00`).toISOString());
    const changes = (await eventsOf(id)).filter((e) => e.type === 'Transaction.DueDateChanged');
    assert.equal(changes.length, 1, 'the change recorded once');
    const change = changes[0]?.data as { boleto_due_date: string; previous_due_date: string } | undefined;
    assert.deepEqual(
      { due: change?.boleto_due_date, previous: change?.previous_due_date },
      { due, previous: before.boleto_due_date },
    );

    // Nothing is left pending: the reconciler has nothing to settle, and the same request is a no-op.
    const tick = await reconcileLater();
    assert.ok(!tick.settled.includes(id) && !tick.open.includes(id), JSON.stringify(tick));
    const again = await moveDue(id, due);
    assert.equal(again.status, 200, again.text);
    assert.equal(again.body.data.boleto_due_date, due);
    assert.equal(await calls(id, 'change_due_date'), 1, 'one change');
  });

  test('a change pending and a third date at the provider: the refresh still fails (502), the change stays pending', async () => {
    const { id } = await pendingCharge(BOLETO);
    const before = await read(BOLETO, id);
    const due = addDays(today(), 39);
    await fault('change_due_date', id, { type: 'reset' }, true);
    assert.equal((await moveDue(id, due)).status, 202);
    // Every read now shows a due date that is neither the stored one nor the pending one.
    await world.control.fault({
      operation: 'query',
      reference: id,
      times: null,
      fault: { type: 'artifacts', field: 'due_date' },
    });
    const res = await world.app.request('POST', `/v1/transactions/${id}/refresh`, {
      headers: { 'x-api-key': keyOf(world, BOLETO) },
    });
    // SPEC 4.6: a diverging query is 502 provider_refresh_failed with that query's diagnostics.
    assertError(res, 502, 'provider_refresh_failed');
    assert.equal(res.body.error.transaction_id, id);
    assert.equal(res.body.error.provider_http_status, 200);
    const after = await read(BOLETO, id);
    assert.equal(after.boleto_due_date, before.boleto_due_date);
    assert.equal(after.boleto_digitable_line, before.boleto_digitable_line);
    assert.ok(!(await eventsOf(id)).some((e) => e.type === 'Transaction.DueDateChanged'));
    // Still pending: another date is refused while it awaits the provider (SPEC 4.8, one change at a time).
    assertError(await moveDue(id, addDays(today(), 50)), 409, 'change_in_progress');
  });

  test('uncertain and nobody asks again (503: not done): a day later the reconciler closes it not applied, never sending it again; a new request changes it once', async () => {
    const { id } = await pendingCharge(BOLETO);
    const before = await read(BOLETO, id);
    const due = addDays(today(), 35);
    await fault('change_due_date', id, { type: 'http_error', status: 503 });
    assert.equal((await moveDue(id, due)).status, 202);
    const settled = await reconcileLater();
    assert.ok(settled.settled.includes(id), JSON.stringify(settled));
    const after = await read(BOLETO, id);
    assert.equal(after.boleto_due_date, before.boleto_due_date);
    assert.equal(await calls(id, 'change_due_date'), 1, 'the reconciler only read');
    const again = await moveDue(id, due);
    assert.equal(again.status, 200, again.text);
    assert.equal(again.body.data.boleto_due_date, due);
    assert.equal((await remote(id)).boleto?.dueDate, due);
    assert.equal(await calls(id, 'change_due_date'), 2, 'the first was not applied; one change in all');
  });
});
