import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, test } from 'vitest';
import { ADMIN_EMAIL, ADMIN_PASSWORD, startAdminApp } from '../../test/support/admin.ts';
import { type SeededKey, seedTenantAndKey } from '../../test/support/fixtures.ts';
import type { TestApp } from '../../test/support/http.ts';
import { subscriptionBody } from '../../test/support/subscriptions.ts';
import { Calebe, CalebeError } from '../src/index.ts';

/**
 * The subscription operations through the SDK (issue 26; SPEC 4.10, 9): one method per operation, validated
 * locally by the contract's schemas before the network, against a served gateway.
 */

let app: TestApp;
let key: SeededKey;
let calebe: Calebe;
let sent: string[];

type SubscriptionInput = Parameters<Calebe['createSubscription']>[0];

const observed: typeof fetch = (input, init) => {
  sent.push(`${init?.method ?? 'GET'} ${new URL(String(input)).pathname}`);
  return fetch(input, init);
};

async function calebeError(promise: Promise<unknown>): Promise<CalebeError> {
  const error = await promise.then(
    () => assert.fail('expected a CalebeError'),
    (e: unknown) => e,
  );
  assert.ok(error instanceof CalebeError, String(error));
  return error;
}

beforeAll(async () => {
  app = await startAdminApp({ ENABLE_SIMULATOR: 'true' });
  key = await seedTenantAndKey(app.gateway.ctx);
  sent = [];
  calebe = new Calebe({ baseUrl: app.baseUrl, apiKey: key.key, fetch: observed });
});
afterAll(() => app.close());

describe('SPEC 4.10 / 9: subscriptions through the SDK', () => {
  test('create, replay, get, list, cycles, pause; then the panel deletes it', async () => {
    const body = subscriptionBody() as SubscriptionInput;
    const idempotencyKey = randomUUID();
    const created = await calebe.createSubscription(body, { idempotencyKey });
    assert.equal(created.status, 201);
    assert.match(created.data.id, /^sub_/);
    assert.equal(created.data.status, 'active');
    const again = await calebe.createSubscription(body, { idempotencyKey });
    assert.equal(again.status, 200);
    assert.equal(again.replayed, true);
    assert.equal(again.data.id, created.data.id);
    assert.equal((await calebe.getSubscription(created.data.id)).data.id, created.data.id);
    await app.settle();
    const list = await calebe.listSubscriptions({ status: 'active', limit: 10 });
    assert.deepEqual(
      list.data.map((s) => s.id),
      [created.data.id],
    );
    const cycles = await calebe.listSubscriptionCycles(created.data.id, {});
    assert.deepEqual(cycles.data, []);
    const paused = await calebe.updateSubscription(created.data.id, { status: 'paused' });
    assert.equal(paused.data.status, 'paused');
    const session = await new Calebe({ baseUrl: app.baseUrl }).createSession({
      email: ADMIN_EMAIL,
      password: ADMIN_PASSWORD,
    });
    const panel = new Calebe({ baseUrl: app.baseUrl, sessionToken: session.data.token });
    assert.equal((await panel.deleteSubscription(created.data.id)).status, 204);
    assert.equal((await calebeError(calebe.getSubscription(created.data.id))).code, 'not_found');
  });

  test('bad input is refused locally, with the code and field the server gives', async () => {
    sent = [];
    for (const [over, param] of [
      [{ interval_months: 0 }, 'interval_months'],
      [{ method: 'credit_card' }, 'credit_card'],
      [{ authorization_id: 'pxa_1' }, 'authorization_id'],
    ] as const) {
      const body = subscriptionBody(over) as SubscriptionInput;
      const local = await calebeError(calebe.createSubscription(body, { idempotencyKey: randomUUID() }));
      assert.equal(local.code, 'validation_error');
      assert.equal(local.local, true);
      assert.equal(local.param, param);
      const server = await calebeError(
        calebe.request({ method: 'POST', path: '/v1/subscriptions', body, idempotencyKey: randomUUID() }),
      );
      assert.equal(server.code, local.code);
      assert.equal(server.param, local.param);
    }
    const empty = await calebeError(calebe.updateSubscription('sub_x', {}));
    assert.equal(empty.code, 'validation_error');
    assert.equal(empty.local, true);
    assert.equal(sent.length, 3, 'only the raw requests left the SDK');
  });
});
