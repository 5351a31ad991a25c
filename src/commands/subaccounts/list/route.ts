import { listSubaccounts } from '../../../contract/operations/subaccounts.ts';
import { bind } from '../../bind.ts';
import { listPage } from '../../page.ts';
import { type SubaccountView, toSubaccountView } from '../record.ts';

/** SPEC 4.14: links from the read model, oldest first; token flags recomputed per row. */
export const listRoute = bind(listSubaccounts, async (call, ctx) => {
  const { limit, offset, provider_id, tenant_id, status } = call.query;
  const query = ctx.db
    .selectFrom('subaccounts')
    .selectAll()
    .$if(provider_id !== undefined, (q) => q.where('provider_id', '=', provider_id ?? ''))
    .$if(tenant_id !== undefined, (q) => q.where('tenant_id', '=', tenant_id ?? ''))
    .$if(status !== undefined, (q) => q.where('status', '=', status ?? ''));
  const listed = await listPage(query, { limit, offset }, 'asc', (r) => r);
  const data: SubaccountView[] = await Promise.all(listed.data.map((r) => toSubaccountView(ctx.config, r)));
  return { ...listed, data };
});
