import assert from 'node:assert/strict';
import { describe, test } from 'vitest';
import { RECONCILER_ACTOR, reconcileJob } from '../../src/commands/transactions/reconcile/job.ts';
import { externalCharges } from '../support/external-charges.ts';
import { CHARGE_CASES, type ChargeCase, useExternalProviderWorld } from '../support/external-provider.ts';

/**
 * Issue 13 item 7: the reconciler settles charges of the external provider with the refresh's own query,
 * as `system:reconciler`, a bounded number per tick (SPEC 3.1: `processing`, `unknown`; the boleto's slow
 * Pix of SPEC 4.2; the double payment's Pix refund of SPEC 2.2, retried after an uncertain answer and never
 * sent twice). The gateway and the provider emulator run on real sockets; the worker's ticks are run by
 * hand with a clock past RECONCILE_AFTER_SECONDS (the loop itself is covered by
 * test/integration/reconciler.test.ts).
 */

const world = useExternalProviderWorld();
const h = externalCharges(world);

const [, BOLETO, BOLETO_SANDBOX] = CHARGE_CASES as [ChargeCase, ChargeCase, ChargeCase];

/** A clock past the reconciler's timeout: charges untouched since the test began are due. */
function ahead(): Date {
  return new Date(Date.now() + (world.app.gateway.config.RECONCILE_AFTER_SECONDS + 10) * 1000);
}

async function tick(reconciler = reconcileJob()) {
  // Under TEST_PROJECTIONS=async the worker's candidates come from a read model that follows the log.
  await world.app.settle();
  return reconciler.run(world.app.gateway.ctx, { now: ahead() });
}

async function lastActor(id: string): Promise<unknown> {
  return (await h.events(id)).at(-1)?.metadata.actor;
}

describe('reconciler: external charges settled by the refresh query (issue 13 item 7)', () => {
  test("SPEC 4.2: a production boleto still without its Pix gets it from the reconciler's read, no second emission", async () => {
    const { res, id } = await h.create(BOLETO, { fault: { type: 'late_pix', queries: 1 } });
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.data.boleto_pix_copy_paste, null);
    const run = await tick();
    assert.ok(run.refreshed.includes(id), JSON.stringify(run));
    const [remote] = await h.remote(id);
    const data = await h.read(BOLETO, id);
    assert.equal(data.status, 'pending');
    assert.equal(data.boleto_pix_copy_paste, remote?.boleto?.keyPix);
    assert.equal(await lastActor(id), RECONCILER_ACTOR);
    assert.equal(await h.calls(id, 'create'), 1);
    // Filled: no longer a candidate.
    await tick();
    assert.equal(await h.calls(id, 'query'), 1);
  });

  test('SPEC 3.1: unknown without provider_reference is looked up by reference and settled, never created again', async () => {
    const { res, id } = await h.create(BOLETO_SANDBOX, { fault: { type: 'reset' }, commit: true });
    assert.equal(res.status, 202, res.text);
    const run = await tick();
    assert.ok(run.refreshed.includes(id), JSON.stringify(run));
    const data = await h.read(BOLETO_SANDBOX, id);
    assert.equal(data.status, 'pending');
    assert.equal(data.provider_reference, String((await h.remote(id))[0]?.id));
    for (const e of (await h.events(id)).slice(2)) assert.equal(e.metadata.actor, RECONCILER_ACTOR);
    assert.equal(await h.calls(id, 'create'), 1);
  });

  test('SPEC 3.1: a charge whose refresh found its id but could not read it (409) is settled in the background', async () => {
    const { res, id } = await h.create(BOLETO_SANDBOX, { fault: { type: 'reset' }, commit: true });
    assert.equal(res.status, 202, res.text);
    await world.control.fault({ operation: 'query', fault: { type: 'http_error', status: 503 } });
    const refused = await h.refresh(BOLETO_SANDBOX, id);
    assert.equal(refused.status, 409, refused.text);
    assert.equal((await h.read(BOLETO_SANDBOX, id)).provider_reference, null);
    const run = await tick();
    assert.ok(run.refreshed.includes(id), JSON.stringify(run));
    const data = await h.read(BOLETO_SANDBOX, id);
    assert.equal(data.status, 'pending');
    assert.notEqual(data.provider_reference, null);
    assert.equal(await lastActor(id), RECONCILER_ACTOR);
    // Each pass looks the id up, then reads it; nothing is ever created again.
    assert.equal(await h.calls(id, 'query_by_reference'), 2);
    assert.equal(await h.calls(id, 'query'), 2);
    assert.equal(await h.calls(id, 'create'), 1);
  });

  test('SPEC 3.1: a boleto payment intent left in processing is read again and moves on to paid', async () => {
    const { id, providerReference } = await h.pending(BOLETO);
    await world.control.move(providerReference, 'processing');
    assert.equal((await h.refresh(BOLETO, id)).body.data.status, 'processing');
    await world.control.move(providerReference, 'paid_boleto');
    const run = await tick();
    assert.ok(run.refreshed.includes(id), JSON.stringify(run));
    const data = await h.read(BOLETO, id);
    assert.equal(data.status, 'paid');
    assert.equal(data.paid_with, 'boleto');
    assert.equal(await lastActor(id), RECONCILER_ACTOR);
  });

  test('SPEC 2.2: a refund whose answer was lost after the provider returned the Pix is confirmed by a read, not sent again', async () => {
    const { id, providerReference } = await h.pending(BOLETO);
    await world.control.move(providerReference, 'paid_both');
    // The provider returns the Pix, then the connection is reset: the refresh cannot know.
    await world.control.fault({ operation: 'refund', fault: { type: 'reset' }, commit: true });
    const res = await h.refresh(BOLETO, id);
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.data.status, 'paid');
    assert.equal(res.body.data.paid_with, 'boleto');
    assert.equal((await h.events(id)).at(-1)?.type, 'Transaction.DuplicateRefundAttempted');

    const run = await tick();
    assert.ok(run.refreshed.includes(id), JSON.stringify(run));
    const last = (await h.events(id)).at(-1);
    assert.equal(last?.type, 'Transaction.DuplicateRefunded');
    assert.deepEqual(last?.data, { transaction_id: id, attempt: 1, source: 'provider' });
    assert.equal(last?.metadata.actor, RECONCILER_ACTOR);
    assert.equal(await h.calls(id, 'refund'), 1, 'never sent twice');
    await tick();
    assert.equal(await h.calls(id, 'refund'), 1);
  });

  test('SPEC 2.2: a refund that did not happen (HTTP 503) is retried later by the reconciler, and the Pix is returned once', async () => {
    const { id, providerReference } = await h.pending(BOLETO);
    await world.control.move(providerReference, 'paid_both');
    await world.control.fault({ operation: 'refund', fault: { type: 'http_error', status: 503 } });
    assert.equal((await h.refresh(BOLETO, id)).status, 200);
    // A refresh right away sees the claim still in flight (younger than the provider timeout): no call.
    assert.equal((await h.refresh(BOLETO, id)).status, 200);
    assert.equal(await h.calls(id, 'refund'), 1);
    assert.equal((await h.remote(id))[0]?.duplicatePayment, true, 'the provider still holds the Pix');

    await tick();
    const refunds = (await h.events(id)).filter((e) => e.type.startsWith('Transaction.DuplicateRefund'));
    assert.deepEqual(
      refunds.map((e) => [e.type, (e.data as { attempt: number }).attempt]),
      [
        ['Transaction.DuplicateRefundAttempted', 1],
        ['Transaction.DuplicateRefundAttempted', 2],
        ['Transaction.DuplicateRefunded', 2],
      ],
    );
    assert.equal(await h.calls(id, 'refund'), 2);
    const [remote] = await h.remote(id);
    assert.equal(remote?.duplicatePayment, false);
    assert.equal(remote?.status, 3, 'only the Pix was returned; the boleto stays paid');
    await tick();
    assert.equal(await h.calls(id, 'refund'), 2);
    assert.equal((await h.read(BOLETO, id)).status, 'paid');
  });

  test('bounded per tick: at most batchSize provider reads, the rest on the next tick', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const { res, id } = await h.create(BOLETO_SANDBOX, { fault: { type: 'reset' }, commit: true });
      assert.equal(res.status, 202, res.text);
      ids.push(id);
    }
    const worker = reconcileJob({ external: { batchSize: 2 } });
    const first = await tick(worker);
    assert.equal(first.checked, 2);
    const second = await tick(worker);
    assert.equal(second.checked, 1);
    assert.deepEqual([...first.refreshed, ...second.refreshed].sort(), [...ids].sort());
    for (const id of ids) assert.equal((await h.read(BOLETO_SANDBOX, id)).status, 'pending');
  });
});
