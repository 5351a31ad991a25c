/**
 * F6 (issue 13 item 10): the external provider misbehaving under load while the gateway is killed now and
 * then. The provider emulator runs in this process with a random fault mix (timeouts, resets, 5xx, HasError
 * on HTTP 200, answers the adapter must not believe, queries that lie); the gateway is a child process
 * wired to it with PROVIDER_EMULATOR_URL (sandbox boleto) plus a production provider for Pix, and is
 * SIGKILLed every 3 to 6 s during a load of real-mode creations whose client retries with the same
 * Idempotency-Keys. Then some charges are paid at the emulator, every charge whose local state differs from
 * the emulator's is refreshed (`POST /v1/transactions/{id}/refresh`) until it agrees or the settle window
 * ends, and the reconciler runs throughout. The invariant (SPEC 3.1, 4.1, 4.2, 4.6, 7):
 *
 * - every acknowledged charge exists exactly once at the emulator (by reference = transaction id): a `201`
 *   and a `202 unknown` alike; a `502 provider_rejected` nowhere;
 * - 0 references with two provider charges, 0 provider charges foreign to the load;
 * - every charge ends in the emulator's truth: the emulator's status (and `paid_with`) with its id as
 *   `provider_reference`, or `unknown`/`failed` when the emulator never got it; none left `processing`;
 * - `calebe audit replay --all` 0 differences;
 * - then the race phase (./f6-races.ts, issue 22): 50 refunds at once on paid Pix and 50 due-date changes at
 *   once on open boletos, each with its own key: 0 double provider operations, no 5xx, the gateway and the
 *   emulator agree after a refresh.
 *
 * The faults at creation that lose the answer let the emulator do the work first (the default `commit`),
 * so an uncertain charge always exists remotely and must be found; a 5xx before the work (a request the
 * provider never processed) leaves a charge SPEC 3.1 keeps `unknown` for good and is left to the tests.
 */
import { median } from '../bench/support.ts';
import { createGateway } from '../src/app.ts';
import { createProvider } from '../src/commands/providers/create/handler.ts';
import { providerDeps } from '../src/commands/providers/deps.ts';
import { createRoutingRule } from '../src/commands/routing-rules/create/handler.ts';
import { loadConfig } from '../src/config.ts';
import { createLogger } from '../src/logger.ts';
import type { Fault, Operation } from '../src/providers/emulator/faults.ts';
import { type ProviderEmulator, startProviderEmulator } from '../src/providers/emulator/server.ts';
import { boletoBody } from '../test/support/charges.ts';
import { emulatorControl } from '../test/support/emulator-control.ts';
import { RACE_WIDTH, raceChanges } from './f6-races.ts';
import {
  type Acked,
  auditReplay,
  auditVerdict,
  type ChaosOptions,
  Counter,
  call,
  checkLedger,
  createChaosDatabase,
  fmt,
  freePort,
  GatewayProcess,
  gatewayEnv,
  log,
  onCleanup,
  pixBody,
  printTable,
  printVerdicts,
  scratchDir,
  seed,
  sigkillSupervisor,
  sleep,
  type Verdict,
  withDb,
} from './support.ts';

/** After the load, keys in flight are retried this long (covers the 30 s reconciler timeout). */
const DRAIN_MS = 90_000;
/** After the drain, refreshes bring every charge to the emulator's truth within this window. */
const SETTLE_MS = 60_000;
/** The adapter's call timeout: a `no_answer` or a slow answer becomes `unknown` after it. */
const PROVIDER_TIMEOUT_MS = 2_000;
/** Share of the emulator's open charges paid before the settle phase (so refreshes have news to bring). */
const PAID_SHARE = 0.25;

type Method = 'pix' | 'boleto';

/** mulberry32: the emulator's draws and the payments come from `--seed`, so a run can be repeated. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/**
 * The fault mix, one rule per fault with `times: null` and a probability: about 30 % of creations and 40 %
 * of queries misbehave. Creation faults that lose the answer commit first (the emulator's default);
 * HasError on 200 is a refusal that creates nothing.
 */
type Mix = [probability: number, fault: Fault, commit?: boolean][];

const CREATE_FAULTS: Mix = [
  [0.04, { type: 'no_answer' }],
  [0.03, { type: 'latency', ms: PROVIDER_TIMEOUT_MS + 1_000 }],
  [0.04, { type: 'reset' }],
  [0.02, { type: 'truncate' }],
  [0.02, { type: 'garbage' }],
  // A 503 from in front of the provider after it did the work (the emulator's default is before).
  [0.04, { type: 'http_error', status: 503 }, true],
  [0.04, { type: 'has_error', code: '9100', message: 'Recusado pelo emulador (F6).' }],
  // Lies the adapter must not believe: an unknown status, a broken boleto line or Pix code. The answer names
  // the provider's id, so the charge is `unknown` with its provider_reference.
  [0.03, { type: 'status', status: 99 }],
  [0.03, { type: 'artifacts', field: 'line' }],
  [0.03, { type: 'artifacts', field: 'pix' }],
];
const QUERY_FAULTS: Mix = [
  [0.04, { type: 'no_answer' }],
  [0.04, { type: 'reset' }],
  [0.05, { type: 'http_error', status: 500 }],
  [0.04, { type: 'has_error', code: '9101', message: 'Consulta recusada (F6).' }],
  [0.02, { type: 'garbage' }],
  // Queries disagreeing with the charge (SPEC 4.6: 502 provider_refresh_failed, local state kept).
  [0.04, { type: 'disagree', field: 'amount' }],
  [0.04, { type: 'disagree', field: 'reference' }],
  [0.04, { type: 'disagree', field: 'id' }],
  [0.04, { type: 'status', status: 99 }],
  [0.04, { type: 'status', status: 8 }],
];

/** A creation's acknowledgement: the answer a client stops retrying on. */
type Ack = Acked & { method: Method; kind: 'created' | 'uncertain' | 'refused' | 'replayed' };

interface LoadResult {
  acked: Ack[];
  unacked: string[];
  attempted: number;
  answers: Counter;
  unexpected: string[];
  requests: number;
}

/**
 * Workers creating boletos (even workers: sandbox, through PROVIDER_EMULATOR_URL's rule) and Pix (odd:
 * the production provider), one key after the other, reference = key. A key is acknowledged by `201`,
 * `202` with status `unknown` (the provider's answer was lost: do not charge again), a `200` replay, or
 * `502 provider_rejected`; a connection error, another 5xx, `429` or `202 processing` (the first attempt
 * still in flight, or killed) is retried with the same key and body.
 */
async function providerLoad(opts: {
  baseUrl: () => string;
  apiKey: string;
  workers: number;
  prefix: string;
  loadUntil: number;
  drainUntil: number;
  abort: () => boolean;
}): Promise<LoadResult> {
  const result: LoadResult = {
    acked: [],
    unacked: [],
    attempted: 0,
    answers: new Counter(),
    unexpected: [],
    requests: 0,
  };
  const worker = async (w: number) => {
    const method: Method = w % 2 === 0 ? 'boleto' : 'pix';
    for (let n = 0; Date.now() < opts.loadUntil; n++) {
      const key = `${opts.prefix}-${w}-${n}`;
      const amount = 100 + ((w * 7919 + n * 104_729) % 99_900);
      const body = method === 'pix' ? pixBody(key, amount) : boletoBody({}, { reference: key, amount });
      result.attempted++;
      let backoff = 100;
      let ack: Ack | undefined;
      while (Date.now() < opts.drainUntil && !(Date.now() >= opts.loadUntil && opts.abort())) {
        const a = await call(opts.baseUrl(), 'POST', `/v1/${method}`, {
          headers: { 'x-api-key': opts.apiKey, 'idempotency-key': key },
          json: body,
        });
        result.requests++;
        const data = (a.body as { data?: { id: string; status: string } } | null)?.data;
        result.answers.add(`${a.status}${data ? ` ${data.status}` : a.code === '-' ? '' : ` ${a.code}`}`);
        const base = { key, reference: key, method, status: a.status };
        if (
          data &&
          (a.status === 201 || a.status === 200 || (a.status === 202 && data.status === 'unknown'))
        ) {
          const kind = a.status === 201 ? 'created' : a.status === 200 ? 'replayed' : 'uncertain';
          ack = { ...base, transactionId: data.id, txnStatus: data.status, kind };
          break;
        }
        if (a.status === 502 && a.code === 'provider_rejected') {
          const id = (a.body as { error: { transaction_id: string } }).error.transaction_id;
          ack = { ...base, transactionId: id, txnStatus: 'failed', kind: 'refused' };
          break;
        }
        const retryable = a.status === 0 || a.status === 202 || a.status === 429 || a.status >= 500;
        if (!retryable) {
          result.unexpected.push(`${key}: ${a.status} ${JSON.stringify(a.body).slice(0, 300)}`);
          break;
        }
        await sleep(backoff * (0.5 + Math.random()));
        backoff = Math.min(1_000, backoff * 2);
      }
      if (ack) {
        result.acked.push(ack);
        continue;
      }
      result.unacked.push(key);
      if (Date.now() >= opts.loadUntil) return;
    }
  };
  await Promise.all(Array.from({ length: opts.workers }, (_, w) => worker(w)));
  return result;
}

/** The emulator's charges (control API), as the scenario compares them. */
interface RemoteCharge {
  id: number;
  reference: string;
  method: Method;
  status: number;
  paidWith: 'pix' | 'boleto' | null;
}

async function remoteCharges(emulator: ProviderEmulator): Promise<RemoteCharge[]> {
  const res = await fetch(`${emulator.url}/_emulator/charges`);
  return ((await res.json()) as { charges: RemoteCharge[] }).charges;
}

interface LocalCharge {
  id: string;
  status: string;
  provider_reference: string | null;
  paid_with: string | null;
}

async function localCharges(databaseUrl: string, tenantId: string): Promise<LocalCharge[]> {
  return withDb(databaseUrl, async (c) => {
    const { rows } = await c.query<LocalCharge>(
      'select id, status, provider_reference, paid_with from transactions where tenant_id = $1',
      [tenantId],
    );
    return rows;
  });
}

/**
 * The emulator's truth for one local charge, and whether the gateway agrees: exactly one remote charge with
 * its id as reference gives the status (1 pending, 3 paid with its `paid_with`) and the provider_reference;
 * none means the provider never took it, so only `unknown` (unconfirmed, never charged again) or `failed`
 * agree; two would be a duplicate and agree with nothing.
 */
function agrees(local: LocalCharge, remote: readonly RemoteCharge[]): boolean {
  if (remote.length === 0) return local.status === 'unknown' || local.status === 'failed';
  const [r] = remote;
  if (remote.length > 1 || !r || local.provider_reference !== String(r.id)) return false;
  if (r.status === 1) return local.status === 'pending';
  if (r.status === 3) {
    const paidWith = r.method === 'pix' ? 'pix' : r.paidWith;
    return local.status === 'paid' && local.paid_with === paidWith;
  }
  // Returned by the race phase's refunds.
  if (r.status === 6) return local.status === 'refunded';
  return false;
}

function describeTruth(remote: readonly RemoteCharge[]): string {
  if (remote.length === 0) return 'none at the emulator';
  return remote.map((r) => `${r.id} status ${r.status}${r.paidWith ? ` by ${r.paidWith}` : ''}`).join(', ');
}

/** A production provider on the emulator for the tenant's Pix, with its own rule (issue 13 item 1). */
async function productionPix(
  databaseUrl: string,
  tenantId: string,
  emulator: ProviderEmulator,
): Promise<void> {
  const config = loadConfig({ ...gatewayEnv(databaseUrl, 0), DATABASE_POOL_SIZE: '4' });
  const gateway = await createGateway(config, createLogger('warn'), { bootstrap: false });
  const metadata = { actor: 'system:chaos', request_id: 'req_chaos_seed' };
  try {
    const deps = providerDeps(gateway.ctx);
    const { provider } = await createProvider(
      deps,
      {
        name: 'Emulator (production)',
        kind: 'external',
        environment: 'production',
        enabledMethods: ['pix'],
        isMarketplace: false,
        credentials: { api_key: 'emu-production-key' },
        paymentHost: emulator.paymentUrl,
        apiHost: emulator.apiUrl,
      },
      metadata,
    );
    await createRoutingRule(
      deps,
      { method: 'pix', tenantId, providerId: provider.id, priority: 1, enabled: true },
      metadata,
    );
  } finally {
    await gateway.close();
  }
}

async function installFaults(emulator: ProviderEmulator): Promise<void> {
  const control = emulatorControl(emulator.url);
  const mix: [Operation, Mix][] = [
    ['create', CREATE_FAULTS],
    ['query', QUERY_FAULTS],
    ['query_by_reference', QUERY_FAULTS],
  ];
  for (const [operation, faults] of mix) {
    for (const [probability, fault, commit] of faults) {
      await control.fault({ operation, times: null, probability, fault, ...(commit ? { commit } : {}) });
    }
  }
}

export async function runF6(opts: ChaosOptions): Promise<boolean> {
  const dir = scratchDir('f6');
  const random = seeded(opts.seed);
  const emulator = await startProviderEmulator({ port: 0, host: '127.0.0.1', random });
  onCleanup(() => emulator.close());
  const databaseUrl = await createChaosDatabase();
  const seededTenants = await seed(databaseUrl, [
    {
      name: 'merchant',
      keys: [{ name: 'live', scopes: ['pix:write', 'boleto:write', 'transactions:read'], livemode: true }],
    },
  ]);
  const tenant = seededTenants.tenants.merchant;
  const liveKey = tenant?.keys.live?.key;
  if (!tenant || !liveKey) throw new Error('seed failed');
  await productionPix(databaseUrl, tenant.tenantId, emulator);
  await installFaults(emulator);

  const port = await freePort();
  const gateway = new GatewayProcess(
    gatewayEnv(databaseUrl, port, {
      PROVIDER_EMULATOR_URL: emulator.url,
      PROVIDER_TIMEOUT_MS: String(PROVIDER_TIMEOUT_MS),
      RECONCILE_AFTER_SECONDS: '30',
      RECONCILE_INTERVAL_MS: '1000',
      ALLOW_LIVE_PAYMENTS: 'true',
      ALLOW_UNSCOPED_LIVE_PAYMENTS: 'true',
    }),
    dir,
  );
  await gateway.start();
  log(
    `F6: gateway on ${gateway.baseUrl}, emulator on ${emulator.url}, database ${new URL(databaseUrl).pathname.slice(1)}`,
  );

  // Load with SIGKILLs.
  const started = Date.now();
  const loadUntil = started + opts.seconds * 1000;
  const prefix = `f6${started.toString(36)}`;
  const supervisor = sigkillSupervisor(gateway, { until: loadUntil, minMs: 3_000, maxMs: 6_000 });
  const { restarts, uptimes } = supervisor;
  const load = await providerLoad({
    baseUrl: () => gateway.baseUrl,
    apiKey: liveKey,
    workers: opts.workers,
    prefix,
    loadUntil,
    drainUntil: loadUntil + DRAIN_MS,
    abort: () => gateway.child === undefined,
  }).finally(() => supervisor.stop());
  await supervisor.join();
  const kills = uptimes.length;
  if (!gateway.child) await gateway.start();
  log(`F6: ${load.requests} requests, ${load.acked.length} keys acknowledged, ${kills} SIGKILLs`);

  // The payer pays some of the charges at the emulator; refreshes must bring that news.
  const beforePayments = await remoteCharges(emulator);
  let paidAtEmulator = 0;
  for (const r of beforePayments) {
    if (r.status !== 1 || random() >= PAID_SHARE) continue;
    const to = r.method === 'boleto' && random() < 0.5 ? 'paid_boleto' : 'paid_pix';
    await emulatorControl(emulator.url).move(String(r.id), to);
    paidAtEmulator++;
  }

  // Settle: refresh every charge that disagrees with the emulator until it agrees or the window ends. The
  // query faults stay on, so refreshes meet timeouts, 5xx and lies; the reconciler runs meanwhile.
  const settleStarted = Date.now();
  const refreshAnswers = new Counter();
  const neverReceivedAnswers = new Counter();
  const refreshedOk = new Set<string>();
  const lastAnswer = new Map<string, string>();
  const byReference = (list: readonly RemoteCharge[]) => {
    const m = new Map<string, RemoteCharge[]>();
    for (const r of list) m.set(r.reference, [...(m.get(r.reference) ?? []), r]);
    return m;
  };
  const refresh = async (id: string, into: Counter) => {
    const a = await call(gateway.baseUrl, 'POST', `/v1/transactions/${id}/refresh`, {
      headers: { 'x-api-key': liveKey },
    });
    const data = (a.body as { data?: { status: string } } | null)?.data;
    const label = `${a.status} ${a.code === '-' ? (data?.status ?? '') : a.code}`;
    into.add(label);
    lastAnswer.set(id, label);
    if (a.status === 200) refreshedOk.add(id);
  };

  // Each charge the provider never received gets one refresh, for the record of what it answers.
  {
    const remote = byReference(await remoteCharges(emulator));
    const never = (await localCharges(databaseUrl, tenant.tenantId)).filter(
      (l) => !remote.has(l.id) && (l.status === 'unknown' || l.status === 'processing'),
    );
    for (const l of never) await refresh(l.id, neverReceivedAnswers);
  }
  let passes = 0;
  let disagreeing: LocalCharge[] = [];
  const disagreedAtStart = new Set<string>();
  for (;;) {
    const remote = byReference(await remoteCharges(emulator));
    disagreeing = (await localCharges(databaseUrl, tenant.tenantId)).filter(
      (l) => !agrees(l, remote.get(l.id) ?? []),
    );
    if (passes === 0) for (const l of disagreeing) disagreedAtStart.add(l.id);
    if (disagreeing.length === 0 || Date.now() - settleStarted > SETTLE_MS) break;
    passes++;
    const queue = [...disagreeing];
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        for (let l = queue.shift(); l; l = queue.shift()) await refresh(l.id, refreshAnswers);
      }),
    );
    await sleep(1_000);
  }
  const settleSeconds = (Date.now() - settleStarted) / 1000;

  // Races on settled charges, the gateway up (issue 22): one provider operation per charge.
  const races = await raceChanges({
    baseUrl: gateway.baseUrl,
    apiKey: liveKey,
    emulator,
    charges: (await localCharges(databaseUrl, tenant.tenantId)).flatMap((l) => {
      const method = load.acked.find((a) => a.transactionId === l.id)?.method;
      return method ? [{ id: l.id, status: l.status, method }] : [];
    }),
    prefix,
  });
  await gateway.stop();

  // Post-mortem.
  const remoteList = await remoteCharges(emulator);
  const remote = byReference(remoteList);
  const locals = await localCharges(databaseUrl, tenant.tenantId);
  const localIds = new Set(locals.map((l) => l.id));
  const calls = await emulatorControl(emulator.url).calls();
  // The load's keys are live keys (real-mode charges).
  const ledger = await checkLedger(databaseUrl, tenant.tenantId, load, prefix, true);
  // Last: it blocks this process (and the emulator in it) while the CLI runs.
  const audit = auditReplay(databaseUrl);
  const faultsByOp = new Counter();
  for (const c of calls) if (c.fault) faultsByOp.add(`${c.operation} ${c.fault}`);
  const opCalls = new Counter();
  for (const c of calls) opCalls.add(String(c.operation));

  const of = (kind: Ack['kind']) => load.acked.filter((a) => a.kind === kind);
  const created = of('created');
  const uncertain = of('uncertain');
  const refused = of('refused');
  const countAt = (id: string) => remote.get(id)?.length ?? 0;
  const localOf = new Map(locals.map((l) => [l.id, l]));
  const createdBad = created.filter(
    (a) =>
      countAt(a.transactionId) !== 1 ||
      localOf.get(a.transactionId)?.provider_reference !== String(remote.get(a.transactionId)?.[0]?.id),
  );
  const uncertainBad = uncertain.filter((a) => countAt(a.transactionId) !== 1);
  const refusedBad = refused.filter(
    (a) => countAt(a.transactionId) !== 0 || localOf.get(a.transactionId)?.status !== 'failed',
  );
  const duplicates = [...remote.values()].filter((list) => list.length > 1).length;
  const foreign = remoteList.filter((r) => !localIds.has(r.reference)).length;
  const processing = locals.filter((l) => l.status === 'processing');
  const mismatched = locals.filter((l) => !agrees(l, remote.get(l.id) ?? []));
  const settled = [...disagreedAtStart].filter((id) => !mismatched.some((m) => m.id === id));
  const settledByRefresh = settled.filter((id) => refreshedOk.has(id)).length;
  const statuses = new Counter();
  for (const l of locals) statuses.add(l.status);
  const ackKinds = new Counter();
  for (const a of load.acked) ackKinds.add(`${a.kind} (${a.status} ${a.txnStatus})`);

  console.log('\nF6: load, faults and settlement');
  printTable(
    ['figure', 'value'],
    [
      [
        'load seconds (new keys) / workers',
        `${fmt(opts.seconds)} / ${fmt(opts.workers)} (half boleto sandbox, half Pix production)`,
      ],
      ['SIGKILLs', fmt(kills)],
      ['restart to /health, median / max ms', `${fmt(median(restarts))} / ${fmt(Math.max(...restarts))}`],
      ['creation requests sent', fmt(load.requests)],
      ['answers (status, charge status or code)', load.answers.toString()],
      ['keys sent / acknowledged', `${fmt(load.attempted)} / ${fmt(load.acked.length)}`],
      ['acknowledged as', ackKinds.toString()],
      ['calls at the emulator by operation', opCalls.toString()],
      ['faults injected (operation fault: calls)', faultsByOp.toString()],
      [
        'emulator charges / paid at the emulator before settling',
        `${fmt(remoteList.length)} / ${fmt(paidAtEmulator)}`,
      ],
      ['charges disagreeing with the emulator when settling began', fmt(disagreedAtStart.size)],
      ['refresh answers while settling', refreshAnswers.toString()],
      ['refresh answers of charges the emulator never received', neverReceivedAnswers.toString() || '-'],
      ['settle passes / seconds', `${fmt(passes)} / ${fmt(settleSeconds, 1)}`],
      [
        'settled by a refresh of ours / otherwise',
        `${fmt(settledByRefresh)} / ${fmt(settled.length - settledByRefresh)}`,
      ],
      ['final charge statuses', statuses.toString()],
      ['transaction rows / streams', `${ledger.rows} / ${ledger.streams}`],
      [
        `races: charges raced with ${RACE_WIDTH} at once (refund / due date)`,
        `${fmt(races.refundCharges)} / ${fmt(races.dueDateCharges)}`,
      ],
      ['race answers (operation, status, code)', races.answers.toString()],
      ['audit replay', `exit ${audit.code}: ${audit.summary}`],
    ],
  );
  for (const line of [...races.unexpected, ...races.doubled, ...races.diverging].slice(0, 10)) {
    console.log(`  race: ${line}`);
  }
  if (load.unexpected.length > 0) console.log('unexpected answers:', load.unexpected.slice(0, 5));
  if (mismatched.length > 0) {
    const reasons = new Counter();
    const ackOf = new Map(load.acked.map((a) => [a.transactionId, `${a.status} ${a.txnStatus}`]));
    for (const m of mismatched) {
      const truth = remote.get(m.id) ?? [];
      const how = `answered ${ackOf.get(m.id) ?? '?'}, last refresh ${lastAnswer.get(m.id) ?? 'none'}`;
      const state = `${m.status} (provider_reference ${m.provider_reference === null ? 'null' : 'set'})`;
      const there = truth.length === 0 ? 'none' : `status ${truth.map((t) => t.status).join('+')}`;
      reasons.add(`${state}, emulator ${there}, ${how}`);
    }
    console.log(
      `charges not in the emulator's truth after settling:\n  ${[...reasons.counts].map(([k, v]) => `${v} × ${k}`).join('\n  ')}`,
    );
    for (const m of mismatched.slice(0, 10)) {
      console.log(
        `  ${m.id}: ${m.status}, provider_reference ${m.provider_reference}, paid_with ${m.paid_with}; emulator: ${describeTruth(remote.get(m.id) ?? [])}`,
      );
    }
  }

  const verdicts: Verdict[] = [
    {
      check: 'gateway SIGKILLed during the load',
      target: '3-6 s after every restart',
      measured: `${kills} kills, up ${fmt(Math.min(...uptimes) / 1000, 1)}-${fmt(Math.max(...uptimes) / 1000, 1)} s each`,
      ok: kills >= 2 && uptimes.every((u) => u <= 6_500),
    },
    {
      check: 'faults injected at creation and query',
      target: 'each kind at least once',
      measured: `${fmt(faultsByOp.total())} faulted calls`,
      ok: ['create', 'query'].every((op) =>
        [...faultsByOp.counts.keys()].some((k) => k.startsWith(`${op} `)),
      ),
    },
    {
      check: 'acknowledged keys: claim = answered id = row',
      target: 'all',
      measured: `${ledger.ackedFound} / ${load.acked.length}`,
      ok: ledger.ackedMissing.length === 0 && load.acked.length > 0,
    },
    {
      check: '201: exactly once at the emulator, its id the provider_reference',
      target: 'all',
      measured: `${created.length - createdBad.length} / ${created.length}`,
      ok: createdBad.length === 0,
    },
    {
      check: '202 unknown: exactly once at the emulator',
      target: 'all',
      measured: `${uncertain.length - uncertainBad.length} / ${uncertain.length}`,
      ok: uncertainBad.length === 0,
    },
    {
      check: '502 provider_rejected: failed, nothing at the emulator',
      target: 'all',
      measured: `${refused.length - refusedBad.length} / ${refused.length}`,
      ok: refusedBad.length === 0,
    },
    {
      check: 'references with two provider charges',
      target: '0',
      measured: fmt(duplicates),
      ok: duplicates === 0,
    },
    {
      check: 'provider charges foreign to the load',
      target: '0',
      measured: fmt(foreign),
      ok: foreign === 0,
    },
    {
      check: "charges in the emulator's truth after settling (refresh, reconciler)",
      target: `all, within ${SETTLE_MS / 1000} s`,
      measured: `${locals.length - mismatched.length} / ${locals.length}`,
      ok: mismatched.length === 0,
    },
    {
      check: 'charges left processing',
      target: '0',
      measured: fmt(processing.length),
      ok: processing.length === 0,
    },
    {
      check: 'non-retryable creation answers (4xx other than 429)',
      target: '0',
      measured: fmt(load.unexpected.length),
      ok: load.unexpected.length === 0,
    },
    {
      check: 'keys acknowledged by the end of the drain',
      target: 'all',
      measured: `${load.acked.length} / ${load.attempted}`,
      ok: load.unacked.length === 0,
    },
    {
      check: 'read model rows = transaction streams',
      target: 'equal',
      measured: `${ledger.rows} / ${ledger.streams}`,
      ok: ledger.rows === ledger.streams,
    },
    {
      check: 'gateway exits other than the SIGKILLs',
      target: '0',
      measured: fmt(gateway.unexpectedExits.length),
      ok: gateway.unexpectedExits.length === 0,
    },
    {
      check: `races of ${RACE_WIDTH} refunds / due-date changes at once: operations at the emulator per charge`,
      target: 'refund <= 1; due date = changes answered',
      measured: `${fmt(races.doubled.length)} of ${fmt(races.refundCharges + races.dueDateCharges)} charges off`,
      ok: races.doubled.length === 0 && races.refundCharges > 0 && races.dueDateCharges > 0,
    },
    {
      check: 'race answers other than 200, 202 or the documented 409 (no 5xx)',
      target: '0',
      measured: fmt(races.unexpected.length),
      ok: races.unexpected.length === 0,
    },
    {
      check: 'raced charges agreeing with the emulator after a refresh',
      target: 'all',
      measured: `${fmt(races.refundCharges + races.dueDateCharges - races.diverging.length)} / ${fmt(races.refundCharges + races.dueDateCharges)}`,
      ok: races.diverging.length === 0,
    },
    auditVerdict(audit, ledger),
  ];
  return printVerdicts('F6 provider faults and SIGKILL', verdicts);
}
