import assert from 'node:assert/strict';
import { describe, test } from 'vitest';
import { settleAtProvider } from '../../src/commands/transactions/reconcile/handler.ts';
import { assertError } from '../support/admin.ts';
import { externalCharges } from '../support/external-charges.ts';
import {
  CHARGE_CASES,
  type ChargeCase,
  keyOf,
  useExternalProviderWorld,
} from '../support/external-provider.ts';
import { commandDeps } from '../support/fixtures.ts';

/**
 * Issue 13 items 4 and 7 through HTTP against the provider emulator: the boleto's slow Pix (SPEC 2.2, 4.2),
 * the double payment (SPEC 2.2 `paid_with`, `duplicate_payment_at`), `unknown` without `provider_reference`
 * (SPEC 3.1, 4.6) and concurrent refreshes (SPEC 3.1 "cannot overwrite a newer confirmation").
 */

const world = useExternalProviderWorld();
const h = externalCharges(world);

const [PIX, BOLETO, BOLETO_SANDBOX] = CHARGE_CASES as [ChargeCase, ChargeCase, ChargeCase];

/** SPEC 2.2 `boleto_pix_expires_at`: the end of the due day in Brasilia time (23:59:59), in UTC. */
function endOfDueDay(dueDate: string): string {
  return new Date(`${dueDate}T23:59:59-03:00`).toISOString();
}

describe("SPEC 4.2, 2.2: the boleto's slow Pix is filled by a later read, never emitted again", () => {
  test('201 without the Pix; a refresh whose read still lacks it changes nothing; the next one fills it', async () => {
    // The attached Pix is null in the creation answer and in the first read, present from the second.
    const { res, id } = await h.create(BOLETO, { fault: { type: 'late_pix', queries: 2 } });
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.data.status, 'pending');
    assert.equal(res.body.data.boleto_pix_copy_paste, null);
    assert.equal(res.body.data.boleto_pix_expires_at, null);
    const before = (await h.events(id)).length;

    const first = await h.refresh(BOLETO, id);
    assert.equal(first.status, 200, first.text);
    assert.equal(first.body.data.boleto_pix_copy_paste, null);
    assert.equal((await h.events(id)).length, before, 'a read without the Pix appends nothing');

    const second = await h.refresh(BOLETO, id);
    assert.equal(second.status, 200, second.text);
    const [remote] = await h.remote(id);
    assert.ok(remote?.boleto);
    assert.equal(second.body.data.status, 'pending');
    assert.equal(second.body.data.boleto_pix_copy_paste, remote.boleto.keyPix);
    assert.equal(second.body.data.boleto_pix_expires_at, endOfDueDay(second.body.data.boleto_due_date));
    // The line and barcode of the boleto are the ones issued at creation.
    assert.equal(second.body.data.boleto_digitable_line, res.body.data.boleto_digitable_line);
    assert.deepEqual(await h.read(BOLETO, id), second.body.data);

    // Once only: another read appends nothing, and the provider saw one creation in all.
    const third = await h.refresh(BOLETO, id);
    assert.equal(third.status, 200, third.text);
    const types = (await h.events(id)).map((e) => e.type);
    assert.equal(types.filter((t) => t === 'Transaction.BoletoPixIssued').length, 1);
    assert.equal(types.length, before + 1);
    assert.equal(await h.calls(id, 'create'), 1);
    assert.equal(await h.calls(id, 'query'), 3);
  });

  test('a boleto that is no longer pending does not get a Pix from a read (SPEC 2.2: only while pending)', async () => {
    const { res, id } = await h.create(BOLETO, { fault: { type: 'late_pix', queries: 1 } });
    assert.equal(res.status, 201, res.text);
    await world.control.move(res.body.data.provider_reference, 'paid_boleto');
    const paid = await h.refresh(BOLETO, id);
    assert.equal(paid.status, 200, paid.text);
    assert.equal(paid.body.data.status, 'paid');
    assert.equal(paid.body.data.boleto_pix_copy_paste, null);
    assert.ok(!(await h.events(id)).some((e) => e.type === 'Transaction.BoletoPixIssued'));
  });
});

describe('SPEC 2.2 double payment: paid_with boleto, duplicate_payment_at, the Pix refunded automatically once', () => {
  test('the refresh that reads a boleto paid by both refunds its Pix through the port; later refreshes never again', async () => {
    const { id, providerReference } = await h.pending(BOLETO);
    await world.control.move(providerReference, 'paid_both');
    const res = await h.refresh(BOLETO, id);
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.data.status, 'paid');
    assert.equal(res.body.data.paid_with, 'boleto');
    assert.equal(typeof res.body.data.duplicate_payment_at, 'string');
    assert.ok(!Number.isNaN(Date.parse(res.body.data.duplicate_payment_at)));
    // One refund call (wire doc 2.11 Pix cancel on the boleto's id); the provider returned only the Pix.
    assert.equal(await h.calls(id, 'refund'), 1);
    const [remote] = await h.remote(id);
    assert.equal(remote?.status, 3, 'the boleto stays paid');
    assert.equal(remote?.duplicatePayment, false, 'its Pix was returned');

    for (let i = 0; i < 2; i++) {
      const again = await h.refresh(BOLETO, id);
      assert.equal(again.status, 200, again.text);
      assert.equal(again.body.data.status, 'paid');
      assert.equal(again.body.data.duplicate_payment_at, res.body.data.duplicate_payment_at);
    }
    assert.equal(await h.calls(id, 'refund'), 1, 'never refunded twice');
    const types = (await h.events(id)).map((e) => e.type);
    assert.deepEqual(types.slice(-3), [
      'Transaction.Paid',
      'Transaction.DuplicateRefundAttempted',
      'Transaction.DuplicateRefunded',
    ]);
  });

  test('a boleto already recorded paid by its Pix, read later as paid by both: paid_with boleto, its Pix refunded once', async () => {
    const { id, providerReference } = await h.pending(BOLETO);
    await world.control.move(providerReference, 'paid_pix');
    const first = await h.refresh(BOLETO, id);
    assert.equal(first.body.data.paid_with, 'pix');
    assert.equal(first.body.data.duplicate_payment_at, null);
    await world.control.move(providerReference, 'paid_both');
    const res = await h.refresh(BOLETO, id);
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.data.status, 'paid');
    assert.equal(res.body.data.paid_with, 'boleto');
    assert.equal(typeof res.body.data.duplicate_payment_at, 'string');
    assert.equal(await h.calls(id, 'refund'), 1);
    assert.equal((await h.remote(id))[0]?.status, 3);
    assert.equal((await h.refresh(BOLETO, id)).status, 200);
    assert.equal(await h.calls(id, 'refund'), 1);
  });

  test('two refreshes at once reading the double payment: one claim, one refund call', async () => {
    const { id, providerReference } = await h.pending(BOLETO);
    await world.control.move(providerReference, 'paid_both');
    const [a, b] = await Promise.all([h.refresh(BOLETO, id), h.refresh(BOLETO, id)]);
    for (const res of [a, b]) {
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.data.status, 'paid');
      assert.equal(res.body.data.paid_with, 'boleto');
    }
    assert.equal(await h.calls(id, 'refund'), 1);
    const types = (await h.events(id)).map((e) => e.type);
    assert.equal(types.filter((t) => t === 'Transaction.Paid').length, 1);
    assert.equal(types.filter((t) => t === 'Transaction.DuplicateRefundAttempted').length, 1);
    assert.equal(types.filter((t) => t === 'Transaction.DuplicateRefunded').length, 1);
  });

  test('a refund the provider refuses is recorded with sanitized diagnostics and not sent again', async () => {
    const { id, providerReference } = await h.pending(BOLETO);
    await world.control.move(providerReference, 'paid_both');
    await world.control.fault({
      operation: 'refund',
      fault: { type: 'has_error', code: '4321', message: 'Estorno recusado para Maria, CPF 123.456.789-09' },
    });
    const res = await h.refresh(BOLETO, id);
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.data.status, 'paid');
    const refused = (await h.events(id)).find((e) => e.type === 'Transaction.DuplicateRefundRefused');
    assert.ok(refused);
    const data = refused.data as Record<string, unknown>;
    assert.equal(data.provider_error_code, '4321');
    assert.ok(!JSON.stringify(data).includes('Maria'), 'never the raw provider text (SPEC 2.2 rule 3)');
    assert.equal((await h.refresh(BOLETO, id)).status, 200);
    assert.equal(await h.calls(id, 'refund'), 1);
  });
});

describe('SPEC 3.1, 4.6: unknown without provider_reference is looked up by reference', () => {
  const adoptable = [
    { c: BOLETO, name: 'boleto (production)' },
    { c: BOLETO_SANDBOX, name: 'boleto (sandbox)' },
    { c: PIX, name: 'Pix (production)' },
  ];
  test.each(adoptable)(
    '$name: the charge created before the answer was lost is adopted, with its status and artifacts',
    async ({ c }) => {
      // The provider creates the charge, then the connection is reset: 202 unknown without an external id.
      const { res, id } = await h.create(c, { fault: { type: 'reset' }, commit: true });
      assert.equal(res.status, 202, res.text);
      assert.equal(res.body.data.status, 'unknown');
      assert.equal(res.body.data.provider_reference, null);

      const refreshed = await h.refresh(c, id);
      assert.equal(refreshed.status, 200, refreshed.text);
      const [remote] = await h.remote(id);
      assert.ok(remote);
      const data = refreshed.body.data;
      assert.equal(data.status, 'pending');
      assert.equal(data.provider_reference, String(remote.id));
      if (c.method === 'boleto') {
        assert.match(String(data.boleto_digitable_line), /^[0-9]{47}$/);
        assert.match(String(data.boleto_barcode), /^[0-9]{44}$/);
      } else {
        assert.equal(typeof data.pix_copy_paste, 'string');
        assert.equal(typeof data.expires_at, 'string');
      }
      assert.deepEqual(await h.read(c, id), data);
      // One lookup by reference, one read of the id found, and never a second creation.
      assert.equal(await h.calls(id, 'create'), 1);
      assert.equal(await h.calls(id, 'query_by_reference'), 1);
      assert.equal(await h.calls(id, 'query'), 1);
      const found = (await h.events(id)).find((e) => e.type === 'Transaction.ProviderReferenceFound');
      assert.ok(found);
      assert.equal((found.data as { provider_reference?: string }).provider_reference, String(remote.id));
    },
  );

  test('the id found, then its read failing: 409 reconciliation_required, nothing stored; the next refresh adopts it', async () => {
    const { res, id } = await h.create(BOLETO_SANDBOX, { fault: { type: 'reset' }, commit: true });
    assert.equal(res.status, 202, res.text);
    await world.control.fault({ operation: 'query', fault: { type: 'http_error', status: 503 } });
    const failed = await h.refresh(BOLETO_SANDBOX, id);
    // SPEC 3.1 row "unknown, refresh, no provider_reference": unchanged until a read confirms the id found.
    assertError(failed, 409, 'reconciliation_required');
    assert.equal((await h.read(BOLETO_SANDBOX, id)).provider_reference, null);
    const settled = await h.refresh(BOLETO_SANDBOX, id);
    assert.equal(settled.status, 200, settled.text);
    assert.equal(settled.body.data.status, 'pending');
    const [remote] = await h.remote(id);
    assert.equal(settled.body.data.provider_reference, String(remote?.id));
    assert.equal(await h.calls(id, 'create'), 1);
  });

  test('a lookup that lies about the id never pins it: the read of that id disagrees, nothing stored (SPEC 4.6)', async () => {
    const { res, id } = await h.create(BOLETO_SANDBOX, { fault: { type: 'reset' }, commit: true });
    assert.equal(res.status, 202, res.text);
    await world.control.fault({
      operation: 'query_by_reference',
      fault: { type: 'disagree', field: 'id' },
      times: 1,
    });
    assertError(await h.refresh(BOLETO_SANDBOX, id), 409, 'reconciliation_required');
    assert.equal((await h.read(BOLETO_SANDBOX, id)).provider_reference, null);
    assert.equal(
      (await h.events(id)).filter((e) => e.type === 'Transaction.ProviderReferenceFound').length,
      0,
    );
    const settled = await h.refresh(BOLETO_SANDBOX, id);
    assert.equal(settled.status, 200, settled.text);
    const [remote] = await h.remote(id);
    assert.equal(settled.body.data.provider_reference, String(remote?.id));
  });

  test('two charges at the provider with the reference: 409 reconciliation_required, nothing adopted', async () => {
    const { res, id } = await h.create(BOLETO_SANDBOX, { fault: { type: 'reset' }, commit: true });
    assert.equal(res.status, 202, res.text);
    // A second remote charge with the same reference: the stored provider_request sent again by hand.
    const snapshot = await world.app.request('GET', `/v1/transactions/${id}/request`, {
      headers: { 'x-api-key': keyOf(world, BOLETO_SANDBOX) },
    });
    assert.equal(snapshot.status, 200, snapshot.text);
    const sent = await fetch(`${world.emulator.paymentUrl}/v2/Payment`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': 'emu-sandbox-key' },
      body: JSON.stringify(snapshot.body.data.provider_request),
    });
    assert.equal(sent.status, 200);
    assert.equal((await h.remote(id)).length, 2);

    const refreshed = await h.refresh(BOLETO_SANDBOX, id);
    assertError(refreshed, 409, 'reconciliation_required');
    assert.equal(refreshed.body.error.transaction_id, id);
    const data = await h.read(BOLETO_SANDBOX, id);
    assert.equal(data.status, 'unknown');
    assert.equal(data.provider_reference, null);
    assert.equal(await h.calls(id, 'query'), 0);
  });

  test('a lookup that fails (HTTP 503) is 409 reconciliation_required; state kept', async () => {
    const { id } = await h.create(BOLETO_SANDBOX, { fault: { type: 'reset' }, commit: true });
    await world.control.fault({
      operation: 'query_by_reference',
      fault: { type: 'http_error', status: 503 },
    });
    const before = await h.read(BOLETO_SANDBOX, id);
    assertError(await h.refresh(BOLETO_SANDBOX, id), 409, 'reconciliation_required');
    assert.deepEqual(await h.read(BOLETO_SANDBOX, id), before);
  });

  test('the only charge with the reference has another amount: 502 provider_refresh_failed, nothing adopted', async () => {
    // A Pix: a boleto's barcode carries its amount, so the adapter already refuses such a boleto read.
    const { id } = await h.create(PIX, { fault: { type: 'reset' }, commit: true });
    await world.control.fault({
      operation: 'query_by_reference',
      fault: { type: 'disagree', field: 'amount' },
    });
    const before = await h.read(PIX, id);
    const res = await h.refresh(PIX, id);
    assertError(res, 502, 'provider_refresh_failed');
    assert.equal(res.body.error.transaction_id, id);
    assert.deepEqual(await h.read(PIX, id), before);
    assert.equal(await h.calls(id, 'query'), 0);
  });
});

describe('SPEC 3.1: concurrent refreshes never overwrite a newer confirmation', () => {
  test('a refresh whose read arrives late (older provider state) does not undo the paid another read applied', async () => {
    const { id, providerReference } = await h.pending(BOLETO);
    await world.control.move(providerReference, 'processing');
    // A's read is taken now (status 2, a payment intent) and delivered 2 s later.
    await world.control.fault({
      operation: 'query',
      reference: id,
      fault: { type: 'latency', ms: 2000, answerFirst: true },
    });
    const slow = h.refresh(BOLETO, id);
    while ((await h.calls(id, 'query')) === 0) await new Promise((r) => setImmediate(r));
    // Meanwhile the boleto is paid and B reads that first. Refreshes in one process share A's query (issue 23
    // item 2.11), so B is the reconciler's read (the worker role; another API process's refresh reads alike).
    await world.control.move(providerReference, 'paid_boleto');
    const ctx = world.app.gateway.ctx;
    const fast = await settleAtProvider(
      { deps: commandDeps(ctx), config: ctx.config, adapters: ctx },
      { id, tenant_id: world.production.tenantId, livemode: true },
      'system:reconciler',
    );
    assert.equal(fast, 'applied');
    assert.equal((await h.read(BOLETO, id)).status, 'paid');

    const late = await slow;
    assert.equal(late.status, 200, late.text);
    assert.equal(late.body.data.status, 'paid', 'the stale processing read is dropped, not a 409');
    assert.equal((await h.read(BOLETO, id)).status, 'paid');
    const types = (await h.events(id)).map((e) => e.type);
    assert.ok(!types.includes('Transaction.PaymentProcessing'));
    assert.equal(types.at(-1), 'Transaction.Paid');
  });
});
