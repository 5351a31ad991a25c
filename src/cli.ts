import { randomBytes } from 'node:crypto';
import { isIP } from 'node:net';
import { type ParseArgsConfig, parseArgs } from 'node:util';
import cliProgress from 'cli-progress';
import { sql } from 'kysely';
import { createGateway, firstStart, type Role, startGateway } from './app.ts';
import { formatDifference, replayTransactions } from './commands/audit/replay/handler.ts';
import { bootstrapDemo } from './commands/bootstrap-demo.ts';
import { ConfigError, loadConfig } from './config.ts';
import { weakSecretReason } from './crypto/secrets.ts';
import { DataDirLockedError } from './db/data-dir-lock.ts';
import { reachDatabase } from './db/database.ts';
import { migrateToLatest } from './db/migrate.ts';
import { type SeedOptions, seed } from './dev/seed.ts';
import { PostgresEventStore } from './events/postgres-event-store.ts';
import { logDestination, publicUrl, startBanner } from './log-format.ts';
import { createLogger } from './logger.ts';
import { streamCatalog } from './projections/stream-catalog.ts';
import { startProviderEmulator } from './providers/emulator/server.ts';

const USAGE = `usage: calebe <command> [options]    (calebe <command> --help for one command)
  serve [--role api|worker|all]     run the gateway (default role: all)
  migrate                           apply pending database migrations
  bootstrap                         create a demo tenant with a test and a live key (once; safe to re-run)
  rebuild <projection>... | --all   empty read models and replay the whole log into them
                                    (stop the gateway first when rebuilding an inline projection)
  audit replay [--transaction <id> | --all]
                                    fold transaction streams through the decider and compare them with
                                    the transactions read model; exit 1 on any difference
  dev seed --tenants N --transactions M [--primary P] [--live-share F] [--days D] [--batch B] [--seed S]
                                    development only (PostgreSQL): append a realistic history
  provider-emulator [--port N] [--host ADDRESS] [--control-token TOKEN]
                                    run the external provider's emulator (development and tests)

Exit codes: 0 done, 1 failed (database unreachable, embedded database in use, audit differences),
2 usage or configuration error. With the embedded database, commands run beside a running \`calebe serve\`:
they reach its database through it.`;

/** A wrong command line or option: one line on stderr, exit 2. */
class UsageError extends ConfigError {}

/** Each subcommand's `--help` text; printing it is all `--help` does. */
const HELP = {
  serve: `usage: calebe serve [--role api|worker|all]

Runs the gateway (what \`npm start\` runs). Roles: api = HTTP only; worker = projections, reconciler and
webhook delivery; all (default) = both. Applies pending migrations first. Configuration comes from the
environment (README "Configuration"); with no DATABASE_URL the data lives in CALEBE_DATA_DIR (./.calebe).
Once it listens it prints the first administrator (while no user exists) and, on the first start of an empty
embedded database, the demo tenant's test and live keys (what \`calebe bootstrap\` creates), each only once.`,
  migrate: `usage: calebe migrate

Applies pending database migrations to DATABASE_URL (or the embedded database) and exits.
\`calebe serve\` applies them too.`,
  bootstrap: `usage: calebe bootstrap

Creates a tenant type and a tenant "Demo" with a test key and a live key carrying every scope, prints the
keys (only this once) and how to log in. Like \`serve\`, it creates the first administrator while no user
exists. Running it again creates nothing and prints the key prefixes (a secret is never shown twice: the
first start of an embedded database, or the first bootstrap, showed it). With the embedded database it runs
beside a running gateway, through it.`,
  rebuild: `usage: calebe rebuild <projection>... | --all

Empties the named read models (or every projection with --all) and replays the whole event log into them,
with a progress bar. Stop the gateway first when rebuilding an inline projection.`,
  audit: `usage: calebe audit replay [--transaction <id> | --all]

Folds transaction streams through the decider and compares them with the transactions read model; prints
each difference and a summary. Without options it checks every stream. Exit 0: no difference; 1: a
difference, or --transaction names no transaction; 2: usage error.`,
  dev: `usage: calebe dev seed --tenants N --transactions M [--primary P] [--live-share F] [--days D]
                      [--batch B] [--seed S]

Development only, PostgreSQL only (DATABASE_URL): appends a realistic history (tenant tree, cost centers,
Pix and boleto charges over the last D days, default 365) through the event store's bulk path, then
catches the async read models up. --primary gives the first tenant P of the charges, --live-share (0.7)
the share in live mode, --batch charges per SQL transaction (2000), --seed makes a run reproducible.`,
  'provider-emulator': `usage: calebe provider-emulator [--port N] [--host ADDRESS] [--control-token TOKEN]

Runs the provider emulator: an HTTP server speaking the external provider's wire format (Safe2Pay v2) with
its own in-memory charges, fault injection and a control API under /_emulator/ (docs/provider-emulator.md).
For development and tests: it never moves money and needs no database. --port defaults to 4010 (0: any free
port), --host to 127.0.0.1. --control-token (or EMULATOR_CONTROL_TOKEN): the control API then answers 401
without Authorization: Bearer <token>; none on loopback means none is required, none on another host means
one is generated and printed. Prints one line with its URLs (and a second about the token); SIGTERM or
Ctrl-C stops it. A development gateway started with PROVIDER_EMULATOR_URL=<its URL> sends live keys' boletos
to it (README "Gateway against the provider emulator").`,
} as const;

/** Every subcommand takes `--help` (or `-h`). */
const HELP_OPTION = { help: { type: 'boolean', short: 'h' } } as const;

/**
 * Strict parsing of one subcommand's arguments: returns undefined after printing the help (the caller then
 * does nothing else); an unknown option or a stray argument is a one-line UsageError (exit 2).
 */
function parse<T extends ParseArgsConfig>(
  command: keyof typeof HELP,
  config: T,
): ReturnType<typeof parseArgs<T>> | undefined {
  let parsed: ReturnType<typeof parseArgs<T>>;
  try {
    parsed = parseArgs<T>({ ...config, strict: true });
  } catch (error) {
    // node's messages go on with a hint about '--'; the first sentence is the useful part.
    const message = (error instanceof Error ? error.message : String(error)).split(/\. (?=To specify)/)[0];
    throw new UsageError(`${message} (see \`calebe ${command} --help\`)`);
  }
  if ((parsed.values as { help?: boolean }).help) {
    process.stdout.write(`${HELP[command]}\n`);
    return undefined;
  }
  return parsed;
}

async function serve(args: string[]): Promise<number> {
  const parsed = parse('serve', {
    args,
    options: { role: { type: 'string', default: 'all' }, ...HELP_OPTION },
  });
  if (!parsed) return 0;
  const role = parsed.values.role as Role;
  if (!['api', 'worker', 'all'].includes(role))
    throw new UsageError('--role must be api, worker or all (see `calebe serve --help`)');
  const config = loadConfig();
  const gateway = await createGateway(
    config,
    createLogger(config.LOG_LEVEL, logDestination(config.LOG_FORMAT)),
    { deferFirstStart: true },
  );
  const shutdown = async (signal: string) => {
    gateway.logger.info({ signal }, 'shutting down');
    await gateway.close();
    process.exit(0);
  };
  process.once('SIGINT', () => void shutdown('SIGINT'));
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
  try {
    await startGateway(gateway, role);
    // Issue 23 item 1.4: one-time secrets are created only now that the server listens; a start that fails
    // before (a port in use) consumed none, and the next one shows them.
    await firstStart(gateway);
    // CLI commands reach the embedded database through this process from now on.
    await gateway.database.share?.(publicUrl(gateway, role));
  } catch (error) {
    await gateway.close();
    throw error;
  }
  const where = config.DATABASE_URL
    ? 'PostgreSQL'
    : `embedded PostgreSQL (PGlite) in ${config.CALEBE_DATA_DIR}`;
  gateway.logger.info(
    { role, port: config.PORT, store: gateway.store.kind },
    `calebe listening on ${publicUrl(gateway, role)}, data in ${where}`,
  );
  // The administrator's password is shown once on the terminal of the person who started it, never logged.
  process.stdout.write(startBanner(gateway, role));
  return -1;
}

async function migrate(args: string[]): Promise<number> {
  if (!parse('migrate', { args, options: HELP_OPTION })) return 0;
  const config = loadConfig();
  const database = await reachDatabase({ url: config.DATABASE_URL, dataDir: config.CALEBE_DATA_DIR });
  try {
    const { applied } = await migrateToLatest(database.db);
    console.log(applied.length ? `applied: ${applied.join(', ')}` : 'database is up to date');
  } finally {
    await database.close();
  }
  return 0;
}

/**
 * A progress bar of `unit`s done against `total` (0: open-ended), with the event rate; `add(n, events)`
 * counts `n` units holding `events` events (the same by default); `stop` returns the seconds since start.
 */
function progressBar(label: string, total: number, unit = 'events') {
  const counts = unit === 'events' ? '' : ' | {events} events';
  const bar = new cliProgress.SingleBar(
    {
      format: `${label} [{bar}] {value}/{total} ${unit}${counts} | {rate} ev/s`,
      noTTYOutput: true,
      notTTYSchedule: 2000,
    },
    cliProgress.Presets.shades_classic,
  );
  const started = process.hrtime.bigint();
  const seconds = () => Number(process.hrtime.bigint() - started) / 1e9;
  let done = 0;
  let events = 0;
  bar.start(total, 0, { events: 0, rate: 0 });
  return {
    add: (n: number, inside = n) => {
      done += n;
      events += inside;
      bar.update(total > 0 ? Math.min(done, total) : done, {
        events,
        rate: Math.round(events / Math.max(seconds(), 1e-9)),
      });
    },
    stop: (): number => {
      bar.stop();
      return seconds();
    },
  };
}

async function rebuild(args: string[]): Promise<number> {
  const parsed = parse('rebuild', {
    args,
    allowPositionals: true,
    options: { all: { type: 'boolean' }, ...HELP_OPTION },
  });
  if (!parsed) return 0;
  const { values, positionals } = parsed;
  if (values.all && positionals.length > 0)
    throw new UsageError('give projection names or --all, not both (see `calebe rebuild --help`)');
  const config = loadConfig();
  const gateway = await createGateway(config, createLogger('warn'), { bootstrap: false, reachRunning: true });
  try {
    const known = gateway.runner.projections;
    const chosen = values.all ? known : known.filter((p) => positionals.includes(p.name));
    const missing = positionals.filter((name) => !known.some((p) => p.name === name));
    if (missing.length || chosen.length === 0) {
      throw new ConfigError(
        `unknown projection ${missing.join(', ') || '(none given)'}; known: ${known.map((p) => p.name).join(', ')}`,
      );
    }
    // The bar's total is the log size where the store can count it cheaply (PostgreSQL); otherwise open-ended.
    const total =
      gateway.store.kind === 'postgres'
        ? Number(
            (await sql<{ n: string }>`select count(*) as n from events`.execute(gateway.database.db)).rows[0]
              ?.n ?? 0,
          )
        : 0;
    // One pass over the log for all of them (ProjectionRunner.rebuildAll), batch forms and bulk loads where
    // they exist; one projection is the same pass.
    const names = chosen.map((p) => p.name).join(', ');
    const progress = progressBar(chosen.length > 1 ? `${chosen.length} projections` : names, total);
    const n = await gateway.runner.rebuildAll(chosen, progress.add);
    const secs = progress.stop();
    console.log(
      `${names}: ${n} events in ${secs.toFixed(2)} s (${Math.round(n / Math.max(secs, 1e-9))} events/s)`,
    );
  } finally {
    await gateway.close();
  }
  return 0;
}

/**
 * `calebe audit replay`: prints each difference between the fold of the transaction streams and the
 * `transactions` read model, then a summary. Without options it checks every stream (like `--all`).
 * Returns 1 on any difference, 0 otherwise; usage errors leave as ConfigError (exit 2).
 */
async function auditReplay(args: string[]): Promise<number> {
  const parsed = parse('audit', {
    args,
    allowPositionals: true,
    options: { all: { type: 'boolean' }, transaction: { type: 'string' }, ...HELP_OPTION },
  });
  if (!parsed) return 0;
  const { values, positionals } = parsed;
  const [sub, ...rest] = positionals;
  if (sub !== 'replay' || rest.length > 0)
    throw new UsageError('usage: calebe audit replay [--transaction <id> | --all]');
  if (values.all && values.transaction !== undefined) {
    throw new UsageError('give either --transaction <id> or --all, not both');
  }
  if (values.transaction !== undefined && !/^txn_[A-Za-z0-9]{1,60}$/.test(values.transaction)) {
    throw new UsageError(`--transaction must be a transaction id (txn_…)`);
  }
  const config = loadConfig();
  const gateway = await createGateway(config, createLogger('warn'), { bootstrap: false, reachRunning: true });
  try {
    // The catalog is async: bring it up to the log's head so every stream is enumerated.
    if (values.transaction === undefined) await gateway.runner.catchUp(streamCatalog);
    const report = await replayTransactions(gateway.ctx, { transactionId: values.transaction });
    if (values.transaction !== undefined && report.checked === 0) {
      // Neither a stream nor a read-model row: a typo must not read as "0 differences".
      console.error(`calebe: no transaction ${values.transaction} in this database`);
      return 1;
    }
    for (const d of report.differences) console.log(formatDifference(d));
    console.log(`${report.checked} transaction streams checked, ${report.differences.length} differences`);
    return report.differences.length === 0 ? 0 : 1;
  } finally {
    await gateway.close();
  }
}

/**
 * `calebe bootstrap`: the demo tenant and its keys (src/commands/bootstrap-demo.ts), then how to log in. Like
 * `serve`, it creates the first administrator while no user exists. Secrets are printed only when created.
 */
async function bootstrap(args: string[]): Promise<number> {
  if (!parse('bootstrap', { args, options: HELP_OPTION })) return 0;
  const config = loadConfig();
  const gateway = await createGateway(config, createLogger('warn'), { reachRunning: true });
  // A running gateway's own address (its PORT may differ from this shell's), else this configuration's.
  const baseUrl = gateway.database.gatewayBaseUrl ?? config.baseUrl;
  const out: string[] = [];
  try {
    const { ctx } = gateway;
    const demo = await bootstrapDemo(
      { store: ctx.store, registry: ctx.events, now: () => ctx.now() },
      { actor: 'system:bootstrap' },
    );
    out.push(
      `Demo tenant: ${demo.tenant.name} (${demo.tenant.id})${demo.tenant.created ? '' : ', already existed'}`,
    );
    const shown = demo.keys.filter((k) => k.key);
    for (const k of demo.keys) {
      out.push(
        k.key
          ? `  ${k.mode} key ${k.id}: ${k.key}`
          : `  ${k.mode} key ${k.id} (${k.prefix}…) already exists; its secret was shown only when it was created (by the first start of the embedded database or the first bootstrap)`,
      );
    }
    if (shown.length > 0) {
      out.push('  Keys carry every public scope. Copy them now: they are never shown again.');
    }
    if (shown.length < demo.keys.length) {
      out.push(
        `  To get a new key, log in and call POST /admin/api-keys with {"tenant_id":"${demo.tenant.id}","mode":"test","scopes":[…],"name":"…"} (see README).`,
      );
    }
    out.push('', 'Panel administrator:');
    // Async projections: the users read model caught up with the administrator created on this start.
    await ctx.referenceReadsCaughtUp?.();
    const admins = await ctx.db
      .selectFrom('users')
      .select(['email'])
      .where('role', '=', 'super_admin')
      .orderBy('created_at')
      .execute();
    const envAdmin = config.BOOTSTRAP_ADMIN_EMAIL?.trim().toLowerCase();
    if (gateway.firstAdmin) {
      out.push(
        `  e-mail:   ${gateway.firstAdmin.email}`,
        `  password: ${gateway.firstAdmin.password}`,
        '  (created now, shown only this time)',
      );
    } else if (envAdmin && admins.some((a) => a.email === envAdmin)) {
      out.push(`  e-mail:   ${envAdmin}`, '  password: the value of BOOTSTRAP_ADMIN_PASSWORD');
    } else if (admins.length > 0) {
      out.push(
        `  e-mail:   ${admins.map((a) => a.email).join(', ')}`,
        '  password: the one printed or chosen when that administrator was created',
      );
    } else {
      out.push(
        '  none exists yet. Set BOOTSTRAP_ADMIN_EMAIL and BOOTSTRAP_ADMIN_PASSWORD (12 to 72 bytes) and run',
        '  `npx calebe bootstrap` again (or `npm start`), then log in with them.',
      );
    }
    // The e-mail when there is one to name; the password is never repeated here.
    const email =
      gateway.firstAdmin?.email ?? envAdmin ?? (admins.length === 1 ? admins[0]?.email : undefined);
    out.push(
      '',
      `Log in (README "Log in to the panel"): curl -sSf ${baseUrl}/admin/sessions -H 'content-type: application/json' \\`,
      `  -d '{"email":"${email ?? '<e-mail>'}","password":"<its password>"}'`,
    );
  } finally {
    await gateway.close();
  }
  process.stdout.write(`${out.join('\n')}\n`);
  return 0;
}

/** `calebe dev seed` (src/dev/seed.ts): PostgreSQL store only; prints progress bars and a summary. */
async function devSeed(args: string[]): Promise<number> {
  const parsed = parseSeedArgs(args);
  if (!parsed) return 0;
  const config = loadConfig();
  if (!config.DATABASE_URL) {
    throw new UsageError(
      'dev seed writes to PostgreSQL only, never to the embedded database: set DATABASE_URL (see `calebe dev --help`)',
    );
  }
  const gateway = await createGateway(config, createLogger('warn'), { bootstrap: false });
  try {
    const { store } = gateway;
    if (!(store instanceof PostgresEventStore)) {
      throw new UsageError('dev seed needs the PostgreSQL event store (unset EVENTSTORE_URL)');
    }
    const { ctx } = gateway;
    const started = process.hrtime.bigint();
    const seconds = () => Number(process.hrtime.bigint() - started) / 1e9;
    const bar = progressBar('seed', parsed.transactions, 'transactions');
    const result = await seed(
      { store, registry: ctx.events, now: () => ctx.now() },
      { ...parsed, onProgress: bar.add },
    );
    const appended = bar.stop();
    console.log(
      `appended ${result.transactions} transactions (${result.events} events) for ${result.tenants.length} tenants in ${appended.toFixed(1)} s (${Math.round(result.events / Math.max(appended, 1e-9))} events/s)`,
    );
    const log = Number(
      (await sql<{ n: string }>`select count(*) as n from events`.execute(gateway.database.db)).rows[0]?.n ??
        0,
    );
    const catchUp = progressBar('read models', log);
    await gateway.runner.catchUpTogether(gateway.runner.projections, catchUp.add);
    const caughtUp = catchUp.stop();
    console.log(
      `async read models (${gateway.runner.projections.map((p) => p.name).join(', ')}) caught up in ${caughtUp.toFixed(1)} s; total ${seconds().toFixed(1)} s`,
    );
    console.log(
      `statuses: ${Object.entries(result.statuses)
        .map(([k, v]) => `${k} ${v}`)
        .join(', ')}`,
    );
    for (const t of result.tenants) {
      console.log(
        `  ${t.id} ${t.name}${t.parentId ? ` (child of ${t.parentId})` : ''}: ${t.transactions} transactions, cost centers ${t.costCenterIds.join(' ')}`,
      );
    }
  } finally {
    await gateway.close();
  }
  return 0;
}

function parseSeedArgs(args: string[]) {
  const parsed = parse('dev', {
    args,
    allowPositionals: true,
    options: {
      ...HELP_OPTION,
      tenants: { type: 'string' },
      transactions: { type: 'string' },
      primary: { type: 'string' },
      'live-share': { type: 'string' },
      days: { type: 'string' },
      batch: { type: 'string' },
      seed: { type: 'string' },
    },
  });
  if (!parsed) return undefined;
  const { values, positionals } = parsed;
  if (positionals.length !== 1 || positionals[0] !== 'seed') {
    throw new UsageError(
      'usage: calebe dev seed --tenants N --transactions M [--primary P] [--live-share F] [--days D] [--batch B] [--seed S]',
    );
  }
  const int = (name: string, raw: string | undefined, min: number, max: number): number | undefined => {
    if (raw === undefined) return undefined;
    const n = Number(raw);
    if (!Number.isInteger(n) || n < min || n > max)
      throw new UsageError(`--${name} must be an integer in ${min}..${max}`);
    return n;
  };
  const tenants = int('tenants', values.tenants, 1, 10_000);
  const transactions = int('transactions', values.transactions, 0, 100_000_000);
  if (tenants === undefined || transactions === undefined)
    throw new UsageError('--tenants and --transactions are required');
  const liveShare = values['live-share'] === undefined ? undefined : Number(values['live-share']);
  if (liveShare !== undefined && !(liveShare >= 0 && liveShare <= 1))
    throw new UsageError('--live-share must be in 0..1');
  const optional = {
    primary: int('primary', values.primary, 0, transactions),
    liveShare,
    days: int('days', values.days, 1, 3650),
    batch: int('batch', values.batch, 1, 50_000),
    seed: int('seed', values.seed, 0, 2 ** 31),
  };
  return {
    tenants,
    transactions,
    ...Object.fromEntries(Object.entries(optional).filter(([, v]) => v !== undefined)),
  } as Pick<SeedOptions, 'tenants' | 'transactions' | 'primary' | 'liveShare' | 'days' | 'batch' | 'seed'>;
}

/**
 * `calebe provider-emulator` (DESIGN.md "Providers"): the emulator of src/providers/emulator/server.ts as a
 * process, for a developer's gateway or a test run in another language. Runs until SIGTERM/SIGINT.
 */
async function providerEmulator(args: string[]): Promise<number> {
  const parsed = parse('provider-emulator', {
    args,
    options: {
      port: { type: 'string', default: '4010' },
      host: { type: 'string', default: '127.0.0.1' },
      'control-token': { type: 'string' },
      ...HELP_OPTION,
    },
  });
  if (!parsed) return 0;
  const port = Number(parsed.values.port);
  if (!/^[0-9]+$/.test(parsed.values.port) || port > 65_535)
    throw new UsageError('--port must be an integer in 0..65535 (see `calebe provider-emulator --help`)');
  const host = parsed.values.host;
  const { controlToken, generated } = emulatorControlToken(
    parsed.values['control-token'] ?? process.env.EMULATOR_CONTROL_TOKEN,
    host,
  );
  const emulator = await startProviderEmulator({ port, host, controlToken }).catch(
    (error: NodeJS.ErrnoException) => {
      // failureLine's hint (set PORT) is the gateway's; the emulator's port is an option.
      if (error.code === 'EADDRINUSE')
        throw new Error(`port ${port} on ${host} is already in use; choose another with --port`);
      throw error;
    },
  );
  const stop = () => void emulator.close().then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  process.stdout.write(
    `provider emulator on ${emulator.url} (payment host ${emulator.paymentUrl}, API host ${emulator.apiUrl}, control API ${emulator.url}/_emulator)\n`,
  );
  if (generated) {
    process.stdout.write(
      `control API token (generated; set EMULATOR_CONTROL_TOKEN to choose one): send Authorization: Bearer ${controlToken}\n`,
    );
  } else if (controlToken !== undefined) {
    process.stdout.write('control API token: the one given; send Authorization: Bearer <token>\n');
  }
  return -1;
}

/** 127.0.0.0/8, ::1 and `localhost`: only this machine reaches the emulator there. */
function isLoopback(host: string): boolean {
  if (host === 'localhost' || host === '::1') return true;
  return isIP(host) === 4 && host.startsWith('127.');
}

/**
 * Issue 23 item 2.7: the control API's token. Given (`--control-token`, else EMULATOR_CONTROL_TOKEN): used,
 * if it passes the secret rule. None on loopback: none required (tests and a developer's machine). None on
 * any other address (compose's 0.0.0.0): generated, since anything on that network could otherwise mark
 * charges paid or read payers' data.
 */
function emulatorControlToken(
  given: string | undefined,
  host: string,
): { controlToken: string | undefined; generated: boolean } {
  if (given !== undefined && given !== '') {
    const reason = weakSecretReason(given);
    if (reason !== undefined) throw new UsageError(`--control-token (or EMULATOR_CONTROL_TOKEN) ${reason}`);
    return { controlToken: given, generated: false };
  }
  if (isLoopback(host)) return { controlToken: undefined, generated: false };
  return { controlToken: randomBytes(24).toString('base64url'), generated: true };
}

/**
 * The one line an operator sees for a failure outside the command's own output: the database unreachable or
 * refusing the login, the embedded data directory held by another process, the port taken; any other error
 * by its message (its stack with LOG_LEVEL=debug).
 */
function failureLine(error: unknown): string {
  if (error instanceof DataDirLockedError) return error.message;
  const e = error as NodeJS.ErrnoException & { errors?: NodeJS.ErrnoException[]; port?: number };
  const code = e?.code ?? e?.errors?.[0]?.code;
  if (code === 'EADDRINUSE') {
    return `the port is already in use (${e.message}); stop what listens there or set PORT`;
  }
  const url = process.env.DATABASE_URL;
  const unreachable = ['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH'];
  // 28000/28P01: authentication refused; 3D000: no such database.
  if (url && code && (unreachable.includes(code) || ['28000', '28P01', '3D000'].includes(code))) {
    let where = 'the PostgreSQL server of DATABASE_URL';
    if (URL.canParse(url)) {
      const u = new URL(url);
      where = `PostgreSQL at ${u.hostname}:${u.port || 5432}${u.pathname}`;
    }
    const reason = e.message || e.errors?.[0]?.message || code;
    return `cannot use ${where}: ${reason}; is it running, and is DATABASE_URL right?`;
  }
  return error instanceof Error ? error.message.split('\n')[0] || String(error) : String(error);
}

const COMMANDS: Record<string, (args: string[]) => Promise<number>> = {
  serve,
  migrate,
  bootstrap,
  rebuild,
  audit: auditReplay,
  dev: devSeed,
  'provider-emulator': providerEmulator,
};

/** Runs one command; the exit code, or -1 when the process keeps running (serve). */
export async function main(argv: string[]): Promise<number> {
  const [command, ...args] = argv;
  if (command === undefined || command === 'help' || command === '--help' || command === '-h') {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const run = COMMANDS[command];
  if (!run) {
    console.error(`calebe: unknown command '${command}' (see \`calebe --help\`)`);
    return 2;
  }
  try {
    return await run(args);
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(`calebe ${command}: ${error.message}`);
      return 2;
    }
    console.error(`calebe ${command}: ${failureLine(error)}`);
    if (['debug', 'trace'].includes(process.env.LOG_LEVEL ?? '')) console.error(error);
    return 1;
  }
}

const code = await main(process.argv.slice(2));
if (code >= 0) process.exit(code);
