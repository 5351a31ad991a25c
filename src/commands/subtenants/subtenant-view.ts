import type { z } from 'zod';
import type { subtenantView } from '../../contract/subtenants.ts';
import type { AppContext } from '../context.ts';
import { type TenantRecord, tenantStream } from '../tenants/tenant-record.ts';

export type SubtenantView = z.infer<typeof subtenantView>;

/**
 * A subtenant as a command answers it, from its own stream (DESIGN.md "A command answers from its own
 * fold"): its creation time is its Tenant.Created event's, as the tenants read model records it.
 */
export async function subtenantViewOf(ctx: AppContext, record: TenantRecord): Promise<SubtenantView> {
  const recorded = await ctx.store.read(tenantStream(record.id));
  const created = recorded.find((r) => r.type === 'Tenant.Created');
  return {
    id: record.id,
    name: record.name,
    type_id: record.type_id,
    // A subtenant always has a parent: it was created under a key's tenant.
    parent_id: record.parent_id ?? '',
    status: record.status,
    created_at: new Date(created?.recordedAt ?? ctx.now()).toISOString(),
  };
}
