import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { type DatabaseConnection, type Driver, Kysely, PostgresDialect } from 'kysely';
import { PGliteDialect } from 'kysely-pglite-dialect';
import pg from 'pg';
import { copyFromStdinOn } from './copy-from-stdin.ts';
import { DataDirLockedError, lockDataDir } from './data-dir-lock.ts';
import {
  type SessionLock as Lock,
  readSocketInfo,
  SessionLock,
  serveEmbeddedSocket,
} from './embedded-socket.ts';
import type { Database } from './schema.ts';

export type DatabaseKind = 'postgres' | 'pglite';

export interface DatabaseHandle {
  db: Kysely<Database>;
  kind: DatabaseKind;
  /**
   * The embedded database this process owns: lends it to CLI commands over the PostgreSQL wire
   * (src/db/embedded-socket.ts) until close. `baseUrl` goes into socket.json for the commands' hints.
   */
  share?(baseUrl: string): Promise<void>;
  /** Reached through a running gateway's socket: its public address (issue 23 item 1.4). */
  gatewayBaseUrl?: string;
  close(): Promise<void>;
}

export interface DatabaseOptions {
  /** postgres:// URL; absent means the embedded PGlite database under dataDir. */
  url?: string | undefined;
  dataDir?: string;
  poolSize?: number;
}

export function openDatabase(opts: DatabaseOptions): DatabaseHandle {
  if (opts.url) {
    const pool = new pg.Pool({ connectionString: opts.url, max: opts.poolSize ?? 20 });
    // An idle client that loses its server must not crash the process; the next query reports the error.
    pool.on('error', () => {});
    // A checked-out client has no listener of its own (pg removes the pool's while it is lent): when the
    // server goes away (a restart) its error would crash the process. The pool drops a broken client when
    // it is released, so it is never reused (RELIABILITY.md F2).
    pool.on('connect', (client) => {
      client.on('error', () => {});
      prepareStatements(client);
      // `copyFromStdin` statements (rebuild bulk loads) stream their rows as COPY data (copy-from-stdin.ts).
      const query = client.query.bind(client) as (...args: unknown[]) => unknown;
      (client as { query: unknown }).query = copyFromStdinOn(client, query);
    });
    const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
    return { db, kind: 'postgres', close: () => db.destroy() };
  }
  const dataDir = opts.dataDir ?? './.calebe';
  // One process per data directory (src/db/data-dir-lock.ts); throws DataDirLockedError otherwise.
  const unlock = lockDataDir(dataDir);
  try {
    const dir = join(dataDir, 'pgdata');
    mkdirSync(dir, { recursive: true });
    const pglite = new PGlite(dir);
    const lock = new SessionLock();
    const db = new Kysely<Database>({ dialect: new LockedPGliteDialect(pglite, lock) });
    let shared: { close(): Promise<void> } | undefined;
    return {
      db,
      kind: 'pglite',
      share: async (baseUrl) => {
        shared ??= await serveEmbeddedSocket(pglite, lock, dataDir, baseUrl);
      },
      close: async () => {
        try {
          await shared?.close();
          await db.destroy();
        } finally {
          unlock();
        }
      },
    };
  } catch (error) {
    unlock();
    throw error;
  }
}

/** How long a command waits for a starting gateway to lend its embedded database. */
const SHARE_WAIT_MS = 120_000;

/**
 * Like openDatabase, but when a running `calebe serve` holds the embedded data directory, reaches its
 * database through the gateway (src/db/embedded-socket.ts) instead of failing: what CLI commands use
 * (issue 23 item 1.4). Another holder (a CLI command, or a gateway of an older version) still fails.
 */
export async function reachDatabase(opts: DatabaseOptions): Promise<DatabaseHandle> {
  const started = Date.now();
  for (;;) {
    try {
      return openDatabase(opts);
    } catch (error) {
      if (!(error instanceof DataDirLockedError) || !/^calebe serve\b/.test(error.holder.command))
        throw error;
      const info = readSocketInfo(error.dir, error.holder.pid);
      if (info) return remoteEmbedded(info);
      // A gateway still starting (migrating, listening) lends it in a moment.
      if (Date.now() - started > SHARE_WAIT_MS) throw error;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
}

/**
 * A running gateway's embedded database over its socket: one connection, as PGlite has one session, and no
 * named prepared statements (they would outlive this command in the gateway's session).
 */
function remoteEmbedded(info: {
  host: string;
  port: number;
  password: string;
  base_url: string;
}): DatabaseHandle {
  const pool = new pg.Pool({
    host: info.host,
    port: info.port,
    user: 'postgres',
    database: 'postgres',
    password: info.password,
    max: 1,
  });
  pool.on('error', () => {});
  pool.on('connect', (client) => client.on('error', () => {}));
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  return { db, kind: 'pglite', gatewayBaseUrl: info.base_url, close: () => db.destroy() };
}

/**
 * kysely's PGlite driver with the session lock of src/db/embedded-socket.ts: a connection (a query, or a
 * whole transaction) is this process's turn on the one PGlite session; CLI clients of the socket take theirs.
 */
class LockedPGliteDialect extends PGliteDialect {
  constructor(
    pglite: PGlite,
    private readonly lock: Lock,
  ) {
    super(pglite);
  }

  override createDriver(): Driver {
    const inner = super.createDriver();
    const lock = this.lock;
    let release: (() => void) | undefined;
    return {
      init: () => inner.init(),
      acquireConnection: async () => {
        const done = await lock.acquire();
        try {
          const connection = await inner.acquireConnection();
          release = done;
          return connection;
        } catch (error) {
          done();
          throw error;
        }
      },
      releaseConnection: async (connection: DatabaseConnection) => {
        await inner.releaseConnection(connection);
        const done = release;
        release = undefined;
        done?.();
      },
      beginTransaction: (c, s) => inner.beginTransaction(c, s),
      commitTransaction: (c) => inner.commitTransaction(c),
      rollbackTransaction: (c) => inner.rollbackTransaction(c),
      destroy: () => inner.destroy(),
    };
  }
}

/** Distinct statements a connection keeps prepared; past it, statements go unnamed (parsed every time). */
export const PREPARED_PER_CONNECTION = 256;

/**
 * Issue 14: every statement with parameters goes as a named prepared statement of its connection (as
 * postgres.js does by default), so PostgreSQL parses and plans the same few texts once per connection
 * instead of once per call, which was about 60 % of its CPU per creation. kysely hands pg the SQL text and
 * the values; the text is the statement's identity. Statements without parameters (BEGIN, COMMIT, DDL)
 * keep the simple protocol. A connection holds at most PREPARED_PER_CONNECTION of them, so a stream of
 * distinct texts (dynamic filters) cannot grow the server's memory without bound.
 */
function prepareStatements(client: pg.PoolClient): void {
  const names = new Map<string, string>();
  const query = client.query.bind(client) as (...args: unknown[]) => unknown;
  (client as { query: unknown }).query = (...args: unknown[]) => {
    const [text, values] = args;
    if (args.length === 2 && typeof text === 'string' && Array.isArray(values) && values.length > 0) {
      let name = names.get(text);
      if (name === undefined && names.size < PREPARED_PER_CONNECTION) {
        name = `calebe_${names.size + 1}`;
        names.set(text, name);
      }
      if (name !== undefined) return query({ name, text, values });
    }
    return query(...args);
  };
}
