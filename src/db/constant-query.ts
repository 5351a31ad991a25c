import { CompiledQuery, type Kysely, type QueryResult, type Transaction } from 'kysely';
import type { Database } from './schema.ts';

/**
 * Issue 14: a hot-path statement as constant SQL text with `$n` parameters, run through the Kysely
 * instance (its connection, pool and transaction handling) without building or compiling an operation tree
 * per call, which was kysely's share of a creation's CPU (BENCHMARKS.md). The connection's wrapper
 * (src/db/database.ts) prepares the text once per connection, as for any other statement.
 */
export function constantQuery<R>(text: string) {
  return (
    db: Kysely<Database> | Transaction<Database>,
    values: readonly unknown[],
  ): Promise<QueryResult<R>> => db.executeQuery(CompiledQuery.raw(text, [...values]) as CompiledQuery<R>);
}
