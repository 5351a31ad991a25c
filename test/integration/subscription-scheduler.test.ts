import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, test } from 'vitest';
import { isDomainError } from '../../src/aggregates/decider.ts';
import { type SubscriptionCreatedData, subscription } from '../../src/aggregates/subscription.ts';
import { handleCommand } from '../../src/commands/command-handler.ts';
import { cardChargeFromData } from '../../src/commands/credit-card/card-from-data.ts';
import type { JobDeps } from '../../src/commands/job.ts';
import { createProvider } from '../../src/commands/providers/create/handler.ts';
import { providerDeps } from '../../src/commands/providers/deps.ts';
import { createRoutingRule } from '../../src/commands/routing-rules/create/handler.ts';
import { updateRoutingRule } from '../../src/commands/routing-rules/update/handler.ts';
import { issueBoletoCycle } from '../../src/commands/subscriptions/emit/boleto.ts';
import { registerCard } from '../../src/commands/subscriptions/emit/register-card.ts';
import { foldSubscription, subscriptionStream } from '../../src/commands/subscriptions/record.ts';
import { advanceSubscription } from '../../src/commands/subscriptions/schedule/advance.ts';
import { runDueSubscriptions } from '../../src/commands/subscriptions/schedule/run-due.ts';
import { createCharge } from '../../src/commands/transactions/create/handler.ts';
import type { ProviderPort } from '../../src/providers/port.ts';
import { pixBody } from '../support/charges.ts';
import { commandDeps, type SeededKey, seedTenantAndKey } from '../support/fixtures.ts';
import { startTestApp, type TestApp } from '../support/http.ts';
import { decorateProviders, withCharges } from '../support/provider-registry.ts';
import { seedSubscription } from '../support/subscriptions.ts';

/**
 * The subscription scheduler against real PostgreSQL with an injected clock (issue 26 item 4; SPEC 2.5,
 * 3.3, 3.4, 4.10, 8). Each test puts its subscriptions on a test clock of its own and runs the scheduler's
 * claim-and-advance for that clock (src/commands/subscriptions/schedule/run-due.ts, the job's own code), so
 * tests never see each other's subscriptions. Expected dates are written out from SPEC 4.10's rule.
 */

const metadata = { actor: 'system:test', request_id: 'req_sub_sched' };
const customer = pixBody().customer as SubscriptionCreatedData['customer'];
/** The simulator refuses (`failed`) charges of this amount and leaves those of the next unanswered. */
const REFUSED = 4242;
const UNANSWERED = 4343;
/** A charge held at the provider until the test opens the gate (a first worker still in its call). */
const GATED = 4444;
let gate = newGate();

function newGate() {
  let open = () => {};
  let entered = () => {};
  const opened = new Promise<void>((r) => {
    open = r;
  });
  const inside = new Promise<void>((r) => {
    entered = r;
  });
  return { opened, open, inside, entered };
}

let app: TestApp;
let other: TestApp;
let tenant: SeededKey;
/** Charges sent to the (simulated) provider, by local transaction id. */
const sent: string[] = [];

/** Brasilia time (UTC-3), as a Date. */
const br = (local: string) => new Date(`${local}-03:00`);

function countingSimulator(adapter: ProviderPort): ProviderPort {
  return withCharges(adapter, {
    async create(charge, body, ctx, now) {
      sent.push(charge.transactionId);
      if (charge.amount === REFUSED) {
        return {
          kind: 'refused',
          reason: 'provider_error',
          providerReference: null,
          diagnostics: {
            provider_error_code: '05',
            provider_error_message: 'Recusado',
            provider_http_status: 200,
          },
        };
      }
      if (charge.amount === GATED) {
        gate.entered();
        await gate.opened;
      }
      if (charge.amount === UNANSWERED) {
        return {
          kind: 'uncertain',
          reason: 'timeout',
          providerReference: null,
          providerStatus: null,
          diagnostics: {
            provider_error_code: null,
            provider_error_message: null,
            provider_http_status: null,
          },
        };
      }
      return adapter.charges.create(charge, body, ctx, now);
    },
  });
}

beforeAll(async () => {
  const env = { ENABLE_SIMULATOR: 'true', CREDENTIALS_ENCRYPTION_KEY: randomBytes(32).toString('base64') };
  app = await startTestApp(env);
  // A second instance on the same database: another worker process.
  other = await startTestApp(env, undefined, app.db);
  decorateProviders(app.gateway.ctx, countingSimulator);
  decorateProviders(other.gateway.ctx, countingSimulator);
  tenant = await seedTenantAndKey(app.gateway.ctx);
});

afterAll(async () => {
  await other?.close();
  await app?.close();
});

interface Sub {
  id: string;
  clock: string;
}

async function createSubscription(over: Partial<SubscriptionCreatedData> = {}, clock?: string): Promise<Sub> {
  const testClock = clock ?? `clk_${randomBytes(6).toString('hex')}`;
  const id = await seedSubscription(app.gateway.ctx, tenant.tenantId, { test_clock_id: testClock, ...over });
  return { id, clock: testClock };
}

async function command(sub: Sub, cmd: Parameters<typeof subscription.decide>[0]) {
  await handleCommand(commandDeps(app.gateway.ctx), subscription, subscriptionStream(sub.id), cmd, {
    metadata,
  });
}

/** One scheduler run for the subscription's clock at `now` (read models settled before and after). */
async function tick(sub: Sub, now: Date, on: TestApp = app) {
  await on.settle();
  const r = await runDueSubscriptions(on.gateway.ctx as JobDeps, {
    now,
    testClockId: sub.clock,
    batchSize: 100,
    concurrency: 8,
    holdMs: 60_000,
    metadata: { actor: 'system:subscription-scheduler' },
  });
  await on.settle();
  assert.deepEqual(r.failed, []);
  return r;
}

async function cycles(sub: Sub) {
  await app.settle();
  return app.db.db
    .selectFrom('subscription_cycles')
    .selectAll()
    .where('subscription_id', '=', sub.id)
    .orderBy('due_date')
    .execute();
}

async function charges(sub: Sub) {
  await app.settle();
  return app.db.db
    .selectFrom('transactions')
    .select(['id', 'reference', 'status', 'method', 'amount'])
    .where('tenant_id', '=', tenant.tenantId)
    .where('reference', 'like', `sub_${sub.id}:%`)
    .orderBy('reference')
    .execute();
}

async function subscriptionRow(sub: Sub) {
  await app.settle();
  return app.db.db.selectFrom('subscriptions').selectAll().where('id', '=', sub.id).executeTakeFirstOrThrow();
}

/** An approved test card (test/support: the simulator's 4111…), registered at `at`, expiring 12/2030. */
function registerVisa(sub: Sub, at: Date) {
  return registerCard(
    { ...app.gateway.ctx, now: () => at },
    sub.id,
    {
      kind: 'data',
      data: { holder: 'MARIA SILVA', number: '4111111111111111', expiration: '12/2030', securityCode: '123' },
    },
    metadata,
  );
}

async function reservedRequest(transactionId: string) {
  const [reserved] = await app.gateway.ctx.store.read(`transaction-${transactionId}`);
  assert.equal(reserved?.type, 'Transaction.Reserved');
  return (reserved as { data: { request: Record<string, unknown> } }).data.request;
}

describe('subscription scheduler (SPEC 4.10, 8; issue 26 item 4)', () => {
  test('SPEC 4.10: a boleto cycle is issued from due date − advance_days (Brasilia), not before, with reference sub_<id>:<date> and no instruction, penalty or interest', async () => {
    const sub = await createSubscription({ first_due_date: '2027-03-10', advance_days: 3 });
    const early = await tick(sub, br('2027-03-06T23:59:00'));
    assert.equal(early.claimed, 0, 'not due before 2027-03-07 00:00 in Brasilia');
    assert.deepEqual(await charges(sub), []);

    const r = await tick(sub, br('2027-03-07T00:00:00'));
    assert.equal(r.claimed, 1);
    const issued = await charges(sub);
    assert.equal(issued.length, 1);
    assert.equal(issued[0]?.reference, `sub_${sub.id}:2027-03-10`);
    assert.equal(issued[0]?.method, 'boleto');
    assert.equal(Number(issued[0]?.amount), 9900);
    assert.equal(issued[0]?.status, 'pending');
    const request = await reservedRequest(issued[0]?.id as string);
    assert.deepEqual(request.boleto, { due_date: '2027-03-10' });
    assert.equal(request.description, 'Mensalidade');

    const [cycle] = await cycles(sub);
    assert.equal(cycle?.cycle, 1);
    assert.equal(cycle?.due_date, '2027-03-10');
    assert.equal(cycle?.status, 'created');
    assert.equal(cycle?.transaction_id, issued[0]?.id);
    assert.match(cycle?.id ?? '', /^scy_/);
    const row = await subscriptionRow(sub);
    assert.equal(row.cycle, 1);
    assert.equal(row.next_due_date, '2027-04-10');
    // The next issue moment: 2027-04-07 00:00 in Brasilia.
    assert.equal(row.next_run_at?.toISOString(), br('2027-04-07T00:00:00').toISOString());

    // The same moment again issues nothing more.
    await tick(sub, br('2027-03-07T00:05:00'));
    assert.equal((await charges(sub)).length, 1);
  });

  test('SPEC 4.10: twelve monthly cycles over a year; the 31st becomes the month’s last day and returns', async () => {
    const sub = await createSubscription({ first_due_date: '2027-01-31' });
    const dues = [
      '2027-01-31',
      '2027-02-28',
      '2027-03-31',
      '2027-04-30',
      '2027-05-31',
      '2027-06-30',
      '2027-07-31',
      '2027-08-31',
      '2027-09-30',
      '2027-10-31',
      '2027-11-30',
      '2027-12-31',
    ];
    for (const due of dues) {
      const dayBefore = new Date(br(`${due}T00:00:00`).getTime() - 60_000);
      await tick(sub, dayBefore);
      await tick(sub, br(`${due}T08:00:00`));
    }
    assert.deepEqual(
      (await charges(sub)).map((c) => c.reference),
      dues.map((d) => `sub_${sub.id}:${d}`),
    );
    const all = await cycles(sub);
    assert.deepEqual(
      all.map((c) => [c.cycle, c.due_date, c.status]),
      dues.map((d, i) => [i + 1, d, 'created']),
    );
    assert.equal((await subscriptionRow(sub)).next_due_date, '2028-01-31');
  });

  test('SPEC 3.3: paused, no cycle is issued; resumed, overdue cycles are skipped cycle_overdue with no retroactive charge; cancelled, none', async () => {
    const sub = await createSubscription({ first_due_date: '2027-05-15' });
    await command(sub, { kind: 'pause' });
    await tick(sub, br('2027-05-15T10:00:00'));
    await tick(sub, br('2027-06-15T10:00:00'));
    assert.deepEqual(await charges(sub), []);
    assert.deepEqual(await cycles(sub), []);

    await command(sub, { kind: 'resume', automaticAvailable: true });
    // 2027-07-01: the cycles of 05-15 and 06-15 are overdue; 07-15 is not yet due.
    await tick(sub, br('2027-07-01T10:00:00'));
    assert.deepEqual(await charges(sub), [], 'no retroactive charge');
    assert.deepEqual(
      (await cycles(sub)).map((c) => [c.cycle, c.due_date, c.status, c.error_code, c.transaction_id]),
      [
        [1, '2027-05-15', 'skipped', 'cycle_overdue', null],
        [2, '2027-06-15', 'skipped', 'cycle_overdue', null],
      ],
    );
    await tick(sub, br('2027-07-15T00:00:00'));
    assert.deepEqual(
      (await charges(sub)).map((c) => c.reference),
      [`sub_${sub.id}:2027-07-15`],
    );

    await command(sub, { kind: 'cancel' });
    await tick(sub, br('2027-08-15T10:00:00'));
    await tick(sub, br('2027-12-15T10:00:00'));
    assert.equal((await charges(sub)).length, 1);
    assert.equal((await cycles(sub)).length, 3);
    assert.equal((await subscriptionRow(sub)).next_run_at, null);
  });

  test('SPEC 4.10, 8: a failure before reservation is last_error, retried every 15 minutes, and the cycle is skipped once overdue', async () => {
    // An unknown cost center stops createCharge before its reservation (422 invalid_cost_center).
    const sub = await createSubscription({ first_due_date: '2027-02-10', cost_center_id: 'cc_missing' });
    const at = br('2027-02-10T09:00:00');
    await tick(sub, at);
    let row = await subscriptionRow(sub);
    assert.equal(row.last_error, 'invalid_cost_center');
    assert.equal(row.next_attempt_at?.toISOString(), new Date(at.getTime() + 15 * 60_000).toISOString());
    assert.equal(row.pending_due_date, '2027-02-10');
    assert.deepEqual(
      (await cycles(sub)).map((c) => c.status),
      ['pending'],
    );
    assert.deepEqual(await charges(sub), []);

    const failures = async () =>
      (await app.gateway.ctx.store.read(subscriptionStream(sub.id))).filter(
        (e) => e.type === 'Subscription.EmissionFailed',
      ).length;
    assert.equal((await tick(sub, new Date(at.getTime() + 14 * 60_000))).claimed, 0, 'not before 15 minutes');
    assert.equal(await failures(), 1);
    await tick(sub, new Date(at.getTime() + 15 * 60_000));
    assert.equal(await failures(), 2);
    await tick(sub, new Date(at.getTime() + 30 * 60_000));
    assert.equal(await failures(), 3);

    // After the due day: never reserved, so skipped cycle_overdue; the calendar goes on.
    await tick(sub, br('2027-02-11T00:01:00'));
    row = await subscriptionRow(sub);
    assert.equal(row.last_error, null);
    assert.equal(row.next_due_date, '2027-03-10');
    assert.deepEqual(
      (await cycles(sub)).map((c) => [c.due_date, c.status, c.error_code]),
      [['2027-02-10', 'skipped', 'cycle_overdue']],
    );
    assert.deepEqual(await charges(sub), []);

    // The reason removed (the center changed: future cycles only), the next cycle is issued.
    await command(sub, { kind: 'change_cost_center', costCenterId: null });
    await tick(sub, br('2027-03-10T00:00:00'));
    assert.deepEqual(
      (await charges(sub)).map((c) => c.reference),
      [`sub_${sub.id}:2027-03-10`],
    );
  });

  test('SPEC 3.4: a refused charge makes the cycle attention provider_rejected and is never sent again in the cycle', async () => {
    const sub = await createSubscription({ first_due_date: '2027-04-05', amount: REFUSED });
    await tick(sub, br('2027-04-05T00:00:00'));
    const [charge] = await charges(sub);
    assert.equal(charge?.status, 'failed');
    assert.deepEqual(
      (await cycles(sub)).map((c) => [c.status, c.error_code, c.transaction_id]),
      [['attention', 'provider_rejected', charge?.id]],
    );
    await tick(sub, br('2027-04-05T00:15:00'));
    await tick(sub, br('2027-04-05T12:00:00'));
    assert.equal(sent.filter((id) => id === charge?.id).length, 1, 'one provider call');
    assert.equal((await charges(sub)).length, 1);
    assert.equal((await subscriptionRow(sub)).next_due_date, '2027-05-05');
  });

  test('SPEC 3.4: an unanswered charge makes the cycle attention payment_unknown', async () => {
    const sub = await createSubscription({ first_due_date: '2027-04-06', amount: UNANSWERED });
    await tick(sub, br('2027-04-06T00:00:00'));
    const [charge] = await charges(sub);
    assert.equal(charge?.status, 'unknown');
    assert.deepEqual(
      (await cycles(sub)).map((c) => [c.status, c.error_code, c.transaction_id]),
      [['attention', 'payment_unknown', charge?.id]],
    );
    await tick(sub, br('2027-04-06T06:00:00'));
    assert.equal(sent.filter((id) => id === charge?.id).length, 1);
  });

  test('exactly once: two workers on one database run the same due set at once; every cycle is issued once', async () => {
    const clock = `clk_${randomBytes(6).toString('hex')}`;
    const subs = await Promise.all(
      Array.from({ length: 20 }, () => createSubscription({ first_due_date: '2027-06-01' }, clock)),
    );
    const now = br('2027-06-01T00:00:00');
    // Both instances' holds expire at once, so the second run also claims what the first left.
    for (const at of [now, new Date(now.getTime() + 120_000)]) {
      await Promise.all([tick(subs[0] as Sub, at, app), tick(subs[0] as Sub, at, other)]);
    }
    for (const sub of subs) {
      assert.deepEqual(
        (await charges(sub)).map((c) => c.reference),
        [`sub_${sub.id}:2027-06-01`],
      );
      assert.deepEqual(
        (await cycles(sub)).map((c) => [c.cycle, c.status]),
        [[1, 'created']],
      );
    }
  });

  test('exactly once under a race: a second worker that finds the charge in flight leaves the cycle pending; the first settles it', async () => {
    gate = newGate();
    const sub = await createSubscription({ first_due_date: '2027-08-10', amount: GATED });
    const at = br('2027-08-10T00:00:00');
    const first = advanceSubscription(app.gateway.ctx, sub.id, at, metadata);
    await gate.inside;
    // The second worker asks for the same charge while the first is in its provider call.
    const second = await advanceSubscription(other.gateway.ctx, sub.id, at, metadata);
    assert.deepEqual(
      second.steps.map((step) => step.kind),
      ['in_progress'],
    );
    assert.deepEqual(
      (await cycles(sub)).map((c) => c.status),
      ['pending'],
    );
    gate.open();
    await first;
    assert.deepEqual(
      (await cycles(sub)).map((c) => [c.cycle, c.status]),
      [[1, 'created']],
    );
    const [charge] = await charges(sub);
    assert.equal(sent.filter((id) => id === charge?.id).length, 1);
  });

  test('SPEC 3.3: paused while its charge is being made, the cycle still finishes (recorded and settled once), then nothing more is issued', async () => {
    gate = newGate();
    const sub = await createSubscription({ first_due_date: '2027-08-12', amount: GATED });
    const at = br('2027-08-12T00:00:00');
    const emission = tick(sub, at);
    await gate.inside;
    // The subscription's stream moves under the emission: its outcome and CycleSettled, appended together
    // when nothing moved, are recorded one after the other instead (issue 26 item 8).
    await command(sub, { kind: 'pause' });
    gate.open();
    const r = await emission;
    assert.deepEqual(
      r.advanced.flatMap((a) => a.steps.map((s) => s.kind)),
      ['created'],
    );
    const [charge, ...more] = await charges(sub);
    assert.ok(charge);
    assert.deepEqual(more, []);
    assert.equal(sent.filter((id) => id === charge.id).length, 1);
    assert.deepEqual(
      (await cycles(sub)).map((c) => [c.cycle, c.status, c.transaction_id]),
      [[1, 'created', charge.id]],
    );
    const events = (await app.gateway.ctx.store.read(subscriptionStream(sub.id))).map((e) => e.type);
    assert.deepEqual(events.slice(1), [
      'Subscription.CycleStarted',
      'Subscription.Paused',
      'Subscription.CycleSettled',
    ]);
    const row = await subscriptionRow(sub);
    assert.deepEqual([row.status, row.cycle, row.pending_cycle, row.next_run_at], ['paused', 1, null, null]);
    assert.equal((await tick(sub, br('2027-09-12T00:00:00'))).claimed, 0);
    assert.equal((await charges(sub)).length, 1);
  });

  test('exactly once across a crash: after CycleStarted, and after the charge before its cycle was recorded', async () => {
    const started = await createSubscription({ first_due_date: '2027-07-20' });
    // The crash: the cycle was started, nothing else.
    await command(started, { kind: 'start_cycle', cycle: 1, dueDate: '2027-07-20' });
    await tick(started, br('2027-07-20T00:00:00'));
    assert.equal((await charges(started)).length, 1);
    assert.deepEqual(
      (await cycles(started)).map((c) => c.status),
      ['created'],
    );

    const charged = await createSubscription({ first_due_date: '2027-07-21' });
    await command(charged, { kind: 'start_cycle', cycle: 1, dueDate: '2027-07-21' });
    const folded = await foldSubscription(app.gateway.ctx, charged.id);
    assert.ok(folded);
    // The crash: the charge was made under the cycle's key, its cycle never recorded.
    await issueBoletoCycle(
      { ...app.gateway.ctx, now: () => br('2027-07-21T00:00:00') },
      { subscription: folded.state, cycle: 1, dueDate: '2027-07-21' },
      metadata,
    );
    const [charge] = await charges(charged);
    assert.ok(charge);
    // Even overdue, a claimed (reserved) charge finishes its cycle instead of being skipped.
    await tick(charged, br('2027-07-22T09:00:00'));
    assert.deepEqual(
      (await charges(charged)).map((c) => c.id),
      [charge.id],
    );
    assert.equal(sent.filter((id) => id === charge.id).length, 1);
    assert.deepEqual(
      (await cycles(charged)).map((c) => [c.status, c.transaction_id]),
      [['created', charge.id]],
    );
  });

  test('exactly once across a crash between a Pix link’s claim and its checkout: the replay completes the same link', async () => {
    const sub = await createSubscription({ method: 'pix', first_due_date: '2027-07-23' });
    const now = br('2027-07-23T00:00:00');
    // The crash: every append to a checkout stream fails once the claim is appended.
    const store = app.gateway.ctx.store;
    const crashing = Object.create(store) as typeof store;
    crashing.append = (stream, events, expected) =>
      stream.startsWith('checkout-')
        ? Promise.reject(new Error('killed'))
        : store.append(stream, events, expected);
    await assert.rejects(
      advanceSubscription({ ...app.gateway.ctx, store: crashing }, sub.id, now, metadata),
      /killed/,
    );
    await tick(sub, new Date(now.getTime() + 60_000));
    const [cycle] = await cycles(sub);
    assert.equal(cycle?.status, 'created');
    const links = await app.db.db
      .selectFrom('checkouts')
      .select('id')
      .where('reference', '=', `sub_${sub.id}:2027-07-23`)
      .execute();
    assert.deepEqual(
      links.map((l) => l.id),
      [cycle?.checkout_id],
    );
  });

  test('SPEC 4.10: a card cycle is charged on its due day by the token sealed to the subscription (test mode: the simulator)', async () => {
    const sub = await createSubscription({
      method: 'credit_card',
      first_due_date: '2027-08-09',
    });
    await registerVisa(sub, br('2027-08-01T10:00:00'));
    const events = await app.gateway.ctx.store.read(subscriptionStream(sub.id));
    const registered = events.find((e) => e.type === 'Subscription.CardRegistered');
    assert.ok(registered);
    const text = JSON.stringify(registered.data);
    assert.ok(!text.includes('4111111111111111') && !text.includes('"123"'), 'no card number or code rests');
    assert.deepEqual((registered.data as { card: unknown }).card, {
      card_id: null,
      brand: 'visa',
      last_four: '1111',
      holder: 'MARIA SILVA',
      expiration: '12/2030',
    });

    await tick(sub, br('2027-08-08T23:59:00'));
    assert.deepEqual(await charges(sub), [], 'no anticipation');
    await tick(sub, br('2027-08-09T00:00:00'));
    const [charge] = await charges(sub);
    assert.equal(charge?.method, 'credit_card');
    assert.equal(charge?.status, 'paid');
    assert.equal(charge?.reference, `sub_${sub.id}:2027-08-09`);
    assert.deepEqual(
      (await cycles(sub)).map((c) => [c.status, c.transaction_id]),
      [['created', charge?.id]],
    );
  });

  test('SPEC 4.10: a stored card (card_…) of the tenant is re-sealed to the subscription; another tenant’s is refused', async () => {
    const at = br('2027-08-02T10:00:00');
    const ctx = { ...app.gateway.ctx, now: () => at };
    const data = {
      holder: 'MARIA SILVA',
      number: '5555555555554444',
      expiration: '12/2030',
      securityCode: '321',
    };
    const paid = await createCharge(
      ctx,
      {
        tenantId: tenant.tenantId,
        livemode: false,
        method: 'credit_card',
        idempotencyKey: `card-${randomBytes(6).toString('hex')}`,
        route: '/v1/credit-card',
        body: { amount: 100, reference: 'first-purchase', description: 'Primeira compra', customer },
        card: await cardChargeFromData(ctx.config, data, 1),
      },
      metadata,
    );
    assert.equal(paid.kind, 'created');
    const cardId = paid.kind === 'created' && paid.state.status !== 'none' ? paid.state.cardId : null;
    assert.match(cardId ?? '', /^card_/);

    const sub = await createSubscription({ method: 'credit_card', first_due_date: '2027-08-12' });
    const registered = await registerCard(
      ctx,
      sub.id,
      { kind: 'stored', cardId: cardId as string },
      metadata,
    );
    assert.equal(registered.state.card?.card.card_id, cardId);
    assert.equal(registered.state.card?.card.last_four, '4444');
    await tick(sub, br('2027-08-12T00:00:00'));
    const [charge] = await charges(sub);
    assert.equal(charge?.status, 'paid');

    const outsider = await seedTenantAndKey(app.gateway.ctx);
    const theirs = await seedSubscription(app.gateway.ctx, outsider.tenantId, { method: 'credit_card' });
    await assert.rejects(
      registerCard(ctx, theirs, { kind: 'stored', cardId: cardId as string }, metadata),
      (error: unknown) => isDomainError(error) && error.code === 'validation_error',
    );
  });

  test('SPEC 4.10: a card cycle whose route now leads to another receiving account is blocked, never charged', async () => {
    const at = br('2027-08-03T10:00:00');
    // A live subscription on the simulator's record: its card is sealed to prv_simulator.
    const sub = await createSubscription({
      method: 'credit_card',
      livemode: true,
      first_due_date: '2027-08-13',
    });
    await registerVisa(sub, at);
    const folded = await foldSubscription(app.gateway.ctx, sub.id);
    assert.equal(folded?.state.card?.provider_id, 'prv_simulator');
    // The tenant's card rule now leads to another provider account.
    const deps = providerDeps(app.gateway.ctx);
    const { provider } = await createProvider(
      deps,
      {
        name: 'Another account',
        kind: 'simulator',
        environment: 'sandbox',
        enabledMethods: ['credit_card'],
        isMarketplace: false,
      },
      metadata,
    );
    const { rule } = await createRoutingRule(
      deps,
      {
        method: 'credit_card',
        tenantId: tenant.tenantId,
        providerId: provider.id,
        priority: 1,
        enabled: true,
      },
      metadata,
    );
    try {
      await tick(sub, br('2027-08-13T00:00:00'));
      assert.equal((await subscriptionRow(sub)).last_error, 'validation_error');
      await tick(sub, br('2027-08-14T00:00:00'));
      assert.deepEqual(await charges(sub), []);
      assert.deepEqual(
        (await cycles(sub)).map((c) => [c.status, c.error_code]),
        [['skipped', 'cycle_overdue']],
      );
    } finally {
      // The tenant's other card tests route as before.
      await updateRoutingRule(deps, rule.id, { enabled: false }, metadata);
    }
  });

  test('SPEC 4.10: a card whose expiry passed is not charged: last_error, then skipped overdue', async () => {
    const sub = await createSubscription({ method: 'credit_card', first_due_date: '2031-02-10' });
    await registerVisa(sub, br('2027-08-01T10:00:00'));
    await tick(sub, br('2031-02-10T00:00:00'));
    assert.equal((await subscriptionRow(sub)).last_error, 'validation_error');
    await tick(sub, br('2031-02-11T00:00:00'));
    assert.deepEqual(await charges(sub), []);
    assert.deepEqual(
      (await cycles(sub)).map((c) => [c.status, c.error_code]),
      [['skipped', 'cycle_overdue']],
    );
  });

  test('SPEC 4.10, 2.5: a Pix cycle is a checkout link offering Pix, open until the end of its due day', async () => {
    const sub = await createSubscription({
      method: 'pix',
      first_due_date: '2027-09-20',
      advance_days: 5,
      callback_url: 'https://loja.example.com/hooks',
    });
    await tick(sub, br('2027-09-15T00:00:00'));
    const [cycle] = await cycles(sub);
    assert.equal(cycle?.status, 'created');
    assert.equal(cycle?.transaction_id, null);
    assert.match(cycle?.checkout_id ?? '', /^chk_/);
    const checkout = await app.db.db
      .selectFrom('checkouts')
      .selectAll()
      .where('id', '=', cycle?.checkout_id as string)
      .executeTakeFirstOrThrow();
    assert.equal(new Date(checkout.expires_at).toISOString(), '2027-09-21T02:59:59.999Z');
    assert.equal(checkout.reference, `sub_${sub.id}:2027-09-20`);
    assert.equal(checkout.created.amount, 9900);
    assert.deepEqual(checkout.created.methods, ['pix']);
    assert.equal(checkout.created.callback_url, 'https://loja.example.com/hooks');
    assert.equal(checkout.status, 'open');
    assert.deepEqual(await charges(sub), [], 'the charge comes when the payer chooses to pay');
  });
});
