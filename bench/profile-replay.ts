/**
 * `npm run bench -- profile-replay` (issue 14): the B2 load (one Pix, then its key and body replayed) against
 * a `calebe serve` child under `node --cpu-prof`, summarized like profile-create: only the samples of the
 * measured replay run count (no creation, no GET, no start-up).
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeRun, type HttpBenchOptions, PIX_BODY, pixHeaders, startHttpBench } from './create-pix.ts';
import { loadRun } from './http-server.ts';
import { type CpuProfile, type ProfileSummary, printProfile, summarizeProfile } from './profile-create.ts';
import type { BenchOptions } from './support.ts';

export async function benchProfileReplay(
  opts: BenchOptions,
  http: HttpBenchOptions,
): Promise<ProfileSummary> {
  const dir = http.cpuProfDir ?? mkdtempSync(join(tmpdir(), 'calebe-profile-'));
  const { bench, gateway } = await startHttpBench(
    'profile-replay: POST /v1/pix replayed under --cpu-prof',
    opts,
    {
      ...http,
      cpuProfDir: dir,
    },
  );
  let stopped = false;
  try {
    const headers = { ...pixHeaders(gateway), 'idempotency-key': `prof-${randomBytes(8).toString('hex')}` };
    const first = await fetch(`${gateway.url}/v1/pix`, { method: 'POST', headers, body: PIX_BODY });
    await first.arrayBuffer();
    if (first.status !== 201) throw new Error(`creating the Pix failed: ${first.status}`);
    const spec = {
      url: gateway.url,
      method: 'POST' as const,
      path: '/v1/pix',
      headers,
      body: PIX_BODY,
      connections: opts.clients,
      server: gateway,
      database: bench.name,
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
