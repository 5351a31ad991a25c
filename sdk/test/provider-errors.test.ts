import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, test } from 'vitest';
import { pixBody } from '../../test/support/charges.ts';
import {
  type ExternalProviderWorld,
  startExternalProviderWorld,
} from '../../test/support/external-provider.ts';
import { Calebe, CalebeError } from '../src/index.ts';

/**
 * SPEC 7 payment errors through the SDK (issue 15 item 3 "errors typed by SPEC 7 code with request_id,
 * transaction_id and diagnostics"): a live Pix refused by the external provider (its emulator over HTTP)
 * is `502 provider_rejected` with the reserved charge's id and the sanitized diagnostics, and that id reads
 * the `failed` record.
 */

let world: ExternalProviderWorld;
let calebe: Calebe;

beforeAll(async () => {
  world = await startExternalProviderWorld();
  calebe = new Calebe({ baseUrl: world.app.baseUrl, apiKey: world.production.key });
});
afterAll(() => world.close());

describe('SPEC 7: provider_rejected as a typed CalebeError', () => {
  test('transaction_id, provider_error_code, provider_error_message and provider_http_status are set', async () => {
    assert.equal(calebe.livemode, true);
    await world.control.fault({
      operation: 'create',
      fault: { type: 'has_error', code: '4117', message: 'raw provider text that never leaves the gateway' },
    });
    const body = pixBody({ reference: `order-${randomUUID()}` }) as Parameters<Calebe['createPix']>[0];
    const error = await calebe.createPix(body, { idempotencyKey: randomUUID() }).then(
      () => assert.fail('expected provider_rejected'),
      (e: unknown) => e,
    );
    assert.ok(error instanceof CalebeError, String(error));
    assert.equal(error.code, 'provider_rejected');
    assert.equal(error.status, 502);
    assert.equal(error.local, false);
    assert.match(error.request_id ?? '', /.+/);
    assert.match(error.transaction_id ?? '', /^txn_/);
    assert.equal(error.provider_error_code, '4117');
    assert.equal(error.provider_http_status, 200);
    assert.equal(typeof error.provider_error_message, 'string');
    assert.ok(!error.message.includes('raw provider text'));
    // SPEC 7: "GET by error.transaction_id".
    const read = await calebe.getTransaction(error.transaction_id as string);
    assert.equal(read.data.status, 'failed');
    assert.equal(read.data.provider_error_code, '4117');
  });
});
