import { saoPauloDate } from '../../../aggregates/business-date.ts';
import { type FeeMethod, type FeeScheduleEvent, feeSchedule } from '../../../aggregates/fee-schedule.ts';
import type { EventMetadata } from '../../../events/event-store.ts';
import { newId } from '../../../ids.ts';
import { type CommandDeps, handleCommand } from '../../command-handler.ts';
import { loadTenant } from '../../tenants/tenant-record.ts';
import { type FeeVersionView, feeScheduleStream, feeVersionView } from '../record.ts';

export interface AddFeeVersionInput {
  tenantId: string;
  method: FeeMethod;
  percentBps: number;
  fixedAmount: number;
  startsOn: string;
  /** Chosen by the server unless given (tests). */
  feeId?: string;
}

/**
 * `POST /admin/fee-schedules` (issue 28 item 4): adds a version to the tenant's schedule for the method,
 * decided against the whole schedule (one stream per tenant and method) so two versions never share a
 * date. The same rates on an existing date answer the stored version (`created: false`), appending nothing.
 */
export async function addFeeVersion(
  deps: CommandDeps,
  input: AddFeeVersionInput,
  metadata: EventMetadata,
): Promise<{ version: FeeVersionView; created: boolean }> {
  const tenant = await loadTenant(deps, input.tenantId);
  const stream = feeScheduleStream(input.tenantId, input.method);
  const r = await handleCommand(
    deps,
    feeSchedule,
    stream,
    {
      kind: 'add_version',
      version: {
        fee_id: input.feeId ?? newId('fee'),
        tenant_id: input.tenantId,
        method: input.method,
        percent_bps: input.percentBps,
        fixed_amount: input.fixedAmount,
        starts_on: input.startsOn,
      },
      tenantExists: tenant !== undefined,
      today: saoPauloDate(deps.now()),
    },
    { metadata, retryOnConflict: true },
  );
  if (r.state.status === 'none') throw new Error('a fee version command ended without a schedule');
  const stored = r.state.versions.find((v) => v.starts_on === input.startsOn);
  if (!stored) throw new Error('a fee version command ended without its version');
  // Its creation time is the recorded time of the event that added it (as the read model stores it).
  const recorded = await deps.store.read(stream);
  const at = recorded.find(
    (e) => (deps.registry.decode(e) as FeeScheduleEvent).data.fee_id === stored.fee_id,
  )?.recordedAt;
  return { version: feeVersionView(stored, at ?? deps.now()), created: r.events.length > 0 };
}
