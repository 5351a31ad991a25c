import assert from 'node:assert/strict';
import { describe, test } from 'vitest';
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
 * Issue 23 item 2.11: concurrent `POST /v1/transactions/{id}/refresh` of one charge share one provider query
 * (SPEC 3.1, 4.6: the refresh reads the provider; it need not read it once per request). Through HTTP
 * against the provider emulator, whose call log counts the queries. One gateway process here, so one query
 * per burst; every request is still checked on its own (key, tenant, mode) before it joins, and a refresh
 * after the burst queries again (nothing is cached).
 */

// Bursts of 20 from one key are above SPEC 8's 120 per minute over the file's tests.
const world = useExternalProviderWorld({ RATE_LIMIT_PER_MINUTE: '100000' });
const [PIX, BOLETO] = CHARGE_CASES as [ChargeCase, ChargeCase, ChargeCase];

// Long enough for a burst to arrive while the first query is in flight, below the tests' provider timeout.
const SLOW_QUERY_MS = 1000;

async function pendingCharge(c: ChargeCase): Promise<{ id: string; providerReference: string }> {
  const res = await chargeRequest(world, c).send();
  assert.equal(res.status, 201, res.text);
  return { id: transactionIdOf(res), providerReference: res.body.data.provider_reference };
}

function refresh(id: string, key: string): Promise<TestResponse> {
  return world.app.request('POST', `/v1/transactions/${id}/refresh`, { headers: { 'x-api-key': key } });
}

function burst(n: number, send: () => Promise<TestResponse>): Promise<TestResponse[]> {
  return Promise.all(Array.from({ length: n }, send));
}

async function queries(id: string): Promise<number> {
  return (await world.control.calls({ reference: id, operation: 'query' })).length;
}

/** The next query of the provider answers late, so that a burst finds it in flight. */
function slowNextQuery(): Promise<void> {
  return world.control.fault({ operation: 'query', times: 1, fault: { type: 'latency', ms: SLOW_QUERY_MS } });
}

/** Every answer 200 with one and the same view of the charge; that view. */
function sameAnswer(answers: readonly TestResponse[]) {
  for (const a of answers) assert.equal(a.status, 200, a.text);
  const first = answers[0]?.body.data;
  for (const a of answers) assert.deepEqual(a.body.data, first);
  return first;
}

describe('issue 23 item 2.11: concurrent refreshes of one charge share one provider query', () => {
  test('20 refreshes at once: one query, twenty 200 with the same state; a later refresh queries again and reads the change', async () => {
    const key = keyOf(world, BOLETO);
    const { id, providerReference } = await pendingCharge(BOLETO);

    await slowNextQuery();
    const pending = sameAnswer(await burst(20, () => refresh(id, key)));
    assert.equal(pending.id, id);
    assert.equal(pending.status, 'pending');
    assert.equal(await queries(id), 1, 'twenty concurrent refreshes, one provider query');

    // Nothing is kept from the burst: the next refresh asks the provider again and sees what it says now.
    await world.control.move(providerReference, 'processing');
    const processing = await refresh(id, key);
    assert.equal(processing.status, 200, processing.text);
    assert.equal(processing.body.data.status, 'processing');
    assert.equal(await queries(id), 2);

    await world.control.move(providerReference, 'paid_boleto');
    await slowNextQuery();
    const paid = sameAnswer(await burst(20, () => refresh(id, key)));
    assert.equal(paid.status, 'paid');
    assert.equal(paid.paid_with, 'boleto');
    assert.equal(await queries(id), 3, 'the second burst, one more query');
  });

  test('a failed query is shared as it is: twenty 502 provider_refresh_failed with its diagnostics, state kept; the next refresh queries again', async () => {
    const key = keyOf(world, PIX);
    const { id, providerReference } = await pendingCharge(PIX);
    await world.control.move(providerReference, 'paid_pix');
    // No answer: the query ends at the gateway's provider timeout (3 s), with every refresh of the burst waiting on it.
    await world.control.fault({ operation: 'query', times: 1, fault: { type: 'no_answer' } });
    const answers = await burst(20, () => refresh(id, key));
    for (const a of answers) {
      assertError(a, 502, 'provider_refresh_failed');
      assert.equal(a.body.error.transaction_id, id);
      assert.equal(a.body.error.provider_http_status, null);
    }
    // One query's diagnostics in every answer; each answer is its own (its own request id).
    assert.equal(new Set(answers.map((a) => a.body.error.provider_error_message)).size, 1);
    assert.equal(new Set(answers.map((a) => a.body.error.request_id)).size, 20);
    assert.equal(await queries(id), 1);
    const kept = await world.app.request('GET', `/v1/transactions/${id}`, { headers: { 'x-api-key': key } });
    assert.equal(kept.body.data.status, 'pending', 'SPEC 4.6: a failed query keeps the stored state');

    const after = await refresh(id, key);
    assert.equal(after.status, 200, after.text);
    assert.equal(after.body.data.status, 'paid');
    assert.equal(await queries(id), 2, 'a failure is not kept either');
  });

  test("each request is checked before it joins: another tenant's key and the test key get 404 during the owner's burst", async () => {
    const key = keyOf(world, PIX);
    const { id, providerReference } = await pendingCharge(PIX);
    await world.control.move(providerReference, 'paid_pix');
    await slowNextQuery();
    const owner = burst(10, () => refresh(id, key));
    const stranger = burst(5, () => refresh(id, world.stranger.key));
    // SPEC 5.2: a test key never sees a live charge, even one being refreshed right now.
    const testMode = burst(5, () => refresh(id, world.productionTestKey));
    for (const a of [...(await stranger), ...(await testMode)]) assertError(a, 404, 'not_found');
    const paid = sameAnswer(await owner);
    assert.equal(paid.status, 'paid');
    assert.equal(await queries(id), 1);
  });
});
