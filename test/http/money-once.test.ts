import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, test } from 'vitest';
import { replayTransactions } from '../../src/commands/audit/replay/handler.ts';
import { transactionStream } from '../../src/commands/transactions/shared/stream.ts';
import { addDays, boletoBody, pixBody, today } from '../support/charges.ts';
import {
  CHARGE_CASES,
  type ChargeCase,
  chargeRequest,
  keyOf,
  transactionIdOf,
  useExternalProviderWorld,
} from '../support/external-provider.ts';
import { type SeededKey, seedTenantAndKey } from '../support/fixtures.ts';
import { startTestApp, type TestApp, type TestResponse } from '../support/http.ts';

/**
 * Issue 22 item 1 (SPEC 3.1 "reserve, then call, then record", 4.8, 7): concurrent refunds and due-date
 * changes of one charge, each request with its own Idempotency-Key, reach the provider exactly once. The
 * request that reserves calls the provider; the others are 409 refund_in_progress / change_in_progress and
 * never record a refusal; history and read model agree afterwards (`audit replay`). Against the provider
 * emulator (its call log counts the operations) and against the simulator (test keys; one reservation is
 * one simulator call). Issue 23 item 2.1: the burst of 50 at once answers no 5xx.
 */

// A burst of 50 requests from one key is above SPEC 8's 120 per minute over a file's tests.
const world = useExternalProviderWorld({ RATE_LIMIT_PER_MINUTE: '100000' });
const [PIX, BOLETO] = CHARGE_CASES as [ChargeCase, ChargeCase, ChargeCase];

// Long enough for a burst to arrive while the first call is in flight, below the tests' provider timeout.
const SLOW_ANSWER_MS = 2500;

function burst(n: number, send: (i: number) => Promise<TestResponse>): Promise<TestResponse[]> {
  return Promise.all(Array.from({ length: n }, (_, i) => send(i)));
}

function byStatus(answers: readonly TestResponse[]): Partial<Record<number, TestResponse[]>> {
  const out: Partial<Record<number, TestResponse[]>> = {};
  for (const a of answers) out[a.status] = [...(out[a.status] ?? []), a];
  return out;
}

/** Every answer is the winner's 200 or the documented 409 with the charge's id; never a 5xx. */
function assertOneWinner(answers: readonly TestResponse[], code: string, id: string): TestResponse[] {
  const groups = byStatus(answers);
  const others = answers.filter((a) => a.status !== 200 && a.status !== 409);
  assert.deepEqual(
    others.map((a) => `${a.status} ${a.text.slice(0, 300)}`),
    [],
  );
  for (const lost of groups[409] ?? []) {
    assert.equal(lost.body.error.code, code, lost.text);
    assert.equal(lost.body.error.transaction_id, id, lost.text);
    assert.match(lost.body.error.request_id, /.+/);
  }
  const won = groups[200] ?? [];
  assert.ok(won.length >= 1, 'one request won');
  return won;
}

async function eventTypes(app: TestApp, id: string): Promise<string[]> {
  return (await app.gateway.ctx.store.read(transactionStream(id))).map((e) => e.type);
}

const count = (types: readonly string[], type: string) => types.filter((t) => t === type).length;

/** `npx calebe audit replay` for the charge: the history folds to the read model, no difference. */
async function assertReplayAgrees(app: TestApp, id: string): Promise<void> {
  await app.settle();
  assert.deepEqual(await replayTransactions(app.gateway.ctx, { transactionId: id }), {
    checked: 1,
    differences: [],
  });
}

describe('against the provider emulator', () => {
  async function charge(c: ChargeCase): Promise<{ id: string; providerReference: string }> {
    const res = await chargeRequest(world, c).send();
    assert.equal(res.status, 201, res.text);
    return { id: transactionIdOf(res), providerReference: res.body.data.provider_reference };
  }

  async function paidPix(): Promise<string> {
    const { id, providerReference } = await charge(PIX);
    await world.control.move(providerReference, 'paid_pix');
    const res = await read(PIX, id, 'POST', '/refresh');
    assert.equal(res.status, 'paid');
    return id;
  }

  async function read(c: ChargeCase, id: string, method = 'GET', suffix = '') {
    const res = await world.app.request(method, `/v1/transactions/${id}${suffix}`, {
      headers: { 'x-api-key': keyOf(world, c) },
    });
    assert.equal(res.status, 200, res.text);
    return res.body.data;
  }

  const refund = (id: string) =>
    world.app.request('POST', `/v1/transactions/${id}/refund`, {
      headers: { 'x-api-key': keyOf(world, PIX), 'idempotency-key': randomUUID() },
    });

  const moveDue = (id: string, due_date: string) =>
    world.app.request('PATCH', `/v1/transactions/${id}/boleto`, {
      headers: { 'x-api-key': keyOf(world, BOLETO), 'idempotency-key': randomUUID() },
      json: { due_date },
    });

  const calls = async (id: string, operation: 'refund' | 'change_due_date') =>
    (await world.control.calls({ reference: id, operation })).length;

  for (const n of [6, 50]) {
    test(`${n} refunds at once on a paid Pix, each with its own key: one Pix/Cancel, 409 refund_in_progress for the rest, no refusal recorded`, async () => {
      const id = await paidPix();
      await world.control.fault({
        operation: 'refund',
        reference: id,
        fault: { type: 'latency', ms: SLOW_ANSWER_MS },
      });
      const pending = burst(n, () => refund(id));
      // While the provider's answer is on its way, a read says what is known: paid, a refund pending.
      await new Promise((r) => setTimeout(r, SLOW_ANSWER_MS / 2));
      const during = await read(PIX, id);
      assert.equal(during.status, 'paid');
      assert.deepEqual(during.refund, { status: 'pending' });
      const answers = await pending;

      for (const ok of assertOneWinner(answers, 'refund_in_progress', id)) {
        assert.equal(ok.body.data.status, 'refunded');
        assert.deepEqual(ok.body.data.refund, { status: 'succeeded' });
      }
      assert.ok((byStatus(answers)[409] ?? []).length >= 1, 'the burst met the refund in flight');
      assert.equal(await calls(id, 'refund'), 1, 'one money movement');
      const types = await eventTypes(world.app, id);
      assert.equal(count(types, 'Transaction.RefundRequested'), 1);
      assert.equal(count(types, 'Transaction.Refunded'), 1);
      assert.equal(count(types, 'Transaction.RefundRefused'), 0);
      const after = await read(PIX, id);
      assert.equal(after.status, 'refunded');
      assert.deepEqual(after.refund, { status: 'succeeded' });
      await assertReplayAgrees(world.app, id);

      // Later, with a new key: the refunded state, nothing sent (today's answer, issue 22).
      const later = await refund(id);
      assert.equal(later.status, 200, later.text);
      assert.equal(later.body.data.status, 'refunded');
      assert.equal(await calls(id, 'refund'), 1);
    });
  }

  for (const n of [6, 50]) {
    test(`${n} due-date changes at once, each with its own key and date: one change at the provider, 409 change_in_progress for the rest, the gateway and the provider agree`, async () => {
      const { id } = await charge(BOLETO);
      const before = await read(BOLETO, id);
      await world.control.fault({
        operation: 'change_due_date',
        reference: id,
        fault: { type: 'latency', ms: SLOW_ANSWER_MS },
      });
      const answers = await burst(n, (i) => moveDue(id, addDays(today(), 10 + i)));
      const won = assertOneWinner(answers, 'change_in_progress', id);
      assert.equal(won.length, 1, 'the burst met the change in flight');
      assert.equal(await calls(id, 'change_due_date'), 1, 'one change sent');

      const winner = won[0]?.body.data;
      const [remote] = (await world.control.charges(id)) as unknown as Array<{
        boleto: { dueDate: string; digitableLine: string } | null;
      }>;
      assert.equal(remote?.boleto?.dueDate, winner.boleto_due_date, 'the provider has the date answered');
      assert.notEqual(winner.boleto_due_date, before.boleto_due_date);
      const after = await read(BOLETO, id);
      assert.equal(after.boleto_due_date, winner.boleto_due_date);
      assert.equal(after.boleto_digitable_line, remote?.boleto?.digitableLine);
      // The race left nothing diverging: a refresh agrees with the provider (no 502 provider_refresh_failed).
      const refreshed = await read(BOLETO, id, 'POST', '/refresh');
      assert.equal(refreshed.boleto_due_date, winner.boleto_due_date);
      const types = await eventTypes(world.app, id);
      assert.equal(count(types, 'Transaction.DueDateChangeRequested'), 1);
      assert.equal(count(types, 'Transaction.DueDateChanged'), 1);
      assert.equal(count(types, 'Transaction.DueDateChangeRefused'), 0);
      await assertReplayAgrees(world.app, id);
    });
  }
});

describe('against the simulator (test keys)', () => {
  let app: TestApp;
  let key: SeededKey;

  beforeAll(async () => {
    app = await startTestApp({ ENABLE_SIMULATOR: 'true', RATE_LIMIT_PER_MINUTE: '100000' });
    key = await seedTenantAndKey(app.gateway.ctx, { livemode: false });
  });
  afterAll(() => app.close());

  const send = (method: string, path: string, json?: unknown) =>
    app.request(method, path, {
      headers: { 'x-api-key': key.key, 'idempotency-key': randomUUID() },
      ...(json === undefined ? {} : { json }),
    });

  async function created(path: '/v1/pix' | '/v1/boleto', json: unknown): Promise<string> {
    const res = await send('POST', path, json);
    assert.equal(res.status, 201, res.text);
    return res.body.data.id;
  }

  test('50 refunds at once on a paid simulated Pix: one reservation (one simulator call), the rest 409 or the refunded state, no refusal', async () => {
    const id = await created('/v1/pix', pixBody());
    const paid = await app.request('POST', `/v1/transactions/${id}/simulate`, {
      headers: { 'x-api-key': key.key },
      json: { status: 'paid' },
    });
    assert.equal(paid.status, 200, paid.text);
    const answers = await burst(50, () => send('POST', `/v1/transactions/${id}/refund`));
    for (const ok of assertOneWinner(answers, 'refund_in_progress', id)) {
      assert.equal(ok.body.data.status, 'refunded');
    }
    const types = await eventTypes(app, id);
    assert.equal(count(types, 'Transaction.RefundRequested'), 1, 'one simulator refund');
    assert.equal(count(types, 'Transaction.Refunded'), 1);
    assert.equal(count(types, 'Transaction.RefundRefused'), 0);
    await assertReplayAgrees(app, id);
  });

  test('50 due-date changes at once on a simulated boleto: each change reserved once, the last recorded date is the one the charge shows', async () => {
    const id = await created('/v1/boleto', boletoBody());
    const answers = await burst(50, (i) =>
      send('PATCH', `/v1/transactions/${id}/boleto`, { due_date: addDays(today(), 10 + i) }),
    );
    const won = assertOneWinner(answers, 'change_in_progress', id);
    const types = await eventTypes(app, id);
    // The simulator answers at once, so a later request may be a new change after the first was recorded:
    // every change that answered 200 was reserved once and recorded once, none refused.
    assert.equal(count(types, 'Transaction.DueDateChangeRequested'), won.length);
    assert.equal(count(types, 'Transaction.DueDateChanged'), won.length);
    assert.equal(count(types, 'Transaction.DueDateChangeRefused'), 0);
    const stream = await app.gateway.ctx.store.read(transactionStream(id));
    const last = stream.filter((e) => e.type === 'Transaction.DueDateChanged').at(-1)?.data as {
      boleto_due_date: string;
    };
    const got = await app.request('GET', `/v1/transactions/${id}`, { headers: { 'x-api-key': key.key } });
    assert.equal(got.body.data.boleto_due_date, last.boleto_due_date);
    await assertReplayAgrees(app, id);
  });
});
