/**
 * Issue 7 item 1: `npx calebe dev seed` on a fresh database, timed as the command a developer runs (a child
 * process of `bin/calebe.js`, its progress bars passed through). Also the seeded database that B3 (list),
 * B4 (rebuild) and B5 (summary) share in one invocation (`npm run bench -- b345`), or reuse across
 * invocations (`--reuse <database>`, never dropped; `--keep 1` keeps a freshly seeded one).
 */
import { spawn } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { ADMIN_URL, type BenchOptions, createBenchDatabase, fmt, onDatabase, printTable } from './support.ts';

export const DOCUMENT_SIGNING_SECRET = 'bench-document-signing-secret-0123456789';
const CLI = fileURLToPath(new URL('../bin/calebe.js', import.meta.url));

export interface SeededDatabase {
  name: string;
  url: string;
  /** The tenant holding the most charges (the seed's `--primary`), a root with children. */
  primary: { id: string; transactions: number; costCenterIds: string[] };
  transactions: number;
  events: number;
  /** Timings of the seed when this invocation made it. */
  seed?: SeedRun;
  drop(): Promise<void>;
}

export interface SeedRun {
  transactions: number;
  events: number;
  appendSeconds: number;
  readModelSeconds: number;
  totalSeconds: number;
  wallSeconds: number;
}

/** Runs `calebe <args>` against `url`, echoing its output; returns what it printed. */
export async function runCalebe(url: string, args: readonly string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      env: { ...process.env, DATABASE_URL: url, DOCUMENT_SIGNING_SECRET, LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8');
      process.stdout.write(chunk);
    });
    child.on('error', reject);
    child.on('exit', (code) =>
      code === 0 ? resolve(out) : reject(new Error(`calebe ${args.join(' ')} exited with ${code}`)),
    );
  });
}

async function describe(url: string): Promise<Omit<SeededDatabase, 'name' | 'url' | 'drop' | 'seed'>> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const top = await client.query<{ tenant_id: string; n: string }>(
      'select tenant_id, count(*) as n from transactions group by 1 order by 2 desc limit 1',
    );
    const primary = top.rows[0];
    if (!primary) throw new Error('the database holds no transactions: seed it first');
    const centers = await client.query<{ id: string }>(
      'select id from cost_centers where tenant_id = $1 order by created_at, id',
      [primary.tenant_id],
    );
    const totals = await client.query<{ t: string; e: string }>(
      'select (select count(*) from transactions) as t, (select count(*) from events) as e',
    );
    return {
      primary: {
        id: primary.tenant_id,
        transactions: Number(primary.n),
        costCenterIds: centers.rows.map((r) => r.id),
      },
      transactions: Number(totals.rows[0]?.t ?? 0),
      events: Number(totals.rows[0]?.e ?? 0),
    };
  } finally {
    await client.end();
  }
}

/** A seeded database: `--reuse` names an existing one; otherwise a fresh one is created and seeded. */
export async function seededDatabase(opts: BenchOptions): Promise<SeededDatabase> {
  if (opts.reuse) {
    const url = new URL(ADMIN_URL);
    url.pathname = `/${opts.reuse}`;
    console.log(`reusing database ${opts.reuse} (not dropped at the end)`);
    return {
      name: opts.reuse,
      url: url.toString(),
      ...(await describe(url.toString())),
      drop: async () => {},
    };
  }
  const db = await createBenchDatabase(2);
  try {
    const args = [
      `--tenants=${opts.tenants}`,
      `--transactions=${opts.transactions}`,
      `--primary=${opts.primary}`,
    ];
    console.log(`\nseeding ${db.name}: calebe dev seed ${args.join(' ')}`);
    const started = performance.now();
    const out = await runCalebe(db.url, ['dev', 'seed', ...args]);
    const wallSeconds = (performance.now() - started) / 1000;
    const appended = /appended (\d+) transactions \((\d+) events\).* in ([\d.]+) s/.exec(out);
    const caught = /caught up in ([\d.]+) s; total ([\d.]+) s/.exec(out);
    const seed: SeedRun = {
      transactions: Number(appended?.[1]),
      events: Number(appended?.[2]),
      appendSeconds: Number(appended?.[3]),
      readModelSeconds: Number(caught?.[1]),
      totalSeconds: Number(caught?.[2]),
      wallSeconds,
    };
    // A long-lived database has its statistics and visibility map: what B3 and B5 read against.
    await onDatabase(db.url, 'vacuum (analyze)');
    const description = await describe(db.url);
    const keep = opts.keep;
    return {
      name: db.name,
      url: db.url,
      ...description,
      seed,
      async drop() {
        if (keep) {
          console.log(`kept database ${db.name} (--keep): reuse it with --reuse ${db.name}`);
          await db.close();
          return;
        }
        await db.drop();
      },
    };
  } catch (error) {
    await db.drop();
    throw error;
  }
}

async function tableSizes(url: string): Promise<[string, string][]> {
  const { rows } = await onDatabase(
    url,
    `select relname, pg_size_pretty(pg_total_relation_size(c.oid)) as size
     from pg_class c join pg_namespace n on n.oid = c.relnamespace
     where n.nspname = 'public' and c.relkind = 'r' and pg_total_relation_size(c.oid) > 10 * 1024 * 1024
     order by pg_total_relation_size(c.oid) desc`,
  );
  return rows.map((r: { relname: string; size: string }) => [r.relname, r.size]);
}

/** Prints the seed's figures (when this invocation seeded) and the database's shape. */
export async function reportSeed(db: SeededDatabase): Promise<void> {
  if (db.seed) {
    const s = db.seed;
    printTable(
      ['transactions', 'events', 'append s', 'append events/s', 'async read models s', 'total s', 'wall s'],
      [
        [
          fmt(s.transactions),
          fmt(s.events),
          fmt(s.appendSeconds, 1),
          fmt(s.events / s.appendSeconds),
          fmt(s.readModelSeconds, 1),
          fmt(s.totalSeconds, 1),
          fmt(s.wallSeconds, 1),
        ],
      ],
    );
  }
  console.log(
    `\n${db.name}: ${fmt(db.transactions)} transactions, ${fmt(db.events)} events; primary tenant ${db.primary.id} holds ${fmt(db.primary.transactions)}`,
  );
  printTable(['table', 'size with indexes'], await tableSizes(db.url));
}

/** `npm run bench -- seed`: seed a fresh database, report, drop it (unless --keep). */
export async function benchSeed(opts: BenchOptions): Promise<SeededDatabase> {
  const db = await seededDatabase(opts);
  try {
    await reportSeed(db);
    return db;
  } finally {
    await db.drop();
  }
}
