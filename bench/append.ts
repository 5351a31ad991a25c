import { randomInt, randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { sql } from 'kysely';
import type { NewEvent } from '../src/events/event-store.ts';
import { PostgresEventStore } from '../src/events/postgres-event-store.ts';
import {
  type BenchDatabase,
  type BenchOptions,
  createBenchDatabase,
  fmt,
  machine,
  median,
  percentile,
  pgbenchArgs,
  printRecord,
  printTable,
  runPgbench,
  serverSettings,
  settle,
} from './support.ts';

const SCRIPT = fileURLToPath(new URL('./pgbench-append.sql', import.meta.url));

/** The same keys, value shapes and sizes as the JSON literals of bench/pgbench-append.sql. */
export function chargeEvent(): NewEvent {
  const rid = String(randomInt(100_000_000_000, 999_999_999_999));
  return {
    id: randomUUID(),
    type: 'charge.created',
    data: {
      charge_id: `txn_${rid}`,
      amount: randomInt(100, 1_000_000),
      currency: 'BRL',
      method: 'pix',
      status: 'pending',
      description: 'Pedido 48213 - plano mensal Calebe',
      customer: {
        name: 'Maria Oliveira Santos',
        email: 'maria.oliveira@example.com.br',
        document: '39053344705',
      },
      provider_id: 'prv_01JD8ZQ4N7B2XG5K3M9T6RVW1C',
      due_date: '2026-11-21',
    },
    metadata: {
      actor: 'api_key:key_01JD8ZQ4N7B2XG5K3M9T6RVW1C',
      request_id: `req_${rid}`,
      tenant_id: 'ten_01JD8ZQ4N7B2XG5K3M9T6RVW1C',
      livemode: false,
      correlation_id: `req_${rid}`,
    },
  };
}

export interface GatewayRun {
  run: number;
  appends: number;
  seconds: number;
  rate: number;
  p50: number;
  p99: number;
  mean: number;
  /** CPU time of this Node process per append (user + system), microseconds. */
  cpuPerAppend: number;
}

export interface PgbenchRun {
  run: number;
  transactions: number;
  failed: number;
  rate: number;
  latencyAvg: number;
}

export interface AppendReport {
  gateway: GatewayRun[];
  pgbench: PgbenchRun[];
  medianGateway: number;
  medianPgbench: number;
  ratio: number;
  /** Ratio of each interleaved pair (run i of each side). */
  pairRatios: number[];
  payload: { side: string; events: number; dataBytes: number; metadataBytes: number }[];
}

/** Opens `n` pool connections at once, so no run pays connection set-up (pg.Pool drops idle ones). */
async function warmPool(bench: BenchDatabase, n: number): Promise<void> {
  await Promise.all(Array.from({ length: n }, () => sql`select pg_sleep(0.05)`.execute(bench.db)));
}

/** Holds at most this many latencies per run (32 clients × ~10 s never come close). */
const MAX_APPENDS_PER_RUN = 5_000_000;

async function gatewayRun(
  store: PostgresEventStore,
  bench: BenchDatabase,
  tag: string,
  run: number,
  clients: number,
  seconds: number,
): Promise<GatewayRun> {
  await warmPool(bench, clients);
  const latencies: number[] = [];
  const cpu0 = process.cpuUsage();
  const start = performance.now();
  const deadline = start + seconds * 1000;
  await Promise.all(
    Array.from({ length: clients }, async (_, c) => {
      const stream = `gw-${tag}-${c}`;
      let version = 0;
      while (performance.now() < deadline && latencies.length < MAX_APPENDS_PER_RUN) {
        const t0 = performance.now();
        const result = await store.append(stream, [chargeEvent()], version === 0 ? 'no_stream' : version);
        latencies.push(performance.now() - t0);
        version = result.version;
      }
    }),
  );
  const elapsed = (performance.now() - start) / 1000;
  const cpu = process.cpuUsage(cpu0);
  latencies.sort((a, b) => a - b);
  return {
    run,
    appends: latencies.length,
    seconds: elapsed,
    rate: latencies.length / elapsed,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    mean: latencies.reduce((s, x) => s + x, 0) / latencies.length,
    cpuPerAppend: (cpu.user + cpu.system) / latencies.length,
  };
}

async function pgbenchRun(
  opts: BenchOptions,
  bench: BenchDatabase,
  tag: string,
  run: number,
): Promise<PgbenchRun> {
  return {
    run,
    ...(await runPgbench(opts.pgbench, pgbenchArgs(opts, SCRIPT, tag, bench.url), opts.seconds)),
  };
}

export async function benchAppend(opts: BenchOptions): Promise<AppendReport> {
  console.log(`\n## append: ${opts.clients} clients, ${opts.seconds} s per run, ${opts.runs} runs per side`);
  printRecord('machine', machine());
  printRecord('postgres', await serverSettings());
  const bench = await createBenchDatabase(opts.pool);
  try {
    const store = new PostgresEventStore(bench.db);
    console.log(`database ${bench.name}; gateway pool ${opts.pool}`);
    console.log(
      `pgbench command: ${opts.pgbench} ${pgbenchArgs(opts, SCRIPT, '<tag>', '<database url>').join(' ')}`,
    );
    if (opts.warmup > 0) {
      const w = await gatewayRun(store, bench, 'warmup', 0, opts.clients, opts.warmup);
      console.log(`warm-up (discarded): ${fmt(w.rate)} appends/s`);
    }
    const gateway: GatewayRun[] = [];
    const pgbench: PgbenchRun[] = [];
    for (let run = 1; run <= opts.runs; run++) {
      const order = run % 2 === 1 ? (['gateway', 'pgbench'] as const) : (['pgbench', 'gateway'] as const);
      for (const side of order) {
        await settle(bench);
        const tag = `r${run}`;
        if (side === 'gateway') {
          const g = await gatewayRun(store, bench, tag, run, opts.clients, opts.seconds);
          gateway.push(g);
          console.log(
            `run ${run} gateway: ${fmt(g.rate)} appends/s (${g.appends} in ${fmt(g.seconds, 2)} s; p50 ${fmt(g.p50, 2)} ms, p99 ${fmt(g.p99, 2)} ms; Node CPU ${fmt(g.cpuPerAppend)} µs/append)`,
          );
        } else {
          const p = await pgbenchRun(opts, bench, tag, run);
          pgbench.push(p);
          console.log(
            `run ${run} pgbench: ${fmt(p.rate)} tps (${p.transactions} transactions, ${p.failed} failed; latency avg ${fmt(p.latencyAvg, 2)} ms)`,
          );
        }
      }
    }
    const { rows } = await sql<{ side: string; events: string; data_bytes: string; metadata_bytes: string }>`
      select split_part(stream_id, '-', 1) as side, count(*) as events,
        round(avg(octet_length(data::text))) as data_bytes, round(avg(octet_length(metadata::text))) as metadata_bytes
      from events where stream_id not like 'gw-warmup-%' group by 1 order by 1`.execute(bench.db);
    const payload = rows.map((r) => ({
      side: r.side === 'gw' ? 'gateway' : 'pgbench',
      events: Number(r.events),
      dataBytes: Number(r.data_bytes),
      metadataBytes: Number(r.metadata_bytes),
    }));
    const medianGateway = median(gateway.map((g) => g.rate));
    const medianPgbench = median(pgbench.map((p) => p.rate));
    const pairRatios = gateway.map((g, i) => g.rate / (pgbench[i]?.rate ?? Number.NaN));
    const report: AppendReport = {
      gateway,
      pgbench,
      medianGateway,
      medianPgbench,
      ratio: medianGateway / medianPgbench,
      pairRatios,
      payload,
    };
    console.log('\nraw runs (appends/s; latency in ms):\n');
    printTable(
      [
        'run',
        'gateway appends/s',
        'gateway p50',
        'gateway p99',
        'gateway mean',
        'Node CPU µs/append',
        'pgbench tps',
        'pgbench lat avg',
        'ratio',
      ],
      gateway.map((g, i) => {
        const p = pgbench[i];
        return [
          g.run,
          fmt(g.rate),
          fmt(g.p50, 2),
          fmt(g.p99, 2),
          fmt(g.mean, 2),
          fmt(g.cpuPerAppend),
          p ? fmt(p.rate) : '-',
          p ? fmt(p.latencyAvg, 2) : '-',
          fmt(pairRatios[i] ?? Number.NaN, 2),
        ];
      }),
    );
    console.log('\nstored payload (jsonb text bytes, average):\n');
    printTable(
      ['side', 'events', 'data bytes', 'metadata bytes'],
      payload.map((p) => [p.side, p.events, p.dataBytes, p.metadataBytes]),
    );
    console.log(
      `\ngateway latency, median over runs: p50 ${fmt(median(gateway.map((g) => g.p50)), 2)} ms, p99 ${fmt(median(gateway.map((g) => g.p99)), 2)} ms`,
    );
    console.log(
      `median gateway ${fmt(medianGateway)} appends/s, median pgbench ${fmt(medianPgbench)} tps, ratio ${fmt(report.ratio, 2)} (target >= 0.7)`,
    );
    return report;
  } finally {
    await bench.drop();
  }
}
