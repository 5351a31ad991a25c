import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, test } from 'vitest';
import { pixBody } from '../support/charges.ts';
import { PROVIDER_TIMEOUT_MS, useExternalProviderWorld } from '../support/external-provider.ts';
import { startTestApp, type TestApp } from '../support/http.ts';

/**
 * Issue 23 item 2.3 (docs/decisions.md "Provider hosts, webhook URLs, events visibility"): a provider's host
 * is checked when it is stored and again when the gateway is about to call it. A production record on the
 * loopback emulator, stored under a development allowance (PROVIDER_ALLOWED_PRIVATE_HOSTS), sends nothing
 * from a process started without that allowance: 422 provider_not_configured before any reservation, and
 * the emulator receives no call (so neither the key nor the payer reaches the host).
 */
const world = useExternalProviderWorld();

describe('a production provider host refused at call time (issue 23 item 2.3)', () => {
  let strict: TestApp;

  beforeAll(async () => {
    const key = world.app.gateway.config.CREDENTIALS_ENCRYPTION_KEY;
    assert.ok(key);
    strict = await startTestApp(
      {
        CREDENTIALS_ENCRYPTION_KEY: String(key),
        ALLOW_LIVE_PAYMENTS: 'true',
        ALLOW_UNSCOPED_LIVE_PAYMENTS: 'true',
        PROVIDER_TIMEOUT_MS: String(PROVIDER_TIMEOUT_MS),
        // Production hosts must be public https: no development exception in this process.
        PROVIDER_ALLOWED_PRIVATE_HOSTS: '',
      },
      undefined,
      world.app.db,
    );
  });
  afterAll(() => strict?.close());

  const pix = (app: TestApp) =>
    app.request('POST', '/v1/pix', {
      headers: { 'x-api-key': world.production.key, 'idempotency-key': randomUUID() },
      json: pixBody({ reference: `order-${randomUUID()}` }),
    });

  test('the allowed process charges through the emulator; the strict one refuses before reserving and sends nothing', async () => {
    const allowed = await pix(world.app);
    assert.equal(allowed.status, 201, allowed.text);
    assert.equal(allowed.body.data.simulated, false);
    const callsBefore = (await world.control.calls()).length;
    assert.ok(callsBefore >= 1, 'the allowed process reached the emulator');

    const refused = await pix(strict);
    assert.equal(refused.status, 422, refused.text);
    assert.equal(refused.body.error.code, 'provider_not_configured');
    assert.equal(refused.body.error.transaction_id ?? null, null, 'nothing was reserved');
    assert.equal((await world.control.calls()).length, callsBefore, 'no call reached the host');
    assert.ok(!refused.text.includes('emu-production-key'));
  });
});
