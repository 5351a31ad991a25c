import assert from 'node:assert/strict';
import fc from 'fast-check';
import { type Kysely, sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, test } from 'vitest';
import { isoOfUtcText, isoOrNull } from '../../src/commands/transactions/list/list-query.ts';
import type { DatabaseHandle } from '../../src/db/database.ts';
import type { Database } from '../../src/db/schema.ts';
import { createPgliteDatabase, createTestDatabase } from '../support/databases.ts';

/**
 * Issue 14 (B3): the list statement reads each timestamp as `(ts at time zone 'UTC')::text` and
 * isoOfUtcText writes SPEC 2.2's ISO string from it. It must be, byte for byte, what the view wrote from the
 * Date the database driver parsed from the timestamptz itself (`toISOString()`), for any instant the column
 * may hold, microseconds included (PostgreSQL keeps them, a Date does not), whatever the session's TimeZone.
 */

/** Microseconds since 1970 for instants from year 1000 to 9999 (the column's plausible range and beyond). */
const MIN_US = -30_610_224_000_000_000n;
const MAX_US = 253_402_300_799_999_999n;
const instant = fc.oneof(
  fc.bigInt({ min: MIN_US, max: MAX_US }),
  // Around now, and whole seconds, milliseconds and tenths (PostgreSQL trims trailing zeros).
  fc.bigInt({ min: 1_700_000_000_000_000n, max: 1_900_000_000_000_000n }),
  fc.bigInt({ min: 1_700_000_000n, max: 1_900_000_000n }).map((s) => s * 1_000_000n),
  fc.bigInt({ min: 1_700_000_000_000n, max: 1_900_000_000_000n }).map((ms) => ms * 1000n),
  fc.bigInt({ min: 17_000_000_000n, max: 19_000_000_000n }).map((ds) => ds * 100_000n),
);

const parseTimestamptz = pg.types.getTypeParser(pg.types.builtins.TIMESTAMPTZ) as (text: string) => Date;

async function compare(db: Kysely<Database>, micros: bigint[], timeZone: string) {
  // One statement per batch, in a transaction so `set local` holds for it.
  await db.transaction().execute(async (trx) => {
    await sql.raw(`set local time zone '${timeZone}'`).execute(trx);
    const { rows } = await sql<{ ts: Date | string; raw: string; utc: string }>`
      select v.ts, v.ts::text as raw, (v.ts at time zone 'UTC')::text as utc
      from unnest(${micros.map(String)}::bigint[]) as u(us)
      cross join lateral (select timestamptz 'epoch' + u.us * interval '1 microsecond' as ts) v`.execute(trx);
    assert.equal(rows.length, micros.length);
    for (const [i, row] of rows.entries()) {
      const parsed = row.ts instanceof Date ? row.ts : new Date(row.ts);
      // PGlite's driver parses with `new Date(text)`, which gives Invalid Date for a historical offset with
      // seconds (a non-UTC session before 1914: `-03:06:28`), where the view threw; pg's parser is the reference.
      const before = Number.isNaN(parsed.getTime())
        ? parseTimestamptz(row.raw).toISOString()
        : parsed.toISOString();
      assert.equal(isoOfUtcText(row.utc), before, `${micros[i]} µs (${row.utc}, TimeZone ${timeZone})`);
    }
  });
}

for (const backend of ['postgres', 'pglite'] as const) {
  describe(`isoOfUtcText = toISOString() of the parsed timestamptz (${backend})`, () => {
    let handle: DatabaseHandle & { drop(): Promise<void> };
    beforeAll(async () => {
      handle =
        backend === 'postgres' ? await createTestDatabase({ poolSize: 2 }) : await createPgliteDatabase();
    });
    afterAll(() => handle.drop());

    test('random instants (microsecond fractions, trimmed zeros), sessions in UTC, São Paulo and +05:30', async () => {
      const batches = fc.sample(fc.array(instant, { minLength: 200, maxLength: 200 }), 10);
      for (const timeZone of ['UTC', 'America/Sao_Paulo', 'Asia/Kolkata']) {
        for (const batch of batches) await compare(handle.db, batch, timeZone);
      }
    });

    test('edges: whole seconds, .5, .000001, .999999, leap day, 1970 and before', async () => {
      const edges = [
        0n,
        -1n,
        1n,
        500_000n,
        999_999n,
        -999_999n,
        951_782_400_000_000n, // 2000-02-29
        1_795_478_399_999_999n,
        1_795_478_400_000_001n,
        -86_400_000_000n,
        MIN_US,
        MAX_US,
      ];
      await compare(handle.db, edges, 'UTC');
      await compare(handle.db, edges, 'America/Sao_Paulo');
      assert.equal(isoOrNull(null), null);
    });
  });
}
