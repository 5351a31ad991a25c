import assert from 'node:assert/strict';
import { afterAll, beforeAll, describe, test } from 'vitest';
import { transactionStream } from '../../src/commands/transactions/shared/stream.ts';
import { assertError } from '../support/admin.ts';
import { pixBody } from '../support/charges.ts';
import { type SeededKey, seedTenantAndKey } from '../support/fixtures.ts';
import { startTestApp, type TestApp } from '../support/http.ts';
import { legacyBody, seedLegacyPix } from '../support/legacy-charge.ts';

/**
 * SPEC 4.1 "Legacy replay": a record stored before phone and address were required (imported history)
 * replays with its original key and body; adding them to the body is 409 idempotency_conflict; the same
 * incomplete body with an unused key is a new attempt and gets 422 validation_error.
 */

let app: TestApp;
let key: SeededKey;

const seedLegacyRecord = (idempotencyKey: string) => seedLegacyPix(app.gateway.ctx, key, idempotencyKey);

function post(idempotencyKey: string, json: unknown) {
  return app.request('POST', '/v1/pix', {
    headers: { 'x-api-key': key.key, 'idempotency-key': idempotencyKey },
    json,
  });
}

beforeAll(async () => {
  app = await startTestApp({ ENABLE_SIMULATOR: 'true' });
  key = await seedTenantAndKey(app.gateway.ctx, { livemode: false });
});
afterAll(() => app.close());

describe('SPEC 4.1 legacy replay', () => {
  test('the original key and body replay the old record: 200 Idempotency-Replayed, no new event', async () => {
    const id = await seedLegacyRecord('legacy-key-1');
    const events = (await app.gateway.ctx.store.read(transactionStream(id))).length;
    const res = await post('legacy-key-1', legacyBody());
    assert.equal(res.status, 200, res.text);
    assert.equal(res.headers.get('idempotency-replayed'), 'true');
    assert.equal(res.body.data.id, id);
    assert.equal(res.body.data.status, 'pending');
    assert.equal((await app.gateway.ctx.store.read(transactionStream(id))).length, events);
  });

  test('adding phone and address to the old body is 409 idempotency_conflict', async () => {
    await seedLegacyRecord('legacy-key-2');
    const complete = pixBody({ reference: 'legacy-1' });
    assertError(await post('legacy-key-2', complete), 409, 'idempotency_conflict');
  });

  test('the incomplete body with an unused key is a new attempt: 422 validation_error, nothing claimed', async () => {
    const res = await post('legacy-key-unused', legacyBody());
    assertError(res, 422, 'validation_error');
    assert.equal(res.body.error.param, 'customer.phone');
    const noAddress = pixBody();
    const { address: _a, ...customer } = noAddress.customer as Record<string, unknown>;
    const second = await post('legacy-key-unused', { ...noAddress, customer });
    assertError(second, 422, 'validation_error');
    assert.equal(second.body.error.param, 'customer.address');
    // The refused attempts held nothing: a complete body with the same key creates the charge.
    assert.equal((await post('legacy-key-unused', pixBody())).status, 201);
  });
});
