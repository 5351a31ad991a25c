import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { Kysely, PostgresDialect } from 'kysely';
import { PGliteDialect } from 'kysely-pglite-dialect';
import pg from 'pg';
import { copyFromStdinOn } from './copy-from-stdin.ts';
import { lockDataDir } from './data-dir-lock.ts';
import type { Database } from './schema.ts';

export type DatabaseKind = 'postgres' | 'pglite';

export interface DatabaseHandle {
  db: Kysely<Database>;
  kind: DatabaseKind;
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
    const db = new Kysely<Database>({ dialect: new PGliteDialect(new PGlite(dir)) });
    return {
      db,
      kind: 'pglite',
      close: async () => {
        try {
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

/** An in-memory PGlite database, for tests of the embedded mode. */
export function openMemoryPglite(): DatabaseHandle {
  const db = new Kysely<Database>({ dialect: new PGliteDialect(new PGlite()) });
  return { db, kind: 'pglite', close: () => db.destroy() };
}
