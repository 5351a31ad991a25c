import type { FeeMethod, FeeVersion } from '../../aggregates/fee-schedule.ts';

/** A tenant's fee schedule for one method (issue 28 item 4): its stream and what the panel sees of a version. */

export const feeScheduleStream = (tenantId: string, method: FeeMethod) =>
  `fee_schedule-${tenantId}-${method}`;

export interface FeeVersionView {
  id: string;
  tenant_id: string;
  method: FeeMethod;
  percent_bps: number;
  fixed_amount: number;
  starts_on: string;
  created_at: string;
}

export function feeVersionView(v: FeeVersion, createdAt: Date | string): FeeVersionView {
  return {
    id: v.fee_id,
    tenant_id: v.tenant_id,
    method: v.method,
    percent_bps: v.percent_bps,
    fixed_amount: v.fixed_amount,
    starts_on: v.starts_on,
    created_at: new Date(createdAt).toISOString(),
  };
}
