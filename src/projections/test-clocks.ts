import type { ColumnType } from 'kysely';
import { type TestClockStatus, testClockEvents } from '../aggregates/test-clock.ts';
import type { Projection } from '../events/projection.ts';
import { decodedProjection } from './decoded-projection.ts';

type Timestamp = ColumnType<Date, Date | string, Date | string>;

/** The `test_clocks` read model (migrations/0025_test_clocks.ts): what lists and reads of clocks show. */
export interface TestClocksTable {
  id: string;
  tenant_id: string;
  name: string | null;
  frozen_time: Timestamp;
  status: TestClockStatus;
  created_at: Timestamp;
  updated_at: Timestamp;
}

declare module '../db/schema.ts' {
  interface Database {
    test_clocks: TestClocksTable;
  }
}

/**
 * Test clocks (issue 26 item 6). Inline, so a clock created or advanced is read at once; a deleted one is
 * removed. Times are the events' recorded times, so a rebuild reproduces them.
 */
export const testClocksProjection: Projection = decodedProjection({
  name: 'test_clocks',
  definitions: testClockEvents,
  tables: ['test_clocks'],

  async apply(event, at, trx) {
    const id = event.data.test_clock_id;
    switch (event.type) {
      case 'TestClock.Created': {
        const d = event.data;
        await trx
          .insertInto('test_clocks')
          .values({
            id,
            tenant_id: d.tenant_id,
            name: d.name,
            frozen_time: d.frozen_time,
            status: 'ready',
            created_at: at,
            updated_at: at,
          })
          .execute();
        return;
      }
      case 'TestClock.Advanced':
      case 'TestClock.AdvanceCompleted':
        await trx
          .updateTable('test_clocks')
          .set({
            frozen_time: event.data.frozen_time,
            status: event.type === 'TestClock.Advanced' ? 'advancing' : 'ready',
            updated_at: at,
          })
          .where('id', '=', id)
          .execute();
        return;
      case 'TestClock.Deleted':
        await trx.deleteFrom('test_clocks').where('id', '=', id).execute();
        return;
    }
  },
});
