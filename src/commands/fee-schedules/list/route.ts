import { listFeeVersions } from '../../../contract/operations/fee-schedules.ts';
import { bind } from '../../bind.ts';
import { listPage } from '../../page.ts';
import { tenantInTreeSql } from '../../tenancy.ts';
import { feeVersionView } from '../record.ts';

/**
 * Issue 28 item 4: versions from the read model, oldest first; super_admin every tenant's, tenant_admin and
 * viewer their own tree's (an ancestor's fees, which a child's charges also retain, stay hidden).
 */
export const listRoute = bind(listFeeVersions, async (call, ctx) => {
  const { limit, offset, method, tenant_id } = call.query;
  const query = ctx.db
    .selectFrom('fee_versions')
    .selectAll()
    .where(tenantInTreeSql(call.session()))
    .$if(method !== undefined, (q) => q.where('method', '=', method ?? 'pix'))
    .$if(tenant_id !== undefined, (q) => q.where('tenant_id', '=', tenant_id ?? ''));
  return listPage(query, { limit, offset }, 'asc', (r) =>
    feeVersionView(
      {
        fee_id: r.id,
        tenant_id: r.tenant_id,
        method: r.method,
        percent_bps: r.percent_bps,
        fixed_amount: Number(r.fixed_amount),
        starts_on: r.starts_on,
      },
      r.created_at,
    ),
  );
});
