import { parseArgs } from 'node:util';
import cliProgress from 'cli-progress';
import { sql } from 'kysely';
import { createGateway, type Role, startGateway } from './app.ts';
import { formatDifference, replayTransactions } from './commands/audit-replay.ts';
import { bootstrapDemo } from './commands/bootstrap-demo.ts';
import { ConfigError, loadConfig } from './config.ts';
import { openDatabase } from './db/database.ts';
import { migrateToLatest } from './db/migrate.ts';
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
                                    the transactions read model; exit 1 on any difference`;

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
    for (const projection of chosen) {
      const bar = new cliProgress.SingleBar(
        {
          format: `${projection.name} [{bar}] {value}/{total} events | {rate} ev/s`,
          noTTYOutput: true,
          notTTYSchedule: 2000,
        },
        cliProgress.Presets.shades_classic,
      );
      const started = process.hrtime.bigint();
      let done = 0;
      bar.start(total, 0, { rate: 0 });
      const n = await gateway.runner.rebuild(projection, (batch) => {
        done += batch;
        const secs = Number(process.hrtime.bigint() - started) / 1e9;
        bar.update(done, { rate: Math.round(done / Math.max(secs, 1e-9)) });
      });
      bar.stop();
      const secs = Number(process.hrtime.bigint() - started) / 1e9;
      console.log(
        `${projection.name}: ${n} events in ${secs.toFixed(2)} s (${Math.round(n / Math.max(secs, 1e-9))} events/s)`,
      );
    }
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
