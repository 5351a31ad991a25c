/**
 * `npm run bench -- fee-resolution` (issue 28 item 7): `POST /v1/pix` by a tenant at depth 5 of a tree (a fee
 * version of its own and one at each of its four ancestors) against the same request by a tenant at depth 1
 * (one version, its own), and `GET /health`, on one gateway process, interleaved, ABBA order. Each side's
 * CPU per request (gateway + the database's PostgreSQL backends, from /proc) and their ratio, medians of
 * --runs; then a counting pass: the depth-5 creation must make no more round trips than the depth-1 one
 * (the whole ancestor chain's fees are one SQL read, src/commands/fee-schedules/resolve.ts).
 */
import { randomBytes } from 'node:crypto';
import { saoPauloDate } from '../src/aggregates/business-date.ts';
import {
  describeRun,
  type HttpBenchOptions,
  PIX_BODY,
  printPairedRuns,
  startHttpBench,
} from './create-pix.ts';
import { type GatewayProcess, type LoadRun, type LoadSpec, loadRun } from './http-server.ts';
import { type BenchOptions, fmt, median, settle } from './support.ts';
import { type WireFigures, wirePass } from './wire-pass.ts';

const ADMIN = { email: 'bench-admin@example.com', password: 'bench admin password 0123' };
const DEPTH = 5;
/** Each level's Pix version: 0.25% + 1 centavo, so fees stay far below the bench amount. */
const LEVEL_FEE = { percent_bps: 25, fixed_amount: 1 };

export interface FeeResolutionReport {
  deep: LoadRun[];
  flat: LoadRun[];
  health: LoadRun[];
  /** Median over runs of depth-5 CPU / depth-1 CPU per request (gateway + PostgreSQL). */
  ratio: number;
  gatewayRatio: number;
  medianDeepCpuUs: number;
  medianFlatCpuUs: number;
  medianHealthCpuUs: number;
  wire: Record<string, WireFigures>;
}

type Side = 'deep' | 'flat' | 'health';

async function call(gateway: GatewayProcess, path: string, body: unknown, headers: Record<string, string>) {
  const res = await fetch(`${gateway.url}${path}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'idempotency-key': randomBytes(8).toString('hex'),
      ...headers,
    },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${path} answered ${res.status}: ${text.slice(0, 300)}`);
  return (JSON.parse(text) as { data: Record<string, unknown> }).data;
}

/** Through the panel API: a chain of DEPTH tenants with a Pix version each, and one lone tenant with one. */
async function seedTrees(
  gateway: GatewayProcess,
): Promise<{ deepKey: string; flatKey: string; expected: Record<string, number> }> {
  const session = await call(gateway, '/admin/sessions', ADMIN, {});
  const auth = { authorization: `Bearer ${String(session.token)}` };
  const type = await call(
    gateway,
    '/admin/tenant-types',
    { name: 'bench fees', allows_children: true },
    auth,
  );
  const today = saoPauloDate(new Date());
  const tenant = async (name: string, parent: string | null) => {
    const t = await call(
      gateway,
      '/admin/tenants',
      { name, type_id: type.id, ...(parent ? { parent_id: parent } : {}) },
      auth,
    );
    await call(
      gateway,
      '/admin/fee-schedules',
      { tenant_id: t.id, method: 'pix', starts_on: today, ...LEVEL_FEE },
      auth,
    );
    return String(t.id);
  };
  let parent: string | null = null;
  for (let level = 1; level <= DEPTH; level++) parent = await tenant(`level ${level}`, parent);
  const flat = await tenant('lone', null);
  const key = async (tenantId: string) => {
    const k = await call(
      gateway,
      '/admin/api-keys',
      { tenant_id: tenantId, mode: 'test', scopes: ['pix:write', 'transactions:read'], name: 'bench' },
      auth,
    );
    return String(k.key);
  };
  const amount = (JSON.parse(PIX_BODY) as { amount: number }).amount;
  const level = Math.floor((amount * LEVEL_FEE.percent_bps + 5_000) / 10_000) + LEVEL_FEE.fixed_amount;
  return {
    deepKey: await key(parent as string),
    flatKey: await key(flat),
    expected: { deep: DEPTH * level, flat: level },
  };
}

export async function benchFeeResolution(
  opts: BenchOptions,
  http: HttpBenchOptions,
): Promise<FeeResolutionReport> {
  const env = { BOOTSTRAP_ADMIN_EMAIL: ADMIN.email, BOOTSTRAP_ADMIN_PASSWORD: ADMIN.password };
  const { bench, gateway } = await startHttpBench(
    `fee-resolution (issue 28 item 7): POST /v1/pix at depth ${DEPTH} vs depth 1 vs GET /health`,
    opts,
    http,
    env,
  );
  try {
    const { deepKey, flatKey, expected } = await seedTrees(gateway);
    // One creation each before any load: the fees must be those of every level.
    for (const [side, key] of [
      ['deep', deepKey],
      ['flat', flatKey],
    ] as const) {
      const t = await call(gateway, '/v1/pix', JSON.parse(PIX_BODY), { 'x-api-key': key });
      if (t.retained_amount !== expected[side]) {
        throw new Error(`${side}: retained_amount ${String(t.retained_amount)}, expected ${expected[side]}`);
      }
      console.log(
        `${side}: one creation, retained_amount ${String(t.retained_amount)} (split ${JSON.stringify(t.split)})`,
      );
    }
    let seq = 0;
    const prefix = `b28-${randomBytes(4).toString('hex')}`;
    const base = { url: gateway.url, connections: opts.clients, server: gateway, database: bench.name };
    const pix = (key: string, label: string): Omit<LoadSpec, 'seconds'> => ({
      ...base,
      method: 'POST',
      path: '/v1/pix',
      headers: { 'content-type': 'application/json', 'x-api-key': key },
      body: PIX_BODY,
      perRequestHeaders: () => ({ 'idempotency-key': `${prefix}-${label}-${seq++}` }),
    });
    const specs: Record<Side, Omit<LoadSpec, 'seconds'>> = {
      deep: pix(deepKey, 'deep'),
      flat: pix(flatKey, 'flat'),
      health: { ...base, method: 'GET', path: '/health', headers: {}, amount: 2_000 },
    };
    if (opts.warmup > 0) {
      for (const side of ['deep', 'flat'] as const) {
        console.log(
          describeRun(`warm-up ${side} (discarded)`, await loadRun({ ...specs[side], seconds: opts.warmup })),
        );
      }
    }
    const runs: Record<Side, LoadRun[]> = { deep: [], flat: [], health: [] };
    for (let run = 1; run <= opts.runs; run++) {
      const order: readonly Side[] = run % 2 === 1 ? ['deep', 'flat', 'health'] : ['health', 'flat', 'deep'];
      for (const side of order) {
        await settle(bench);
        const r = await loadRun({ ...specs[side], seconds: opts.seconds });
        runs[side].push(r);
        console.log(describeRun(`run ${run} ${side}`, r));
      }
    }
    const paired = printPairedRuns(['depth5', 'depth1'], runs.deep, runs.flat, runs.health);
    let wireSeq = 0;
    const wireRequest = (key: string, label: string) => ({
      method: 'POST' as const,
      path: '/v1/pix',
      headers: { 'content-type': 'application/json', 'x-api-key': key },
      body: PIX_BODY,
      perRequestHeaders: () => ({ 'idempotency-key': `${prefix}-wire-${label}-${wireSeq++}` }),
    });
    const wire = await wirePass(
      bench.url,
      {
        'POST /v1/pix depth 5': wireRequest(deepKey, 'deep'),
        'POST /v1/pix depth 1': wireRequest(flatKey, 'flat'),
      },
      { role: http.role, env },
    );
    const m = (side: Side, f: (r: LoadRun) => number) => median(runs[side].map(f));
    const report: FeeResolutionReport = {
      deep: runs.deep,
      flat: runs.flat,
      health: runs.health,
      ratio: paired.ratio,
      gatewayRatio: paired.gatewayRatio,
      medianDeepCpuUs: m('deep', (r) => r.totalCpuUs),
      medianFlatCpuUs: m('flat', (r) => r.totalCpuUs),
      medianHealthCpuUs: m('health', (r) => r.totalCpuUs),
      wire,
    };
    const deepTrips = wire['POST /v1/pix depth 5']?.roundTrips ?? Number.NaN;
    const flatTrips = wire['POST /v1/pix depth 1']?.roundTrips ?? Number.NaN;
    console.log(
      `\nmedian CPU per request: depth 5 ${fmt(report.medianDeepCpuUs)} µs; depth 1 ${fmt(report.medianFlatCpuUs)} µs; /health ${fmt(
        report.medianHealthCpuUs,
      )} µs; depth5/depth1 median of the runs' ratios ${fmt(report.ratio, 2)} (gateway alone ${fmt(report.gatewayRatio, 2)}); round trips per creation: depth 5 ${fmt(
        deepTrips,
        2,
      )}, depth 1 ${fmt(flatTrips, 2)} (${deepTrips <= flatTrips ? 'no query per level' : 'MORE at depth 5'})`,
    );
    return report;
  } finally {
    await gateway.stop();
    await bench.drop();
  }
}
