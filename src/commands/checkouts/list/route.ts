import { documentSigningSecret } from '../../../charge-page/signing-secret.ts';
import { checkoutUrl } from '../../../checkout-page/signature.ts';
import { listCheckouts } from '../../../contract/operations/checkouts.ts';
import { bind } from '../../bind.ts';
import { costCenterNames } from '../../cost-centers/names.ts';
import { page } from '../../page.ts';
import { keyListRoot, tenantInSubtreeSql } from '../../tenancy.ts';
import { checkoutViewOf } from '../record.ts';

/**
 * SPEC 4.9 with 4.3's rules: the key's mode only; its tenant, or a descendant named by `tenant_id`, and with
 * `include_descendants=true` the subtree; `reference` exact; newest first. From the read model.
 */
export const listRoute = bind(listCheckouts, async (call, ctx) => {
  const principal = call.apiKey();
  const { limit, offset, reference, tenant_id, include_descendants } = call.query;
  const root = await keyListRoot({ store: ctx.store, registry: ctx.events }, principal.tenantId, tenant_id);
  const rows = await ctx.db
    .selectFrom('checkouts')
    .selectAll()
    .where('livemode', '=', principal.livemode)
    .$if(!include_descendants, (q) => q.where('tenant_id', '=', root))
    .$if(include_descendants, (q) => q.where(tenantInSubtreeSql(root, 'tenant_id')))
    .$if(reference !== undefined, (q) => q.where('reference', '=', reference ?? ''))
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .offset(offset)
    .execute();
  const secret = await documentSigningSecret(ctx.config);
  const names = await costCenterNames(
    ctx,
    rows.flatMap((r) => (r.cost_center_id ? [r.cost_center_id] : [])),
  );
  return page(
    rows.map((r) =>
      checkoutViewOf(
        {
          created: r.created,
          status: r.status,
          transactionIds: r.transaction_ids,
          paidTransactionId: r.paid_transaction_id,
          latePayments: r.late_payments,
          createdAt: new Date(r.created_at),
          updatedAt: new Date(r.updated_at),
        },
        checkoutUrl(ctx.config.baseUrl, secret, r.id),
        r.cost_center_id ? (names.get(r.cost_center_id) ?? null) : null,
      ),
    ),
    { limit, offset },
  );
});
