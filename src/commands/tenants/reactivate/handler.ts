import { tenant } from '../../../aggregates/tenant.ts';
import type { EventMetadata } from '../../../events/event-store.ts';
import { type CommandDeps, handleCommand } from '../../command-handler.ts';
import { existingTenant, type TenantRecord, tenantStream } from '../tenant-record.ts';

/** SPEC 5.5: keys work again after reactivation. Reactivating an active tenant appends nothing. */
export async function reactivateTenant(
  deps: CommandDeps,
  tenantId: string,
  metadata: EventMetadata,
): Promise<TenantRecord> {
  const r = await handleCommand(
    deps,
    tenant,
    tenantStream(tenantId),
    { kind: 'reactivate' },
    {
      metadata,
      retryOnConflict: true,
    },
  );
  return existingTenant(r.state);
}
