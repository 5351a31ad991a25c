/**
 * B2 (issue 7): idempotent replay. One Pix is created through the real gateway process, then the same
 * Idempotency-Key and body are sent again and again by 32 keep-alive connections (autocannon, closed loop);
 * every answer must be `200` with `Idempotency-Replayed: true`. Target >= 10,000 requests/s. Reference in the
 * same run, interleaved ABBA: `GET /v1/transactions/{id}` of the same charge with the same key (the same
 * authentication, rate limit, row read and view, without the idempotency lookup), so the replay's own cost
 * reads as a ratio whatever the machine's load; and `GET /health` (no key, no database, no Redis: the
 * HTTP stack alone), the ceiling any route can reach on this machine in that run.
 */
import { randomBytes } from 'node:crypto';
import {
  describeRun,
  FLOOR_COLUMNS,
  floorCells,
  floorSummary,
  type HttpBenchOptions,
  loadRunCells,
  loadRunColumns,
  PIX_BODY,
  pixHeaders,
  startFloor,
  startHttpBench,
} from './create-pix.ts';
import { type LoadRun, loadRun, type ServeProcess } from './http-server.ts';
import { type BenchOptions, fmt, median, printTable, settle } from './support.ts';
import { type WireFigures, wirePass } from './wire-pass.ts';

export interface ReplayReport {
  replay: LoadRun[];
  read: LoadRun[];
  health: LoadRun[];
  medianReplay: number;
  medianRead: number;
  medianHealth: number;
  ratio: number;
  p50: number;
  p99: number;
  /** Round trips and statements per replay and per GET (counting pass). */
  wire?: Record<string, WireFigures>;
  /** The floor server replaying the same key (bench/floor-server.ts), interleaved with the other sides. */
  floor: LoadRun[];
}

export async function benchReplay(opts: BenchOptions, http: HttpBenchOptions): Promise<ReplayReport> {
  const { bench, gateway } = await startHttpBench('replay (B2): POST /v1/pix replaying one key', opts, http);
  let floor: ServeProcess | undefined;
  try {
    floor = await startFloor(bench, opts, {}, http.cpuProfDir);
    const key = `b2-${randomBytes(8).toString('hex')}`;
    const headers = { ...pixHeaders(gateway), 'idempotency-key': key };
    const first = await fetch(`${gateway.url}/v1/pix`, { method: 'POST', headers, body: PIX_BODY });
    const created = (await first.json()) as { data?: { id?: string } };
    const id = created.data?.id;
    if (first.status !== 201 || !id) throw new Error(`creating the Pix failed: ${first.status}`);
    const again = await fetch(`${gateway.url}/v1/pix`, { method: 'POST', headers, body: PIX_BODY });
    await again.arrayBuffer();
    if (again.status !== 200 || again.headers.get('idempotency-replayed') !== 'true') {
      throw new Error(`replay answered ${again.status} without Idempotency-Replayed`);
    }
    const floorAnswer = await fetch(`${floor.url}/floor/replay`, { method: 'POST', headers, body: PIX_BODY });
    const floorBody = await floorAnswer.text();
    if (floorAnswer.status !== 200 || floorAnswer.headers.get('idempotency-replayed') !== 'true') {
      throw new Error(`the floor's replay answered ${floorAnswer.status}: ${floorBody.slice(0, 200)}`);
    }
    console.log(
      `created ${id}; replaying key ${key}; answer bytes: gateway ${Buffer.byteLength(await (await fetch(`${gateway.url}/v1/pix`, { method: 'POST', headers, body: PIX_BODY })).text())}, floor ${Buffer.byteLength(floorBody)}`,
    );
    const replaySpec = {
      url: gateway.url,
      method: 'POST' as const,
      path: '/v1/pix',
      headers,
      body: PIX_BODY,
      connections: opts.clients,
      server: gateway,
      database: bench.name,
    };
    const readSpec = {
      url: gateway.url,
      method: 'GET' as const,
      path: `/v1/transactions/${id}`,
      headers: { 'x-api-key': gateway.testKey },
      connections: opts.clients,
      server: gateway,
      database: bench.name,
    };
    if (opts.warmup > 0) {
      console.log(
        describeRun('warm-up replay (discarded)', await loadRun({ ...replaySpec, seconds: opts.warmup })),
      );
      console.log(
        describeRun('warm-up read (discarded)', await loadRun({ ...readSpec, seconds: opts.warmup })),
      );
    }
    const healthSpec = {
      url: gateway.url,
      method: 'GET' as const,
      path: '/health',
      headers: {},
      connections: opts.clients,
      server: gateway,
      database: bench.name,
    };
    const floorSpec = { ...replaySpec, url: floor.url, path: '/floor/replay', server: floor };
    if (opts.warmup > 0) {
      console.log(
        describeRun(
          'warm-up floor (discarded)',
          await loadRun({ ...floorSpec, seconds: opts.warmup }),
          'requests/s',
          'floor',
        ),
      );
    }
    const replay: LoadRun[] = [];
    const read: LoadRun[] = [];
    const health: LoadRun[] = [];
    const floorRuns: LoadRun[] = [];
    for (let run = 1; run <= opts.runs; run++) {
      const order =
        run % 2 === 1
          ? (['replay', 'floor', 'read', 'health'] as const)
          : (['health', 'read', 'floor', 'replay'] as const);
      for (const side of order) {
        await settle(bench);
        if (side === 'floor') {
          const r = await loadRun({ ...floorSpec, seconds: opts.seconds });
          floorRuns.push(r);
          console.log(describeRun(`run ${run} floor replay`, r, 'requests/s', 'floor'));
        } else if (side === 'replay') {
          const r = await loadRun({ ...replaySpec, seconds: opts.seconds });
          replay.push(r);
          console.log(describeRun(`run ${run} replay`, r));
        } else if (side === 'read') {
          const r = await loadRun({ ...readSpec, seconds: opts.seconds });
          read.push(r);
          console.log(describeRun(`run ${run} GET /v1/transactions/{id}`, r));
        } else {
          const r = await loadRun({ ...healthSpec, seconds: opts.seconds });
          health.push(r);
          console.log(describeRun(`run ${run} GET /health`, r));
        }
      }
    }
    const medianReplay = median(replay.map((r) => r.rate));
    const medianRead = median(read.map((r) => r.rate));
    const medianHealth = median(health.map((r) => r.rate));
    const report: ReplayReport = {
      replay,
      read,
      health,
      medianReplay,
      medianRead,
      medianHealth,
      ratio: medianReplay / medianRead,
      p50: median(replay.map((r) => r.p50)),
      p99: median(replay.map((r) => r.p99)),
      floor: floorRuns,
    };
    console.log('\nraw runs (latency in ms; CPU in µs per 2xx request):\n');
    printTable(
      [
        'run',
        ...loadRunColumns('replay'),
        'GET 2xx/s',
        'GET p50',
        'GET p99',
        'GET gateway CPU',
        'GET PG CPU',
        'GET CPU/req',
        '/health CPU/req',
        'ratio',
        '/health 2xx/s',
        ...FLOOR_COLUMNS,
      ],
      replay.map((r, i) => {
        const g = read[i];
        return [
          String(i + 1),
          ...loadRunCells(r),
          g ? fmt(g.rate) : '-',
          g ? fmt(g.p50, 2) : '-',
          g ? fmt(g.p99, 2) : '-',
          g ? fmt(g.serverCpuUs) : '-',
          g ? fmt(g.pgCpuUs) : '-',
          g ? fmt(g.totalCpuUs) : '-',
          health[i] ? fmt((health[i] as LoadRun).totalCpuUs) : '-',
          g ? fmt(r.rate / g.rate, 2) : '-',
          health[i] ? fmt((health[i] as LoadRun).rate) : '-',
          ...floorCells(floorRuns[i], r),
        ];
      }),
    );
    report.wire = await wirePass(
      bench.url,
      {
        replay: { method: 'POST', path: '/v1/pix', headers, body: PIX_BODY },
        'GET /v1/transactions/{id}': {
          method: 'GET',
          path: `/v1/transactions/${id}`,
          headers: { 'x-api-key': gateway.testKey },
        },
      },
      { role: http.role },
    );
    const cpu = (runs: LoadRun[]) => fmt(median(runs.map((r) => r.totalCpuUs)));
    console.log(
      `\nmedian CPU per request (gateway + PostgreSQL): replay ${cpu(replay)} µs (target <= 600), GET ${cpu(read)} µs, /health ${cpu(health)} µs`,
    );
    console.log(
      `\nmedian replay ${fmt(medianReplay)} requests/s (p50 ${fmt(report.p50, 2)} ms, p99 ${fmt(report.p99, 2)} ms), ` +
        `median GET ${fmt(medianRead)} requests/s, ratio ${fmt(report.ratio, 2)}; ` +
        `median GET /health ${fmt(medianHealth)} requests/s (target >= 10,000 replays/s)`,
    );
    console.log(floorSummary('the same replay on bare node:http + pg + ioredis', floorRuns, replay));
    return report;
  } finally {
    await floor?.stop();
    await gateway.stop();
    await bench.drop();
  }
}
