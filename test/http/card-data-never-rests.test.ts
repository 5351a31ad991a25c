import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, test } from 'vitest';
import { WebhookDeliveryWorker } from '../../src/workers/webhook-delivery.ts';
import { assertError } from '../support/admin.ts';
import {
  type CardCalls,
  cardBody,
  countingCards,
  expirationMonths,
  newCardCalls,
  uniqueCardNumber,
} from '../support/cards.ts';
import { dumpEveryTable } from '../support/database-dump.ts';
import { type ExternalProviderWorld, startExternalProviderWorld } from '../support/external-provider.ts';
import type { TestResponse } from '../support/http.ts';
import { decorateProviders } from '../support/provider-registry.ts';
import { dueIn, subscriptionBody, subscriptionCard } from '../support/subscriptions.ts';

/**
 * Issue 25 item 2: "card data never rests anywhere". Card charges of every kind (approved, declined,
 * uncertain, a validation error, a provider 500, a malformed body), against the emulator (a production
 * provider) and the simulator (a test key), a refund, webhooks delivered to a real socket; then every table,
 * every log line, every webhook body and the emulator's call log are searched for the full numbers, the
 * security codes and the provider's tokens. The numbers are random Luhn-valid ones made here and the codes
 * unusual, so a hit can only be a leak.
 */

const CODES = ['7391', '8264', '5927', '6483', '3719', '4856', '2947', '9173'] as const;

let world: ExternalProviderWorld;
const calls: CardCalls = newCardCalls();
const used: { numbers: string[]; codes: string[] } = { numbers: [], codes: [] };
const received: string[] = [];
let server: Server;
let port = 0;

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push(Buffer.concat(chunks).toString('utf8'));
      res.statusCode = 204;
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
  world = await startExternalProviderWorld({
    ENABLE_SIMULATOR: 'true',
    WEBHOOK_ALLOWED_PRIVATE_HOSTS: `127.0.0.1:${port}`,
    RATE_LIMIT_PER_MINUTE: '100000',
  });
  // Every adapter resolved from now on (emulator and simulator) reports the tokens it was given.
  decorateProviders(world.app.gateway.ctx, (adapter) => countingCards(adapter, calls));
  const providers = await world.app.request('POST', '/admin/providers', {
    headers: world.admin,
    json: {
      name: 'Safe2Pay cards',
      kind: 'external',
      environment: 'production',
      enabled_methods: ['credit_card'],
      credentials: { api_key: 'emu-production-key' },
      payment_host: world.emulator.paymentUrl,
      api_host: world.emulator.apiUrl,
    },
  });
  assert.equal(providers.status, 201, providers.text);
  const rule = await world.app.request('POST', '/admin/rules', {
    headers: world.admin,
    json: {
      method: 'credit_card',
      tenant_id: world.production.tenantId,
      provider_id: providers.body.data.id,
      priority: 1,
    },
  });
  assert.equal(rule.status, 201, rule.text);
});
afterAll(async () => {
  await world?.close();
  await new Promise((resolve) => server?.close(resolve));
});

function charge(key: string, number: string, code: string, top: Record<string, unknown> = {}) {
  used.codes.push(code);
  if (!used.numbers.includes(number)) used.numbers.push(number);
  return world.app.request('POST', '/v1/credit-card', {
    headers: { 'x-api-key': key, 'idempotency-key': randomUUID() },
    json: cardBody(
      { number, security_code: code },
      { reference: `order-${randomUUID()}`, callback_url: `http://127.0.0.1:${port}/hook`, ...top },
    ),
  });
}

/**
 * `needle` standing alone: not inside a longer run of letters or digits (an id, a hash), nor a number's
 * decimals or a timestamp's fraction (PostgreSQL prints `…:39.7391+00` when the microseconds end in 00, and a
 * log's `responseTime` may be `12.7391`): a CI run once met such a coincidence.
 */
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;

function standsAlone(text: string, needle: string): string | null {
  // Generated UUIDs hold four-digit groups by chance (a CI run found one); they are ids, never card data.
  const haystack = text.replace(UUID, '<uuid>');
  const hit = new RegExp(`(?<![0-9A-Za-z.])${needle}(?![0-9A-Za-z.])`).exec(haystack);
  // The surroundings (never the code itself: the message shows where, so a coincidence can be told apart).
  return hit
    ? `${haystack.slice(Math.max(0, hit.index - 24), hit.index)}<code>${haystack.slice(hit.index + needle.length, hit.index + needle.length + 24)}`
    : null;
}

function assertNowhere(where: string, haystack: string): void {
  for (const n of used.numbers) {
    assert.ok(!haystack.includes(n), `${where} holds the card number …${n.slice(-4)}`);
    // Encoded copies are copies too.
    assert.ok(!haystack.includes(Buffer.from(n).toString('base64')), `${where}: base64 of a number`);
    assert.ok(!haystack.includes(Buffer.from(n).toString('hex')), `${where}: hex of a number`);
  }
  for (const c of used.codes) {
    const around = standsAlone(haystack, c);
    assert.equal(around, null, `${where} holds the security code ${c}: ${around}`);
  }
  for (const t of calls.tokens) {
    assert.ok(!haystack.includes(t), `${where} holds a provider token`);
    assert.ok(!haystack.includes(Buffer.from(t).toString('base64')), `${where}: base64 of a token`);
  }
}

describe('card data never rests (issue 25 item 2; SPEC 2.2, 2.3, 6, 8)', () => {
  test('after every kind of card charge, a refund and webhooks: no number, code or token in tables, logs, webhooks or the emulator log', async () => {
    const live = world.production.key;
    const outcomes: TestResponse[] = [];

    // The emulator (production provider): approved, declined, no answer, HTTP 500.
    const approved = await charge(live, uniqueCardNumber(0, CODES), CODES[0]);
    assert.equal(approved.status, 201, approved.text);
    outcomes.push(approved);
    const declined = await charge(live, uniqueCardNumber(2, CODES), CODES[1]);
    assertError(declined, 502, 'provider_rejected');
    outcomes.push(declined);
    const uncertain = await charge(live, uniqueCardNumber(6, CODES), CODES[2]);
    assert.equal(uncertain.status, 202, uncertain.text);
    outcomes.push(uncertain);
    await world.control.fault({ operation: 'create', times: 1, fault: { type: 'http_error', status: 500 } });
    const failing = await charge(live, uniqueCardNumber(4, CODES), CODES[3]);
    assert.equal(failing.status, 202, failing.text);
    outcomes.push(failing);
    await world.control.fault({
      operation: 'tokenize',
      times: 1,
      fault: { type: 'http_error', status: 500, body: 'internal error' },
    });
    const tokenizeFails = await charge(live, uniqueCardNumber(9, CODES), CODES[4]);
    assert.ok([502, 202].includes(tokenizeFails.status), tokenizeFails.text);
    outcomes.push(tokenizeFails);

    // Validation errors: an expiration in the past with a valid number; a malformed body carrying a number.
    const approvedAgain = await charge(live, uniqueCardNumber(1, CODES), CODES[5]);
    assert.equal(approvedAgain.status, 201, approvedAgain.text);
    outcomes.push(approvedAgain);
    const pastNumber = uniqueCardNumber(1, CODES);
    used.numbers.push(pastNumber);
    used.codes.push(CODES[6]);
    const past = await world.app.request('POST', '/v1/credit-card', {
      headers: { 'x-api-key': live, 'idempotency-key': randomUUID() },
      json: cardBody({ number: pastNumber, security_code: CODES[6], expiration: expirationMonths(-1) }),
    });
    assertError(past, 422, 'validation_error');
    outcomes.push(past);
    const unknownField = await world.app.request('POST', '/v1/credit-card', {
      headers: { 'x-api-key': live, 'idempotency-key': randomUUID() },
      json: cardBody({ number: pastNumber, security_code: CODES[6], cvv: CODES[6] }),
    });
    assertError(unknownField, 400, 'invalid_json');
    outcomes.push(unknownField);
    const malformed = await world.app.request('POST', '/v1/credit-card', {
      headers: { 'x-api-key': live, 'idempotency-key': randomUUID() },
      raw: `{"credit_card":{"number":"${pastNumber}","security_code":"${CODES[6]}"`,
    });
    assert.equal(malformed.status, 400, malformed.text);
    outcomes.push(malformed);

    // The simulator (a test key): approved, declined, uncertain (its documented test cards, unusual codes).
    const test = world.productionTestKey;
    const simApproved = await charge(test, '5555555555554444', CODES[7]);
    assert.equal(simApproved.status, 201, simApproved.text);
    outcomes.push(simApproved);
    const simDeclined = await charge(test, '4000000000000002', CODES[7]);
    assertError(simDeclined, 502, 'provider_rejected');
    outcomes.push(simDeclined);
    const simUncertain = await charge(test, '4000000000000119', CODES[7]);
    assert.equal(simUncertain.status, 202, simUncertain.text);
    outcomes.push(simUncertain);

    // A charge again by the kept card (its sealed token opened for one call), then refunds.
    const again = await world.app.request('POST', '/v1/credit-card', {
      headers: { 'x-api-key': live, 'idempotency-key': randomUUID() },
      json: cardBody(
        {},
        {
          credit_card: { card_id: approved.body.data.credit_card.card_id },
          callback_url: `http://127.0.0.1:${port}/hook`,
        },
      ),
    });
    assert.equal(again.status, 201, again.text);
    outcomes.push(again);
    for (const [key, id] of [
      [live, approved.body.data.id],
      [test, simApproved.body.data.id],
    ]) {
      const refund = await world.app.request('POST', `/v1/transactions/${id}/refund`, {
        headers: { 'x-api-key': key as string, 'idempotency-key': randomUUID() },
        json: {},
      });
      assert.equal(refund.status, 200, refund.text);
      assert.equal(refund.body.data.status, 'refunded');
      outcomes.push(refund);
    }

    // Card subscriptions (issue 26; SPEC 4.10): registered at creation (tokenized, the token sealed to the
    // subscription), charged by that token when due today; one due later only registered (cycle 0).
    for (const [key, number, code, due] of [
      [live, uniqueCardNumber(1, CODES), CODES[0], dueIn(0)],
      [live, uniqueCardNumber(1, CODES), CODES[1], dueIn(10)],
      [test, '5555555555554444', CODES[2], dueIn(0)],
    ] as const) {
      used.codes.push(code);
      if (!used.numbers.includes(number)) used.numbers.push(number);
      const sub = await world.app.request('POST', '/v1/subscriptions', {
        headers: { 'x-api-key': key, 'idempotency-key': randomUUID() },
        json: subscriptionBody({
          method: 'credit_card',
          first_due_date: due,
          credit_card: subscriptionCard({ number, security_code: code }),
          callback_url: `http://127.0.0.1:${port}/hook`,
        }),
      });
      assert.equal(sub.status, 201, sub.text);
      outcomes.push(sub);
      const cycles = await world.app.request('GET', `/v1/subscriptions/${sub.body.data.id}/cycles`, {
        headers: { 'x-api-key': key },
      });
      outcomes.push(cycles);
    }

    // Webhooks to the real receiver.
    const worker = new WebhookDeliveryWorker(world.app.gateway.ctx, { intervalMs: 1000, concurrency: 4 });
    await world.app.settle();
    while ((await worker.runOnce()) > 0) {}
    assert.ok(received.length >= 8, `webhooks were delivered (${received.length})`);

    // The search is meaningful: tokens were issued by both providers, and the codes were sent.
    assert.ok(calls.tokens.length >= 3, 'tokens captured');
    assert.ok(
      calls.tokens.some((t) => /^[0-9a-f]{32}$/i.test(t)),
      'an emulator token captured',
    );
    assert.ok(
      calls.tokens.some((t) => t.startsWith('simcard:')),
      'a simulator token captured',
    );

    const dump = await dumpEveryTable(world.app.gateway.ctx.db);
    // What may rest does rest: the kept card's masked view and its sealed token row are in the dump.
    assert.ok(dump.includes(approved.body.data.credit_card.card_id), 'the kept card is in the dump');
    assert.ok(
      world.app.logs.some((l) => l.includes('/v1/credit-card')),
      'the logs cover the requests',
    );
    assertNowhere('every table', dump);
    assertNowhere('the logs', world.app.logs.join('\n'));
    assertNowhere('the webhooks', received.join('\n'));
    assertNowhere('the API answers', outcomes.map((o) => o.text).join('\n'));
    assertNowhere('the emulator call log', JSON.stringify(await world.control.calls()));
  });
});
