import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'vitest';
import { authorizationExpiryJob } from '../../src/commands/pix-automatic/authorizations/expire/job.ts';
import { assertError } from '../support/admin.ts';
import { pixBody } from '../support/charges.ts';
import { useExternalProviderWorld } from '../support/external-provider.ts';
import { jobDeps } from '../support/jobs.ts';
import { dueIn } from '../support/subscriptions.ts';

/**
 * Pix Automatic authorizations against the provider emulator (issue 27 item 1; SPEC 3.2, 4.11, 5.8, 7; wire
 * doc wave 2b §3, §7.3): a live key routed to the production Safe2Pay record creates the recurrence once
 * (reserve -> call -> record, one call under concurrency), refresh maps what the payer did in the bank app,
 * a final record never moves, DELETE revokes once, and the expiry job closes an unapproved one at the provider.
 * Calls are counted in the emulator's log.
 */

const world = useExternalProviderWorld();
const ROUTE = '/v1/pix-automatic/authorizations';
const DAY = 24 * 60 * 60 * 1000;

const body = (over: Record<string, unknown> = {}) => ({
  name: 'Academia Forma',
  description: 'Mensalidade',
  amount: 9990,
  first_due_date: dueIn(10),
  interval_months: 1,
  customer: pixBody().customer,
  ...over,
});
const post = (key: string, json: unknown, idempotencyKey = randomUUID()) =>
  world.app.request('POST', ROUTE, {
    headers: { 'x-api-key': key, 'idempotency-key': idempotencyKey },
    json,
  });
const get = (key: string, id: string) =>
  world.app.request('GET', `${ROUTE}/${id}`, { headers: { 'x-api-key': key } });
const refresh = (key: string, id: string) =>
  world.app.request('POST', `${ROUTE}/${id}/refresh`, { headers: { 'x-api-key': key } });
const revoke = (key: string, id: string) =>
  world.app.request('DELETE', `${ROUTE}/${id}`, { headers: { 'x-api-key': key } });
const operations = async () => (await world.control.calls()).map((c) => c.operation);
const count = async (operation: string) => (await operations()).filter((o) => o === operation).length;

// biome-ignore lint/suspicious/noExplicitAny: response JSON, already validated against /openapi.json
async function created(): Promise<Record<string, any>> {
  const res = await post(world.production.key, body());
  assert.equal(res.status, 201, res.text);
  assert.equal(res.body.data.status, 'pending');
  return res.body.data;
}

/** Runs `check` with production payments switched off in the panel (SPEC 4.14), then on again. */
async function withLivePaymentsOff(check: () => Promise<void>): Promise<void> {
  const set = (allow: boolean) =>
    world.app.request('PATCH', '/admin/settings/payments', {
      headers: world.admin,
      json: { allow_live_payments: allow },
    });
  assert.equal((await set(false)).status, 200);
  try {
    await check();
  } finally {
    await set(true);
  }
}

// First in the file: the job claims every due authorization, and the emulator's ids repeat after its reset
// between tests, so no other authorization may be due when it runs here.
describe('the expiry job at the external provider (SPEC 3.2: 24 hours)', () => {
  test('expired locally, then closed at the provider; an unconfirmed close is tried again on a later tick', async () => {
    const a = await created();
    await world.control.fault({
      operation: 'pixauto_revoke',
      times: 1,
      commit: false,
      fault: { type: 'reset' },
    });
    const ctx = world.app.gateway.ctx;
    const deps = jobDeps(world.app.db.db, ctx.store, { config: ctx.config });
    const job = authorizationExpiryJob();
    const deadline = new Date(a.approval_deadline).getTime();
    await world.app.settle();
    const first = await job.run(deps, { now: new Date(deadline + 1000) });
    assert.ok(first.expired.includes(a.id));
    assert.deepEqual(
      first.closed.filter((c) => c.authorizationId === a.id).map((c) => c.outcome),
      ['uncertain'],
    );
    // Never blocked on the provider: expired already.
    assert.equal((await get(world.production.key, a.id)).body.data.status, 'expired');
    assert.equal((await world.control.pixAuthorization(a.provider_reference)).status, 'CRIADA');
    await world.app.settle();
    const later = await job.run(deps, { now: new Date(deadline + DAY) });
    assert.deepEqual(
      later.closed.filter((c) => c.authorizationId === a.id).map((c) => c.outcome),
      ['confirmed'],
    );
    assert.equal((await world.control.pixAuthorization(a.provider_reference)).status, 'CANCELADA');
    // Closed: no more calls; a refresh sees CANCELADA as the expiry's own (200 expired).
    await world.app.settle();
    const done = await job.run(deps, { now: new Date(deadline + 2 * DAY) });
    assert.ok(!done.closed.some((c) => c.authorizationId === a.id));
    assert.equal((await refresh(world.production.key, a.id)).body.data.status, 'expired');
    const revokes = await world.control.calls({
      operation: 'pixauto_revoke',
      reference: a.provider_reference,
    });
    assert.equal(revokes.length, 2);
  });
});

describe('create at the external provider (SPEC 3.2, 4.11)', () => {
  test('201 pending with the provider copy_paste and idRec; one call; replay makes none', async () => {
    const key = randomUUID();
    const res = await post(world.production.key, body(), key);
    assert.equal(res.status, 201, res.text);
    const a = res.body.data;
    assert.equal(a.livemode, true);
    assert.equal(a.simulated, false);
    assert.equal(a.environment, 'production');
    assert.equal(a.status, 'pending');
    assert.ok(a.copy_paste && !a.copy_paste.startsWith('SIMULADOR'), a.copy_paste);
    assert.ok(a.provider_reference);
    const remote = await world.control.pixAuthorization(a.provider_reference);
    assert.equal(remote.status, 'CRIADA');
    assert.equal(remote.amount, 9990);
    // SPEC 4.11: no immediate charge (journey 2).
    assert.equal(remote.immediatePayment, null);
    assert.deepEqual(await operations(), ['pixauto_authorize']);
    const again = await post(world.production.key, body(), key);
    assert.equal(again.status, 200, again.text);
    assert.equal(again.headers.get('idempotency-replayed'), 'true');
    assert.deepEqual(again.body.data, a);
    assert.equal(await count('pixauto_authorize'), 1);
  });

  test('6 identical requests at once under one key: one authorization, one provider call', async () => {
    const key = randomUUID();
    const answers = await Promise.all(
      Array.from({ length: 6 }, () => post(world.production.key, body(), key)),
    );
    assert.equal(new Set(answers.map((r) => r.body.data?.id)).size, 1, answers.map((r) => r.text).join('\n'));
    assert.equal(answers.filter((r) => r.status === 201).length, 1);
    assert.equal(await count('pixauto_authorize'), 1);
  });

  test('confirmed refusal: 201 failed with the provider diagnostics (SPEC 3.2, 7)', async () => {
    await world.control.fault({
      operation: 'pixauto_authorize',
      times: 1,
      fault: { type: 'http_error', status: 400, body: '{"ErrorCode":"1017","Error":"Dados inválidos"}' },
    });
    const res = await post(world.production.key, body());
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.data.status, 'failed');
    assert.equal(res.body.data.provider_http_status, 400);
    assert.equal(res.body.data.copy_paste, null);
    // Final: a revoke is 409 automatic_not_available.
    assertError(await revoke(world.production.key, res.body.data.id), 409, 'automatic_not_available');
  });

  test('no confirmed result: 202 unknown; refresh without provider_reference 409 reconciliation_required', async () => {
    await world.control.fault({ operation: 'pixauto_authorize', times: 1, fault: { type: 'reset' } });
    const res = await post(world.production.key, body());
    assert.equal(res.status, 202, res.text);
    assert.equal(res.body.data.status, 'unknown');
    assertError(await refresh(world.production.key, res.body.data.id), 409, 'reconciliation_required');
    assertError(await revoke(world.production.key, res.body.data.id), 409, 'reconciliation_required');
    assert.equal((await get(world.production.key, res.body.data.id)).body.data.status, 'unknown');
  });

  test('production control off: 403 live_payments_disabled, nothing stored, nothing sent (SPEC 5.8)', async () => {
    const a = await created();
    await withLivePaymentsOff(async () => {
      assertError(await post(world.production.key, body()), 403, 'live_payments_disabled');
      assertError(await refresh(world.production.key, a.id), 403, 'live_payments_disabled');
    });
    assert.deepEqual(await operations(), ['pixauto_authorize']);
  });

  test('outside the production scope: 403 live_payment_out_of_scope, nothing sent (SPEC 5.8)', async () => {
    const ctx = world.app.gateway.ctx as { config: typeof world.app.gateway.ctx.config };
    const config = ctx.config;
    ctx.config = { ...config, ALLOW_UNSCOPED_LIVE_PAYMENTS: false };
    try {
      assertError(await post(world.production.key, body()), 403, 'live_payment_out_of_scope');
    } finally {
      ctx.config = config;
    }
    assert.deepEqual(await operations(), []);
  });

  test('a tenant without a Pix rule: 422 provider_not_configured, nothing stored (SPEC 2.8)', async () => {
    assertError(await post(world.stranger.key, body()), 422, 'provider_not_configured');
    await world.app.settle();
    const list = await world.app.request('GET', ROUTE, { headers: { 'x-api-key': world.stranger.key } });
    assert.deepEqual(list.body.data, []);
  });

  test('the external sandbox has no Pix: 422 provider_pix_sandbox_unsupported (SPEC 1)', async () => {
    assertError(await post(world.sandbox.key, body()), 422, 'provider_pix_sandbox_unsupported');
    assert.deepEqual(await operations(), []);
  });

  test('a provider whose adapter lacks Pix Automatic: 422 provider_method_disabled, nothing sent', async () => {
    const ctx = world.app.gateway.ctx as { providers: typeof world.app.gateway.ctx.providers };
    const registry = ctx.providers;
    ctx.providers = {
      simulator: registry.simulator,
      external: (hosts) => ({ ...registry.external(hosts), pixAutomatic: undefined }),
    };
    try {
      assertError(await post(world.production.key, body()), 422, 'provider_method_disabled');
    } finally {
      ctx.providers = registry;
    }
    assert.deepEqual(await operations(), []);
  });
});

describe('refresh at the external provider (SPEC 3.2)', () => {
  test('the payer approves: approved with approved_at; then cancels in the bank app: cancelled (final)', async () => {
    const a = await created();
    const same = await refresh(world.production.key, a.id);
    assert.equal(same.body.data.status, 'pending');
    await world.control.moveAuthorization(a.provider_reference, 'approve');
    const approved = await refresh(world.production.key, a.id);
    assert.equal(approved.status, 200, approved.text);
    assert.equal(approved.body.data.status, 'approved');
    assert.ok(approved.body.data.approved_at);
    await world.control.moveAuthorization(a.provider_reference, 'cancel');
    assert.equal((await refresh(world.production.key, a.id)).body.data.status, 'cancelled');
    assert.equal(await count('pixauto_authorization_get'), 3);
  });

  test('REJEITADA: failed (final); pending EXPIRADA: expired', async () => {
    const a = await created();
    await world.control.moveAuthorization(a.provider_reference, 'reject');
    assert.equal((await refresh(world.production.key, a.id)).body.data.status, 'failed');
    const b = await created();
    await world.control.moveAuthorization(b.provider_reference, 'expire');
    assert.equal((await refresh(world.production.key, b.id)).body.data.status, 'expired');
  });

  test('a failed query: 502 provider_refresh_failed, state kept', async () => {
    const a = await created();
    await world.control.fault({
      operation: 'pixauto_authorization_get',
      times: 1,
      fault: { type: 'http_error', status: 500 },
    });
    assertError(await refresh(world.production.key, a.id), 502, 'provider_refresh_failed');
    assert.equal((await get(world.production.key, a.id)).body.data.status, 'pending');
  });

  test('a report that would move a final record: 409 provider_status_conflict, state kept (SPEC 3.1)', async () => {
    const a = await created();
    // The expiry's close is refused at the provider, which then sees the payer approve after the deadline.
    await world.control.fault({
      operation: 'pixauto_revoke',
      reference: a.provider_reference,
      // Every revoke of this id (the emulator's ids repeat after its reset: an older one may be closed first).
      times: null,
      fault: { type: 'http_error', status: 422, body: '{"ErrorCode":"9014","Error":"recusado"}' },
    });
    const ctx = world.app.gateway.ctx;
    await world.app.settle();
    await authorizationExpiryJob().run(jobDeps(world.app.db.db, ctx.store, { config: ctx.config }), {
      now: new Date(new Date(a.approval_deadline).getTime() + 1000),
    });
    assert.equal((await get(world.production.key, a.id)).body.data.status, 'expired');
    await world.control.moveAuthorization(a.provider_reference, 'approve');
    assertError(await refresh(world.production.key, a.id), 409, 'provider_status_conflict');
    assert.equal((await get(world.production.key, a.id)).body.data.status, 'expired');
  });
});

describe('DELETE at the external provider (SPEC 3.2, 4.11)', () => {
  test('200 cancelled, CANCELADA at the provider; again 200 with no call', async () => {
    const a = await created();
    const res = await revoke(world.production.key, a.id);
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.data.status, 'cancelled');
    assert.equal((await world.control.pixAuthorization(a.provider_reference)).status, 'CANCELADA');
    assert.equal((await revoke(world.production.key, a.id)).status, 200);
    assert.equal(await count('pixauto_revoke'), 1);
  });

  test('5 DELETEs at once: exactly one provider call, the authorization cancelled', async () => {
    const a = await created();
    await world.control.fault({ operation: 'pixauto_revoke', times: 1, fault: { type: 'latency', ms: 300 } });
    const answers = await Promise.all(Array.from({ length: 5 }, () => revoke(world.production.key, a.id)));
    for (const r of answers) {
      assert.ok(
        r.status === 200 || (r.status === 502 && r.body.error.code === 'provider_cancel_unconfirmed'),
        r.text,
      );
    }
    assert.ok(answers.some((r) => r.status === 200));
    assert.equal(await count('pixauto_revoke'), 1);
    assert.equal((await get(world.production.key, a.id)).body.data.status, 'cancelled');
  });

  test('unconfirmed: 502 provider_cancel_unconfirmed, unchanged; a later DELETE revokes', async () => {
    const a = await created();
    await world.control.fault({
      operation: 'pixauto_revoke',
      times: 1,
      commit: false,
      fault: { type: 'reset' },
    });
    assertError(await revoke(world.production.key, a.id), 502, 'provider_cancel_unconfirmed');
    assert.equal((await get(world.production.key, a.id)).body.data.status, 'pending');
    assert.equal((await revoke(world.production.key, a.id)).body.data.status, 'cancelled');
    assert.equal(await count('pixauto_revoke'), 2);
  });

  test('refused by the provider (a debit is due): 409 reconciliation_required, unchanged', async () => {
    const a = await created();
    await world.control.fault({
      operation: 'pixauto_revoke',
      times: 1,
      fault: { type: 'http_error', status: 422, body: '{"ErrorCode":"9014","Error":"tentativa"}' },
    });
    assertError(await revoke(world.production.key, a.id), 409, 'reconciliation_required');
    assert.equal((await get(world.production.key, a.id)).body.data.status, 'pending');
  });
});
