/**
 * F10 (issue 26 item 4 "Done when"): several worker processes run the subscription scheduler against one
 * PostgreSQL while one of them is SIGKILLed every 1.5 to 3 s (during emission: the scheduler is working
 * through thousands of cycles due today) and restarted at once. Afterwards:
 *
 * - every due cycle exists exactly once (its stream `cycle-<sub>-<due>`, one row) and none is lost: each
 *   subscription settled its cycle 1, none left pending;
 * - no charge or link issued twice: one transaction per boleto and card reference `sub_<id>:<due>`, one
 *   checkout per Pix reference (counted by reference), none for another date.
 *
 * A worker killed between a charge's reservation and its outcome leaves the charge `processing` and its
 * cycle `attention` (`payment_processing`, SPEC 3.4: never sent again), which is counted, not a failure.
 * Rows a killed worker had claimed come back after the claim's hold (60 s), so the run ends with a wait.
 */

import type { SubscriptionMethod } from '../src/aggregates/subscription.ts';
import { saoPauloDate } from '../src/aggregates/subscription-calendar.ts';
import { createGateway } from '../src/app.ts';
import { registerCard } from '../src/commands/subscriptions/emit/register-card.ts';
import { loadConfig } from '../src/config.ts';
import { createLogger } from '../src/logger.ts';
import { seedSubscription } from '../test/support/subscriptions.ts';
import { RoleProcess } from './cluster.ts';
import {
  type ChaosOptions,
  createChaosDatabase,
  fmt,
  freePort,
  gatewayEnv,
  log,
  printVerdicts,
  scratchDir,
  seed,
  sleep,
  type Verdict,
  withDb,
} from './support.ts';

const SUBSCRIPTIONS = 3_000;
const WORKERS = 3;
/** The claim's hold (src/commands/subscriptions/schedule/job.ts) plus two scheduler intervals and a margin. */
const DRAIN_MS = 90_000;

/** Three in four boleto, then Pix links and card cycles (registered by the simulator first). */
function methodOf(i: number): SubscriptionMethod {
  if (i % 10 === 0) return 'credit_card';
  if (i % 4 === 1) return 'pix';
  return 'boleto';
}

async function seedSubscriptions(databaseUrl: string, tenantId: string, today: string) {
  const config = loadConfig({ ...gatewayEnv(databaseUrl, 0), DATABASE_POOL_SIZE: '8' });
  // With its bootstrap: the simulator's rules route the cards registered here.
  const gateway = await createGateway(config, createLogger('warn'));
  const ids: Array<{ id: string; method: SubscriptionMethod }> = [];
  const metadata = { actor: 'system:chaos', request_id: 'req_chaos_f10' };
  try {
    const queue = Array.from({ length: SUBSCRIPTIONS }, (_, i) => i);
    const work = async () => {
      for (let i = queue.shift(); i !== undefined; i = queue.shift()) {
        const method = methodOf(i);
        const id = await seedSubscription(gateway.ctx, tenantId, {
          method,
          first_due_date: today,
          amount: 1000 + i,
        });
        if (method === 'credit_card') {
          await registerCard(
            gateway.ctx,
            id,
            {
              kind: 'data',
              data: {
                holder: 'CHAOS PAYER',
                number: '4111111111111111',
                expiration: '12/2035',
                securityCode: '123',
              },
            },
            metadata,
          );
        }
        ids.push({ id, method });
      }
    };
    await Promise.all(Array.from({ length: 8 }, work));
  } finally {
    await gateway.close();
  }
  return ids;
}

interface Progress {
  settled: number;
  pending: number;
}

const progress = (databaseUrl: string): Promise<Progress> =>
  withDb(databaseUrl, async (c) => {
    const { rows } = await c.query<{ settled: string; pending: string }>(
      `select count(*) filter (where cycle >= 1 and pending_cycle is null) as settled,
              count(*) filter (where pending_cycle is not null) as pending from subscriptions`,
    );
    return { settled: Number(rows[0]?.settled), pending: Number(rows[0]?.pending) };
  });

export async function runF10(opts: ChaosOptions): Promise<boolean> {
  const dir = scratchDir('f10');
  const databaseUrl = await createChaosDatabase();
  const seeded = await seed(databaseUrl, [
    { name: 'merchant', keys: [{ name: 'test', scopes: ['boleto:write'] }] },
  ]);
  const tenantId = seeded.tenants.merchant?.tenantId;
  if (!tenantId) throw new Error('seed failed');
  const today = saoPauloDate(new Date());
  const started = Date.now();
  const subs = await seedSubscriptions(databaseUrl, tenantId, today);
  log(`F10: ${subs.length} subscriptions due ${today} seeded in ${fmt((Date.now() - started) / 1000, 1)} s`);

  const workers = await Promise.all(
    Array.from(
      { length: WORKERS },
      async (_, i) =>
        new RoleProcess(
          `worker-${i}`,
          'worker',
          gatewayEnv(databaseUrl, await freePort(), {
            SUBSCRIPTION_SCHEDULER_INTERVAL_MS: '1000',
            DATABASE_POOL_SIZE: '8',
          }),
          dir,
        ),
    ),
  );
  await Promise.all(workers.map((w) => w.start()));
  log(`F10: ${WORKERS} workers running the scheduler`);

  // Kill phase: a worker every 1.5-3 s, restarted at once, while cycles are being issued.
  const killUntil = Date.now() + opts.seconds * 1000;
  let kills = 0;
  let killsDuringEmission = 0;
  let seen = await progress(databaseUrl);
  while (Date.now() < killUntil && seen.settled < subs.length) {
    await sleep(1500 + Math.floor(Math.random() * 1500));
    const victim = workers[Math.floor(Math.random() * workers.length)] as RoleProcess;
    seen = await progress(databaseUrl);
    if (seen.settled < subs.length) killsDuringEmission++;
    await victim.kill('SIGKILL');
    kills++;
    await victim.start();
  }
  log(`F10: ${kills} SIGKILLs (${killsDuringEmission} with cycles still to issue); draining`);

  // Drain: rows a killed worker held come back after the claim's hold.
  const drainUntil = Date.now() + DRAIN_MS;
  while (Date.now() < drainUntil) {
    seen = await progress(databaseUrl);
    if (seen.settled === subs.length && seen.pending === 0) break;
    await sleep(1000);
  }
  const elapsed = (Date.now() - started) / 1000;
  await Promise.all(workers.map((w) => w.kill('SIGKILL')));

  const counts = await withDb(databaseUrl, async (c) => {
    const one = async (q: string, params: unknown[] = []) =>
      Number((await c.query(q, params)).rows[0]?.n ?? 0);
    // Every cycle's reference is `sub_` + the subscription id (itself `sub_…`).
    const refs = 'sub_sub_';
    return {
      cycleStreams: await one(
        `select count(*) as n from streams where stream_id like 'cycle-sub_%' and stream_id like $1`,
        [`%-${today}`],
      ),
      cycleRows: await one(`select count(*) as n from subscription_cycles where due_date = $1`, [today]),
      cyclesPerSub: await one(
        `select count(*) as n from (select subscription_id from subscription_cycles group by subscription_id having count(*) > 1) x`,
      ),
      created: await one(`select count(*) as n from subscription_cycles where status = 'created'`),
      attention: await one(`select count(*) as n from subscription_cycles where status = 'attention'`),
      pendingCycles: await one(`select count(*) as n from subscription_cycles where status = 'pending'`),
      skipped: await one(`select count(*) as n from subscription_cycles where status = 'skipped'`),
      chargeRefs: await one(
        `select count(distinct reference) as n from transactions where reference like $1 and reference like $2`,
        [`${refs}%`, `%:${today}`],
      ),
      charges: await one(`select count(*) as n from transactions where reference like $1`, [`${refs}%`]),
      chargeDuplicates: await one(
        `select count(*) as n from (select reference from transactions group by reference having count(*) > 1) x`,
      ),
      checkoutRefs: await one(
        `select count(distinct reference) as n from checkouts where reference like $1 and reference like $2`,
        [`${refs}%`, `%:${today}`],
      ),
      checkouts: await one(`select count(*) as n from checkouts where reference like $1`, [`${refs}%`]),
      settled: await one(`select count(*) as n from subscriptions where cycle = 1 and pending_cycle is null`),
    };
  });
  const charged = subs.filter((s) => s.method !== 'pix').length;
  const linked = subs.length - charged;
  const exits = workers.flatMap((w) => w.unexpectedExits);

  const verdicts: Verdict[] = [
    {
      check: 'SIGKILLs of scheduler workers while cycles were still to issue',
      target: '>= 3',
      measured: `${kills} kills, ${killsDuringEmission} during emission`,
      ok: killsDuringEmission >= 3,
    },
    {
      check: 'due cycles recorded exactly once (stream and row per subscription and date)',
      target: `${subs.length} / ${subs.length}, 0 doubles`,
      measured: `${counts.cycleStreams} streams, ${counts.cycleRows} rows, ${counts.cyclesPerSub} doubles`,
      ok:
        counts.cycleStreams === subs.length && counts.cycleRows === subs.length && counts.cyclesPerSub === 0,
    },
    {
      check: 'no cycle lost: every subscription settled its cycle, none pending',
      target: `${subs.length} settled, 0 pending`,
      measured: `${counts.settled} settled, ${counts.pendingCycles} pending, ${counts.skipped} skipped`,
      ok: counts.settled === subs.length && counts.pendingCycles === 0 && counts.skipped === 0,
    },
    {
      check: 'boleto and card charges: one per reference sub_<id>:<due>',
      target: `${charged} references, ${charged} charges, 0 twice`,
      measured: `${counts.chargeRefs} references, ${counts.charges} charges, ${counts.chargeDuplicates} twice`,
      ok: counts.chargeRefs === charged && counts.charges === charged && counts.chargeDuplicates === 0,
    },
    {
      check: 'Pix links: one checkout per reference',
      target: `${linked} / ${linked}`,
      measured: `${counts.checkoutRefs} references, ${counts.checkouts} checkouts`,
      ok: counts.checkoutRefs === linked && counts.checkouts === linked,
    },
    {
      check: 'cycles created / attention (a kill between reservation and outcome: payment_processing)',
      target: 'informational',
      measured: `${counts.created} created, ${counts.attention} attention`,
      ok: true,
      informational: true,
    },
    {
      check: 'unexpected worker exits',
      target: '0',
      measured: fmt(exits.length),
      ok: exits.length === 0,
    },
  ];
  log(`F10: ${fmt(elapsed, 1)} s from seeding to the end; scratch ${dir}; database ${databaseUrl}`);
  return printVerdicts('F10 scheduler workers killed during emission', verdicts);
}
