/**
 * The counting pass of the HTTP benchmarks (issue 14): a second `calebe serve` on the same bench database,
 * connected through the counting relay (bench/pg-wire-counter.ts), answers `n` requests one at a time after
 * a few discarded ones; the relay's counts divided by `n` are the round trips, write commits and statements
 * per request. Separate from the timed runs, so the relay's own cost never enters their figures.
 */
import { type GatewayProcess, serveProcess } from './http-server.ts';
import { startWireCounter, type WireCounts } from './pg-wire-counter.ts';
import { fmt, printTable } from './support.ts';

export interface WireRequest {
  method: 'GET' | 'POST';
  path: string;
  headers: Record<string, string>;
  body?: string;
  perRequestHeaders?: () => Record<string, string>;
}

export interface WireFigures {
  requests: number;
  roundTrips: number;
  writeCommits: number;
  simpleQueries: number;
  unnamedParses: number;
  namedParses: number;
  binds: number;
  /** Statement text → times per request. */
  statements: [string, number][];
}

function perRequest(counts: WireCounts, n: number): WireFigures {
  return {
    requests: n,
    roundTrips: counts.roundTrips / n,
    writeCommits: counts.writeCommits / n,
    simpleQueries: counts.simpleQueries / n,
    unnamedParses: counts.unnamedParses / n,
    namedParses: counts.namedParses / n,
    binds: counts.binds / n,
    statements: [...counts.statements.entries()]
      .map(([text, k]) => [text, k / n] as [string, number])
      .sort((a, b) => b[1] - a[1]),
  };
}

/** Runs each named request `n` times through a relayed gateway; prints and returns the per-request counts. */
export async function wirePass(
  databaseUrl: string,
  requests: Record<string, WireRequest>,
  opts: { n?: number; warmup?: number; role: 'api' | 'all'; env?: Record<string, string> },
): Promise<Record<string, WireFigures>> {
  const n = opts.n ?? 200;
  const relay = await startWireCounter(databaseUrl);
  let server: Omit<GatewayProcess, 'tenantId' | 'testKey'> | undefined;
  try {
    server = await serveProcess({ databaseUrl: relay.url, pool: 4, role: opts.role, env: opts.env ?? {} });
    const out: Record<string, WireFigures> = {};
    for (const [name, r] of Object.entries(requests)) {
      const send = async () => {
        const res = await fetch(`${server?.url}${r.path}`, {
          method: r.method,
          headers: { ...r.headers, ...(r.perRequestHeaders?.() ?? {}) },
          ...(r.body !== undefined ? { body: r.body } : {}),
        });
        await res.arrayBuffer();
        if (res.status >= 300) throw new Error(`${name}: ${r.method} ${r.path} answered ${res.status}`);
      };
      for (let i = 0; i < (opts.warmup ?? 20); i++) await send();
      relay.reset();
      for (let i = 0; i < n; i++) await send();
      out[name] = perRequest(relay.counts, n);
    }
    printWire(out);
    return out;
  } finally {
    await server?.stop();
    await relay.close();
  }
}

export function printWire(figures: Record<string, WireFigures>): void {
  console.log('\nPostgreSQL wire per request (counting pass through a relay, one request at a time):\n');
  printTable(
    [
      'request',
      'round trips',
      'write commits',
      'simple queries',
      'unnamed Parse',
      'named Parse',
      'Bind',
      'distinct statements',
    ],
    Object.entries(figures).map(([name, f]) => [
      name,
      fmt(f.roundTrips, 2),
      fmt(f.writeCommits, 2),
      fmt(f.simpleQueries, 2),
      fmt(f.unnamedParses, 2),
      fmt(f.namedParses, 2),
      fmt(f.binds, 2),
      String(f.statements.length),
    ]),
  );
  for (const [name, f] of Object.entries(figures)) {
    console.log(`\nstatements per ${name} (times per request, text folded to 160 characters):`);
    for (const [text, k] of f.statements.slice(0, 25)) console.log(`  ${fmt(k, 2)}  ${text}`);
  }
}
