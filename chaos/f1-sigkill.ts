/**
 * F1 (issue 7): SIGKILL the gateway every 3 to 5 s during a create load whose client retries with the same
 * Idempotency-Keys. Afterwards every acknowledged charge exists exactly once, no charge exists twice, and
 * `calebe audit replay --all` reports 0 differences. Nothing is rebuilt by hand: each restart applies
 * migrations and catches projections up by itself.
 *
 * The reconciler runs with its shortest timeout (RECONCILE_AFTER_SECONDS=30, checked every second), so a
 * charge whose process died between its reservation and the provider's answer becomes `unknown` within
 * about 30 s and its client's next retry is acknowledged (200 with that record) instead of 202 forever.
 */
import { median } from '../bench/support.ts';
import {
  ackedOnceVerdict,
  auditReplay,
  auditVerdict,
  type ChaosOptions,
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
  scratchDir,
  seed,
  sigkillSupervisor,
  type Verdict,
} from './support.ts';

/** After the load ends, keys in flight are retried this long (covers the 30 s reconciler timeout). */
const DRAIN_MS = 90_000;

export async function runF1(opts: ChaosOptions): Promise<boolean> {
  const dir = scratchDir('f1');
  const databaseUrl = await createChaosDatabase();
  const seeded = await seed(databaseUrl, [
    { name: 'merchant', keys: [{ name: 'writer', scopes: ['pix:write', 'transactions:read'] }] },
  ]);
  const tenant = seeded.tenants.merchant;
  if (!tenant?.keys.writer) throw new Error('seed failed');
  const port = await freePort();
  const gateway = new GatewayProcess(
    gatewayEnv(databaseUrl, port, { RECONCILE_AFTER_SECONDS: '30', RECONCILE_INTERVAL_MS: '1000' }),
    dir,
  );
  await gateway.start();
  log(`F1: gateway on ${gateway.baseUrl}, database ${new URL(databaseUrl).pathname.slice(1)}`);

  const started = Date.now();
  const loadUntil = started + opts.seconds * 1000;
  const prefix = `f1${started.toString(36)}`;
  const supervisor = sigkillSupervisor(gateway, { until: loadUntil, minMs: 3_000, maxMs: 5_000 });
  const { restarts, uptimes } = supervisor;
  const load = idempotentCreateLoad({
    baseUrl: () => gateway.baseUrl,
    apiKey: tenant.keys.writer.key,
    workers: opts.workers,
    prefix,
    loadUntil,
    drainUntil: loadUntil + DRAIN_MS,
    abort: () => gateway.child === undefined,
  });
  const loadResult = await load.finally(() => supervisor.stop());
  await supervisor.join();
  const kills = uptimes.length;
  const elapsed = (Date.now() - started) / 1000;
  log(
    `F1: ${loadResult.requests} requests, ${loadResult.acked.length} acknowledged, ${kills} SIGKILLs in ${fmt(elapsed)} s`,
  );
  await gateway.stop();

  const ledger = await checkLedger(databaseUrl, tenant.tenantId, loadResult, prefix);
  const audit = auditReplay(databaseUrl);
  const ackedAs = new Map<string, number>();
  for (const a of loadResult.acked) {
    const k = `${a.status} ${a.txnStatus}`;
    ackedAs.set(k, (ackedAs.get(k) ?? 0) + 1);
  }

  console.log('\nF1: load');
  printTable(
    ['figure', 'value'],
    [
      ['load seconds (new keys)', fmt(opts.seconds)],
      ['workers', fmt(opts.workers)],
      ['SIGKILLs', fmt(kills)],
      ['restart to /health, median / max ms', `${fmt(median(restarts))} / ${fmt(Math.max(...restarts))}`],
      ['requests sent', fmt(loadResult.requests)],
      ['answers by status (0 = connection error)', loadResult.answers.toString()],
      ['keys sent', fmt(loadResult.attempted)],
      ['keys acknowledged', fmt(loadResult.acked.length)],
      ['acknowledged as (status, charge status)', [...ackedAs].map(([k, v]) => `${k}: ${v}`).join(', ')],
      ['keys never acknowledged (drain over)', fmt(loadResult.unacked.length)],
      ['transaction rows / streams', `${ledger.rows} / ${ledger.streams}`],
      ['final charge statuses', ledger.statuses.toString()],
      ['audit replay', `exit ${audit.code}: ${audit.summary}`],
    ],
  );
  if (loadResult.unexpected.length > 0) console.log('unexpected answers:', loadResult.unexpected.slice(0, 5));
  if (ledger.ackedMissing.length > 0)
    console.log('missing acknowledged keys:', ledger.ackedMissing.slice(0, 10));

  const verdicts: Verdict[] = [
    {
      check: 'gateway SIGKILLed during the load',
      target: '3-5 s after every restart',
      measured: `${kills} kills, up ${fmt(Math.min(...uptimes) / 1000, 1)}-${fmt(Math.max(...uptimes) / 1000, 1)} s each`,
      ok: kills >= 2 && uptimes.every((u) => u <= 5_500),
    },
    ackedOnceVerdict(ledger, loadResult),
    {
      check: 'references charged twice',
      target: '0',
      measured: fmt(ledger.duplicateReferences),
      ok: ledger.duplicateReferences === 0,
    },
    {
      check: 'charges not created by the load',
      target: '0',
      measured: fmt(ledger.strangers),
      ok: ledger.strangers === 0,
    },
    {
      check: 'charges per key sent',
      target: '<= 1 (rows <= keys sent)',
      measured: `${ledger.rows} rows for ${loadResult.attempted} keys`,
      ok: ledger.rows <= loadResult.attempted,
    },
    {
      check: 'read model rows = transaction streams',
      target: 'equal',
      measured: `${ledger.rows} / ${ledger.streams}`,
      ok: ledger.rows === ledger.streams,
    },
    ...drainVerdicts(loadResult),
    {
      check: 'gateway exits other than the SIGKILLs',
      target: '0',
      measured: fmt(gateway.unexpectedExits.length),
      ok: gateway.unexpectedExits.length === 0,
    },
    auditVerdict(audit, ledger),
  ];
  return printVerdicts('F1 SIGKILL during create load', verdicts);
}
