import { CompiledQuery, type Kysely, type QueryResult, type Transaction } from 'kysely';
import type { Database } from './schema.ts';

/**
 * Issue 14: SQL composed as plain text and values, for the statements every creation writes (the appends
 * with their fused inline projections). kysely's `sql` builds a frozen operation tree per call and then
 * compiles it (about a tenth of a creation's gateway CPU, BENCHMARKS.md); this joins strings once and
 * numbers the parameters in order, giving the same text for the same shape, so the connection's named
 * prepared statement is reused (src/db/database.ts). The API mirrors the subset of kysely's `sql` used:
 * a template tag (an interpolated SqlText is inlined, anything else is one parameter), `raw`, `join`, `id`.
 */
export class SqlText {
  constructor(
    readonly strings: readonly string[],
    readonly values: readonly unknown[],
  ) {}
}

export function q(strings: TemplateStringsArray | readonly string[], ...values: unknown[]): SqlText {
  return new SqlText(strings, values);
}

/** Text inserted as is: never with a value that came from a request. */
q.raw = (text: string): SqlText => new SqlText([text], []);

/** A quoted identifier (a column or table name of this code's own, never a request's). */
q.id = (name: string): SqlText => new SqlText([`"${name.replaceAll('"', '""')}"`], []);

/** Parts separated by `separator` (", " by default); a part that is not SqlText is a parameter. */
q.join = (parts: readonly unknown[], separator: SqlText = COMMA): SqlText => {
  if (parts.length === 0) return EMPTY;
  const strings: string[] = [''];
  const values: unknown[] = [];
  parts.forEach((part, i) => {
    if (i > 0) {
      strings.push('');
      values.push(separator);
    }
    strings.push('');
    values.push(part);
  });
  return new SqlText(strings, values);
};

const COMMA = new SqlText([', '], []);
const EMPTY = new SqlText([''], []);

/** The text with `$1`… in order of appearance, and the values. */
export function compileSql(fragment: SqlText): { text: string; values: unknown[] } {
  const values: unknown[] = [];
  let text = '';
  const walk = (f: SqlText) => {
    text += f.strings[0];
    for (let i = 0; i < f.values.length; i++) {
      const v = f.values[i];
      if (v instanceof SqlText) walk(v);
      else {
        values.push(v);
        text += `$${values.length}`;
      }
      text += f.strings[i + 1];
    }
  };
  walk(fragment);
  return { text, values };
}

/** Runs a composed statement on a Kysely instance or transaction (its pool, connection and plugins). */
export function executeSql<R>(
  db: Kysely<Database> | Transaction<Database>,
  fragment: SqlText,
): Promise<QueryResult<R>> {
  const { text, values } = compileSql(fragment);
  return db.executeQuery(CompiledQuery.raw(text, values) as CompiledQuery<R>);
}
