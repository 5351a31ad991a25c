/**
 * Shared machinery of the fault scenarios (`npm run chaos -- <name>`): fresh databases, the gateway as a real
 * child process (`node bin/calebe.js serve`), throwaway PostgreSQL and Redis servers of their own, a load
 * client that retries with the same Idempotency-Key, the post-mortem checks every scenario shares, and the
 * verdict table. Everything runs on loopback and is removed at the end (or on SIGINT/SIGTERM).
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { chmodSync, chownSync, createWriteStream, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { Agent, request } from 'undici';
import type { Scope } from '../src/aggregates/access.ts';
import { createGateway } from '../src/app.ts';
import { issueApiKey } from '../src/commands/api-keys/issue/handler.ts';
import { revokeApiKey } from '../src/commands/api-keys/revoke/handler.ts';
import type { CommandDeps } from '../src/commands/command-handler.ts';
import type { AppContext } from '../src/commands/context.ts';
import { idempotencyStream } from '../src/commands/idempotency.ts';
import { createTenant } from '../src/commands/tenants/create/handler.ts';
import { createTenantType } from '../src/commands/tenants/create-type/handler.ts';
import { registerWebhookEndpoint } from '../src/commands/webhook-endpoints/create/handler.ts';
import { webhookEndpointDeps } from '../src/commands/webhook-endpoints/endpoint.ts';
import { loadConfig } from '../src/config.ts';
import { createLogger } from '../src/logger.ts';
import { pixBody as samplePix } from '../test/support/charges.ts';

export const ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)));

/** The shared server scenarios create their databases on (F2 uses a cluster of its own instead). */
export const ADMIN_URL = process.env.CHAOS_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/** Secrets for the gateway under test (loopback only, thrown away with the database). */
export const DOCUMENT_SIGNING_SECRET = 'chaos-document-signing-secret-0123456789abcdef';
// A fixed key of 32 distinct-looking bytes: a repeated byte is refused at start as no key (issue 23 item 2.8).
export const CREDENTIALS_ENCRYPTION_KEY = createHash('sha256')
  .update('calebe chaos credentials')
  .digest('base64');
export const ADMIN_EMAIL = 'chaos-admin@example.com';
export const ADMIN_PASSWORD = 'chaos admin password 0123';

export interface ChaosOptions {
  /** Seconds of load (F1, F2, F3) or of flapping (F4). */
  seconds: number;
  /** Concurrent load workers. */
  workers: number;
  /** Requests of the bad-input campaign (F5). */
  requests: number;
  /** fast-check seed of F5 (printed, so a run can be repeated). */
  seed: number;
  /** Longest wait for automatic webhook retries after the flapping ends (F4), seconds. */
  retryWait: number;
}

/**
 * Runs `fn` in the background; a failure is kept (not an unhandled rejection that would kill the run
 * before its cleanups) and rethrown by `join()`.
 */
export function background(fn: () => Promise<void>): { join(): Promise<void> } {
  let failure: { error: unknown } | undefined;
  const done = fn().catch((error: unknown) => {
    failure = { error };
  });
  return {
    async join() {
      await done;
      if (failure) throw failure.error;
    },
  };
}

/**
 * SIGKILLs `gateway` a random `minMs`..`maxMs` after each (re)start until `until` or `stop()`, restarting it
 * at once (F1, F6). `uptimes` are the lives it cut short, `restarts` the ms each restart took to be ready.
 */
export function sigkillSupervisor(
  gateway: GatewayProcess,
  opts: { until: number; minMs: number; maxMs: number },
): { uptimes: number[]; restarts: number[]; stop(): void; join(): Promise<void> } {
  const uptimes: number[] = [];
  const restarts: number[] = [];
  let supervising = true;
  const running = background(async () => {
    while (supervising && Date.now() < opts.until) {
      const up = Date.now();
      await sleep(opts.minMs + Math.random() * (opts.maxMs - opts.minMs));
      if (!supervising || Date.now() >= opts.until) break;
      await gateway.kill('SIGKILL');
      uptimes.push(Date.now() - up);
      restarts.push(await gateway.start());
    }
  });
  return {
    uptimes,
    restarts,
    stop: () => {
      supervising = false;
    },
    join: () => running.join(),
  };
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

export function log(message: string): void {
  console.log(`[${new Date().toISOString().slice(11, 19)}] ${message}`);
}

/* ------------------------------------------------------------------ cleanup */

const cleanups: (() => Promise<void> | void)[] = [];

/** Registers an undo step; `runCleanups` runs them newest first (also on SIGINT/SIGTERM). */
export function onCleanup(fn: () => Promise<void> | void): void {
  cleanups.push(fn);
}

export async function runCleanups(): Promise<void> {
  while (cleanups.length > 0) {
    const fn = cleanups.pop() as () => Promise<void> | void;
    try {
      await fn();
    } catch (error) {
      console.error('cleanup step failed:', error);
    }
  }
}

/** A scratch directory, removed at cleanup. */
export function scratchDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), `calebe-chaos-${prefix}-`));
  onCleanup(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const address = server.address();
  await new Promise((r) => server.close(r));
  if (!address || typeof address !== 'object') throw new Error('no port');
  return address.port;
}

/* ---------------------------------------------------------------- databases */

async function onServer<T>(adminUrl: string, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** A fresh, empty database (the gateway migrates it on start); dropped at cleanup. */
export async function createChaosDatabase(adminUrl = ADMIN_URL): Promise<string> {
  const name = `calebe_chaos_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;
  await onServer(adminUrl, (c) => c.query(`create database ${name}`));
  onCleanup(async () => {
    await onServer(adminUrl, (c) => c.query(`drop database if exists ${name} with (force)`)).catch(() => {});
  });
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/** Runs queries on a database outside the gateway (post-mortem checks). */
export async function withDb<T>(url: string, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  return onServer(url, fn);
}

/* ---------------------------------------------------------------- seeding */

export interface SeededTenant {
  tenantId: string;
  keys: Record<string, { keyId: string; key: string }>;
}

export interface SeedRequest {
  /** Local name of the tenant. */
  name: string;
  /** Local name of the parent (seeded earlier in the same list). */
  parent?: string;
  keys: { name: string; scopes: readonly Scope[]; livemode?: boolean; revoked?: boolean }[];
  /** Registers a test-mode webhook endpoint at this URL; its secret comes back in `endpointSecrets`. */
  webhookUrl?: string;
}

export interface Seeded {
  tenants: Record<string, SeededTenant>;
  endpointSecrets: Record<string, string>;
}

const seedMetadata = { actor: 'system:chaos', request_id: 'req_chaos_seed' };

/** Base environment of the gateway under test; scenarios add to it. */
export function gatewayEnv(databaseUrl: string, port: number, extra: Record<string, string> = {}) {
  return {
    DATABASE_URL: databaseUrl,
    PORT: String(port),
    HOST: '127.0.0.1',
    ENABLE_SIMULATOR: 'true',
    DOCUMENT_SIGNING_SECRET,
    CREDENTIALS_ENCRYPTION_KEY,
    RATE_LIMIT_PER_MINUTE: '10000000',
    // Scenarios send many bad keys from one address; the per-address failure limit (issue 12) would turn
    // every later answer into 429 and hide what is measured. test/http/auth-failure-limit.test.ts covers it.
    AUTH_FAILURES_PER_MINUTE: '1000000',
    // F6 puts a production provider record on the loopback emulator (issue 23 item 2.3: development only).
    PROVIDER_ALLOWED_PRIVATE_HOSTS: '127.0.0.1',
    LOG_LEVEL: 'warn',
    BCRYPT_COST: '4',
    BOOTSTRAP_ADMIN_EMAIL: ADMIN_EMAIL,
    BOOTSTRAP_ADMIN_PASSWORD: ADMIN_PASSWORD,
    ...extra,
  };
}

/**
 * Tenants, keys and endpoints through the event-sourced commands (src/commands), against the database
 * before the server starts; the same inline projections fill the read models the server reads.
 */
export async function seed(databaseUrl: string, requests: readonly SeedRequest[]): Promise<Seeded> {
  const config = loadConfig({ ...gatewayEnv(databaseUrl, 0), DATABASE_POOL_SIZE: '4' });
  const gateway = await createGateway(config, createLogger('warn'), { bootstrap: false });
  const out: Seeded = { tenants: {}, endpointSecrets: {} };
  try {
    const ctx: AppContext = gateway.ctx;
    const deps: CommandDeps = { store: ctx.store, registry: ctx.events, now: () => ctx.now() };
    const { type } = await createTenantType(
      deps,
      { name: `chaos ${randomUUID()}`, allowsChildren: true },
      seedMetadata,
    );
    for (const r of requests) {
      const parentId = r.parent ? out.tenants[r.parent]?.tenantId : null;
      if (parentId === undefined) throw new Error(`seed: parent ${r.parent} not seeded yet`);
      const tenant = await createTenant(
        deps,
        { name: `Chaos ${r.name}`, typeId: type.id, parentId },
        seedMetadata,
      );
      const seeded: SeededTenant = { tenantId: tenant.id, keys: {} };
      for (const k of r.keys) {
        const issued = await issueApiKey(
          deps,
          {
            tenantId: tenant.id,
            livemode: k.livemode ?? false,
            name: `chaos ${k.name}`,
            scopes: k.scopes,
            accessProfile: 'standard',
            createdBy: 'system:chaos',
          },
          seedMetadata,
        );
        if (k.revoked) await revokeApiKey(deps, issued.keyId, seedMetadata);
        seeded.keys[k.name] = { keyId: issued.keyId, key: issued.key };
      }
      if (r.webhookUrl) {
        const { secret } = await registerWebhookEndpoint(
          webhookEndpointDeps(ctx),
          { tenantId: tenant.id, url: r.webhookUrl, mode: 'test', enabled: true },
          seedMetadata,
        );
        if (!secret) throw new Error('seed: endpoint registered without a secret');
        out.endpointSecrets[r.name] = secret;
      }
      out.tenants[r.name] = seeded;
    }
  } finally {
    await gateway.close();
  }
  return out;
}

/* ---------------------------------------------------------------- the gateway process */

/** `node bin/calebe.js serve` as a child process; its output goes to a log file in a scratch directory. */
export class GatewayProcess {
  child: ChildProcess | undefined;
  starts = 0;
  /** Exits not caused by this class (a crash): code/signal and time. */
  readonly unexpectedExits: string[] = [];
  private expectingExit = false;
  readonly logFile: string;

  constructor(
    readonly env: Record<string, string>,
    dir: string,
  ) {
    this.logFile = join(dir, 'gateway.log');
    onCleanup(() => this.kill('SIGKILL'));
  }

  get port(): number {
    return Number(this.env.PORT);
  }

  get baseUrl(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** Spawns the process and waits until `/health` answers (at most `timeoutMs`). */
  async start(timeoutMs = 60_000): Promise<number> {
    const started = performance.now();
    const out = createWriteStream(this.logFile, { flags: 'a' });
    const child = spawn(process.execPath, ['bin/calebe.js', 'serve'], {
      cwd: ROOT,
      env: { ...process.env, ...this.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout?.pipe(out);
    child.stderr?.pipe(out);
    this.child = child;
    this.starts++;
    this.expectingExit = false;
    child.once('exit', (code, signal) => {
      if (!this.expectingExit) {
        this.unexpectedExits.push(`${new Date().toISOString()} code=${code} signal=${signal}`);
      }
      if (this.child === child) this.child = undefined;
    });
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (!this.child) throw new Error(`gateway exited during start; see ${this.logFile}`);
      try {
        const res = await request(`${this.baseUrl}/health`, { headersTimeout: 1_000, bodyTimeout: 1_000 });
        await res.body.dump();
        if (res.statusCode === 200) return performance.now() - started;
      } catch {
        // not listening yet
      }
      await sleep(50);
    }
    throw new Error(`gateway did not answer /health within ${timeoutMs} ms; see ${this.logFile}`);
  }

  /** Sends `signal` and waits for the exit (SIGKILL: immediate). */
  async kill(signal: NodeJS.Signals = 'SIGKILL', timeoutMs = 30_000): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    this.expectingExit = true;
    const exited = new Promise<void>((r) => child.once('exit', () => r()));
    child.kill(signal);
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    await exited;
    clearTimeout(timer);
  }

  /** Graceful stop (SIGTERM: the gateway closes its pools and workers). */
  stop(): Promise<void> {
    return this.kill('SIGTERM');
  }

  logTail(lines = 20): string {
    try {
      return readFileSync(this.logFile, 'utf8').trim().split('\n').slice(-lines).join('\n');
    } catch {
      return '';
    }
  }
}

/** `node bin/calebe.js <args>` against a database, to completion. */
export function runCli(
  args: readonly string[],
  env: Record<string, string>,
  timeoutMs = 300_000,
): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, ['bin/calebe.js', ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    timeout: timeoutMs,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  return { code: r.status, stdout: r.stdout ?? '', stderr: r.stderr ?? '' };
}

/** `calebe audit replay --all`: exit code and the summary line's figures. */
export function auditReplay(databaseUrl: string): {
  code: number | null;
  checked: number;
  differences: number;
  summary: string;
} {
  const r = runCli(['audit', 'replay', '--all'], {
    DATABASE_URL: databaseUrl,
    LOG_LEVEL: 'warn',
    DOCUMENT_SIGNING_SECRET,
  });
  const m = /(\d+) transaction streams checked, (\d+) differences/.exec(r.stdout);
  return {
    code: r.code,
    checked: m ? Number(m[1]) : Number.NaN,
    differences: m ? Number(m[2]) : Number.NaN,
    summary: (m?.[0] ?? `${r.stdout}${r.stderr}`.trim().split('\n').slice(-3).join(' / ')).slice(0, 300),
  };
}

/* ---------------------------------------------------------------- throwaway servers */

const PG_BIN = process.env.CHAOS_PG_BIN ?? '/usr/lib/postgresql/15/bin';

/**
 * A PostgreSQL 15 cluster of our own (never the machine's shared server): initdb into a scratch directory,
 * listening on 127.0.0.1:<port> with its socket in that directory. initdb refuses root, so as root it runs
 * as the `postgres` user with a directory that user owns.
 */
export class ScratchPostgres {
  readonly dir: string;
  readonly data: string;
  readonly port: number;
  private readonly asUser: string[];

  private constructor(dir: string, port: number) {
    this.dir = dir;
    this.data = join(dir, 'data');
    this.port = port;
    this.asUser = process.getuid?.() === 0 ? ['runuser', '-u', 'postgres', '--'] : [];
  }

  static async create(): Promise<ScratchPostgres> {
    const dir = scratchDir('pg');
    const server = new ScratchPostgres(dir, await freePort());
    if (process.getuid?.() === 0) {
      const pw = spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' });
      const gid = spawnSync('id', ['-g', 'postgres'], { encoding: 'utf8' });
      chownSync(dir, Number(pw.stdout.trim()), Number(gid.stdout.trim()));
      chmodSync(dir, 0o700);
    }
    server.run('initdb', ['-D', server.data, '-U', 'postgres', '--auth=trust', '--no-sync']);
    onCleanup(() => server.stop('immediate'));
    server.start();
    return server;
  }

  get adminUrl(): string {
    return `postgres://postgres@127.0.0.1:${this.port}/postgres`;
  }

  private run(bin: string, args: readonly string[]): { status: number | null; out: string } {
    const argv = [...this.asUser, join(PG_BIN, bin), ...args];
    const r = spawnSync(argv[0] as string, argv.slice(1), { encoding: 'utf8', timeout: 120_000 });
    const out = `${r.stdout ?? ''}${r.stderr ?? ''}`;
    if (r.status !== 0 && bin === 'initdb') throw new Error(`initdb failed: ${out}`);
    return { status: r.status, out };
  }

  start(): void {
    const opts = `-p ${this.port} -k ${this.dir} -c listen_addresses=127.0.0.1 -c max_connections=200 -c fsync=off`;
    const r = this.run('pg_ctl', ['-D', this.data, '-o', opts, '-l', join(this.dir, 'log'), '-w', 'start']);
    if (r.status !== 0) throw new Error(`pg_ctl start failed: ${r.out}`);
  }

  /** `fast` (clients disconnected, clean shutdown) or `immediate` (like a crash: recovery on start). */
  stop(mode: 'fast' | 'immediate' = 'fast'): void {
    this.run('pg_ctl', ['-D', this.data, '-m', mode, '-w', 'stop']);
  }
}

/** A throwaway redis-server on a spare port (never the shared one on 6379), as test/http/rate-limit does. */
export class ScratchRedis {
  readonly dir: string;
  readonly port: number;

  private constructor(dir: string, port: number) {
    this.dir = dir;
    this.port = port;
  }

  static async create(): Promise<ScratchRedis> {
    const r = new ScratchRedis(scratchDir('redis'), await freePort());
    onCleanup(() => r.stop());
    r.start();
    return r;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  start(): void {
    const args = ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'];
    const files = ['--dir', this.dir, '--pidfile', join(this.dir, 'redis.pid')];
    const logs = ['--logfile', join(this.dir, 'redis.log'), '--daemonize', 'yes'];
    const r = spawnSync('redis-server', [...args, ...files, ...logs], { timeout: 5_000, encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`redis-server did not start: ${r.stderr}`);
    for (let i = 0; i < 50 && !this.answers(); i++) spawnSync('sleep', ['0.1']);
  }

  /** `shutdown nosave`: the port refuses connections until `start()`. */
  stop(): void {
    this.signal('SIGCONT');
    spawnSync('redis-cli', ['-p', String(this.port), 'shutdown', 'nosave'], { timeout: 5_000 });
  }

  /** SIGSTOP freezes the server with its sockets open: replies never come. */
  signal(signal: 'SIGSTOP' | 'SIGCONT'): void {
    try {
      const pid = Number(readFileSync(join(this.dir, 'redis.pid'), 'utf8').trim());
      if (Number.isInteger(pid) && pid > 0) process.kill(pid, signal);
    } catch {
      // not running
    }
  }

  answers(): boolean {
    const r = spawnSync('redis-cli', ['-p', String(this.port), 'ping'], { timeout: 2_000, encoding: 'utf8' });
    return r.status === 0 && r.stdout.trim() === 'PONG';
  }

  /** Number of keys under a prefix (SCAN, never KEYS on a shared server; this one is ours anyway). */
  countKeys(prefix: string): number {
    const r = spawnSync('redis-cli', ['-p', String(this.port), '--scan', '--pattern', `${prefix}:*`], {
      timeout: 5_000,
      encoding: 'utf8',
    });
    return r.stdout.split('\n').filter(Boolean).length;
  }
}

/**
 * A scenario's own redis-server and a fresh database seeded with `requests` (F3, F7: the gateway's rate
 * limits in a Redis that the scenario may stop, never the shared one). `env` is the gateway's environment on
 * both: `gatewayEnv` with REDIS_URL, `extra` on top.
 */
export async function redisAndDatabase(requests: readonly SeedRequest[]) {
  const redis = await ScratchRedis.create();
  const databaseUrl = await createChaosDatabase();
  const seeded = await seed(databaseUrl, requests);
  const env = (port: number, extra: Record<string, string> = {}) =>
    gatewayEnv(databaseUrl, port, { REDIS_URL: redis.url, ...extra });
  return { redis, databaseUrl, seeded, env };
}

/* ---------------------------------------------------------------- HTTP client */

export const agent = new Agent({
  connections: 64,
  keepAliveTimeout: 4_000,
  headersTimeout: 15_000,
  bodyTimeout: 15_000,
  connect: { timeout: 2_000 },
});

export interface Answer {
  status: number;
  /** `error.code` of an error envelope, `-` otherwise. */
  code: string;
  body: unknown;
  ms: number;
  headers: Record<string, string | string[] | undefined>;
}

/** One request; a network failure (connection refused or reset, timeout) answers status 0 with its code. */
export async function call(
  baseUrl: string,
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE' | 'PUT',
  path: string,
  opts: { headers?: Record<string, string>; body?: string | Uint8Array; json?: unknown } = {},
): Promise<Answer> {
  const t = performance.now();
  const headers: Record<string, string> = { ...opts.headers };
  let body = opts.body;
  if (opts.json !== undefined) {
    body = JSON.stringify(opts.json);
    headers['content-type'] ??= 'application/json';
  }
  try {
    const res = await request(`${baseUrl}${path}`, { method, headers, body, dispatcher: agent });
    const text = await res.body.text();
    let parsed: unknown = text;
    try {
      parsed = text === '' ? null : JSON.parse(text);
    } catch {
      // not JSON (router defaults)
    }
    const code =
      (parsed as { error?: { code?: unknown } } | null)?.error?.code !== undefined
        ? String((parsed as { error: { code: unknown } }).error.code)
        : '-';
    return { status: res.statusCode, code, body: parsed, ms: performance.now() - t, headers: res.headers };
  } catch (error) {
    const code = (error as { code?: string }).code ?? (error as Error).name ?? 'error';
    return { status: 0, code, body: null, ms: performance.now() - t, headers: {} };
  }
}

/** A valid SPEC 4.1 Pix body (the tests' fixture) with this reference and amount. */
export function pixBody(reference: string, amount: number, extra: Record<string, unknown> = {}) {
  return samplePix({ amount, reference, description: 'Chaos scenario', expires_in: 3600, ...extra });
}

export class Counter {
  readonly counts = new Map<string, number>();
  add(label: string, n = 1): void {
    this.counts.set(label, (this.counts.get(label) ?? 0) + n);
  }
  get(label: string): number {
    return this.counts.get(label) ?? 0;
  }
  total(): number {
    let n = 0;
    for (const v of this.counts.values()) n += v;
    return n;
  }
  toString(): string {
    return [...this.counts]
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([k, v]) => `${k}: ${v}`)
      .join(', ');
  }
}

/* ---------------------------------------------------------------- idempotent create load */

export interface Acked {
  key: string;
  reference: string;
  transactionId: string;
  status: number;
  txnStatus: string;
}

export interface CreateLoadResult {
  /** Keys acknowledged (200/201) with the transaction id answered. */
  acked: Acked[];
  /** Keys sent at least once and never acknowledged before the drain deadline. */
  unacked: string[];
  /** Every key ever sent. */
  attempted: number;
  /** Every answer by `status code` (0 = network error). */
  answers: Counter;
  /** Every non-2xx answer with its status and envelope code, and whether it had an envelope. */
  errors: { at: number; status: number; code: string; enveloped: boolean }[];
  /** A 4xx other than 429 (retrying cannot change it): key, status and body. The key is abandoned. */
  unexpected: string[];
  requests: number;
}

/**
 * Workers each creating Pix charges one after the other, each with its own Idempotency-Key and reference
 * (`<prefix>-<worker>-<n>`). On a network error, 5xx, 202 or 429 the worker retries the same key and body
 * (back-off 100 to 1,000 ms) until it gets 200/201 (acknowledged), then takes a new key. New keys stop at
 * `loadUntil`; a key in flight is retried until `drainUntil` (epoch ms).
 */
export async function idempotentCreateLoad(opts: {
  baseUrl: () => string;
  apiKey: string;
  workers: number;
  prefix: string;
  loadUntil: number;
  drainUntil: number;
  /** Pause between acknowledged creations of one worker (ms), to cap the offered rate. */
  pauseMs?: number;
  /** Ends the drain early (after loadUntil) when true, e.g. the gateway died and nothing will answer. */
  abort?: () => boolean;
  extraBody?: (reference: string) => Record<string, unknown>;
  onAck?: (a: Acked) => void;
}): Promise<CreateLoadResult> {
  const result: CreateLoadResult = {
    acked: [],
    unacked: [],
    attempted: 0,
    answers: new Counter(),
    errors: [],
    unexpected: [],
    requests: 0,
  };
  const worker = async (w: number) => {
    for (let n = 0; Date.now() < opts.loadUntil; n++) {
      const key = `${opts.prefix}-${w}-${n}`;
      const body = pixBody(key, 100 + ((w * 7919 + n * 104_729) % 99_900), opts.extraBody?.(key));
      result.attempted++;
      let backoff = 100;
      let acked = false;
      while (Date.now() < opts.drainUntil && !(Date.now() >= opts.loadUntil && opts.abort?.())) {
        const a = await call(opts.baseUrl(), 'POST', '/v1/pix', {
          headers: { 'x-api-key': opts.apiKey, 'idempotency-key': key },
          json: body,
        });
        result.requests++;
        result.answers.add(String(a.status));
        if (a.status === 200 || a.status === 201) {
          const data = (a.body as { data: { id: string; status: string } }).data;
          const ack = {
            key,
            reference: key,
            transactionId: data.id,
            status: a.status,
            txnStatus: data.status,
          };
          result.acked.push(ack);
          opts.onAck?.(ack);
          acked = true;
          break;
        }
        if (a.status !== 202) {
          result.errors.push({
            at: Date.now(),
            status: a.status,
            code: a.code,
            enveloped: a.status === 0 || a.code !== '-',
          });
        }
        if (a.status !== 0 && a.status !== 202 && a.status !== 429 && a.status < 500) {
          // A 4xx other than 429 will not change by retrying (409 idempotency_conflict would be a bug).
          result.unexpected.push(`${key}: ${a.status} ${JSON.stringify(a.body).slice(0, 300)}`);
          break;
        }
        await sleep(backoff * (0.5 + Math.random()));
        backoff = Math.min(1_000, backoff * 2);
      }
      if (!acked) {
        result.unacked.push(key);
        if (Date.now() >= opts.drainUntil || Date.now() >= opts.loadUntil) return;
        continue;
      }
      if (opts.pauseMs) await sleep(opts.pauseMs);
    }
  };
  await Promise.all(Array.from({ length: opts.workers }, (_, w) => worker(w)));
  return result;
}

/* ---------------------------------------------------------------- post-mortem checks */

export interface LedgerCheck {
  /** Acknowledged keys whose claim, transaction id and read-model row all agree. */
  ackedFound: number;
  /** Acknowledged keys missing or disagreeing (claim absent, other resource id, no row). */
  ackedMissing: string[];
  /** References (one per key) charged more than once. */
  duplicateReferences: number;
  /** Transaction rows vs transaction streams in the log. */
  rows: number;
  streams: number;
  /** Rows whose reference is not a key the load sent. */
  strangers: number;
  statuses: Counter;
}

/**
 * "Every acknowledged charge exists exactly once, no charge exists twice": each acknowledged key has its
 * idempotency claim (stream `idempotency-<tenant>-test-<sha256(key)>`), naming the transaction id the client was
 * answered, whose row is in the read model; no reference appears on two rows; the read model has one row
 * per transaction stream.
 */
export async function checkLedger(
  databaseUrl: string,
  tenantId: string,
  load: Pick<CreateLoadResult, 'acked' | 'unacked'>,
  prefix: string,
  /** The mode of the load's keys: their claims live in that mode's stream (issue 12). */
  livemode = false,
): Promise<LedgerCheck> {
  return withDb(databaseUrl, async (c) => {
    const claims = new Map<string, string>();
    const { rows: claimRows } = await c.query<{ stream_id: string; resource_id: string }>(
      `select stream_id, data->>'resource_id' as resource_id from events
        where type = 'Idempotency.Claimed' and stream_id like $1`,
      [`idempotency-${tenantId}-%`],
    );
    for (const r of claimRows) claims.set(r.stream_id, r.resource_id);
    const { rows: txns } = await c.query<{ id: string; reference: string; status: string }>(
      `select id, reference, status from transactions where tenant_id = $1`,
      [tenantId],
    );
    const byId = new Map(txns.map((t) => [t.id, t]));
    const missing: string[] = [];
    for (const a of load.acked) {
      const claimed = claims.get(idempotencyStream(tenantId, a.key, livemode));
      const row = byId.get(a.transactionId);
      if (claimed !== a.transactionId || !row || row.reference !== a.reference) missing.push(a.key);
    }
    const perRef = new Counter();
    for (const t of txns) perRef.add(t.reference);
    let duplicates = 0;
    for (const n of perRef.counts.values()) if (n > 1) duplicates++;
    const statuses = new Counter();
    for (const t of txns) statuses.add(t.status);
    const { rows: s } = await c.query<{ n: string }>(
      `select count(*) as n from streams where stream_id like 'transaction-%'`,
    );
    return {
      ackedFound: load.acked.length - missing.length,
      ackedMissing: missing,
      duplicateReferences: duplicates,
      rows: txns.length,
      streams: Number(s[0]?.n),
      strangers: txns.filter((t) => !t.reference.startsWith(`${prefix}-`)).length,
      statuses,
    };
  });
}

/* ---------------------------------------------------------------- verdicts */

export interface Verdict {
  check: string;
  target: string;
  measured: string;
  ok: boolean;
  /** Reported (WARN when not ok) but not part of the scenario's invariant. */
  informational?: boolean;
}

/** F1 and F2's shared verdicts on a create load with retried keys: every acknowledged key once, by its claim. */
export function ackedOnceVerdict(ledger: LedgerCheck, load: CreateLoadResult): Verdict {
  return {
    check: 'acknowledged charges present exactly once',
    target: 'all (claim = answered id = row)',
    measured: `${ledger.ackedFound} / ${load.acked.length}`,
    ok: ledger.ackedMissing.length === 0 && load.acked.length > 0,
  };
}

/** Nothing refused for good, and every key acknowledged once the load's retries drained. */
export function drainVerdicts(load: CreateLoadResult): Verdict[] {
  return [
    {
      check: 'non-retryable answers (4xx other than 429)',
      target: '0',
      measured: fmt(load.unexpected.length),
      ok: load.unexpected.length === 0,
    },
    {
      check: 'keys acknowledged by the end of the drain',
      target: 'all',
      measured: `${load.acked.length} / ${load.attempted}`,
      ok: load.unacked.length === 0,
    },
  ];
}

/** `calebe audit replay --all` clean over every transaction stream of the ledger. */
export function auditVerdict(audit: ReturnType<typeof auditReplay>, ledger: LedgerCheck): Verdict {
  return {
    check: 'calebe audit replay --all',
    target: 'exit 0, 0 differences',
    measured: `exit ${audit.code}, ${audit.differences} differences in ${audit.checked} streams`,
    ok: audit.code === 0 && audit.differences === 0 && audit.checked === ledger.streams,
  };
}

export function fmt(n: number, digits = 0): string {
  if (!Number.isFinite(n)) return '-';
  return n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

/** Prints a Markdown table (pastes straight into RELIABILITY.md). */
export function printTable(headers: readonly string[], rows: readonly (readonly string[])[]): void {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (r: readonly string[]) => `| ${widths.map((w, i) => (r[i] ?? '').padEnd(w)).join(' | ')} |`;
  console.log(line(headers));
  console.log(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
  for (const r of rows) console.log(line(r));
}

/** Prints the verdict table; true when every check passed. */
export function printVerdicts(scenario: string, verdicts: readonly Verdict[]): boolean {
  console.log(`\n${scenario}: verdict`);
  printTable(
    ['check', 'target', 'measured', 'ok'],
    verdicts.map((v) => [v.check, v.target, v.measured, v.ok ? 'PASS' : v.informational ? 'WARN' : 'FAIL']),
  );
  const ok = verdicts.every((v) => v.ok || v.informational);
  console.log(`\n${scenario}: ${ok ? 'PASS' : 'FAIL'}`);
  return ok;
}

export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil((p / 100) * sorted.length)));
  return sorted[rank - 1] as number;
}

/** The (status, code) pairs SPEC section 7 lists. */
export const SPEC7_CODES = new Set(
  [
    '400 invalid_json',
    '400 idempotency_key_required',
    '401 unauthorized',
    '401 invalid_credentials',
    '403 insufficient_scope',
    '403 forbidden',
    '403 tenant_suspended',
    '403 live_payments_disabled',
    '403 live_payment_out_of_scope',
    '403 origin_denied',
    '404 not_found',
    '409 idempotency_conflict',
    '409 reconciliation_required',
    '409 provider_status_conflict',
    '409 simulation_not_allowed',
    '409 conflict',
    '413 request_too_large',
    '422 validation_error',
    '422 tenant_from_api_key',
    '422 provider_not_configured',
    '422 provider_method_disabled',
    '422 simulator_disabled',
    '422 amount_limit_exceeded',
    '422 invalid_cost_center',
    '429 rate_limit_exceeded',
    '500 internal_error',
    '502 provider_rejected',
    '502 provider_refresh_failed',
    '503 payment_settings_unavailable',
    '503 rate_limiter_unavailable',
    '503 reconciliation_required',
    '503 not_ready',
  ].map((s) => s),
);
