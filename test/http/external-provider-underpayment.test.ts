import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'vitest';
import { RECONCILER_ACTOR, reconcileJob } from '../../src/commands/transactions/reconcile/job.ts';
import type { Move } from '../../src/providers/emulator/server.ts';
import { assertError } from '../support/admin.ts';
import { boletoBody, pixBody } from '../support/charges.ts';
import { externalCharges } from '../support/external-charges.ts';
import {
  CHARGE_CASES,
  type ChargeCase,
  keyOf,
  transactionIdOf,
  useExternalProviderWorld,
} from '../support/external-provider.ts';

/**
 * Issue 22 item 2.1: a provider read that says "paid" with `AmountPayment` below the charge's amount proves
 * no payment of it (SPEC 3.1's exact-amount row, 4.6): the charge stays as it is, nothing is appended, and
 * the refresh answers 502 provider_refresh_failed with that query's diagnostics. The same read through the
 * reconciler changes nothing either. A late boleto's penalty and interest (more than the amount) stay paid.
 * Gateway and provider emulator on real sockets; the read is shaped with the emulator's `override` fault.
 */

const world = useExternalProviderWorld();
const h = externalCharges(world);

const [PIX, BOLETO, BOLETO_SANDBOX] = CHARGE_CASES as [ChargeCase, ChargeCase, ChargeCase];

/** R$ 19,99 (SPEC 1: integer centavos). */
const AMOUNT = 1999;

/** An issued (pending) charge of {@link AMOUNT} and the emulator's id of it. */
async function pending(c: ChargeCase): Promise<{ id: string; providerReference: string }> {
  const reference = `order-${randomUUID()}`;
  const json =
    c.method === 'pix'
      ? pixBody({ reference, amount: AMOUNT })
      : boletoBody({}, { reference, amount: AMOUNT });
  const res = await world.app.request('POST', `/v1/${c.method}`, {
    headers: { 'x-api-key': keyOf(world, c), 'idempotency-key': randomUUID() },
    json,
  });
  assert.equal(res.status, 201, res.text);
  assert.equal(res.body.data.status, 'pending');
  assert.equal(res.body.data.amount, AMOUNT);
  return { id: transactionIdOf(res), providerReference: res.body.data.provider_reference };
}

/** The provider's next read of the charge says what the payer paid (wire doc 2.10 `AmountPayment`). */
async function nextReadPaid(amountPayment: unknown): Promise<void> {
  await world.control.fault({
    operation: 'query',
    fault: { type: 'override', field: 'AmountPayment', value: amountPayment },
  });
}

/** SPEC 4.6: 502 with the query's diagnostics; the stored charge and its history untouched. */
async function assertRefreshRefused(c: ChargeCase, id: string): Promise<void> {
  const before = await h.read(c, id);
  const history = (await h.events(id)).length;
  const res = await h.refresh(c, id);
  assertError(res, 502, 'provider_refresh_failed');
  assert.equal(res.body.error.transaction_id, id);
  // The query itself was answered (HTTP 200); no provider code; a static guidance, never raw provider text.
  assert.equal(res.body.error.provider_http_status, 200);
  assert.equal(res.body.error.provider_error_code, null);
  assert.equal(typeof res.body.error.provider_error_message, 'string');
  assert.ok(res.body.error.provider_error_message.length <= 400);
  assert.deepEqual(await h.read(c, id), before);
  assert.equal((await h.events(id)).length, history);
  assert.equal(await h.calls(id, 'query'), 1);
}

describe('issue 22 item 2.1: "paid" with less than the amount is not a payment (SPEC 3.1, 4.6)', () => {
  const short: Array<{ c: ChargeCase; move: Move; paid: unknown; name: string }> = [
    { c: PIX, move: 'paid_pix', paid: 0.01, name: 'R$ 0,01 on a R$ 19,99 Pix' },
    { c: BOLETO, move: 'paid_boleto', paid: 10, name: 'R$ 10,00 on a R$ 19,99 boleto' },
    { c: BOLETO, move: 'paid_pix', paid: '19.98', name: "R$ 19,98 through a boleto's Pix" },
    { c: BOLETO_SANDBOX, move: 'paid_boleto', paid: 0, name: 'R$ 0,00 on a sandbox boleto' },
    { c: PIX, move: 'paid_pix', paid: 'abc', name: 'an unreadable amount paid' },
  ];
  test.each(short)(
    '$name ($c.name): 502 provider_refresh_failed, still pending, nothing appended',
    async (s) => {
      const { id, providerReference } = await pending(s.c);
      await world.control.move(providerReference, s.move);
      await nextReadPaid(s.paid);
      await assertRefreshRefused(s.c, id);
      assert.equal((await h.read(s.c, id)).status, 'pending');
      assert.equal((await h.read(s.c, id)).paid_with, null);
    },
  );

  test('a later read that shows the whole amount paid settles it: 200 paid', async () => {
    const { id, providerReference } = await pending(PIX);
    await world.control.move(providerReference, 'paid_pix');
    await nextReadPaid(0.01);
    await assertRefreshRefused(PIX, id);
    const settled = await h.refresh(PIX, id);
    assert.equal(settled.status, 200, settled.text);
    assert.equal(settled.body.data.status, 'paid');
    assert.equal(settled.body.data.paid_with, 'pix');
  });

  test("a late boleto's penalty and interest (more than the amount, less than twice) stay paid by boleto", async () => {
    const { id, providerReference } = await pending(BOLETO);
    await world.control.move(providerReference, 'paid_boleto');
    await nextReadPaid('21.50');
    const res = await h.refresh(BOLETO, id);
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.data.status, 'paid');
    assert.equal(res.body.data.paid_with, 'boleto');
    // SPEC 2.2: not a double payment, so nothing to refund.
    assert.equal(res.body.data.duplicate_payment_at, null);
    assert.equal(await h.calls(id, 'refund'), 0);
  });

  test('a boleto in processing (status 2) read paid with less by the reconciler stays processing', async () => {
    const { id, providerReference } = await pending(BOLETO);
    await world.control.move(providerReference, 'processing');
    const processing = await h.refresh(BOLETO, id);
    assert.equal(processing.body.data.status, 'processing', processing.text);
    await world.control.move(providerReference, 'paid_boleto');
    await nextReadPaid(10);
    const before = await h.read(BOLETO, id);
    const history = (await h.events(id)).length;
    await world.app.settle();
    const ahead = new Date(Date.now() + (world.app.gateway.config.RECONCILE_AFTER_SECONDS + 10) * 1000);
    const run = await reconcileJob().run(world.app.gateway.ctx, { now: ahead });
    // Read, and left unresolved: the read proved nothing to apply.
    assert.ok(run.unresolved.includes(id), JSON.stringify(run));
    assert.equal(await h.calls(id, 'query'), 2);
    assert.deepEqual(await h.read(BOLETO, id), before);
    assert.equal((await h.events(id)).length, history);
    assert.notEqual((await h.events(id)).at(-1)?.metadata.actor, RECONCILER_ACTOR);
  });

  test('unknown without an external id, found by reference and read paid with less: nothing stored, still unknown', async () => {
    // The charge exists at the provider but its creation answer was lost.
    const { res, id } = await h.create(BOLETO_SANDBOX, { fault: { type: 'reset' }, commit: true });
    assert.equal(res.status, 202, res.text);
    const [remote] = await h.remote(id);
    assert.ok(remote);
    await world.control.move(String(remote.id), 'paid_boleto');
    await nextReadPaid('0.01');
    const history = (await h.events(id)).length;
    // SPEC 3.1: the read of the id found disagrees, so the id is not adopted (reconciliation_required).
    assertError(await h.refresh(BOLETO_SANDBOX, id), 409, 'reconciliation_required');
    const data = await h.read(BOLETO_SANDBOX, id);
    assert.equal(data.status, 'unknown');
    assert.equal(data.provider_reference, null);
    assert.equal((await h.events(id)).length, history);
  });
});
