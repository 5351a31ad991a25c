import { randomBytes } from 'node:crypto';
import { PGlite } from '@electric-sql/pglite';
import { Kysely } from 'kysely';
import { PGliteDialect } from 'kysely-pglite-dialect';
import pg from 'pg';
import { type DatabaseHandle, openDatabase } from '../../src/db/database.ts';
import { migrateToLatest } from '../../src/db/migrate.ts';
import type { Database } from '../../src/db/schema.ts';

/** The server tests create their databases on; DESIGN.md: one fresh database per test file. */
export const ADMIN_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export interface TestDatabase extends DatabaseHandle {
  url: string;
  /** Closes the handle and drops the database. */
  drop(): Promise<void>;
}

export async function createTestDatabase(opts: { poolSize?: number } = {}): Promise<TestDatabase> {
  const name = `calebe_test_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: ADMIN_URL });
  await admin.connect();
  try {
    await admin.query(`create database ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  const handle = openDatabase({ url: url.toString(), poolSize: opts.poolSize ?? 20 });
  await migrateToLatest(handle.db);
  return {
    ...handle,
    url: url.toString(),
    async drop() {
      await handle.close();
      const c = new pg.Client({ connectionString: ADMIN_URL });
      await c.connect();
      try {
        await c.query(`drop database if exists ${name} with (force)`);
      } finally {
        await c.end();
      }
    },
  };
}

/** An in-memory PGlite database, migrated, for tests of the embedded mode. */
export async function createPgliteDatabase(): Promise<DatabaseHandle & { drop(): Promise<void> }> {
  const db = new Kysely<Database>({ dialect: new PGliteDialect(new PGlite()) });
  await migrateToLatest(db);
  return { db, kind: 'pglite', close: () => db.destroy(), drop: () => db.destroy() };
}
