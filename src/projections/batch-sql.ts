import { type RawBuilder, sql, type Transaction } from 'kysely';
import type { Database } from '../db/schema.ts';

/**
 * Helpers for projections' `handleBatch` (issue 7, rebuild and seeding speed): a batch of rows travels as
 * one jsonb parameter and is typed on the server by the table's own row type (`jsonb_populate_recordset`),
 * so one statement writes any number of rows without listing column types here.
 */
export function recordset(table: keyof Database & string, rows: readonly object[]): RawBuilder<unknown> {
  return sql`jsonb_populate_recordset(null::${sql.table(table)}, ${JSON.stringify(rows)}::jsonb)`;
}

/** `col = excluded.col, …` for an upsert. */
export function setExcluded(columns: readonly string[]): RawBuilder<unknown> {
  return sql.join(columns.map((c) => sql`${sql.ref(c)} = excluded.${sql.ref(c)}`));
}

/** Drops undefined values (an absent change), as kysely's `.set()` does. */
export function defined(values: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(values)) if (v !== undefined) out[k] = v;
  return out;
}

/**
 * Applies merged changes, one row per record: rows are grouped by the set of columns they change and each
 * group is one `update … from jsonb_populate_recordset(…)`, guarded like the per-event updates by
 * `sequence < v.sequence` (a merged run of a stream's events gives the same row as applying them one by one,
 * since every event sets columns to values fixed by its stream version).
 */
export async function updateGuarded(
  trx: Transaction<Database>,
  table: keyof Database & string,
  key: string,
  rows: readonly Record<string, unknown>[],
): Promise<void> {
  const groups = new Map<string, Record<string, unknown>[]>();
  for (const row of rows) {
    const signature = Object.keys(row).sort().join(',');
    const group = groups.get(signature);
    if (group) group.push(row);
    else groups.set(signature, [row]);
  }
  for (const [signature, group] of groups) {
    const columns = signature.split(',').filter((c) => c !== key);
    await sql`
      update ${sql.table(table)} as t
      set ${sql.join(columns.map((c) => sql`${sql.ref(c)} = v.${sql.ref(c)}`))}
      from ${recordset(table, group)} as v
      where t.${sql.ref(key)} = v.${sql.ref(key)} and t.sequence < v.sequence`.execute(trx);
  }
}

/**
 * Secondary indexes a `BulkLoad` drops before filling a table from empty and builds back once at the end
 * (issue 7 B4: one sort per index instead of an index insertion per row). `definitions` maps each index
 * name to its column list exactly as the table's migration creates it; `restore` builds only the missing
 * ones and is a catalog read when none is missing.
 */
export function droppableIndexes(
  table: keyof Database & string,
  definitions: Readonly<Record<string, string>>,
) {
  const names = Object.keys(definitions);
  return {
    async drop(trx: Transaction<Database>): Promise<void> {
      for (const name of names) await sql`drop index if exists ${sql.ref(name)}`.execute(trx);
    },
    /** Names of the indexes it built. */
    async restore(trx: Transaction<Database>): Promise<string[]> {
      const { rows } = await sql<{ indexname: string }>`
        select indexname from pg_indexes
        where schemaname = current_schema() and tablename = ${table} and indexname = any(${names}::text[])`.execute(
        trx,
      );
      const missing = names.filter((n) => !rows.some((r) => r.indexname === n));
      if (missing.length === 0) return missing;
      // One sort per index; the default 64 MB spills a multi-million-row sort to disk.
      await sql`set local maintenance_work_mem = '256MB'`.execute(trx);
      for (const name of missing) {
        await sql`create index if not exists ${sql.ref(name)} on ${sql.table(table)} ${sql.raw(
          definitions[name] as string,
        )}`.execute(trx);
      }
      return missing;
    },
  };
}
