/**
 * `npm run bench -- profile-card` (issue 25, "Performance"): where a card charge's extra CPU goes. One
 * `calebe serve` under `node --cpu-prof` takes the create-card loads (POST /v1/credit-card with an approved
 * test card, POST /v1/pix with the same customer and amount, fresh keys) in interleaved windows (ABBA,
 * --runs pairs of --seconds); each side's samples are summed over its windows only and set side by side per
 * request: self time by area, then this tree's functions by inclusive time. Sequential profiles of the two
 * would differ by the machine's hour as much as by the route (BENCHMARKS.md "Issue 25: card charge").
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cardEnv, checkAnswers, sideSpecs } from './create-card.ts';
import { describeRun, type HttpBenchOptions, startHttpBench } from './create-pix.ts';
import { loadRun } from './http-server.ts';
import {
  type CpuProfile,
  type ProfileSummary,
  type ProfileWindow,
  summarizeWindows,
} from './profile-create.ts';
import { type BenchOptions, fmt, printTable } from './support.ts';

type Routed = 'card' | 'pix';

export interface CardProfile {
  requests: Record<Routed, number>;
  card: ProfileSummary;
  pix: ProfileSummary;
}

export async function benchProfileCard(opts: BenchOptions, http: HttpBenchOptions): Promise<CardProfile> {
  const dir = http.cpuProfDir ?? mkdtempSync(join(tmpdir(), 'calebe-profile-'));
  const { bench, gateway } = await startHttpBench(
    'profile-card: POST /v1/credit-card and POST /v1/pix interleaved under --cpu-prof',
    opts,
    { ...http, cpuProfDir: dir },
    cardEnv(),
  );
  let stopped = false;
  try {
    const keyPrefix = `prof25-${randomBytes(4).toString('hex')}`;
    const specs = sideSpecs(gateway, bench.name, opts.clients, keyPrefix);
    await checkAnswers(gateway, keyPrefix);
    if (opts.warmup > 0) {
      for (const side of ['card', 'pix'] as const) {
        const w = await loadRun({ ...specs[side], seconds: opts.warmup });
        console.log(describeRun(`warm-up ${side} (discarded)`, w));
      }
    }
    const windows: Record<Routed, ProfileWindow[]> = { card: [], pix: [] };
    const requests: Record<Routed, number> = { card: 0, pix: 0 };
    const clock = () => Number(process.hrtime.bigint() / 1000n);
    for (let run = 1; run <= opts.runs; run++) {
      for (const side of run % 2 === 1 ? (['card', 'pix'] as const) : (['pix', 'card'] as const)) {
        const fromUs = clock();
        const r = await loadRun({ ...specs[side], seconds: opts.seconds });
        windows[side].push({ fromUs, toUs: clock() });
        requests[side] += r.responses;
        console.log(describeRun(`profiled run ${run} ${side}`, r));
      }
    }
    await gateway.stop();
    stopped = true;
    // One file per thread (tsx's loader runs on its own): the main thread's is the one busy in the windows.
    const all = [...windows.card, ...windows.pix];
    const profiles = readdirSync(dir)
      .filter((f) => f.endsWith('.cpuprofile'))
      .map((f) => ({
        file: join(dir, f),
        profile: JSON.parse(readFileSync(join(dir, f), 'utf8')) as CpuProfile,
      }))
      .sort(
        (a, b) => summarizeWindows(b.profile, all, 0).busyUs - summarizeWindows(a.profile, all, 0).busyUs,
      );
    const main = profiles[0];
    if (!main) throw new Error(`no .cpuprofile written in ${dir}`);
    const card = summarizeWindows(main.profile, windows.card, 40);
    const pix = summarizeWindows(main.profile, windows.pix, 40);
    printComparison(card, pix, requests);
    console.log(
      `\nprofile file: ${main.file}${http.cpuProfDir ? '' : ' (deleted; pass --cpu-prof DIR to keep it)'}`,
    );
    return { requests, card, pix };
  } finally {
    if (!stopped) await gateway.stop();
    await bench.drop();
    if (!http.cpuProfDir) rmSync(dir, { recursive: true, force: true });
  }
}

/** Rows of `name -> µs per request` for both sides, the largest card - pix differences first. */
function diffRows(
  card: Map<string, number>,
  pix: Map<string, number>,
  requests: Record<Routed, number>,
  limit: number,
): string[][] {
  const keys = new Set([...card.keys(), ...pix.keys()]);
  return [...keys]
    .map((k) => {
      const c = (card.get(k) ?? 0) / Math.max(1, requests.card);
      const p = (pix.get(k) ?? 0) / Math.max(1, requests.pix);
      return { k, c, p, d: c - p };
    })
    .sort((a, b) => Math.abs(b.d) - Math.abs(a.d))
    .slice(0, limit)
    .map(({ k, c, p, d }) => [k, fmt(c), fmt(p), `${d >= 0 ? '+' : ''}${fmt(d)}`]);
}

function printComparison(card: ProfileSummary, pix: ProfileSummary, requests: Record<Routed, number>): void {
  const per = (s: ProfileSummary, side: Routed) => s.busyUs / Math.max(1, requests[side]);
  console.log(
    `\nmain-thread CPU sampled per request: card ${fmt(per(card, 'card'))} µs (${requests.card} requests), ` +
      `pix ${fmt(per(pix, 'pix'))} µs (${requests.pix}), card/pix ${fmt(per(card, 'card') / per(pix, 'pix'), 2)}\n`,
  );
  console.log('self time by area, µs per request, largest differences first:\n');
  printTable(
    ['area', 'card', 'pix', 'card - pix'],
    diffRows(
      new Map(card.areas.map((a) => [a.area, a.selfUs])),
      new Map(pix.areas.map((a) => [a.area, a.selfUs])),
      requests,
      25,
    ),
  );
  console.log('\nthis tree’s functions by inclusive time, µs per request, largest differences first:\n');
  printTable(
    ['function', 'card', 'pix', 'card - pix'],
    diffRows(
      new Map(card.inclusive.map((f) => [`${f.name} (${f.where})`, f.totalUs])),
      new Map(pix.inclusive.map((f) => [`${f.name} (${f.where})`, f.totalUs])),
      requests,
      40,
    ),
  );
  console.log('\ntop functions by self time, µs per request, largest differences first:\n');
  printTable(
    ['function', 'card', 'pix', 'card - pix'],
    diffRows(
      new Map(card.top.map((f) => [`${f.name} (${f.where})`, f.selfUs])),
      new Map(pix.top.map((f) => [`${f.name} (${f.where})`, f.selfUs])),
      requests,
      25,
    ),
  );
}
