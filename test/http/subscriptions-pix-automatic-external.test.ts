import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'vitest';
import { addDays, saoPauloDate } from '../../src/aggregates/subscription-calendar.ts';
import { advanceSubscription } from '../../src/commands/subscriptions/schedule/advance.ts';
import { pixBody } from '../support/charges.ts';
import { useExternalProviderWorld } from '../support/external-provider.ts';

/**
 * A Pix Automatic subscription with a production key, against the provider emulator (issue 27 item 4; SPEC
 * 4.10, 4.11, 2.5, 8): the authorization created at the provider and approved by the payer there, found by
 * refresh (which brings the waiting first debit forward), then the cycle's debit scheduled at the provider
 * exactly once although two scheduler workers run the due cycle at the same moment.
 */

const world = useExternalProviderWorld();
const MINUTE = 60_000;

// biome-ignore lint/suspicious/noExplicitAny: response JSON, already validated against /openapi.json
type Json = any;

const dueIn = (days: number) => addDays(saoPauloDate(new Date()), days);

function post(path: string, json: unknown, idempotencyKey: string | null = randomUUID()) {
  return world.app.request('POST', path, {
    headers: {
      'x-api-key': world.production.key,
      ...(idempotencyKey === null ? {} : { 'idempotency-key': idempotencyKey }),
    },
    json,
  });
}
const get = (path: string) =>
  world.app.request('GET', path, { headers: { 'x-api-key': world.production.key } });

async function subscriptionOf(id: string): Promise<Json> {
  await world.app.settle();
  const res = await get(`/v1/subscriptions/${id}`);
  assert.equal(res.status, 200, res.text);
  return res.body.data;
}

async function cycles(id: string): Promise<Json[]> {
  await world.app.settle();
  const res = await get(`/v1/subscriptions/${id}/cycles`);
  assert.equal(res.status, 200, res.text);
  return res.body.data;
}

/**
 * A live authorization created at the emulator (SPEC 4.11: 201 pending) and a subscription on it repeating its
 * contract, created while it is pending: its first debit waits for the approval (SPEC 2.4 `last_error`).
 */
async function pendingSubscription(daysAhead: number, amount: number) {
  const due = dueIn(daysAhead);
  const contract = {
    name: 'Academia Forma',
    description: 'Mensalidade',
    amount,
    first_due_date: due,
    interval_months: 1,
    customer: pixBody().customer,
  };
  const created = await post('/v1/pix-automatic/authorizations', contract);
  assert.equal(created.status, 201, created.text);
  const auth = created.body.data;
  assert.equal(auth.status, 'pending');
  const sub = await post('/v1/subscriptions', {
    ...contract,
    method: 'pix_automatic',
    advance_days: 3,
    authorization_id: auth.id,
  });
  assert.equal(sub.status, 201, sub.text);
  assert.equal(sub.body.data.last_error, 'automatic_not_approved');
  return { due, auth, sub };
}

describe('a production Pix Automatic subscription on the provider emulator (SPEC 4.10, 4.11)', () => {
  test('approved at the provider and found by refresh: the cycle’s debit is scheduled once although two workers run it at once', async () => {
    const { due, auth, sub } = await pendingSubscription(5, 4990);
    assert.equal(auth.livemode, true);
    assert.equal(sub.body.data.livemode, true);
    assert.deepEqual(await world.control.calls({ operation: 'pixauto_schedule' }), []);

    // The payer approves in the bank app; the refresh finds it (SPEC 4.11) and brings the attempt forward.
    await world.control.moveAuthorization(auth.provider_reference, 'approve');
    await world.app.settle();
    const refreshedAt = Date.now();
    const refreshed = await post(`/v1/pix-automatic/authorizations/${auth.id}/refresh`, undefined, null);
    assert.equal(refreshed.status, 200, refreshed.text);
    assert.equal(refreshed.body.data.status, 'approved');
    const waiting = await subscriptionOf(sub.body.data.id);
    const nextAttempt = new Date(waiting.next_attempt_at).getTime();
    assert.ok(
      nextAttempt >= refreshedAt + MINUTE - 1000 && nextAttempt <= Date.now() + MINUTE,
      waiting.next_attempt_at,
    );

    // Two scheduler workers take the due cycle at the same moment.
    const at = new Date(nextAttempt);
    const metadata = { actor: 'system:subscription-scheduler' };
    const ctx = world.app.gateway.ctx;
    await Promise.all([
      advanceSubscription(ctx, sub.body.data.id, at, metadata),
      advanceSubscription(ctx, sub.body.data.id, at, metadata),
    ]);
    // A worker that found the debit in flight leaves it to the other; a later look finds it settled.
    await advanceSubscription(ctx, sub.body.data.id, new Date(at.getTime() + MINUTE), metadata);

    const scheduled = await world.control.calls({ operation: 'pixauto_schedule' });
    assert.equal(scheduled.length, 1, JSON.stringify(scheduled));
    const [cycle] = await cycles(sub.body.data.id);
    assert.equal(cycle.cycle, 1);
    assert.equal(cycle.due_date, due);
    assert.equal(cycle.status, 'created');
    assert.equal(cycle.transaction_status, 'pending');
    const tx = await get(`/v1/transactions/${cycle.transaction_id}`);
    assert.equal(tx.status, 200, tx.text);
    assert.equal(tx.body.data.method, 'pix');
    assert.equal(tx.body.data.livemode, true);
    assert.equal(tx.body.data.pix_automatic_authorization_id, auth.id);
    assert.equal(tx.body.data.scheduled_due_date, due);
    assert.equal(tx.body.data.expires_at, null);
    assert.equal(tx.body.data.reference, `sub_${sub.body.data.id}:${due}`);
    // The provider holds exactly one debit of the authorization, for the cycle's due date.
    const debits = (await world.control.pixAuthorization(auth.provider_reference)).debits;
    assert.deepEqual(
      debits.map((d) => [d.dueDate, d.amount]),
      [[due, 4990]],
    );
  });

  test('SPEC 4.11: nobody refreshes — the scheduler checks the pending authorization at the provider on its 15-minute attempt and schedules the debit once approved', async () => {
    const { due, auth, sub } = await pendingSubscription(6, 5990);
    // The first attempt asked the provider (still pending there) and scheduled nothing.
    assert.equal((await world.control.calls({ operation: 'pixauto_authorization_get' })).length, 1);
    assert.deepEqual(await world.control.calls({ operation: 'pixauto_schedule' }), []);

    await world.control.moveAuthorization(auth.provider_reference, 'approve');
    const waiting = await subscriptionOf(sub.body.data.id);
    const retryAt = new Date(waiting.next_attempt_at);
    await advanceSubscription(world.app.gateway.ctx, sub.body.data.id, retryAt, {
      actor: 'system:subscription-scheduler',
    });

    assert.equal((await world.control.calls({ operation: 'pixauto_schedule' })).length, 1);
    const [cycle] = await cycles(sub.body.data.id);
    assert.deepEqual([cycle.cycle, cycle.due_date, cycle.status], [1, due, 'created']);
    const read = await get(`/v1/pix-automatic/authorizations/${auth.id}`);
    assert.equal(read.body.data.status, 'approved');
    const after = await subscriptionOf(sub.body.data.id);
    assert.equal(after.last_error, null);
  });
});
