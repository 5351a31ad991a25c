import assert from 'node:assert/strict';
import { type Kysely, sql } from 'kysely';
import type { Database } from '../../src/db/schema.ts';

/**
 * Every row of every table of the database, as text: what a dump (or a stolen copy) of the database holds.
 * System catalogs excluded; every user schema and table included, so a table added later is covered.
 */
export async function dumpEveryTable(db: Kysely<Database>): Promise<string> {
  const { rows: tables } = await sql<{ schema: string; name: string }>`
    select table_schema as schema, table_name as name from information_schema.tables
    where table_type = 'BASE TABLE' and table_schema not in ('pg_catalog', 'information_schema')
    order by 1, 2`.execute(db);
  assert.ok(tables.some((x) => x.name === 'events'));
  const parts: string[] = [];
  for (const table of tables) {
    const { rows } = await sql<{ line: string }>`select r::text as line from ${sql.table(
      `${table.schema}.${table.name}`,
    )} r`.execute(db);
    parts.push(`-- ${table.schema}.${table.name}`, ...rows.map((r) => r.line));
  }
  return parts.join('\n');
}
