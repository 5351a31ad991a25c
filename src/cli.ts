import { parseArgs } from 'node:util';
import cliProgress from 'cli-progress';
import { sql } from 'kysely';
import { createGateway, type Role, startGateway } from './app.ts';
import { formatDifference, replayTransactions } from './commands/audit-replay.ts';
import { bootstrapDemo } from './commands/bootstrap-demo.ts';
import { ConfigError, loadConfig } from './config.ts';
import { openDatabase } from './db/database.ts';
import { migrateToLatest } from './db/migrate.ts';
import { type SeedOptions, seed } from './dev/seed.ts';
import { PostgresEventStore } from './events/postgres-event-store.ts';
import { createLogger } from './logger.ts';
import { streamCatalog } from './projections/stream-catalog.ts';

const USAGE = `usage: calebe <command>
  serve [--role api|worker|all]     run the gateway (default role: all)
  migrate                           apply pending database migrations
  bootstrap                         create a demo tenant with a test and a live key (once; safe to re-run)
  rebuild <projection> | --all      empty read models and replay the whole log into them
                                    (stop the gateway first when rebuilding an inline projection)
  audit replay [--transaction <id> | --all]
                                    fold transaction streams through the decider and compare them with
                                    the transactions read model; exit 1 on any difference
  dev seed --tenants N --transactions M [--primary P] [--live-share F] [--days D] [--batch B] [--seed S]
                                    development only: append a realistic history (tenant tree, cost
                                    centers, Pix and boleto charges over the last D days) through the
                                    event store's bulk path, then catch the async read models up`;

async function serve(args: string[]) {
  const { values } = parseArgs({ args, options: { role: { type: 'string', default: 'all' } } });
  const role = values.role as Role;
  if (!['api', 'worker', 'all'].includes(role)) throw new ConfigError(`--role must be api, worker or all`);
  const config = loadConfig();
  const gateway = await createGateway(config);
  const shutdown = async (signal: string) => {
    gateway.logger.info({ signal }, 'shutting down');
    await gateway.close();
    process.exit(0);
  };
  process.once('SIGINT', () => void shutdown('SIGINT'));
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
  if (gateway.firstAdmin) {
    // Shown once on the terminal of the person who started it, never logged.
    process.stdout.write(
      `\nPanel administrator created (shown only now):\n  e-mail:   ${gateway.firstAdmin.email}\n  password: ${gateway.firstAdmin.password}\n\n`,
    );
  }
  await startGateway(gateway, role);
  const where = config.DATABASE_URL
    ? 'PostgreSQL'
    : `embedded PostgreSQL (PGlite) in ${config.CALEBE_DATA_DIR}`;
  gateway.logger.info(
    { role, port: config.PORT, store: gateway.store.kind },
    `calebe listening on ${config.baseUrl}, data in ${where}`,
  );
}

async function migrate() {
  const config = loadConfig();
  const database = openDatabase({ url: config.DATABASE_URL, dataDir: config.CALEBE_DATA_DIR });
  try {
    const { applied } = await migrateToLatest(database.db);
    console.log(applied.length ? `applied: ${applied.join(', ')}` : 'database is up to date');
  } finally {
    await database.close();
  }
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

async function rebuild(args: string[]) {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { all: { type: 'boolean' } },
  });
  const config = loadConfig();
  const gateway = await createGateway(config, createLogger('warn'), { bootstrap: false });
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
}

/**
 * `calebe audit replay`: prints each difference between the fold of the transaction streams and the
 * `transactions` read model, then a summary. Without options it checks every stream (like `--all`).
 * Returns 1 on any difference, 0 otherwise; usage errors leave as ConfigError (exit 2).
 */
async function auditReplay(args: string[]): Promise<number> {
  let parsed: { values: { all?: boolean; transaction?: string }; positionals: string[] };
  try {
    parsed = parseArgs({
      args,
      allowPositionals: true,
      options: { all: { type: 'boolean' }, transaction: { type: 'string' } },
    });
  } catch (error) {
    throw new ConfigError(error instanceof Error ? error.message : String(error));
  }
  const { values, positionals } = parsed;
  const [sub, ...rest] = positionals;
  if (sub !== 'replay' || rest.length > 0)
    throw new ConfigError('usage: calebe audit replay [--transaction <id> | --all]');
  if (values.all && values.transaction !== undefined) {
    throw new ConfigError('give either --transaction <id> or --all, not both');
  }
  if (values.transaction !== undefined && !/^txn_[A-Za-z0-9]{1,60}$/.test(values.transaction)) {
    throw new ConfigError(`--transaction must be a transaction id (txn_…)`);
  }
  const config = loadConfig();
  const gateway = await createGateway(config, createLogger('warn'), { bootstrap: false });
  try {
    // The catalog is async: bring it up to the log's head so every stream is enumerated.
    if (values.transaction === undefined) await gateway.runner.catchUp(streamCatalog);
    const report = await replayTransactions(gateway.ctx, { transactionId: values.transaction });
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
async function bootstrap() {
  const config = loadConfig();
  const gateway = await createGateway(config, createLogger('warn'));
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
          : `  ${k.mode} key ${k.id} (${k.prefix}…) already exists; its secret was shown only when it was created`,
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
    out.push(
      '',
      `Log in: curl -s ${config.baseUrl}/admin/sessions -H 'content-type: application/json' -d '{"email":"…","password":"…"}'`,
    );
  } finally {
    await gateway.close();
  }
  process.stdout.write(`${out.join('\n')}\n`);
}

/** `calebe dev seed` (src/dev/seed.ts): PostgreSQL store only; prints progress bars and a summary. */
async function devSeed(args: string[]) {
  let parsed: ReturnType<typeof parseSeedArgs>;
  try {
    parsed = parseSeedArgs(args);
  } catch (error) {
    throw new ConfigError(error instanceof Error ? error.message : String(error));
  }
  const config = loadConfig();
  const gateway = await createGateway(config, createLogger('warn'), { bootstrap: false });
  try {
    const { store } = gateway;
    if (!(store instanceof PostgresEventStore)) {
      throw new ConfigError('dev seed needs the PostgreSQL event store (unset EVENTSTORE_URL)');
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
}

function parseSeedArgs(args: string[]) {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      tenants: { type: 'string' },
      transactions: { type: 'string' },
      primary: { type: 'string' },
      'live-share': { type: 'string' },
      days: { type: 'string' },
      batch: { type: 'string' },
      seed: { type: 'string' },
    },
  });
  if (positionals.length !== 1 || positionals[0] !== 'seed') {
    throw new Error(
      'usage: calebe dev seed --tenants N --transactions M [--primary P] [--live-share F] [--days D] [--batch B] [--seed S]',
    );
  }
  const int = (name: string, raw: string | undefined, min: number, max: number): number | undefined => {
    if (raw === undefined) return undefined;
    const n = Number(raw);
    if (!Number.isInteger(n) || n < min || n > max)
      throw new Error(`--${name} must be an integer in ${min}..${max}`);
    return n;
  };
  const tenants = int('tenants', values.tenants, 1, 10_000);
  const transactions = int('transactions', values.transactions, 0, 100_000_000);
  if (tenants === undefined || transactions === undefined)
    throw new Error('--tenants and --transactions are required');
  const liveShare = values['live-share'] === undefined ? undefined : Number(values['live-share']);
  if (liveShare !== undefined && !(liveShare >= 0 && liveShare <= 1))
    throw new Error('--live-share must be in 0..1');
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

export async function main(argv: string[]): Promise<number> {
  const [command, ...args] = argv;
  try {
    switch (command) {
      case 'serve':
        await serve(args);
        return -1;
      case 'migrate':
        await migrate();
        return 0;
      case 'bootstrap':
        await bootstrap();
        return 0;
      case 'rebuild':
        await rebuild(args);
        return 0;
      case 'audit':
        return await auditReplay(args);
      case 'dev':
        await devSeed(args);
        return 0;
      default:
        console.error(USAGE);
        return command === undefined || command === 'help' || command === '--help' ? 0 : 2;
    }
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(`calebe: ${error.message}`);
      return 2;
    }
    throw error;
  }
}

const code = await main(process.argv.slice(2));
if (code >= 0) process.exit(code);
