import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'vitest';
import { debitPollerJob } from '../../src/commands/pix-automatic/debits/poll/job.ts';
import { hasUnconfirmedDebit } from '../../src/commands/pix-automatic/debits/revoke-guard.ts';
import { addDays, pixBody, today } from '../support/charges.ts';
import { useExternalProviderWorld } from '../support/external-provider.ts';
import { jobDeps } from '../support/jobs.ts';
import { seedAuthorization } from '../support/pix-automatic.ts';

/**
 * `POST /v1/pix-automatic/charges` against Safe2Pay over the provider emulator (SPEC 3.1, 4.11, 7; issue 27
 * item 2; wire doc wave 2b §3): a live key whose Pix rule is the production record schedules a debit of an
 * authorization the payer approved at the emulator, once (reserve -> scheduleDebit -> record; calls counted
 * in the emulator's log): refused -> 502 provider_rejected, a lost answer read back with findDebits (found:
 * 201; not found: 202 unknown), never a second schedule; six concurrent keys make one schedule call. Then
 * the poller reads it paid (SPEC 8), and the routing checks (automatic_routing_changed,
 * automatic_provider_unavailable).
 */

const world = useExternalProviderWorld();
const dueIn = (days: number) => addDays(today(), days);
const count = async (operation: string) =>
  (await world.control.calls()).filter((c) => c.operation === operation).length;

/** An authorization created at the emulator by the API, approved there by the payer, refreshed: approved. */
async function approvedAuthorization(
  firstDueDate = dueIn(5),
): Promise<{ id: string; providerReference: string }> {
  const key = world.production.key;
  const res = await world.app.request('POST', '/v1/pix-automatic/authorizations', {
    headers: { 'x-api-key': key, 'idempotency-key': randomUUID() },
    json: {
      name: 'Academia Forma',
      description: 'Mensalidade',
      amount: 4990,
      first_due_date: firstDueDate,
      interval_months: 1,
      customer: pixBody().customer,
    },
  });
  assert.equal(res.status, 201, res.text);
  const { id, provider_reference: providerReference } = res.body.data;
  await world.control.moveAuthorization(providerReference, 'approve');
  const refreshed = await world.app.request('POST', `/v1/pix-automatic/authorizations/${id}/refresh`, {
    headers: { 'x-api-key': key },
  });
  assert.equal(refreshed.status, 200, refreshed.text);
  assert.equal(refreshed.body.data.status, 'approved');
  return { id, providerReference };
}

function debit(authorizationId: string, dueDate = dueIn(5), key = world.production.key) {
  return world.app.request('POST', '/v1/pix-automatic/charges', {
    headers: { 'x-api-key': key, 'idempotency-key': randomUUID() },
    json: {
      authorization_id: authorizationId,
      due_date: dueDate,
      amount: 4990,
      reference: `assinatura-${randomUUID()}`,
      description: 'Assinatura mensal',
      customer: pixBody().customer,
    },
  });
}

describe('POST /v1/pix-automatic/charges at the external provider (SPEC 4.11)', () => {
  test('scheduled at the provider: 201 pending with its schedule id, production, one call; the charge page shows the schedule, never a QR', async () => {
    const a = await approvedAuthorization();
    const res = await debit(a.id);
    assert.equal(res.status, 201, res.text);
    const t = res.body.data;
    assert.equal(t.status, 'pending');
    assert.equal(t.simulated, false);
    assert.equal(t.environment, 'production');
    assert.equal(t.livemode, true);
    assert.equal(t.expires_at, null);
    assert.equal(t.pix_copy_paste, null);
    assert.equal(t.pix_automatic_authorization_id, a.id);
    const [remote] = await world.control.pixDebits(t.id);
    assert.ok(remote);
    assert.equal(remote.idRec, a.providerReference);
    assert.equal(remote.dueDate, dueIn(5));
    assert.equal(remote.amount, 4990);
    assert.equal(t.provider_reference, remote.txid);
    assert.equal(await count('pixauto_schedule'), 1);
    const page = await fetch(t.document_url.replace(/^https?:\/\/[^/]+/, world.app.baseUrl));
    const html = await page.text();
    assert.equal(page.status, 200);
    assert.ok(html.includes('Débito Pix Automático agendado'), 'the schedule is shown');
    assert.ok(!html.includes('class="qr"'), 'no QR code');
    assert.ok(!html.includes('<textarea'), 'no copy-and-paste');
  });

  test('six requests at once, six keys, one authorization and date: one 201, five 409 automatic_charge_exists, exactly one schedule call', async () => {
    const a = await approvedAuthorization();
    const answers = await Promise.all(Array.from({ length: 6 }, () => debit(a.id)));
    assert.deepEqual(
      answers.map((r) => r.status).sort(),
      [201, 409, 409, 409, 409, 409],
      answers.map((r) => r.text).join('\n'),
    );
    for (const r of answers.filter((x) => x.status === 409)) {
      assert.equal(r.body.error.code, 'automatic_charge_exists');
    }
    assert.equal(await count('pixauto_schedule'), 1);
  });

  test('a confirmed refusal: 502 provider_rejected with error.transaction_id; the debit failed; no retry', async () => {
    const a = await approvedAuthorization();
    await world.control.fault({
      operation: 'pixauto_schedule',
      times: 1,
      fault: {
        type: 'http_error',
        status: 400,
        body: '{"HasError":true,"ErrorCode":"4001","Error":"Agendamento inválido"}',
      },
    });
    const res = await debit(a.id);
    assert.equal(res.status, 502, res.text);
    assert.equal(res.body.error.code, 'provider_rejected');
    const id = res.body.error.transaction_id as string;
    assert.match(id, /^txn_/);
    const got = await world.app.request('GET', `/v1/transactions/${id}`, {
      headers: { 'x-api-key': world.production.key },
    });
    assert.equal(got.body.data.status, 'failed');
    assert.equal(await count('pixauto_schedule'), 1);
  });

  test('a lost answer after the provider scheduled it: read back by reference (findDebits), 201 pending, one schedule call', async () => {
    const a = await approvedAuthorization();
    await world.control.fault({
      operation: 'pixauto_schedule',
      times: 1,
      commit: true,
      fault: { type: 'reset' },
    });
    const res = await debit(a.id);
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.data.status, 'pending');
    const [remote] = await world.control.pixDebits(res.body.data.id);
    assert.equal(res.body.data.provider_reference, remote?.txid);
    assert.equal(await count('pixauto_schedule'), 1);
    assert.equal(await count('pixauto_schedule_list'), 1);
  });

  test('a lost answer, nothing scheduled: 202 unknown, never a second schedule; the revoke guard sees it unconfirmed (SPEC 3.2)', async () => {
    const a = await approvedAuthorization();
    await world.control.fault({
      operation: 'pixauto_schedule',
      times: 1,
      commit: false,
      fault: { type: 'reset' },
    });
    const res = await debit(a.id);
    assert.equal(res.status, 202, res.text);
    assert.equal(res.body.data.status, 'unknown');
    assert.equal(res.body.data.provider_reference, null);
    assert.equal(await count('pixauto_schedule'), 1);
    await world.app.settle();
    assert.equal(await hasUnconfirmedDebit(world.app.gateway.ctx.db, a.id), true);
    // SPEC 3.2 last row, SPEC 7: revoking while a debit is unconfirmed is 409, nothing sent, nothing changed.
    const revoke = await world.app.request('DELETE', `/v1/pix-automatic/authorizations/${a.id}`, {
      headers: { 'x-api-key': world.production.key },
    });
    assert.equal(revoke.status, 409, revoke.text);
    assert.equal(revoke.body.error.code, 'reconciliation_required');
    assert.equal(await count('pixauto_revoke'), 0);
    const after = await world.app.request('GET', `/v1/pix-automatic/authorizations/${a.id}`, {
      headers: { 'x-api-key': world.production.key },
    });
    assert.equal(after.body.data.status, 'approved');
    // A refresh reads by reference again: still nothing there, so it stays unknown (409), nothing sent.
    const refreshed = await world.app.request('POST', `/v1/transactions/${res.body.data.id}/refresh`, {
      headers: { 'x-api-key': world.production.key },
    });
    assert.equal(refreshed.status, 409, refreshed.text);
    assert.equal(refreshed.body.error.code, 'reconciliation_required');
    assert.equal(await count('pixauto_schedule'), 1);
  });

  test('the poller reads the debit paid after its due date: paid by Pix, no longer polled (SPEC 8)', async () => {
    const a = await approvedAuthorization();
    const res = await debit(a.id);
    assert.equal(res.status, 201, res.text);
    const id = res.body.data.id as string;
    await world.control.moveDebit(res.body.data.provider_reference, 'pay', dueIn(5));
    const ctx = world.app.gateway.ctx;
    await world.app.settle();
    const run = await debitPollerJob().run(jobDeps(world.app.db.db, ctx.store, { config: ctx.config }), {
      now: new Date(Date.parse(`${dueIn(5)}T03:00:00.000Z`) + 10 * 60_000),
    });
    assert.ok(run.polled.some((p) => p.transactionId === id && p.outcome === 'applied' && p.next === null));
    const got = await world.app.request('GET', `/v1/transactions/${id}`, {
      headers: { 'x-api-key': world.production.key },
    });
    assert.equal(got.body.data.status, 'paid');
    assert.equal(got.body.data.paid_with, 'pix');
  });

  for (const [move, failureCode] of [
    ['reject', 'debit_rejected'],
    ['cancel', 'debit_cancelled'],
  ] as const) {
    test(`a debit the payer's bank ${move}s (BCB ${move === 'reject' ? 'REJEITADA' : 'CANCELADA'}): a refresh answers 200 failed, failure_code ${failureCode}; read again, unchanged (SPEC 3.1 final)`, async () => {
      const a = await approvedAuthorization();
      const res = await debit(a.id);
      assert.equal(res.status, 201, res.text);
      const id = res.body.data.id as string;
      await world.control.moveDebit(res.body.data.provider_reference, move);
      const refresh = () =>
        world.app.request('POST', `/v1/transactions/${id}/refresh`, {
          headers: { 'x-api-key': world.production.key },
        });
      const first = await refresh();
      assert.equal(first.status, 200, first.text);
      assert.equal(first.body.data.status, 'failed');
      assert.equal(first.body.data.failure_code, failureCode);
      const again = await refresh();
      assert.equal(again.status, 200, again.text);
      assert.equal(again.body.data.status, 'failed');
      const events = await world.app.gateway.ctx.store.read(`transaction-${id}`);
      assert.equal(events.filter((e) => e.type === 'Transaction.Refused').length, 1);
    });
  }

  test('an authorization of a sandbox account: 422 automatic_provider_unavailable, nothing stored', async () => {
    const rule = await world.app.gateway.ctx.db
      .selectFrom('routing_rules')
      .select('provider_id')
      .where('tenant_id', '=', world.sandbox.tenantId)
      .where('method', '=', 'pix')
      .executeTakeFirstOrThrow();
    const id = await seedAuthorization(world.app.gateway.ctx, {
      tenantId: world.sandbox.tenantId,
      livemode: true,
      simulated: false,
      environment: 'sandbox',
      providerId: rule.provider_id,
      firstDueDate: dueIn(5),
      providerReference: 'rec-sandbox',
    });
    const res = await debit(id, dueIn(5), world.sandbox.key);
    assert.equal(res.status, 422, res.text);
    assert.equal(res.body.error.code, 'automatic_provider_unavailable');
    assert.equal(await count('pixauto_schedule'), 0);
  });

  // Last: it changes the production tenant's Pix routing.
  test('the tenant’s Pix rule now uses another account: 422 automatic_routing_changed, nothing sent', async () => {
    const a = await approvedAuthorization();
    const other = await world.app.request('POST', '/admin/providers', {
      headers: world.admin,
      json: {
        name: 'Safe2Pay outra conta',
        kind: 'external',
        environment: 'production',
        enabled_methods: ['pix'],
        credentials: { api_key: 'emu-other-production-key' },
        payment_host: world.emulator.paymentUrl,
        api_host: world.emulator.apiUrl,
      },
    });
    assert.equal(other.status, 201, other.text);
    const rule = await world.app.request('POST', '/admin/rules', {
      headers: world.admin,
      json: {
        method: 'pix',
        tenant_id: world.production.tenantId,
        provider_id: other.body.data.id,
        priority: 0,
      },
    });
    assert.equal(rule.status, 201, rule.text);
    const res = await debit(a.id);
    assert.equal(res.status, 422, res.text);
    assert.equal(res.body.error.code, 'automatic_routing_changed');
    assert.equal(await count('pixauto_schedule'), 0);
  });
});
