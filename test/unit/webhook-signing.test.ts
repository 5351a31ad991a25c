import assert from 'node:assert/strict';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import { test } from 'vitest';
import { generateWebhookSecret, signatureHeader, webhookHeaders } from '../../src/webhooks/signing.ts';

const body = JSON.stringify({ type: 'transaction.updated', data: { id: 'txn_1', status: 'paid' } });

test('secrets are whsec_ + base64 of 24 random bytes, each one new', () => {
  const a = generateWebhookSecret();
  const b = generateWebhookSecret();
  assert.match(a, /^whsec_[A-Za-z0-9+/]{32}$/);
  assert.equal(Buffer.from(a.slice('whsec_'.length), 'base64').length, 24);
  assert.notEqual(a, b);
  assert.doesNotThrow(() => new Webhook(a));
});

test('Standard Webhooks headers verify with the reference package', () => {
  const secret = generateWebhookSecret();
  const now = new Date();
  const headers = webhookHeaders([secret], 'msg_01', now, body);
  assert.equal(headers['webhook-id'], 'msg_01');
  assert.equal(headers['webhook-timestamp'], String(Math.floor(now.getTime() / 1000)));
  assert.equal(headers['content-type'], 'application/json');
  assert.equal(headers['user-agent'], 'Calebe-Webhooks/1');
  assert.match(headers['webhook-signature'], /^v1,[A-Za-z0-9+/]+=*$/);
  assert.deepEqual(new Webhook(secret).verify(body, headers), JSON.parse(body));
});

test('rotation: one signature per secret, and a receiver holding either secret verifies', () => {
  const oldSecret = generateWebhookSecret();
  const newSecret = generateWebhookSecret();
  const headers = webhookHeaders([oldSecret, newSecret], 'msg_02', new Date(), body);
  const signatures = headers['webhook-signature'].split(' ');
  assert.equal(signatures.length, 2);
  assert.notEqual(signatures[0], signatures[1]);
  for (const secret of [oldSecret, newSecret]) {
    assert.deepEqual(new Webhook(secret).verify(body, headers), JSON.parse(body));
  }
  assert.throws(() => new Webhook(generateWebhookSecret()).verify(body, headers), WebhookVerificationError);
});

test('a tampered body, id or timestamp fails verification', () => {
  const secret = generateWebhookSecret();
  const now = new Date();
  const headers = webhookHeaders([secret], 'msg_03', now, body);
  const hook = new Webhook(secret);
  assert.throws(() => hook.verify(body.replace('paid', 'refunded'), headers), WebhookVerificationError);
  assert.throws(() => hook.verify(body, { ...headers, 'webhook-id': 'msg_04' }), WebhookVerificationError);
  const earlier = String(Math.floor(now.getTime() / 1000) - 1);
  assert.throws(
    () => hook.verify(body, { ...headers, 'webhook-timestamp': earlier }),
    WebhookVerificationError,
  );
});

test('signatureHeader is deterministic for the same input and needs a secret', () => {
  const secret = generateWebhookSecret();
  const at = new Date('2026-01-01T00:00:00Z');
  assert.equal(signatureHeader([secret], 'm', at, body), signatureHeader([secret], 'm', at, body));
  assert.equal(signatureHeader([secret], 'm', at, body), new Webhook(secret).sign('m', at, body));
  assert.throws(() => signatureHeader([], 'm', at, body));
});
