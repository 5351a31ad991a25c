import { feeScheduleEvents } from '../../aggregates/fee-schedule.ts';
import { feeSchedulesProjection } from '../../projections/fee-schedules.ts';
import type { Feature } from '../feature.ts';
import { createRoute } from './create/route.ts';
import { listRoute } from './list/route.ts';

/**
 * Fee schedules (issue 28 item 4; SPEC 2.2 `retained_amount`, `split`, `tenant_fee_id`, `fee_starts_on`):
 * versioned fees per tenant and method, inherited down the tree. Issuance reads their read model before it
 * decides (resolve.ts), so it is a reference projection too.
 */
export const feeSchedulesFeature: Feature = {
  name: 'fee-schedules',
  tag: 'Panel: fees',
  events: feeScheduleEvents,
  projections: { inline: [feeSchedulesProjection], reference: [feeSchedulesProjection] },
  routes: [createRoute, listRoute],
};
