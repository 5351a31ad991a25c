import { feeScheduleEvents } from '../aggregates/fee-schedule.ts';
import { decodedProjection } from './decoded-projection.ts';

/**
 * The `fee_versions` read model (issue 28 item 4), inline and a reference projection because issuance reads
 * it before it decides (a version applies to the next charge). Versions are only ever added.
 */
export const feeSchedulesProjection = decodedProjection({
  name: 'fee_versions',
  definitions: feeScheduleEvents,
  eventTypes: ['FeeSchedule.VersionAdded'],
  tables: ['fee_versions'],

  async apply(event, at, trx) {
    const { fee_id, ...d } = event.data;
    await trx
      .insertInto('fee_versions')
      .values({ id: fee_id, ...d, created_at: at })
      .onConflict((oc) => oc.column('id').doNothing())
      .execute();
  },
});
