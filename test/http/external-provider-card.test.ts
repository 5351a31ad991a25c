import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { beforeAll, describe, test } from 'vitest';
import { assertError } from '../support/admin.ts';
import { cardBody } from '../support/cards.ts';
import { transactionIdOf, useExternalProviderWorld } from '../support/external-provider.ts';
import { type SeededKey, seedTenantAndKey } from '../support/fixtures.ts';
import { startTestApp, type TestResponse } from '../support/http.ts';

/**
 * Issue 25 items 1-4 against the provider emulator (docs/provider-emulator.md "Cards"; wire doc wave 2b §1,
 * §7.1): a production provider with `credit_card` enabled and a card rule, live payments on. Outcomes from
 * SPEC 3.1 (paid, failed 502, unknown 202 settled by refresh and never sent again), diagnostics from SPEC 2.2
 * (`provider_error_code` digits only), production controls from SPEC 5.8, SPEC 1 (no sandbox for cards).
 */

const world = useExternalProviderWorld({ RATE_LIMIT_PER_MINUTE: '100000' });

let cardProvider: string;
let otherCardProvider: string;

async function provider(environment: 'production' | 'sandbox', name: string): Promise<string> {
  const res = await world.app.request('POST', '/admin/providers', {
    headers: world.admin,
    json: {
      name,
      kind: 'external',
      environment,
      enabled_methods: ['credit_card'],
      credentials: { api_key: `emu-${environment}-key` },
      payment_host: world.emulator.paymentUrl,
      api_host: world.emulator.apiUrl,
    },
  });
  assert.equal(res.status, 201, res.text);
  return res.body.data.id;
}

async function cardRule(tenantId: string, providerId: string): Promise<string> {
  const res = await world.app.request('POST', '/admin/rules', {
    headers: world.admin,
    json: { method: 'credit_card', tenant_id: tenantId, provider_id: providerId, priority: 1 },
  });
  assert.equal(res.status, 201, res.text);
  return res.body.data.id;
}

beforeAll(async () => {
  cardProvider = await provider('production', 'Safe2Pay cards');
  otherCardProvider = await provider('production', 'Safe2Pay cards 2');
  await cardRule(world.production.tenantId, cardProvider);
  await cardRule(world.sandbox.tenantId, await provider('sandbox', 'Safe2Pay cards sandbox'));
});

function charge(key: string, body: Record<string, unknown>, idem: string = randomUUID()) {
  return world.app.request('POST', '/v1/credit-card', {
    headers: { 'x-api-key': key, 'idempotency-key': idem },
    json: body,
  });
}

const card = (number: string, security_code = '4821', top: Record<string, unknown> = {}) =>
  cardBody({ number, security_code }, { reference: `order-${randomUUID()}`, ...top });

const read = (id: string, key = world.production.key) =>
  world.app.request('GET', `/v1/transactions/${id}`, { headers: { 'x-api-key': key } });

async function emulatorCalls(id: string) {
  const all = await world.control.calls();
  return {
    tokenize: all.filter((c) => c.operation === 'tokenize').length,
    create: all.filter((c) => c.operation === 'create' && c.reference === id).length,
    refund: all.filter((c) => c.operation === 'refund').length,
  };
}

/** Every event of every stream: a refusal before reservation appends none (SPEC 3.1). */
async function eventCount(): Promise<number> {
  const { rows } = await sql<{ n: string }>`select count(*) as n from events`.execute(
    world.app.gateway.ctx.db,
  );
  return Number(rows[0]?.n);
}

function assertNoSecrets(res: TestResponse, number: string, code: string): void {
  assert.ok(!res.text.includes(number));
  assert.ok(!res.text.includes(`"${code}"`));
}

describe('card charges at the production provider (issue 25 item 3; SPEC 3.1)', () => {
  test('approved: 201 paid; provider_request has the token redacted and no card number; one tokenize, one charge', async () => {
    const res = await charge(world.production.key, card('4000000000000010'));
    assert.equal(res.status, 201, res.text);
    assertNoSecrets(res, '4000000000000010', '4821');
    const data = res.body.data;
    assert.equal(data.status, 'paid');
    assert.equal(data.method, 'credit_card');
    assert.equal(data.paid_with, 'credit_card');
    assert.equal(data.simulated, false);
    assert.equal(data.environment, 'production');
    assert.equal(data.livemode, true);
    assert.match(data.credit_card.card_id, /^card_/);
    assert.equal(data.credit_card.last_four, '0010');
    const held = await world.control.charges(data.id);
    assert.equal(held.length, 1);
    assert.equal(data.provider_reference, String(held[0]?.id));
    assert.equal(held[0]?.status, 3);
    assert.deepEqual(await emulatorCalls(data.id), { tokenize: 1, create: 1, refund: 0 });

    const stored = await world.app.request('GET', `/v1/transactions/${data.id}/request`, {
      headers: { 'x-api-key': world.production.key },
    });
    assert.equal(stored.status, 200, stored.text);
    const sent = stored.body.data.provider_request as Record<string, unknown>;
    assert.equal(sent.PaymentMethod, '2');
    assert.equal(sent.Reference, data.id);
    const text = JSON.stringify(sent);
    assert.ok(!text.includes('4000000000000010'), 'no card number in provider_request');
    assert.ok(!text.includes('4821'), 'no security code in provider_request');
    assert.equal((sent.PaymentObject as Record<string, unknown>).Token, '<redacted>');
  });

  test('declined 05: 502 provider_rejected with provider_error_code "05"; GET shows failed', async () => {
    const res = await charge(world.production.key, card('4000000000000002'));
    assertError(res, 502, 'provider_rejected');
    assert.equal(res.body.error.provider_error_code, '05');
    const id = transactionIdOf(res);
    const got = await read(id);
    assert.equal(got.body.data.status, 'failed');
    assert.equal(got.body.data.provider_error_code, '05');
    assert.equal(got.body.data.credit_card.card_id, null);
  });

  test('an alphanumeric decline (N7): provider_error_code null and a guidance message (SPEC 2.2 digits only)', async () => {
    const res = await charge(world.production.key, card('5555000000000057'));
    assertError(res, 502, 'provider_rejected');
    assert.equal(res.body.error.provider_error_code, null);
    assert.equal(typeof res.body.error.provider_error_message, 'string');
    assert.ok(res.body.error.provider_error_message.length > 0);
    assert.ok(!res.body.error.provider_error_message.includes('N7'), res.text);
  });

  test('no answer (last digit 6): 202 unknown; refresh reads the charge made: paid, never charged again', async () => {
    const res = await charge(world.production.key, card('4000000000000036'));
    assert.equal(res.status, 202, res.text);
    assert.equal(res.body.data.status, 'unknown');
    const id = res.body.data.id;
    const refreshed = await world.app.request('POST', `/v1/transactions/${id}/refresh`, {
      headers: { 'x-api-key': world.production.key },
    });
    assert.equal(refreshed.status, 200, refreshed.text);
    assert.equal(refreshed.body.data.status, 'paid');
    assert.equal(refreshed.body.data.paid_with, 'credit_card');
    assert.equal((await emulatorCalls(id)).create, 1, 'one charge at the provider');
    assert.equal((await world.control.charges(id)).length, 1);
  });

  test('HTTP 500 on the charge: 202 unknown, not sent again', async () => {
    await world.control.fault({ operation: 'create', fault: { type: 'http_error', status: 500 } });
    const idem = randomUUID();
    const body = card('4000000000000044');
    const res = await charge(world.production.key, body, idem);
    assert.equal(res.status, 202, res.text);
    assert.equal(res.body.data.status, 'unknown');
    const replay = await charge(world.production.key, body, idem);
    assert.equal(replay.status, 200, replay.text);
    assert.equal(replay.body.data.status, 'unknown');
    assert.equal((await emulatorCalls(res.body.data.id)).create, 1);
  });

  test('refund: one DELETE CreditCard/Cancel, refunded', async () => {
    const res = await charge(world.production.key, card('4000000000000069'));
    assert.equal(res.status, 201, res.text);
    const id = res.body.data.id;
    const refund = await world.app.request('POST', `/v1/transactions/${id}/refund`, {
      headers: { 'x-api-key': world.production.key, 'idempotency-key': randomUUID() },
      json: {},
    });
    assert.equal(refund.status, 200, refund.text);
    assert.equal(refund.body.data.status, 'refunded');
    const refunds = (await world.control.calls()).filter((c) => c.operation === 'refund');
    assert.equal(refunds.length, 1);
    assert.equal(refunds[0]?.method, 'DELETE');
    assert.match(refunds[0]?.path ?? '', /CreditCard\/Cancel\//);
    assert.equal((await world.control.charges(id))[0]?.status, 6);
  });
});

describe('where cards may not go (SPEC 1, 5.8; issue 25 item 4)', () => {
  test('a card routed to the provider in sandbox: 422 provider_card_sandbox_unsupported, nothing stored or sent', async () => {
    const reference = `order-${randomUUID()}`;
    const before = await eventCount();
    const res = await charge(world.sandbox.key, card('4000000000000010', '4821', { reference }));
    assertError(res, 422, 'provider_card_sandbox_unsupported');
    assert.deepEqual(await world.control.calls(), []);
    await world.app.settle();
    const list = await world.app.request('GET', `/v1/transactions?reference=${reference}`, {
      headers: { 'x-api-key': world.sandbox.key },
    });
    assert.equal(list.body.data.length, 0);
    assert.equal(await eventCount(), before, 'no event appended');
  });

  test('live payments off: 403 live_payments_disabled, no call', async () => {
    const off = await world.app.request('PATCH', '/admin/settings/payments', {
      headers: world.admin,
      json: { allow_live_payments: false },
    });
    assert.equal(off.status, 200, off.text);
    try {
      assertError(
        await charge(world.production.key, card('4000000000000010')),
        403,
        'live_payments_disabled',
      );
      assert.deepEqual(await world.control.calls(), []);
    } finally {
      await world.app.request('PATCH', '/admin/settings/payments', {
        headers: world.admin,
        json: { allow_live_payments: true },
      });
    }
  });

  test('LIVE_PAYMENT_SCOPE_JSON: a pix combination does not authorize a card (403 live_payment_out_of_scope); a credit_card one does', async () => {
    const common = {
      tenant_id: world.production.tenantId,
      provider_id: cardProvider,
      amount: 1250,
    };
    const pixScoped = {
      ...common,
      reference: `scoped-pix-${randomUUID()}`,
      idempotency_key: randomUUID(),
      method: 'pix',
    };
    const cardScoped = {
      ...common,
      reference: `scoped-card-${randomUUID()}`,
      idempotency_key: randomUUID(),
      method: 'credit_card',
    };
    const config = world.app.gateway.ctx.config;
    const scoped = await startTestApp(
      {
        CREDENTIALS_ENCRYPTION_KEY: config.CREDENTIALS_ENCRYPTION_KEY as string,
        ALLOW_LIVE_PAYMENTS: 'true',
        ALLOW_UNSCOPED_LIVE_PAYMENTS: 'false',
        LIVE_PAYMENT_SCOPE_JSON: JSON.stringify([pixScoped, cardScoped]),
        PROVIDER_ALLOWED_PRIVATE_HOSTS: new URL(world.emulator.url).host,
        PROVIDER_TIMEOUT_MS: '3000',
      },
      undefined,
      world.app.db,
    );
    try {
      const post = (s: typeof pixScoped) =>
        scoped.request('POST', '/v1/credit-card', {
          headers: { 'x-api-key': world.production.key, 'idempotency-key': s.idempotency_key },
          json: cardBody({ number: '4000000000000010' }, { reference: s.reference }),
        });
      assertError(await post(pixScoped), 403, 'live_payment_out_of_scope');
      assert.deepEqual(await world.control.calls(), []);
      const ok = await post(cardScoped);
      assert.equal(ok.status, 201, ok.text);
      assert.equal(ok.body.data.status, 'paid');
    } finally {
      await scoped.close();
    }
  });

  test('a stored card_id whose tenant now routes cards to another provider: 422 param credit_card.card_id', async () => {
    const tenant: SeededKey = await seedTenantAndKey(world.app.gateway.ctx, { livemode: true });
    const ruleId = await cardRule(tenant.tenantId, cardProvider);
    const first = await charge(tenant.key, card('4000000000000010'));
    assert.equal(first.status, 201, first.text);
    const cardId = first.body.data.credit_card.card_id;
    const off = await world.app.request('PATCH', `/admin/rules/${ruleId}`, {
      headers: world.admin,
      json: { enabled: false },
    });
    assert.equal(off.status, 200, off.text);
    await cardRule(tenant.tenantId, otherCardProvider);
    await world.control.reset();
    const again = await charge(tenant.key, cardBody({}, { credit_card: { card_id: cardId } }));
    assertError(again, 422, 'validation_error');
    assert.equal(again.body.error.param, 'credit_card.card_id');
    assert.deepEqual(await world.control.calls(), []);
  });
});
