import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, test } from 'vitest';
import { addDays, saoPauloDate } from '../../src/aggregates/subscription-calendar.ts';
import { transactionStream } from '../../src/commands/transactions/shared/stream.ts';
import type { EmulatorCall } from '../../src/providers/emulator/server.ts';
import { pixBody } from '../support/charges.ts';
import type { EmulatedPixDebit } from '../support/emulator-control.ts';
import { type ExternalProviderWorld, startExternalProviderWorld } from '../support/external-provider.ts';
import { testProjectionMode } from '../support/http.ts';

/**
 * Issue 27 "Done when": a chaos scenario kills the worker during scheduling and polling with no debit
 * scheduled twice (SPEC 4.10, 4.11, 8; docs/decisions.md "Pix Automatic (issue 27): the chaos scenario").
 *
 * The gateway has the provider emulator as its production Pix provider. SUBSCRIPTIONS Pix Automatic
 * subscriptions are created over the HTTP API on authorizations the payer approved at the emulator, with
 * their first debit due 12 days ahead (not yet in the 2-to-10-day window, so creation schedules nothing).
 * Worker child processes (test/support/pix-automatic-worker-child.ts: the scheduler, the debit poller and the
 * reconciler under their real leases, on a clock the test drives) are then SIGKILLed at seeded random
 * moments, two at once in some rounds, while the emulator answers slowly (so kills land between reserve,
 * provider call and record) and fails or never answers some calls; round 1's worker kills itself as its third
 * debit is about to be sent (reservations committed, calls not sent); the last round's second worker is spared
 * and goes on without faults as the clean run. Then the payer's bank pays every debit at the emulator and
 * the same is done to the polling.
 */

const SUBSCRIPTIONS = 32;
const SEED = 27;
/**
 * Worker clocks run this much faster than real time: a killed worker's held claims return within seconds
 * (the scheduler's minute in 3 s, the poller's two minutes in 6 s, the reconciler's 60 s in 3 s, beyond the
 * 2 s provider timeout). The clean runs go faster still: a cycle found in flight is looked at again 15
 * minutes later.
 */
const CLOCK_SPEED = 20;
const CLEAN_CLOCK_SPEED = 120;
const MINUTE = 60_000;

/** mulberry32: a seeded source, so the kill moments and the emulator's fault draws repeat run to run. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const trace = (what: string) => {
  if (process.env.CHAOS_TRACE) console.info(`${new Date().toISOString()} ${what}`);
};
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

// biome-ignore lint/suspicious/noExplicitAny: response JSON, already validated against /openapi.json
type Json = any;

let world: ExternalProviderWorld;
const random = seeded(SEED);
const children = new Set<ChildProcess>();
/** The workers' clock: `base` at the real instant `anchor`, `speed` times faster since. */
const clock = { base: 0, anchor: 0, speed: CLOCK_SPEED };
const setClock = (instant: number, speed = CLOCK_SPEED) => {
  Object.assign(clock, { base: instant, anchor: Date.now(), speed });
};
const jumpClock = (ms: number, speed = CLOCK_SPEED) =>
  setClock(clock.base + (Date.now() - clock.anchor) * clock.speed + ms, speed);
let workerEnv: Record<string, string> = {};

beforeAll(async () => {
  const env = {
    RATE_LIMIT_PER_MINUTE: '100000',
    CREDENTIALS_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    // A call that never answers is given up after 2 s: uncertain, then read back, never sent again.
    PROVIDER_TIMEOUT_MS: '2000',
    RECONCILE_AFTER_SECONDS: '60',
    RECONCILE_INTERVAL_MS: '300',
  };
  world = await startExternalProviderWorld(env, { random: seeded(SEED + 1) });
  // The gateway's configuration as startTestApp and startExternalProviderWorld built it, for the workers.
  workerEnv = {
    ...env,
    DATABASE_URL: world.app.db.url,
    DATABASE_POOL_SIZE: '6',
    DOCUMENT_SIGNING_SECRET: 'test-harness-document-signing-secret-0123456789',
    PROVIDER_ALLOWED_PRIVATE_HOSTS: new URL(world.emulator.url).host,
    ALLOW_LIVE_PAYMENTS: 'true',
    ALLOW_UNSCOPED_LIVE_PAYMENTS: 'true',
    PROJECTIONS: testProjectionMode(),
    PROJECTION_POLL_MS: '50',
    LOG_LEVEL: 'error',
    CHAOS_JOB_INTERVAL_MS: '200',
  };
  // They load while the subscriptions are created.
  fillStandby();
}, 60_000);

afterAll(async () => {
  for (const child of children) child.kill('SIGKILL');
  await world?.close();
});

interface Worker {
  readonly child: ChildProcess;
  readonly exited: Promise<NodeJS.Signals | number | null>;
  output: string;
}

let spawned = 0;

/**
 * A worker child with its sources loaded, waiting for its start (the loading takes seconds). The first one
 * (round 1) kills itself as its third debit is about to be sent: its reservation committed, no call made.
 */
function spawnStandby(): Promise<Worker> {
  const selfKill = spawned++ === 0 ? { CHAOS_KILL_BEFORE_SCHEDULE: '3' } : {};
  const child = spawn(process.execPath, ['--import', 'tsx', 'test/support/pix-automatic-worker-child.ts'], {
    stdio: ['pipe', 'pipe', 'pipe'],
    env: { ...process.env, ...workerEnv, ...selfKill },
  });
  children.add(child);
  const worker: Worker = {
    child,
    output: '',
    exited: new Promise((resolve) =>
      child.once('exit', (code, signal) => {
        children.delete(child);
        resolve(signal ?? code);
      }),
    ),
  };
  const keep = (chunk: Buffer) => {
    worker.output = (worker.output + chunk.toString('utf8')).slice(-8000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  return waitFor(worker, 'worker loaded', 60_000).then(() => worker);
}

async function waitFor(worker: Worker, line: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!worker.output.includes(line)) {
    const { child } = worker;
    if (child.exitCode !== null || child.signalCode !== null || Date.now() > deadline)
      throw new Error(`the worker did not say "${line}":\n${worker.output}`);
    await sleep(20);
  }
}

/** Loaded workers waiting for their turn; two, since some rounds start two workers at once. */
const standby: Promise<Worker>[] = [];

function fillStandby(): void {
  while (standby.length < 2) {
    const loading = spawnStandby();
    // Those still waiting when the file ends are killed by afterAll: that is no failure.
    loading.catch(() => {});
    standby.push(loading);
  }
}

/** Starts a loaded worker on the current clock (and loads its successor); resolves once its jobs run. */
async function startWorker(): Promise<Worker> {
  fillStandby();
  const next = standby.shift() as Promise<Worker>;
  fillStandby();
  const asked = Date.now();
  const worker = await next;
  trace(`worker ${worker.child.pid} started after ${Date.now() - asked} ms waiting for its loading`);
  worker.child.stdin?.write(`${new Date(clock.base).toISOString()} ${clock.anchor} ${clock.speed}\n`);
  await waitFor(worker, 'worker ready', 30_000);
  return worker;
}

async function kill(worker: Worker): Promise<void> {
  worker.child.kill('SIGKILL');
  assert.equal(
    await worker.exited,
    'SIGKILL',
    `the worker died by SIGKILL, not by itself:\n${worker.output}`,
  );
}

/** Kills that landed while a call of the round's operation was in flight at the emulator (asked, not answered). */
const midCall = { pixauto_schedule: 0, pixauto_schedule_get: 0 };

/**
 * One round: `count` workers start together and each is SIGKILLed at a seeded random moment, at most
 * `windowMs` after the emulator saw a new `operation` call (so the kill lands while that work is in flight:
 * the emulator answers it slowly), or after 3 s when none came. With `keepOne`, the last worker is spared
 * and returned (it goes on as the clean run).
 */
async function killRound(
  count: number,
  operation: keyof typeof midCall,
  windowMs: number,
  keepOne = false,
): Promise<Worker | undefined> {
  const before = (await world.control.calls({ operation })).length;
  const workers = await Promise.all(Array.from({ length: count }, () => startWorker()));
  const started = Date.now();
  while ((await world.control.calls({ operation })).length === before && Date.now() - started < 3000) {
    await sleep(20);
  }
  const doomed = keepOne ? workers.slice(0, -1) : workers;
  await Promise.all(
    doomed.map(async (w) => {
      await sleep(Math.floor(random() * windowMs));
      const inFlight = (await world.control.calls({ operation })).some(
        (c) => c.httpStatus === null && c.fault !== 'no_answer',
      );
      await kill(w);
      if (inFlight) midCall[operation] += 1;
    }),
  );
  return keepOne ? workers.at(-1) : undefined;
}

/**
 * A clean worker runs until `done` holds, then is killed and the read models catch up. `done` reads the read
 * models the worker's own projections keep (inline, or its async runner), so it only ever waits longer.
 */
async function cleanRun(done: () => Promise<boolean>, what: string, survivor?: Worker): Promise<void> {
  // A survivor of the last round goes on, its clock moved as a test clock is advanced.
  survivor?.child.stdin?.write(`${new Date(clock.base).toISOString()} ${clock.anchor} ${clock.speed}\n`);
  const worker = survivor ?? (await startWorker());
  const deadline = Date.now() + 90_000;
  try {
    for (;;) {
      if (await done()) break;
      if (Date.now() > deadline) throw new Error(`${what} not reached:\n${worker.output}`);
      await sleep(200);
    }
  } finally {
    await kill(worker);
  }
  await world.app.settle();
  trace(`${what}: read models caught up`);
}

function post(path: string, json?: unknown) {
  return world.app.request('POST', path, {
    headers: { 'x-api-key': world.production.key, 'idempotency-key': randomUUID() },
    ...(json === undefined ? {} : { json }),
  });
}
const get = (path: string) =>
  world.app.request('GET', path, { headers: { 'x-api-key': world.production.key } });

/** The due date of a schedule call: the v3 body's `Calendar.DueDate`. */
const dueDateOf = (call: EmulatorCall) => (call.body as { Calendar: { DueDate: string } }).Calendar.DueDate;
/** The authorization (BCB idRec) of a schedule call: its path's segment after `authorizations/`. */
const idRecOf = (call: EmulatorCall) => /authorizations\/([^/]+)\/chargeSchedules/i.exec(call.path)?.[1];

function countBy<T>(items: readonly T[], key: (item: T) => string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const item of items) counts.set(key(item), (counts.get(key(item)) ?? 0) + 1);
  return counts;
}

/** Our debits in the transactions read model. */
async function debitRows() {
  return world.app.db.db
    .selectFrom('transactions')
    .select(['id', 'status', 'pix_automatic_authorization_id', 'scheduled_due_date'])
    .where('pix_automatic_authorization_id', 'is not', null)
    .execute();
}

/** `Transaction.Paid` events per transaction. */
async function paidEvents(): Promise<Map<string, number>> {
  const { rows } = await sql<{ stream_id: string; n: string }>`
    select stream_id, count(*) as n from events where type = 'Transaction.Paid' group by stream_id`.execute(
    world.app.db.db,
  );
  return new Map(rows.map((r) => [r.stream_id, Number(r.n)]));
}

test('issue 27: workers SIGKILLed during Pix Automatic scheduling and polling — no debit scheduled twice, each paid once', async () => {
  const t0 = Date.now();
  const today = saoPauloDate(new Date());
  const due = addDays(today, 12);

  // SPEC 4.11: authorizations created, approved by the payer at the provider, found by refresh; then a
  // subscription repeating each contract (SPEC 4.10), all through the HTTP API.
  const subscriptions: Array<{ id: string; authorizationId: string; idRec: string; amount: number }> = [];
  for (let batch = 0; batch < SUBSCRIPTIONS; batch += 8) {
    const made = await Promise.all(
      Array.from({ length: Math.min(8, SUBSCRIPTIONS - batch) }, async (_, k) => {
        const amount = 1000 + batch + k;
        const contract = {
          name: `Plano ${batch + k}`,
          description: 'Mensalidade',
          amount,
          first_due_date: due,
          interval_months: 1,
          customer: pixBody().customer,
        };
        const created = await post('/v1/pix-automatic/authorizations', contract);
        assert.equal(created.status, 201, created.text);
        const auth = created.body.data;
        await world.control.moveAuthorization(auth.provider_reference, 'approve');
        const refreshed = await post(`/v1/pix-automatic/authorizations/${auth.id}/refresh`);
        assert.equal(refreshed.status, 200, refreshed.text);
        assert.equal(refreshed.body.data.status, 'approved');
        const sub = await post('/v1/subscriptions', {
          ...contract,
          method: 'pix_automatic',
          advance_days: 3,
          authorization_id: auth.id,
        });
        assert.equal(sub.status, 201, sub.text);
        return { id: sub.body.data.id, authorizationId: auth.id, idRec: auth.provider_reference, amount };
      }),
    );
    subscriptions.push(...made);
  }
  // 12 days ahead: nothing was scheduled at creation (the first debit waits for 10 days before).
  assert.deepEqual(await world.control.calls({ operation: 'pixauto_schedule' }), []);
  const setupMs = Date.now() - t0;
  trace('setup done');

  // ---- Scheduling: 10 days before the due date, 09:00 in Sao Paulo (UTC-3), at the emulator too. ----
  const schedulingDay = addDays(due, -10);
  await world.control.pixToday(schedulingDay);
  setClock(Date.parse(`${schedulingDay}T12:00:00Z`));
  const f = world.control.fault;
  // The first rule that matches and fires (seeded draw) applies: a few lost answers after the debit was
  // made, a few refusals before it, then every other call slow so that kills land mid-call.
  await f({
    operation: 'pixauto_schedule',
    fault: { type: 'no_answer' },
    commit: true,
    times: 2,
    probability: 0.15,
  });
  await f({
    operation: 'pixauto_schedule',
    fault: { type: 'reset' },
    commit: true,
    times: 3,
    probability: 0.15,
  });
  await f({
    operation: 'pixauto_schedule',
    fault: { type: 'http_error', status: 503 },
    times: 3,
    probability: 0.15,
  });
  await f({
    operation: 'pixauto_schedule',
    fault: { type: 'latency', ms: 500, answerFirst: true },
    times: null,
    probability: 0.5,
  });
  await f({ operation: 'pixauto_schedule', fault: { type: 'latency', ms: 500 }, times: null });
  await f({ operation: 'pixauto_schedule_list', fault: { type: 'latency', ms: 200 }, times: null });
  const rounds = [1, 2, 1, 2];
  let survivor: Worker | undefined;
  for (const [i, count] of rounds.entries()) {
    // Past the scheduler's one-minute hold: the rows a killed worker claimed are due again.
    jumpClock(2 * MINUTE);
    survivor = await killRound(count, 'pixauto_schedule', 700, i === rounds.length - 1);
  }
  trace('scheduling kills done');
  const killedWhileScheduling = (await world.control.calls({ operation: 'pixauto_schedule' })).length;

  // The last clean run: no faults; past the reconciler's 60 s and its backoff, every reservation is read back.
  await world.control.clearFaults();
  jumpClock(60 * MINUTE, CLEAN_CLOCK_SPEED);
  const ours = new Set(subscriptions.map((s) => s.id));
  let emulated: EmulatedPixDebit[] = [];
  await cleanRun(
    async () => {
      const cycles = await world.app.db.db
        .selectFrom('subscription_cycles')
        .select(['subscription_id', 'status'])
        .execute();
      const settled = cycles.filter((c) => ours.has(c.subscription_id) && c.status !== 'pending');
      const rows = await debitRows();
      trace(
        `cycles settled ${settled.length}, debits ${JSON.stringify([...countBy(rows, (r) => r.status)])}`,
      );
      if (settled.length < SUBSCRIPTIONS) return false;
      if (rows.some((r) => r.status === 'processing')) return false;
      emulated = await world.control.pixDebits();
      const atProvider = new Set(emulated.map((d) => d.reference));
      const lookedUp = new Set(
        (await world.control.calls({ operation: 'pixauto_schedule_list' })).map((c) => c.reference),
      );
      // An unknown debit is read back by reference (the reconciler, SPEC 3.1); one the provider holds is
      // adopted: wait for both.
      return rows.every((r) => r.status !== 'unknown' || (lookedUp.has(r.id) && !atProvider.has(r.id)));
    },
    'every cycle settled and every reservation read back',
    survivor,
  );

  trace('scheduling clean run done');
  const schedules = await world.control.calls({ operation: 'pixauto_schedule' });
  // The emulator received at most one schedule call per (authorization, due date), and per transaction.
  const perDate = countBy(schedules, (c) => `${idRecOf(c)} ${dueDateOf(c)}`);
  assert.deepEqual(
    [...perDate].filter(([, n]) => n > 1),
    [],
    'no (authorization, due date) got a second schedule call',
  );
  assert.deepEqual(
    [...countBy(schedules, (c) => String(c.reference))].filter(([, n]) => n > 1),
    [],
    'no transaction was sent twice',
  );
  for (const c of schedules) assert.equal(dueDateOf(c), due);
  // The provider holds at most one debit per authorization, each of the contract's amount.
  assert.deepEqual(
    [...countBy(emulated, (d) => `${d.idRec} ${d.dueDate}`)].filter(([, n]) => n > 1),
    [],
  );
  assert.ok(emulated.length <= SUBSCRIPTIONS);

  // One transaction per (authorization, due date): no cycle has two charges.
  const rows = await debitRows();
  assert.deepEqual(
    [...countBy(rows, (r) => `${r.pix_automatic_authorization_id} ${r.scheduled_due_date}`)].filter(
      ([, n]) => n > 1,
    ),
    [],
  );
  const byAuthorization = new Map(rows.map((r) => [r.pix_automatic_authorization_id, r]));
  const atProvider = new Map(emulated.map((d) => [d.reference, d]));
  const scheduled = new Set<string>();
  const unknown = new Set<string>();
  for (const s of subscriptions) {
    const res = await get(`/v1/subscriptions/${s.id}/cycles`);
    assert.equal(res.status, 200, res.text);
    const cycles: Json[] = res.body.data;
    assert.equal(cycles.length, 1, res.text);
    const [cycle] = cycles;
    assert.equal(cycle.due_date, due);
    const row = byAuthorization.get(s.authorizationId);
    assert.ok(row, `the debit of ${s.id}`);
    assert.equal(cycle.transaction_id, row.id, 'the cycle names the one debit of its date');
    const tx = await get(`/v1/transactions/${row.id}`);
    assert.equal(tx.status, 200, tx.text);
    const debit = atProvider.get(row.id);
    if (debit) {
      // Scheduled: pending (SPEC 4.11 "pending means scheduled") with the provider's debit for its date.
      assert.equal(tx.body.data.status, 'pending', tx.text);
      assert.deepEqual([debit.idRec, debit.dueDate, debit.amount], [s.idRec, due, s.amount]);
      assert.ok(['created', 'attention'].includes(cycle.status), JSON.stringify(cycle));
      scheduled.add(row.id);
    } else {
      // Never made at the provider (a refusal without an answer, or a kill before the call): unknown after
      // the reconciliation read, the cycle needing attention — never scheduled a second time.
      assert.equal(tx.body.data.status, 'unknown', tx.text);
      // SPEC 2.5: the cycle needs attention; a replay that found the debit still in flight (its worker
      // killed) recorded `payment_processing` before the reconciler made it unknown.
      assert.equal(cycle.status, 'attention', JSON.stringify(cycle));
      assert.ok(['payment_unknown', 'payment_processing'].includes(cycle.error_code), JSON.stringify(cycle));
      assert.ok(
        (await world.control.calls({ operation: 'pixauto_schedule_list', reference: row.id })).length >= 1,
        'the unknown debit was looked up at the provider',
      );
      unknown.add(row.id);
    }
  }
  assert.equal(scheduled.size + unknown.size, SUBSCRIPTIONS);
  // Round 1's worker died with a reservation committed and its call not sent: that debit is one of them.
  const sent = new Set(schedules.map((c) => c.reference));
  const neverSent = [...unknown].filter((id) => !sent.has(id));
  assert.ok(neverSent.length >= 1, 'a debit reserved by a killed worker before its call stays unknown');
  assert.equal(scheduled.size, emulated.length, 'every debit at the provider is the gateway’s pending one');
  const schedulingMs = Date.now() - t0 - setupMs;

  // ---- Polling: the due date, 09:00 in Sao Paulo; the payer's bank pays every debit that exists. ----
  setClock(Date.parse(`${due}T12:00:00Z`));
  await world.control.pixToday(due);
  for (const d of emulated) await world.control.moveDebit(d.txid, 'pay');
  await f({
    operation: 'pixauto_schedule_get',
    fault: { type: 'http_error', status: 503 },
    times: 6,
    probability: 0.15,
  });
  await f({
    operation: 'pixauto_schedule_get',
    fault: { type: 'latency', ms: 400, answerFirst: true },
    times: null,
    probability: 0.5,
  });
  await f({ operation: 'pixauto_schedule_get', fault: { type: 'latency', ms: 400 }, times: null });
  const pollRounds = [1, 2];
  for (const [i, count] of pollRounds.entries()) {
    // Past the poller's two-minute hold and onto the next 5-minute instant of the polling grid.
    jumpClock(6 * MINUTE);
    survivor = await killRound(count, 'pixauto_schedule_get', 500, i === pollRounds.length - 1);
  }
  trace('polling kills done');
  await world.control.clearFaults();
  jumpClock(10 * MINUTE, CLEAN_CLOCK_SPEED);
  await cleanRun(
    async () => {
      const paid = (await debitRows()).filter((r) => r.status === 'paid');
      return paid.length === scheduled.size;
    },
    'every scheduled debit paid',
    survivor,
  );

  // Polling never schedules.
  assert.equal((await world.control.calls({ operation: 'pixauto_schedule' })).length, schedules.length);
  const paid = await paidEvents();
  for (const id of scheduled) {
    const tx = await get(`/v1/transactions/${id}`);
    assert.equal(tx.body.data.status, 'paid', tx.text);
    assert.equal(paid.get(transactionStream(id)), 1, `one Transaction.Paid for ${id}`);
    assert.ok((await world.control.calls({ operation: 'pixauto_schedule_get', reference: id })).length >= 1);
  }
  for (const id of unknown) {
    const tx = await get(`/v1/transactions/${id}`);
    assert.equal(tx.body.data.status, 'unknown', tx.text);
    assert.equal(paid.get(transactionStream(id)), undefined);
  }
  const totalMs = Date.now() - t0;
  console.info(
    JSON.stringify({
      subscriptions: SUBSCRIPTIONS,
      scheduleCalls: schedules.length,
      scheduleCallsDuringKills: killedWhileScheduling,
      killsMidCall: midCall,
      reservedNeverSent: neverSent.length,
      scheduleFaults: Object.fromEntries(countBy(schedules, (c) => String(c.fault))),
      scheduled: scheduled.size,
      unknown: unknown.size,
      paid: scheduled.size,
      setupMs,
      schedulingMs,
      totalMs,
    }),
  );
}, 300_000);
