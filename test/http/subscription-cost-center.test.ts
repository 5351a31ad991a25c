import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, test } from 'vitest';
import { type SeededKey, seedTenantAndKey } from '../support/fixtures.ts';
import { startTestApp, type TestApp } from '../support/http.ts';
import { subscriptionBody } from '../support/subscriptions.ts';

/**
 * SPEC 4.10: "Cost center on a subscription is inherited by each new cycle (boleto, card, Pix Automatic
 * debit, Pix checkout at the moment the payer chooses to pay); already issued charges keep the earlier
 * center; deactivating a linked center preserves classification and continuity." Through HTTP, on a test
 * clock so that later cycles come from the scheduler's own code.
 */

let app: TestApp;
let owner: SeededKey;

// biome-ignore lint/suspicious/noExplicitAny: response JSON, already validated against /openapi.json
type Json = any;

const headers = (idempotencyKey: string | null = randomUUID()) => ({
  'x-api-key': owner.key,
  ...(idempotencyKey === null ? {} : { 'idempotency-key': idempotencyKey }),
});

async function ok(res: Promise<{ status: number; text: string; body: Json }>, status = 200): Promise<Json> {
  const r = await res;
  assert.equal(r.status, status, r.text);
  return r.body.data;
}

const get = (path: string) => ok(app.request('GET', path, { headers: headers(null) }));
const center = async (name: string) =>
  ok(app.request('POST', '/v1/cost-centers', { headers: headers(), json: { name } }), 201);

async function chargeOf(subscriptionId: string, dueDate: string): Promise<Json> {
  await app.settle();
  const cycles: Json[] = await get(`/v1/subscriptions/${subscriptionId}/cycles?limit=100`);
  const cycle = cycles.find((c) => c.due_date === dueDate);
  assert.ok(cycle?.transaction_id, `a charge for ${dueDate}`);
  return get(`/v1/transactions/${cycle.transaction_id}`);
}

beforeAll(async () => {
  app = await startTestApp({ ENABLE_SIMULATOR: 'true' });
  owner = await seedTenantAndKey(app.gateway.ctx, { tenantName: 'Academia Centro' });
});

afterAll(async () => {
  await app.close();
});

describe('a subscription’s cost center (SPEC 4.10)', () => {
  test('each new cycle takes the center the subscription has then; issued charges keep theirs; a deactivated center goes on classifying', async () => {
    const a = await center(`Unidade A ${randomUUID()}`);
    const b = await center(`Unidade B ${randomUUID()}`);
    const clock = await ok(
      app.request('POST', '/v1/test_clocks', {
        headers: headers(),
        json: { frozen_time: '2027-03-01T12:00:00Z' },
      }),
      201,
    );
    const sub = await ok(
      app.request('POST', '/v1/subscriptions', {
        headers: headers(),
        json: subscriptionBody({
          first_due_date: '2027-03-10',
          test_clock_id: clock.id,
          cost_center_id: a.id,
        }),
      }),
      201,
    );
    assert.equal((await chargeOf(sub.id, '2027-03-10')).cost_center_id, a.id);

    await ok(
      app.request('PATCH', `/v1/subscriptions/${sub.id}`, {
        headers: headers(null),
        json: { cost_center_id: b.id },
      }),
    );
    const advance = (to: string) =>
      ok(
        app.request('POST', `/v1/test_clocks/${clock.id}/advance`, {
          headers: headers(null),
          json: { frozen_time: to },
        }),
      );
    await advance('2027-04-11T12:00:00Z');
    assert.equal((await chargeOf(sub.id, '2027-04-10')).cost_center_id, b.id);
    assert.equal(
      (await chargeOf(sub.id, '2027-03-10')).cost_center_id,
      a.id,
      'an issued charge keeps its center',
    );

    // Deactivating the linked center does not stop the subscription nor unclassify its next cycle.
    await ok(
      app.request('PATCH', `/v1/cost-centers/${b.id}`, { headers: headers(null), json: { active: false } }),
    );
    await advance('2027-05-11T12:00:00Z');
    const may = await chargeOf(sub.id, '2027-05-10');
    assert.equal(may.cost_center_id, b.id);
    assert.equal((await get(`/v1/subscriptions/${sub.id}`)).last_error, null);
  });

  test('a Pix cycle’s charge takes the subscription’s center at the moment the payer chooses to pay', async () => {
    const a = await center(`Pix A ${randomUUID()}`);
    const b = await center(`Pix B ${randomUUID()}`);
    const sub = await ok(
      app.request('POST', '/v1/subscriptions', {
        headers: headers(),
        json: subscriptionBody({ method: 'pix', cost_center_id: a.id }),
      }),
      201,
    );
    await app.settle();
    const [cycle] = await get(`/v1/subscriptions/${sub.id}/cycles`);
    const link = await get(`/v1/checkouts/${cycle.checkout_id}`);
    await ok(
      app.request('PATCH', `/v1/subscriptions/${sub.id}`, {
        headers: headers(null),
        json: { cost_center_id: b.id },
      }),
    );
    // The payer picks Pix on the link's page (the form post its button makes).
    const path = new URL(link.url).pathname;
    const html = (await app.request('GET', path)).text;
    const nonce = /name="method" value="pix">\s*<input type="hidden" name="nonce" value="([^"]+)"/.exec(
      html,
    )?.[1];
    const chosen = await fetch(`${app.baseUrl}${path}/pay`, {
      method: 'POST',
      body: new URLSearchParams({ method: 'pix', nonce: nonce ?? randomBytes(16).toString('base64url') }),
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: app.baseUrl },
    });
    assert.equal(chosen.status, 303);
    const [transactionId] = (await get(`/v1/checkouts/${link.id}`)).transaction_ids;
    assert.equal((await get(`/v1/transactions/${transactionId}`)).cost_center_id, b.id);
  });
});
