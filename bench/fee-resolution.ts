/**
 * `npm run bench -- fee-resolution` (issue 28 item 7): `POST /v1/pix` by a tenant at depth 5 of a tree (a fee
 * version of its own and one at each of its four ancestors) against the same request by a tenant at depth 1
 * (one version, its own), and `GET /health`, on one gateway process, interleaved, ABBA order. Each side's
 * CPU per request (gateway + the database's PostgreSQL backends, from /proc) and their ratio, medians of
 * --runs; then a counting pass: the depth-5 creation must make no more round trips than the depth-1 one
 * (the whole ancestor chain's fees are one SQL read, src/commands/fee-schedules/resolve.ts).
 */
import { saoPauloDate } from '../src/aggregates/business-date.ts';
import { type HttpBenchOptions, PIX_BODY, startHttpBench } from './create-pix.ts';
import type { GatewayProcess, LoadRun } from './http-server.ts';
import { pairedCreationRuns, postData } from './paired-creation.ts';
import { type BenchOptions, fmt } from './support.ts';
import type { WireFigures } from './wire-pass.ts';

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

/** Through the panel API: a chain of DEPTH tenants with a Pix version each, and one lone tenant with one. */
async function seedTrees(
  gateway: GatewayProcess,
): Promise<{ deepKey: string; flatKey: string; expected: Record<string, number> }> {
  const session = await postData(gateway, '/admin/sessions', ADMIN, {});
  const auth = { authorization: `Bearer ${String(session.token)}` };
  const type = await postData(
    gateway,
    '/admin/tenant-types',
    { name: 'bench fees', allows_children: true },
    auth,
  );
  const today = saoPauloDate(new Date());
  const tenant = async (name: string, parent: string | null) => {
    const t = await postData(
      gateway,
      '/admin/tenants',
      { name, type_id: type.id, ...(parent ? { parent_id: parent } : {}) },
      auth,
    );
    await postData(
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
    const k = await postData(
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
      const t = await postData(gateway, '/v1/pix', JSON.parse(PIX_BODY), { 'x-api-key': key });
      if (t.retained_amount !== expected[side]) {
        throw new Error(`${side}: retained_amount ${String(t.retained_amount)}, expected ${expected[side]}`);
      }
      console.log(
        `${side}: one creation, retained_amount ${String(t.retained_amount)} (split ${JSON.stringify(t.split)})`,
      );
    }
    const paired = await pairedCreationRuns(
      { opts, http, bench, gateway, env },
      { path: '/v1/pix', body: PIX_BODY },
      [
        { name: 'depth5', key: deepKey },
        { name: 'depth1', key: flatKey },
      ],
    );
    const report: FeeResolutionReport = {
      deep: paired.runs[0],
      flat: paired.runs[1],
      health: paired.health,
      ratio: paired.ratio,
      gatewayRatio: paired.gatewayRatio,
      medianDeepCpuUs: paired.medianCpuUs[0],
      medianFlatCpuUs: paired.medianCpuUs[1],
      medianHealthCpuUs: paired.medianHealthCpuUs,
      wire: paired.wire,
    };
    const deepTrips = paired.wire['POST /v1/pix depth5']?.roundTrips ?? Number.NaN;
    const flatTrips = paired.wire['POST /v1/pix depth1']?.roundTrips ?? Number.NaN;
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
