import { type RawBuilder, sql } from 'kysely';
import type pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';

/**
 * `COPY <table> (<columns>) FROM STDIN` inside a kysely transaction (issue 14 B4: the rebuild's bulk
 * loads). PostgreSQL parses COPY's text rows about twice as cheaply per row as the same rows sent as one
 * jsonb parameter through `jsonb_populate_recordset` (BENCHMARKS.md B4). kysely hands its driver only SQL
 * text and parameters and never exposes the connection, so the statement travels as
 * `copy … from stdin $1` with the rows as its one parameter, and the connection wrapper of `openDatabase`
 * (PostgreSQL only; `copyFromStdinOn`) sends the statement without the `$1` and streams the parameter as
 * the COPY data. COPY takes no parameters, so no other statement has that shape. Only for callers told
 * that their database supports it (`RunnerOptions.copyFromStdin`); PGlite keeps the multi-row insert.
 */
export function copyFromStdin(table: string, columns: readonly string[], rows: string): RawBuilder<unknown> {
  return sql`copy ${sql.table(table)} (${sql.join(columns.map((c) => sql.ref(c)))}) from stdin ${rows}`;
}

const COPY_FROM_STDIN = /^copy [a-z0-9_."]+ \([a-z0-9_.", ]+\) from stdin \$1$/;

/**
 * Wraps `query` of one pg connection: a `copyFromStdin` statement runs as COPY FROM STDIN with its one
 * parameter as the data; anything else goes to `next`.
 */
export function copyFromStdinOn(
  client: pg.PoolClient,
  next: (...args: unknown[]) => unknown,
): (...args: unknown[]) => unknown {
  return (...args: unknown[]) => {
    const [text, values] = args;
    if (
      args.length === 2 &&
      typeof text === 'string' &&
      Array.isArray(values) &&
      values.length === 1 &&
      typeof values[0] === 'string' &&
      COPY_FROM_STDIN.test(text)
    ) {
      return copy(client, text.slice(0, -' $1'.length), values[0]);
    }
    return next(...args);
  };
}

function copy(client: pg.PoolClient, statement: string, data: string) {
  return new Promise<{ command: string; rowCount: number; rows: never[] }>((resolve, reject) => {
    const stream = client.query(copyFrom(statement));
    stream.on('error', reject);
    stream.on('finish', () => resolve({ command: 'COPY', rowCount: stream.rowCount, rows: [] }));
    stream.end(data);
  });
}

/** One field in COPY's text format: `\N` for null; backslash, newline, carriage return and tab escaped. */
export function copyField(value: string | number | boolean | null | undefined): string {
  if (value === null || value === undefined) return '\\N';
  if (typeof value !== 'string') return String(value);
  return NEEDS_ESCAPE.test(value) ? value.replace(ESCAPED, (c) => ESCAPES[c] as string) : value;
}

const NEEDS_ESCAPE = /[\\\n\r\t]/;
const ESCAPED = /[\\\n\r\t]/g;
const ESCAPES: Record<string, string> = { '\\': '\\\\', '\n': '\\n', '\r': '\\r', '\t': '\\t' };
