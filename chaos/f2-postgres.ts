/**
 * F2 (issue 7): PostgreSQL restarted during load. The gateway runs against a PostgreSQL 15 cluster of this
 * scenario's own (never the machine's shared server), which is stopped (`pg_ctl stop -m fast`) and started
 * again twice while a create load retries with the same Idempotency-Keys and a probe reads `/ready` every
 * 200 ms. Checks: `/ready` answers `503 not_ready` while the database is down (and 200 again after), every
 * error answer is an envelope with a SPEC 7 (status, code) pair, the gateway process never exits, and every
 * acknowledged charge is there afterwards exactly once (and `audit replay` agrees).
 */
import { performance } from 'node:perf_hooks';
import {
  type Answer,
  ackedOnceVerdict,
  auditReplay,
  auditVerdict,
  background,
  type ChaosOptions,
  Counter,
  call,
  checkLedger,
  createChaosDatabase,
  drainVerdicts,
  fmt,
  freePort,
  GatewayProcess,
  gatewayEnv,
  idempotentCreateLoad,
  log,
  printTable,
  printVerdicts,
  ScratchPostgres,
  SPEC7_CODES,
  scratchDir,
  seed,
  sleep,
  type Verdict,
} from './support.ts';

/** Seconds down per outage (at most: 15% of the load in short runs); two outages, at 1/5 and 3/5 of the load. */
const DOWN_SECONDS = 8;
/** A /ready answer this long after the stop counts as "while down" (the in-flight probe may predate it). */
const GRACE_MS = 2_500;
const DRAIN_MS = 90_000;

interface Probe {
  at: number;
  /** When the answer came (a probe begun just before the start may be answered after it). */
  end: number;
  status: number;
  code: string;
}

export async function runF2(opts: ChaosOptions): Promise<boolean> {
  const dir = scratchDir('f2');
  const postgres = await ScratchPostgres.create();
  log(`F2: own PostgreSQL 15 on 127.0.0.1:${postgres.port} (${postgres.dir})`);
  const databaseUrl = await createChaosDatabase(postgres.adminUrl);
  const seeded = await seed(databaseUrl, [
    { name: 'merchant', keys: [{ name: 'writer', scopes: ['pix:write', 'transactions:read'] }] },
  ]);
  const tenant = seeded.tenants.merchant;
  if (!tenant?.keys.writer) throw new Error('seed failed');
  const gateway = new GatewayProcess(
    gatewayEnv(databaseUrl, await freePort(), {
      RECONCILE_AFTER_SECONDS: '30',
      RECONCILE_INTERVAL_MS: '1000',
    }),
    dir,
  );
  await gateway.start();
  log(`F2: gateway on ${gateway.baseUrl}`);

  const started = Date.now();
  const loadUntil = started + opts.seconds * 1000;
  const prefix = `f2${started.toString(36)}`;
  const outages: { down: number; up: number }[] = [];
  let probing = true;
  const probes: Probe[] = [];
  const prober = background(async () => {
    while (probing) {
      const at = Date.now();
      const a: Answer = await call(gateway.baseUrl, 'GET', '/ready');
      probes.push({ at, end: Date.now(), status: a.status, code: a.code });
      await sleep(200);
    }
  });
  const chaos = background(async () => {
    for (const fraction of [0.2, 0.6]) {
      const wait = started + opts.seconds * 1000 * fraction - Date.now();
      if (wait > 0) await sleep(wait);
      const down = Date.now();
      const t = performance.now();
      postgres.stop('fast');
      log(`F2: PostgreSQL stopped (${fmt(performance.now() - t)} ms)`);
      // 8 s, shorter for short runs so the two outages never overlap (15% of the load each).
      await sleep(Math.min(DOWN_SECONDS, opts.seconds * 0.15) * 1000);
      const upStarted = Date.now();
      postgres.start();
      outages.push({ down, up: upStarted });
      log(`F2: PostgreSQL started again (${fmt(Date.now() - upStarted)} ms)`);
    }
  });
  const loadResult = await idempotentCreateLoad({
    baseUrl: () => gateway.baseUrl,
    apiKey: tenant.keys.writer.key,
    workers: Math.min(opts.workers, 8),
    prefix,
    loadUntil,
    drainUntil: loadUntil + DRAIN_MS,
    abort: () => gateway.child === undefined,
  });
  await chaos.join();
  probing = false;
  await prober.join();
  const exitsDuringRun = [...gateway.unexpectedExits];
  await gateway.stop();
  log(`F2: ${loadResult.requests} requests, ${loadResult.acked.length} acknowledged`);

  // /ready while down: probes sent from GRACE_MS after the stop and answered before the start command.
  const whileDown = probes.filter((p) => outages.some((o) => p.at >= o.down + GRACE_MS && p.end <= o.up));
  const downOk = whileDown.filter((p) => p.status === 503 && p.code === 'not_ready').length;
  // Recovery: first 200 /ready after each start.
  const recoveries = outages.map((o) => {
    const first = probes.find((p) => p.at >= o.up && p.status === 200);
    return first ? first.at - o.up : Number.NaN;
  });
  const readyAfter = probes.filter((p) => p.at > (outages.at(-1)?.up ?? 0) + 10_000);
  const readyAfterOk = readyAfter.filter((p) => p.status === 200).length;

  // Errors of the create load: each an envelope with a SPEC 7 pair; a dropped connection is not an answer.
  const errorPairs = new Counter();
  let outside = 0;
  for (const e of loadResult.errors) {
    const pair = e.status === 0 ? `connection ${e.code}` : `${e.status} ${e.code}`;
    errorPairs.add(pair);
    if (e.status === 0 || !SPEC7_CODES.has(pair)) outside++;
  }
  const probePairs = new Counter();
  for (const p of probes) probePairs.add(`${p.status} ${p.code}`);

  const ledger = await checkLedger(databaseUrl, tenant.tenantId, loadResult, prefix);
  const audit = auditReplay(databaseUrl);

  console.log('\nF2: load');
  printTable(
    ['figure', 'value'],
    [
      ['load seconds', fmt(opts.seconds)],
      [
        'outages',
        outages
          .map((o) => `${fmt((o.down - started) / 1000)} s +${fmt((o.up - o.down) / 1000)} s`)
          .join(', '),
      ],
      ['requests sent', fmt(loadResult.requests)],
      ['answers by status', loadResult.answers.toString()],
      ['error answers (status code)', errorPairs.toString() || 'none'],
      ['/ready answers', probePairs.toString()],
      ['/ready back to 200 after start, ms', recoveries.map((r) => fmt(r)).join(', ')],
      ['keys acknowledged / sent', `${loadResult.acked.length} / ${loadResult.attempted}`],
      ['final charge statuses', ledger.statuses.toString()],
      ['audit replay', `exit ${audit.code}: ${audit.summary}`],
    ],
  );

  const verdicts: Verdict[] = [
    {
      check: '/ready while PostgreSQL is down',
      target: 'all 503 not_ready',
      measured: `${downOk} / ${whileDown.length}`,
      ok: whileDown.length > 0 && downOk === whileDown.length,
    },
    {
      check: '/ready after PostgreSQL is back',
      target: '200 within 10 s of each start, then always',
      measured: `${recoveries.map((r) => `${fmt(r)} ms`).join(', ')}; ${readyAfterOk}/${readyAfter.length} later`,
      ok: recoveries.every((r) => r <= 10_000) && readyAfterOk === readyAfter.length,
    },
    {
      check: 'error answers within SPEC 7 (enveloped)',
      target: 'all',
      measured: `${loadResult.errors.length - outside} / ${loadResult.errors.length}`,
      ok: outside === 0,
    },
    {
      check: 'gateway process exits',
      target: '0',
      measured: fmt(exitsDuringRun.length),
      ok: exitsDuringRun.length === 0,
    },
    ackedOnceVerdict(ledger, loadResult),
    {
      check: 'references charged twice',
      target: '0',
      measured: fmt(ledger.duplicateReferences),
      ok: ledger.duplicateReferences === 0 && ledger.strangers === 0,
    },
    ...drainVerdicts(loadResult),
    auditVerdict(audit, ledger),
  ];
  if (loadResult.unexpected.length > 0) console.log('unexpected answers:', loadResult.unexpected.slice(0, 5));
  if (exitsDuringRun.length > 0) console.log('gateway exits:', exitsDuringRun, gateway.logTail());
  return printVerdicts('F2 PostgreSQL restarted during load', verdicts);
}
