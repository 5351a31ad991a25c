import assert from 'node:assert/strict';
import { describe, test } from 'vitest';
import type { Fault } from '../../src/providers/emulator/faults.ts';
import type { Move } from '../../src/providers/emulator/server.ts';
import { assertError } from '../support/admin.ts';
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
 * Issue 13: refresh of an external charge through the port's `query` (SPEC 3.1 transitions, 4.6), against
 * the provider emulator on a real socket. The provider's state is moved with the emulator's control API.
 */

const world = useExternalProviderWorld();

const [PIX, BOLETO_PRODUCTION, BOLETO_SANDBOX] = CHARGE_CASES as [ChargeCase, ChargeCase, ChargeCase];

/** An issued (pending) charge and its external id. */
async function pendingCharge(c: ChargeCase): Promise<{ id: string; providerReference: string }> {
  const res = await chargeRequest(world, c).send();
  assert.equal(res.status, 201, res.text);
  assert.equal(res.body.data.status, 'pending');
  return { id: transactionIdOf(res), providerReference: res.body.data.provider_reference };
}

function refresh(c: ChargeCase, id: string): Promise<TestResponse> {
  return world.app.request('POST', `/v1/transactions/${id}/refresh`, {
    headers: { 'x-api-key': keyOf(world, c) },
  });
}

async function read(c: ChargeCase, id: string) {
  const res = await world.app.request('GET', `/v1/transactions/${id}`, {
    headers: { 'x-api-key': keyOf(world, c) },
  });
  assert.equal(res.status, 200, res.text);
  return res.body.data;
}

async function queries(id: string): Promise<number> {
  return (await world.control.calls({ reference: id, operation: 'query' })).length;
}

describe('SPEC 3.1, 4.6: refresh at the external provider', () => {
  const paid: Array<{ c: ChargeCase; move: Move; paidWith: 'pix' | 'boleto' }> = [
    { c: PIX, move: 'paid_pix', paidWith: 'pix' },
    { c: BOLETO_PRODUCTION, move: 'paid_boleto', paidWith: 'boleto' },
    { c: BOLETO_SANDBOX, move: 'paid_pix', paidWith: 'pix' },
  ];
  test.each(paid)(
    '$c.name paid at the provider ($move): 200 paid, paid_with $paidWith; one query',
    async (p) => {
      const { id, providerReference } = await pendingCharge(p.c);
      await world.control.move(providerReference, p.move);
      const res = await refresh(p.c, id);
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.data.status, 'paid');
      // SPEC 2.2: set for boleto (boleto or its Pix); a Pix charge is paid by Pix.
      assert.equal(res.body.data.paid_with, p.paidWith);
      assert.equal(await queries(id), 1);
      assert.equal((await read(p.c, id)).status, 'paid');
    },
  );

  test('boleto status 2 is processing (not a settlement); a later paid read moves it to paid', async () => {
    const { id, providerReference } = await pendingCharge(BOLETO_PRODUCTION);
    await world.control.move(providerReference, 'processing');
    const processing = await refresh(BOLETO_PRODUCTION, id);
    assert.equal(processing.status, 200, processing.text);
    assert.equal(processing.body.data.status, 'processing');
    assert.equal(processing.body.data.paid_with, null);
    await world.control.move(providerReference, 'paid_boleto');
    const settled = await refresh(BOLETO_PRODUCTION, id);
    assert.equal(settled.body.data.status, 'paid');
    assert.equal(settled.body.data.paid_with, 'boleto');
  });

  test('still pending at the provider: 200 unchanged', async () => {
    const { id } = await pendingCharge(PIX);
    const before = await read(PIX, id);
    const res = await refresh(PIX, id);
    assert.equal(res.status, 200, res.text);
    assert.deepEqual({ ...res.body.data, updated_at: null }, { ...before, updated_at: null });
  });

  const diverging: Array<{ name: string; fault: Fault; httpStatus: number | null }> = [
    { name: 'another amount', fault: { type: 'disagree', field: 'amount' }, httpStatus: 200 },
    { name: 'another reference', fault: { type: 'disagree', field: 'reference' }, httpStatus: 200 },
    { name: 'another external id', fault: { type: 'disagree', field: 'id' }, httpStatus: 200 },
    { name: 'HTTP 503', fault: { type: 'http_error', status: 503 }, httpStatus: 503 },
    { name: 'connection reset', fault: { type: 'reset' }, httpStatus: null },
  ];
  test.each(diverging)(
    'a query answering $name: 502 provider_refresh_failed, stored state kept',
    async (d) => {
      const { id, providerReference } = await pendingCharge(BOLETO_PRODUCTION);
      // Even a paid charge at the provider is not applied from an answer that does not match.
      await world.control.move(providerReference, 'paid_boleto');
      await world.control.fault({ operation: 'query', fault: d.fault });
      const before = await read(BOLETO_PRODUCTION, id);
      const res = await refresh(BOLETO_PRODUCTION, id);
      assertError(res, 502, 'provider_refresh_failed');
      assert.equal(res.body.error.transaction_id, id);
      assert.equal(res.body.error.provider_http_status, d.httpStatus);
      assert.equal(typeof res.body.error.provider_error_message, 'string');
      const after = await read(BOLETO_PRODUCTION, id);
      assert.deepEqual(after, before);
      // SPEC 4.6: the creation diagnostics are not overwritten by the failed query.
      assert.equal(after.provider_error_message, null);
    },
  );

  test('a final state never regresses: paid, then pending at the provider, is 409 provider_status_conflict', async () => {
    const { id, providerReference } = await pendingCharge(PIX);
    await world.control.move(providerReference, 'paid_pix');
    assert.equal((await refresh(PIX, id)).body.data.status, 'paid');
    await world.control.move(providerReference, 'pending');
    assertError(await refresh(PIX, id), 409, 'provider_status_conflict');
    assert.equal((await read(PIX, id)).status, 'paid');
  });

  test('unknown without an external id, and no charge at the provider: 409 reconciliation_required, still unknown', async () => {
    // The connection is cut before the provider did anything (commit: false): nothing exists remotely.
    await world.control.fault({ operation: 'create', fault: { type: 'reset' }, commit: false });
    const created = await chargeRequest(world, BOLETO_SANDBOX).send();
    assert.equal(created.status, 202, created.text);
    const id = transactionIdOf(created);
    assert.equal(created.body.data.provider_reference, null);
    const res = await refresh(BOLETO_SANDBOX, id);
    assertError(res, 409, 'reconciliation_required');
    assert.equal(res.body.error.transaction_id, id);
    // Looked up once by reference (SPEC 3.1), never queried by id, never created again.
    assert.equal(await queries(id), 0);
    assert.equal((await world.control.calls({ reference: id, operation: 'query_by_reference' })).length, 1);
    assert.equal((await world.control.calls({ reference: id, operation: 'create' })).length, 1);
    // SPEC 3.1: no confirmed refusal, so never failed; `unknown` stays.
    assert.equal((await read(BOLETO_SANDBOX, id)).status, 'unknown');
  });

  test('SPEC 4.6, 5.8: production off is 403 live_payments_disabled with no query; the boleto sandbox is not consulted', async () => {
    const production = await pendingCharge(PIX);
    const sandbox = await pendingCharge(BOLETO_SANDBOX);
    const off = await world.app.request('PATCH', '/admin/settings/payments', {
      headers: world.admin,
      json: { allow_live_payments: false },
    });
    assert.equal(off.status, 200, off.text);
    try {
      assertError(await refresh(PIX, production.id), 403, 'live_payments_disabled');
      assert.equal(await queries(production.id), 0);
      const res = await refresh(BOLETO_SANDBOX, sandbox.id);
      assert.equal(res.status, 200, res.text);
      assert.equal(await queries(sandbox.id), 1);
    } finally {
      const on = await world.app.request('PATCH', '/admin/settings/payments', {
        headers: world.admin,
        json: { allow_live_payments: true },
      });
      assert.equal(on.status, 200, on.text);
    }
  });
});
