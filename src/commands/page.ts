import { type SelectQueryBuilder, sql } from 'kysely';

/** The page a list query asks for (SPEC 4.3). */
export interface PageQuery {
  readonly limit: number;
  readonly offset: number;
}

/** A list answer (SPEC 2.1, 4.3): one page of records, and `meta.count` is the size of the page, not a total. */
export function page<T>(data: T[], query: PageQuery) {
  return { data, meta: { limit: query.limit, offset: query.offset, count: data.length } };
}

/**
 * One page of a read model's `select` in a stable order, by creation time with ties by id (both in
 * `direction`), so paging forward by `offset` (SPEC 4.3) neither skips nor repeats a record; `view` makes
 * a row what the API shows.
 */
export function listPage<DB, TB extends keyof DB, O>(
  select: SelectQueryBuilder<DB, TB, O>,
  query: PageQuery,
  direction: 'asc' | 'desc',
): Promise<ReturnType<typeof page<O>>>;
export function listPage<DB, TB extends keyof DB, O, T>(
  select: SelectQueryBuilder<DB, TB, O>,
  query: PageQuery,
  direction: 'asc' | 'desc',
  view: (row: O) => T,
): Promise<ReturnType<typeof page<T>>>;
export async function listPage<DB, TB extends keyof DB, O, T>(
  select: SelectQueryBuilder<DB, TB, O>,
  query: PageQuery,
  direction: 'asc' | 'desc',
  view?: (row: O) => T,
) {
  const data = await select
    .orderBy(sql.ref('created_at'), direction)
    .orderBy(sql.ref('id'), direction)
    .limit(query.limit)
    .offset(query.offset)
    .execute();
  return page<unknown>(view ? data.map((row) => view(row as O)) : data, query);
}
