/**
 * `npm run bench -- profile-create` (issue 14): the B1 load (POST /v1/pix, fresh key per request) against a
 * `calebe serve` child running under `node --cpu-prof`, then the profile summarized: top functions by self
 * time and self time by area (a package under node_modules, a folder of src/, node internals, GC). Only the
 * samples taken during the measured run count (the profile's clock is the monotonic clock this process
 * reads too), so start-up, bootstrap and warm-up stay out.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeRun, type HttpBenchOptions, PIX_BODY, pixHeaders, startHttpBench } from './create-pix.ts';
import { loadRun } from './http-server.ts';
import { type BenchOptions, fmt, printTable } from './support.ts';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
export interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

export interface ProfileSummary {
  /** Sampled µs in the window, idle excluded. */
  busyUs: number;
  top: { name: string; where: string; selfUs: number; share: number }[];
  areas: { area: string; selfUs: number; share: number }[];
  /** This tree's own functions (src/) by inclusive time: samples with the function anywhere on the stack. */
  inclusive: { name: string; where: string; totalUs: number; share: number }[];
}

/** A stretch of the profile's clock (µs, the monotonic clock `process.hrtime` reads) whose samples count. */
export interface ProfileWindow {
  fromUs: number;
  toUs: number;
}

function areaOf(url: string, name: string): string {
  if (name === '(garbage collector)') return 'GC';
  if (name === '(program)') return '(program)';
  if (url === '') return `native: ${name || '(anonymous)'}`;
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1] as string;
  const own = /\/(src|bench)\/(.+)\/[^/]+$/.exec(url) ?? /\/(src|bench)\/([^/]+)$/.exec(url);
  if (own) return `${own[1]}/${(own[2] as string).split('/')[0]}`;
  if (url.startsWith('node:')) return `node:${url.slice(5).split('/')[0]}`;
  return url;
}

/** Self time per function and per area of `profile`, counting samples between `fromUs` and `toUs`. */
export function summarizeProfile(
  profile: CpuProfile,
  fromUs: number,
  toUs: number,
  top = 30,
): ProfileSummary {
  return summarizeWindows(profile, [{ fromUs, toUs }], top);
}

function whereOf(node: ProfileNode): string {
  const { url, lineNumber } = node.callFrame;
  const short = url
    .replace(/^file:\/\//, '')
    .replace(/^.*\/node_modules\//, '')
    .replace(/^.*\/(src|bench)\//, '$1/');
  return url === '' ? '' : `${short}:${lineNumber + 1}`;
}

/** {@link summarizeProfile} over several windows (e.g. the interleaved runs of one side), summed. */
export function summarizeWindows(
  profile: CpuProfile,
  windows: readonly ProfileWindow[],
  top = 30,
): ProfileSummary {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const fn = new Map<string, { name: string; where: string; selfUs: number }>();
  const areas = new Map<string, number>();
  const inclusive = new Map<string, { name: string; where: string; totalUs: number }>();
  let t = profile.startTime;
  let busy = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    t += profile.timeDeltas[i] ?? 0;
    const dt = profile.timeDeltas[i + 1] ?? 0;
    if (!windows.some((w) => t >= w.fromUs && t <= w.toUs)) continue;
    const node = byId.get(profile.samples[i] as number);
    if (!node) continue;
    const { functionName, url } = node.callFrame;
    if (functionName === '(idle)') continue;
    busy += dt;
    const where = whereOf(node);
    const key = `${functionName}@${where}`;
    const entry = fn.get(key) ?? { name: functionName || '(anonymous)', where, selfUs: 0 };
    entry.selfUs += dt;
    fn.set(key, entry);
    const area = areaOf(url, functionName);
    areas.set(area, (areas.get(area) ?? 0) + dt);
    // Each own function on this sample's stack once, however deep it recurses.
    const seen = new Set<string>();
    for (let id: number | undefined = node.id; id !== undefined; id = parent.get(id)) {
      const frame = byId.get(id);
      if (!frame || !/\/src\//.test(frame.callFrame.url)) continue;
      const name = frame.callFrame.functionName || '(anonymous)';
      const w = whereOf(frame);
      const k = `${name}@${w}`;
      if (seen.has(k)) continue;
      seen.add(k);
      const e = inclusive.get(k) ?? { name, where: w, totalUs: 0 };
      e.totalUs += dt;
      inclusive.set(k, e);
    }
  }
  const share = (us: number) => us / Math.max(1, busy);
  return {
    busyUs: busy,
    top: [...fn.values()]
      .sort((a, b) => b.selfUs - a.selfUs)
      .slice(0, top)
      .map((e) => ({ ...e, share: share(e.selfUs) })),
    areas: [...areas.entries()]
      .map(([area, selfUs]) => ({ area, selfUs, share: share(selfUs) }))
      .sort((a, b) => b.selfUs - a.selfUs),
    inclusive: [...inclusive.values()]
      .sort((a, b) => b.totalUs - a.totalUs)
      .map((e) => ({ ...e, share: share(e.totalUs) })),
  };
}

export function printProfile(summary: ProfileSummary, requests: number): void {
  console.log(
    `\nprofile: ${fmt(summary.busyUs / 1000)} ms of main-thread CPU sampled over ${requests} requests or events (${fmt(summary.busyUs / Math.max(1, requests))} µs each, idle excluded)\n`,
  );
  console.log('self time by area:\n');
  printTable(
    ['area', 'self ms', 'share', 'µs per request'],
    summary.areas
      .slice(0, 25)
      .map((a) => [
        a.area,
        fmt(a.selfUs / 1000),
        `${fmt(a.share * 100, 1)} %`,
        fmt(a.selfUs / Math.max(1, requests)),
      ]),
  );
  console.log('\ntop functions by self time:\n');
  printTable(
    ['function', 'where', 'self ms', 'share'],
    summary.top.map((f) => [f.name, f.where, fmt(f.selfUs / 1000), `${fmt(f.share * 100, 1)} %`]),
  );
}

type BenchGateway = Awaited<ReturnType<typeof startHttpBench>>['gateway'];

/** What a profiled load sends: the headers, and per-request ones (a fresh key) when each request needs them. */
export interface ProfiledLoad {
  headers: Record<string, string>;
  perRequestHeaders?: () => Record<string, string>;
  /** Another request than POST /v1/pix with PIX_BODY (the payer page's GET). */
  request?: { method: 'GET' | 'POST'; path: string; body?: string };
}

/**
 * A POST /v1/pix load against a `calebe serve` child under `node --cpu-prof`, summarized over the measured
 * run only; `prepare` runs first (e.g. the creation a replay load repeats). profile-create and profile-replay.
 */
export async function profileHttpLoad(
  title: string,
  opts: BenchOptions,
  http: HttpBenchOptions,
  prepare: (gateway: BenchGateway) => Promise<ProfiledLoad>,
  /** Added to the gateway's bench environment. */
  env: Record<string, string> = {},
): Promise<ProfileSummary> {
  const dir = http.cpuProfDir ?? mkdtempSync(join(tmpdir(), 'calebe-profile-'));
  const { bench, gateway } = await startHttpBench(title, opts, { ...http, cpuProfDir: dir }, env);
  let stopped = false;
  try {
    const { request, ...load } = await prepare(gateway);
    const spec = {
      url: gateway.url,
      connections: opts.clients,
      server: gateway,
      database: bench.name,
      ...(request ?? { method: 'POST' as const, path: '/v1/pix', body: PIX_BODY }),
      ...load,
    };
    if (opts.warmup > 0)
      console.log(describeRun('warm-up (discarded)', await loadRun({ ...spec, seconds: opts.warmup })));
    const from = Number(process.hrtime.bigint() / 1000n);
    const run = await loadRun({ ...spec, seconds: opts.seconds });
    const to = Number(process.hrtime.bigint() / 1000n);
    console.log(describeRun('profiled run', run));
    await gateway.stop();
    stopped = true;
    // One file per thread (tsx's loader runs on its own): the main thread's is the one busy in the window.
    const summaries = readdirSync(dir)
      .filter((f) => f.endsWith('.cpuprofile'))
      .map((f) => join(dir, f))
      .map((file) => ({
        file,
        summary: summarizeProfile(JSON.parse(readFileSync(file, 'utf8')) as CpuProfile, from, to),
      }));
    const best = summaries.sort((a, b) => b.summary.busyUs - a.summary.busyUs)[0];
    if (!best) throw new Error(`no .cpuprofile written in ${dir}`);
    printProfile(best.summary, run.responses);
    console.log(
      `\nprofile file: ${best.file}${http.cpuProfDir ? '' : ' (deleted; pass --cpu-prof DIR to keep it)'}`,
    );
    return best.summary;
  } finally {
    if (!stopped) await gateway.stop();
    await bench.drop();
    if (!http.cpuProfDir) rmSync(dir, { recursive: true, force: true });
  }
}

export function benchProfileCreate(opts: BenchOptions, http: HttpBenchOptions): Promise<ProfileSummary> {
  let seq = 0;
  return profileHttpLoad('profile-create: POST /v1/pix under --cpu-prof', opts, http, async (gateway) => ({
    headers: pixHeaders(gateway),
    perRequestHeaders: () => ({ 'idempotency-key': `prof-${process.pid}-${seq++}` }),
  }));
}
