import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, test } from 'vitest';
import { signatureHeader } from '../../src/webhooks/signing.ts';
import { WebhookDeliveryWorker } from '../../src/workers/webhook-delivery.ts';
import { ADMIN_EMAIL, ADMIN_PASSWORD, startAdminApp } from '../../test/support/admin.ts';
import { PAYER_ADDRESS } from '../../test/support/charges.ts';
import { type SeededKey, seedTenantAndKey } from '../../test/support/fixtures.ts';
import type { TestApp } from '../../test/support/http.ts';
import { Calebe, CalebeWebhookError, verifyWebhook } from '../src/index.ts';

/**
 * The SDK's webhook helper (issue 15 item 3; SPEC 6) on real deliveries: the gateway's delivery worker
 * sends a charge's events to a receiver on loopback over a real socket, and the receiver verifies them
 * with the SDK, with the callback secret the panel shows. A tampered body and an old timestamp are refused.
 */

interface Received {
  headers: IncomingHttpHeaders;
  body: string;
}

let receiver: Server;
let port = 0;
const received: Received[] = [];
let app: TestApp;
let key: SeededKey;
let calebe: Calebe;
let secret: string;

beforeAll(async () => {
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.statusCode = 204;
      res.end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  port = (receiver.address() as AddressInfo).port;
  app = await startAdminApp({
    ENABLE_SIMULATOR: 'true',
    CREDENTIALS_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    WEBHOOK_ALLOWED_PRIVATE_HOSTS: `127.0.0.1:${port}`,
  });
  key = await seedTenantAndKey(app.gateway.ctx, { livemode: false });
  calebe = new Calebe({ baseUrl: app.baseUrl, apiKey: key.key });
  // The secret signing callback_url deliveries, read through the SDK's panel methods (SPEC 6).
  const login = await new Calebe({ baseUrl: app.baseUrl }).createSession({
    email: ADMIN_EMAIL,
    password: ADMIN_PASSWORD,
  });
  const panel = new Calebe({ baseUrl: app.baseUrl, sessionToken: login.data.token });
  secret = (await panel.getWebhookCallbackSecret({ tenant_id: key.tenantId, mode: 'test' })).data.secret;
});
afterAll(async () => {
  await app.close();
  await new Promise((resolve) => receiver.close(resolve));
});

/** Creates a Pix whose callback_url is the receiver, then has the gateway's worker deliver what is due. */
async function deliveredEventOfNewPix(): Promise<{ id: string; delivery: Received }> {
  const { data } = await calebe.createPix(
    {
      amount: 990,
      reference: `hook-${randomUUID()}`,
      description: 'Webhook',
      callback_url: `http://127.0.0.1:${port}/calebe`,
      customer: {
        phone: '11987654321',
        address: PAYER_ADDRESS,
      },
    },
    { idempotencyKey: randomUUID() },
  );
  const worker = new WebhookDeliveryWorker(app.gateway.ctx, { intervalMs: 1000, concurrency: 4 });
  await app.settle();
  while ((await worker.runOnce()) > 0) {}
  const delivery = received.find((r) => JSON.parse(r.body).data.id === data.id);
  assert.ok(delivery, 'the gateway delivered the charge event to the receiver');
  return { id: data.id, delivery };
}

describe('SPEC 6: verifying deliveries with the SDK (Standard Webhooks)', () => {
  test('a real delivery verifies: the event of the charge, typed', async () => {
    const { id, delivery } = await deliveredEventOfNewPix();
    const event = verifyWebhook(delivery.body, delivery.headers, secret);
    assert.equal(event.type, 'transaction.created');
    assert.equal(event.data.id, id);
    assert.equal(event.data.amount, 990);
    assert.equal(event.data.livemode, false);
    assert.equal(event.data.previous_status, null);
    // The same from the client, and from fetch-style Headers.
    assert.deepEqual(calebe.verifyWebhook(delivery.body, delivery.headers, secret), event);
    const headers = new Headers();
    for (const [name, value] of Object.entries(delivery.headers)) {
      if (typeof value === 'string') headers.set(name, value);
    }
    assert.deepEqual(verifyWebhook(Buffer.from(delivery.body), headers, secret), event);
  });

  test('a tampered body, a wrong secret or missing headers are refused', async () => {
    const { delivery } = await deliveredEventOfNewPix();
    const tampered = delivery.body.replace('"amount":990', '"amount":99000');
    assert.notEqual(tampered, delivery.body);
    assert.throws(() => verifyWebhook(tampered, delivery.headers, secret), CalebeWebhookError);
    const other = `whsec_${Buffer.alloc(24, 1).toString('base64')}`;
    assert.throws(() => verifyWebhook(delivery.body, delivery.headers, other), CalebeWebhookError);
    const { 'webhook-signature': _s, ...unsigned } = delivery.headers;
    assert.throws(() => verifyWebhook(delivery.body, unsigned, secret), CalebeWebhookError);
  });

  test('a delivery signed long ago (a replayed capture) is refused even with a valid signature', async () => {
    const { delivery } = await deliveredEventOfNewPix();
    const id = String(delivery.headers['webhook-id']);
    // Signed by the gateway's own signer, with the right secret, ten minutes ago.
    const then = new Date(Date.now() - 10 * 60_000);
    const headers = {
      'webhook-id': id,
      'webhook-timestamp': String(Math.floor(then.getTime() / 1000)),
      'webhook-signature': signatureHeader([secret], id, then, delivery.body),
    };
    assert.throws(() => verifyWebhook(delivery.body, headers, secret), CalebeWebhookError);
    // The same signed now verifies: only the age was wrong.
    const now = new Date();
    const fresh = {
      ...headers,
      'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
      'webhook-signature': signatureHeader([secret], id, now, delivery.body),
    };
    assert.equal(verifyWebhook(delivery.body, fresh, secret).type, 'transaction.created');
  });
});
