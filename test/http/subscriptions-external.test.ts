import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, test } from 'vitest';
import { assertError } from '../support/admin.ts';
import { useExternalProviderWorld } from '../support/external-provider.ts';
import { subscriptionBody, subscriptionCard } from '../support/subscriptions.ts';

/**
 * SPEC 4.10 "for card, creation requires enabled routing and production authorization, else the registration is
 * refused", against the provider emulator: a live card subscription routed to the production provider passes the
 * production controls of SPEC 5.8 (403 live_payments_disabled when off, nothing stored, nothing sent); a card
 * routed to the external sandbox is refused (SPEC 1). Boleto and pix subscriptions are not refused by the
 * controls: their first charge records why (issue 26 item 3, the scheduler's part).
 */

const world = useExternalProviderWorld();

async function cardProvider(environment: 'production' | 'sandbox', tenantId: string): Promise<void> {
  const provider = await world.app.request('POST', '/admin/providers', {
    headers: world.admin,
    json: {
      name: `Safe2Pay cards ${environment}`,
      kind: 'external',
      environment,
      enabled_methods: ['credit_card'],
      credentials: { api_key: `emu-${environment}-key` },
      payment_host: world.emulator.paymentUrl,
      api_host: world.emulator.apiUrl,
    },
  });
  assert.equal(provider.status, 201, provider.text);
  const rule = await world.app.request('POST', '/admin/rules', {
    headers: world.admin,
    json: { method: 'credit_card', tenant_id: tenantId, provider_id: provider.body.data.id, priority: 1 },
  });
  assert.equal(rule.status, 201, rule.text);
}

beforeAll(async () => {
  await cardProvider('production', world.production.tenantId);
  await cardProvider('sandbox', world.sandbox.tenantId);
});

const post = (key: string, json: unknown) =>
  world.app.request('POST', '/v1/subscriptions', {
    headers: { 'x-api-key': key, 'idempotency-key': randomUUID() },
    json,
  });

const cardSubscription = () => subscriptionBody({ method: 'credit_card', credit_card: subscriptionCard() });

async function listed(key: string): Promise<string[]> {
  await world.app.settle();
  const res = await world.app.request('GET', '/v1/subscriptions', { headers: { 'x-api-key': key } });
  return res.body.data.map((s: { id: string }) => s.id);
}

/** Runs `check` with production payments switched off in the panel (SPEC 4.14), then on again. */
async function withLivePaymentsOff(check: () => Promise<void>): Promise<void> {
  const set = (allow: boolean) =>
    world.app.request('PATCH', '/admin/settings/payments', {
      headers: world.admin,
      json: { allow_live_payments: allow },
    });
  const off = await set(false);
  assert.equal(off.status, 200, off.text);
  try {
    await check();
  } finally {
    await set(true);
  }
}

describe('card subscriptions and the production controls (SPEC 4.10, 5.8)', () => {
  test('live payments on: 201, live; the card is registered (tokenized once), nothing charged before the due day', async () => {
    const before = (await world.control.calls()).length;
    const res = await post(world.production.key, cardSubscription());
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.data.livemode, true);
    // SPEC 4.10: a card is debited on its due date (10 days ahead here); creation only registers it.
    const calls = (await world.control.calls()).slice(before);
    assert.deepEqual(
      calls.map((c) => c.operation),
      ['tokenize'],
    );
    await world.app.settle();
    const cycles = await world.app.request('GET', `/v1/subscriptions/${res.body.data.id}/cycles`, {
      headers: { 'x-api-key': world.production.key },
    });
    assert.deepEqual(
      cycles.body.data.map((c: { cycle: number; status: string; transaction_id: string | null }) => [
        c.cycle,
        c.status,
        c.transaction_id,
      ]),
      [[0, 'created', null]],
    );
  });

  test('the same card subscription sent 6 times at once under one key: one subscription, one tokenization at the provider', async () => {
    const before = (await world.control.calls()).length;
    const key = randomUUID();
    const body = cardSubscription();
    const answers = await Promise.all(
      Array.from({ length: 6 }, () =>
        world.app.request('POST', '/v1/subscriptions', {
          headers: { 'x-api-key': world.production.key, 'idempotency-key': key },
          json: body,
        }),
      ),
    );
    const ids = new Set(answers.map((a) => a.body.data?.id));
    assert.equal(ids.size, 1, answers.map((a) => a.text).join('\n'));
    assert.deepEqual(answers.map((a) => a.status).sort(), [200, 200, 200, 200, 200, 201]);
    const calls = (await world.control.calls()).slice(before);
    assert.deepEqual(
      calls.map((c) => c.operation),
      ['tokenize'],
    );
  });

  test('live payments off: 403 live_payments_disabled for a card, nothing stored; boleto is still created', async () => {
    const before = await listed(world.production.key);
    await withLivePaymentsOff(async () => {
      assertError(await post(world.production.key, cardSubscription()), 403, 'live_payments_disabled');
      assert.deepEqual(await listed(world.production.key), before);
      const boleto = await post(world.production.key, subscriptionBody());
      assert.equal(boleto.status, 201, boleto.text);
      assert.deepEqual(await world.control.calls(), []);
    });
  });

  test('a card routed to the external sandbox is refused (SPEC 1: the sandbox serves boleto only)', async () => {
    const res = await post(world.sandbox.key, cardSubscription());
    assertError(res, 422, 'provider_card_sandbox_unsupported');
    assert.deepEqual(await listed(world.sandbox.key), []);
  });

  test('a test key of the production tenant is routed the same way but never needs the controls', async () => {
    await withLivePaymentsOff(async () => {
      const res = await post(world.productionTestKey, cardSubscription());
      assert.equal(res.status, 201, res.text);
      assert.equal(res.body.data.livemode, false);
    });
  });
});
