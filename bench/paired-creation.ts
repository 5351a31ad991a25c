/**
 * The A/B form of the issue 28 benches (fee-resolution, marketplace-issuance): one creation request sent with
 * two keys that differ in one way, against each other and `GET /health`, on one gateway process,
 * interleaved in ABBA order; each side's CPU per request and their ratio, medians of --runs; then a
 * counting pass of each side's round trips.
 */
import { randomBytes } from 'node:crypto';
import { describeRun, type HttpBenchOptions, printPairedRuns } from './create-pix.ts';
import { type GatewayProcess, type LoadRun, type LoadSpec, loadRun } from './http-server.ts';
import { type BenchDatabase, type BenchOptions, median, settle } from './support.ts';
import { type WireFigures, wirePass } from './wire-pass.ts';

/** One side: its name in the tables and the key its requests carry. */
export interface CreationSide {
  readonly name: string;
  readonly key: string;
}

export interface PairedCreation {
  readonly runs: readonly [LoadRun[], LoadRun[]];
  readonly health: LoadRun[];
  /** Median over runs of side A's CPU / side B's CPU per request (gateway + PostgreSQL). */
  readonly ratio: number;
  readonly gatewayRatio: number;
  readonly medianCpuUs: readonly [number, number];
  readonly medianHealthCpuUs: number;
  /** Keyed `POST <path> <side name>`. */
  readonly wire: Record<string, WireFigures>;
}

/** A setup POST through the public or panel API: its `data`, or the answer's text in the error. */
export async function postData(
  gateway: GatewayProcess,
  path: string,
  body: unknown,
  headers: Record<string, string>,
): Promise<Record<string, unknown>> {
  const res = await fetch(`${gateway.url}${path}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'idempotency-key': randomBytes(8).toString('hex'),
      ...headers,
    },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${path} answered ${res.status}: ${text.slice(0, 300)}`);
  return (JSON.parse(text) as { data: Record<string, unknown> }).data;
}

export async function pairedCreationRuns(
  setting: {
    opts: BenchOptions;
    http: HttpBenchOptions;
    bench: BenchDatabase;
    gateway: GatewayProcess;
    env: Record<string, string>;
  },
  request: { path: string; body: string },
  sides: readonly [CreationSide, CreationSide],
): Promise<PairedCreation> {
  const { opts, http, bench, gateway, env } = setting;
  let seq = 0;
  const prefix = `pair-${randomBytes(4).toString('hex')}`;
  const post = (side: CreationSide, label: string) => ({
    method: 'POST' as const,
    path: request.path,
    headers: { 'content-type': 'application/json', 'x-api-key': side.key },
    body: request.body,
    perRequestHeaders: () => ({ 'idempotency-key': `${prefix}-${label}-${side.name}-${seq++}` }),
  });
  const base = { url: gateway.url, connections: opts.clients, server: gateway, database: bench.name };
  const specs: Omit<LoadSpec, 'seconds'>[] = [
    { ...base, ...post(sides[0], 'load') },
    { ...base, ...post(sides[1], 'load') },
    { ...base, method: 'GET', path: '/health', headers: {}, amount: 2_000 },
  ];
  const names = [sides[0].name, sides[1].name, 'health'];
  for (const i of [0, 1]) {
    if (opts.warmup <= 0) break;
    const warm = await loadRun({ ...(specs[i] as LoadSpec), seconds: opts.warmup });
    console.log(describeRun(`warm-up ${names[i]} (discarded)`, warm));
  }
  const runs: LoadRun[][] = [[], [], []];
  for (let run = 1; run <= opts.runs; run++) {
    for (const i of run % 2 === 1 ? [0, 1, 2] : [2, 1, 0]) {
      await settle(bench);
      const r = await loadRun({ ...(specs[i] as LoadSpec), seconds: opts.seconds });
      runs[i]?.push(r);
      console.log(describeRun(`run ${run} ${names[i]}`, r));
    }
  }
  const [a = [], b = [], health = []] = runs;
  const paired = printPairedRuns([sides[0].name, sides[1].name], a, b, health);
  const wire = await wirePass(
    bench.url,
    Object.fromEntries(sides.map((side) => [`POST ${request.path} ${side.name}`, post(side, 'wire')])),
    { role: http.role, env },
  );
  const cpu = (r: readonly LoadRun[]) => median(r.map((x) => x.totalCpuUs));
  return {
    runs: [a, b],
    health,
    ratio: paired.ratio,
    gatewayRatio: paired.gatewayRatio,
    medianCpuUs: [cpu(a), cpu(b)],
    medianHealthCpuUs: cpu(health),
    wire,
  };
}
