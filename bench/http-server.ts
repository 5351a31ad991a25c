/**
 * The gateway as a real process for the HTTP benchmarks (B1 `create`, B2 `replay`): `node bin/calebe.js
 * bootstrap` on a fresh bench database prints the Demo tenant's test key, then `node bin/calebe.js serve`
 * listens on a free loopback port with PostgreSQL (that database) and Redis (a unique key prefix) as in
 * production. The benchmark process only generates load (autocannon) and reads the server's CPU time from
 * /proc, so client and server costs are apart.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { meterBackends, procCpuSeconds } from './pg-backend-cpu.ts';
import { percentile, sleep } from './support.ts';

/**
 * The gateway tree served: this one, or BENCH_GATEWAY_ROOT (another checkout with its node_modules), so
 * two builds can be measured interleaved by the same harness (issue 14: before/after on one machine).
 */
const ROOT = process.env.BENCH_GATEWAY_ROOT ?? fileURLToPath(new URL('..', import.meta.url));
const BIN = `${ROOT.replace(/\/$/, '')}/bin/calebe.js`;
export const REDIS_URL = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';

export interface GatewayProcessOptions {
  /** URL of a fresh, migrated bench database. */
  databaseUrl: string;
  pool: number;
  /** `serve --role`: `api` (HTTP only) or `all` (also async projections, webhook worker, reconciler). */
  role: 'api' | 'all';
  /** When set, the server runs with `node --cpu-prof --cpu-prof-dir <dir>` (written on SIGTERM). */
  cpuProfDir?: string | undefined;
}

export interface GatewayProcess {
  url: string;
  pid: number;
  tenantId: string;
  /** The Demo tenant's test-mode key (simulator, no routing). */
  testKey: string;
  /** CPU seconds (user + system) the server process has used so far, from /proc/<pid>/stat. */
  cpuSeconds(): number;
  /** SIGTERM, wait for the exit (the CPU profile is written then), delete the Redis keys. */
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const address = s.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      s.close(() => resolve(port));
    });
  });
}

function run(args: string[], env: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      cwd: ROOT,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
    });
    child.stderr.on('data', (d: Buffer) => {
      out += d.toString();
    });
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0 ? resolve(out) : reject(new Error(`calebe ${args[0]} exited ${code}:\n${out}`)),
    );
  });
}

/** The environment of a gateway process on a bench database (Redis keys under their own prefix). */
function serverEnv(
  databaseUrl: string,
  pool: number,
  port: number,
  prefix: string,
  extra: Record<string, string>,
) {
  return {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    DATABASE_URL: databaseUrl,
    DATABASE_POOL_SIZE: String(pool),
    REDIS_URL,
    REDIS_KEY_PREFIX: prefix,
    RATE_LIMIT_PER_MINUTE: '10000000',
    ENABLE_SIMULATOR: 'true',
    DOCUMENT_SIGNING_SECRET: 'bench-document-signing-secret-0123456789',
    PORT: String(port),
    HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
    BCRYPT_COST: '4',
    ...extra,
  } satisfies NodeJS.ProcessEnv;
}

export interface ServeOptions extends GatewayProcessOptions {
  /** Added to (and overriding) the bench environment. */
  env?: Record<string, string>;
}

export type ServeProcess = Omit<GatewayProcess, 'tenantId' | 'testKey'>;

/**
 * Waits for `GET <url>/health` to answer 2xx (a cold start through tsx on a loaded 2-core machine took over
 * 30 s), then returns the process's handle: its CPU from /proc, and a stop that ends it and deletes the
 * Redis keys under its prefix.
 */
async function served(child: ChildProcess, url: string, prefix: string, what: string): Promise<ServeProcess> {
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${what} exited with ${child.exitCode}`);
    try {
      const res = await fetch(`${url}/health`);
      if (res.ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`${what} did not answer /health within 120 s`);
    }
    await sleep(100);
  }
  const pid = child.pid as number;
  return {
    url,
    pid,
    cpuSeconds: () => procCpuSeconds(pid),
    async stop() {
      if (child.exitCode === null) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
        await exited;
        clearTimeout(timer);
      }
      const redis = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1 });
      try {
        await redis.connect();
        let cursor = '0';
        do {
          const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
          if (keys.length > 0) await redis.del(...keys);
          cursor = next;
        } while (cursor !== '0');
      } catch {
        // Keys expire within a minute anyway (fixed windows).
      } finally {
        redis.disconnect();
      }
    },
  };
}

/** `calebe serve` as a child process on an existing database, answering on a loopback port of its own. */
export async function serveProcess(opts: ServeOptions): Promise<ServeProcess> {
  const port = await freePort();
  const prefix = `calebe:bench:${randomBytes(6).toString('hex')}`;
  const env = serverEnv(opts.databaseUrl, opts.pool, port, prefix, opts.env ?? {});
  const nodeArgs = opts.cpuProfDir ? ['--cpu-prof', '--cpu-prof-dir', opts.cpuProfDir] : [];
  const child: ChildProcess = spawn(process.execPath, [...nodeArgs, BIN, 'serve', '--role', opts.role], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  return served(child, `http://127.0.0.1:${port}`, prefix, 'calebe serve');
}

const FLOOR = fileURLToPath(new URL('./floor-server.ts', import.meta.url));

/**
 * The floor server (bench/floor-server.ts: bare node:http, pg, ioredis; the work SPEC requires of a
 * request and nothing else) as a child process on the bench database, measured like the gateway (its
 * /proc CPU plus the database's backends). Always this tree's, whatever BENCH_GATEWAY_ROOT says.
 */
export async function floorProcess(
  databaseUrl: string,
  pool: number,
  env: Record<string, string> = {},
  /** When set, the floor runs under `node --cpu-prof`, its profile written to `<dir>/floor` on SIGTERM. */
  cpuProfDir?: string,
): Promise<ServeProcess> {
  const port = await freePort();
  const prefix = `calebe:floor:${randomBytes(6).toString('hex')}`;
  const prof = cpuProfDir ? ['--cpu-prof', '--cpu-prof-dir', `${cpuProfDir}/floor`] : [];
  const child: ChildProcess = spawn(process.execPath, [...prof, '--import', 'tsx', FLOOR], {
    cwd: fileURLToPath(new URL('..', import.meta.url)),
    env: serverEnv(databaseUrl, pool, port, prefix, env),
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  return served(child, `http://127.0.0.1:${port}`, prefix, 'floor server');
}

/** A fresh bench database bootstrapped (`calebe bootstrap`: the Demo tenant and its test key), then served. */
export async function startGatewayProcess(opts: ServeOptions): Promise<GatewayProcess> {
  const env = serverEnv(opts.databaseUrl, opts.pool, 0, 'calebe:bench:bootstrap', {});
  const printed = await run(['bootstrap'], env);
  const tenant = /Demo tenant: Demo \((ten_[A-Za-z0-9]+)\)/.exec(printed);
  const key = /test key key_[A-Za-z0-9]+: (\S+)/.exec(printed);
  if (!tenant?.[1] || !key?.[1]) throw new Error(`unexpected bootstrap output:\n${printed}`);
  return { ...(await serveProcess(opts)), tenantId: tenant[1], testKey: key[1] };
}

export function loadAverage(): string {
  try {
    return readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
  } catch {
    return '?';
  }
}

/** The part of autocannon's programmatic API used here (the package ships no types). */
interface AutocannonRequest {
  method?: string;
  path?: string;
  headers?: Record<string, string>;
  body?: string;
  setupRequest?: (req: AutocannonRequest, context: Record<string, unknown>) => AutocannonRequest;
}
interface AutocannonResult {
  duration: number;
  errors: number;
  timeouts: number;
  non2xx: number;
}
interface AutocannonInstance extends Promise<AutocannonResult> {
  on(
    event: 'response',
    listener: (client: unknown, statusCode: number, resBytes: number, responseTime: number) => void,
  ): void;
}
type Autocannon = (opts: {
  url: string;
  connections: number;
  duration: number;
  amount?: number;
  timeout?: number;
  requests: AutocannonRequest[];
}) => AutocannonInstance;
const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

export interface LoadSpec {
  url: string;
  method: 'GET' | 'POST';
  path: string;
  headers: Record<string, string>;
  body?: string;
  /** Called before every request (e.g. a fresh Idempotency-Key); returns the headers to send. */
  perRequestHeaders?: () => Record<string, string>;
  connections: number;
  seconds: number;
  /** Stop after this many requests instead (autocannon `amount`): a cheap route's run stays bounded. */
  amount?: number;
  /** Server process, for its CPU time per request. */
  server: Pick<GatewayProcess, 'cpuSeconds'>;
  /** The bench database, whose PostgreSQL backends' CPU is added to the server's (issue 14). */
  database: string;
}

export interface LoadRun {
  /** Completed responses of any status. */
  responses: number;
  ok: number;
  non2xx: number;
  statuses: Record<string, number>;
  errors: number;
  timeouts: number;
  seconds: number;
  /** 2xx responses per second. */
  rate: number;
  p50: number;
  p99: number;
  mean: number;
  /** Server process CPU per 2xx response (user + system), microseconds. */
  serverCpuUs: number;
  /** CPU of the database's PostgreSQL backends per 2xx response, microseconds. */
  pgCpuUs: number;
  /** serverCpuUs + pgCpuUs: the cost per request the issue 14 targets are about. */
  totalCpuUs: number;
  /** Transactions committed in the database per 2xx response (read-only autocommit statements count). */
  commitsPerRequest: number;
  /** This (load-generating) process's CPU per response, microseconds. */
  clientCpuUs: number;
  load: string;
}

/**
 * One closed-loop autocannon run: `connections` keep-alive connections, each sending its next request as
 * soon as the previous answer arrives, for `seconds`. Latencies are collected per response (autocannon's own
 * histogram rounds to whole milliseconds); non-2xx answers are counted as errors, never as throughput.
 */
export async function loadRun(spec: LoadSpec): Promise<LoadRun> {
  const latencies: number[] = [];
  const statuses: Record<string, number> = {};
  const request: AutocannonRequest = {
    method: spec.method,
    path: spec.path,
    headers: spec.headers,
    ...(spec.body !== undefined ? { body: spec.body } : {}),
  };
  const perRequest = spec.perRequestHeaders;
  if (perRequest) {
    request.setupRequest = (req) => ({ ...req, headers: { ...spec.headers, ...perRequest() } });
  }
  const meter = await meterBackends(spec.database);
  const cpu0 = process.cpuUsage();
  const server0 = spec.server.cpuSeconds();
  const instance = autocannon({
    url: spec.url,
    connections: spec.connections,
    duration: spec.seconds,
    ...(spec.amount !== undefined ? { amount: spec.amount } : {}),
    timeout: 30,
    requests: [request],
  });
  instance.on('response', (_client, status, _bytes, responseTime) => {
    latencies.push(responseTime);
    const k = String(status);
    statuses[k] = (statuses[k] ?? 0) + 1;
  });
  const result = await instance;
  const serverCpu = spec.server.cpuSeconds() - server0;
  const cpu = process.cpuUsage(cpu0);
  const backends = await meter.stop();
  latencies.sort((a, b) => a - b);
  const ok = Object.entries(statuses).reduce((s, [k, n]) => (k.startsWith('2') ? s + n : s), 0);
  return {
    responses: latencies.length,
    ok,
    non2xx: latencies.length - ok,
    statuses,
    errors: result.errors,
    timeouts: result.timeouts,
    seconds: result.duration,
    rate: ok / result.duration,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    mean: latencies.reduce((s, x) => s + x, 0) / Math.max(1, latencies.length),
    serverCpuUs: (serverCpu * 1e6) / Math.max(1, ok),
    pgCpuUs: (backends.seconds * 1e6) / Math.max(1, ok),
    totalCpuUs: ((serverCpu + backends.seconds) * 1e6) / Math.max(1, ok),
    commitsPerRequest: backends.commits / Math.max(1, ok),
    clientCpuUs: (cpu.user + cpu.system) / Math.max(1, latencies.length),
    load: loadAverage(),
  };
}
