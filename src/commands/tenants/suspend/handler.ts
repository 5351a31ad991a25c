import { DomainError } from '../../../aggregates/decider.ts';
import { tenant } from '../../../aggregates/tenant.ts';
import type { EventMetadata } from '../../../events/event-store.ts';
import { type CommandDeps, handleCommand } from '../../command-handler.ts';
import { isOwnOrAbove } from '../../tenancy.ts';
import { existingTenant, type TenantRecord, tenantStream } from '../tenant-record.ts';

export interface SuspendTenantOptions {
  /** The acting user's tenant: SPEC 7 `cannot_suspend_self` forbids suspending it or one above it. */
  actorTenantId?: string | null;
}

/**
 * SPEC 5.5: blocks the credentials of the tenant and its whole subtree from the next request. Suspending a
 * suspended tenant appends nothing.
 */
export async function suspendTenant(
  deps: CommandDeps,
  tenantId: string,
  metadata: EventMetadata,
  opts: SuspendTenantOptions = {},
): Promise<TenantRecord> {
  if (opts.actorTenantId) {
    if (await isOwnOrAbove(deps, opts.actorTenantId, tenantId)) {
      throw new DomainError('cannot_suspend_self', 'You cannot suspend your own tenant or one above it.');
    }
  }
  // Re-deciding after a concurrent append is safe: the decision depends on the stream alone.
  const r = await handleCommand(
    deps,
    tenant,
    tenantStream(tenantId),
    { kind: 'suspend' },
    {
      metadata,
      retryOnConflict: true,
    },
  );
  return existingTenant(r.state);
}
