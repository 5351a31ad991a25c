import type { Kysely } from 'kysely';
import { constantQuery } from '../../db/constant-query.ts';
import type { Database } from '../../db/schema.ts';

/**
 * The current names of centers by id, for reads that show `cost_center_name` (from the inline read model;
 * one query whatever the number of ids). Unknown ids are absent from the map.
 */
export async function costCenterNames(
  ctx: { db: Kysely<Database> },
  ids: Iterable<string>,
): Promise<Map<string, string>> {
  const unique = [...new Set(ids)];
  if (unique.length === 0) return new Map();
  const { rows } = await namesQuery(ctx.db, [unique]);
  return new Map(rows.map((r) => [r.id, r.name]));
}

/** One constant text for any number of ids (issue 14, B3: no statement built per list page). */
const namesQuery = constantQuery<{ id: string; name: string }>(
  'select id, name from cost_centers where id = any($1::text[])',
);
