import { documentSigningSecret } from '../../../charge-page/signing-secret.ts';
import { listPanelTransactions, listTransactions } from '../../../contract/operations/transactions.ts';
import { bind } from '../../bind.ts';
import type { AppContext } from '../../context.ts';
import { costCenterNames } from '../../cost-centers/names.ts';
import { page } from '../../page.ts';
import { keyListRoot, requireTenantInTree, treeRoot } from '../../tenancy.ts';
import { listViewContext, transactionListViewOf } from '../view.ts';
import { type ListFilters, listRows, type Scope } from './list-query.ts';

/** The page of `listQuery` as views; count = page size. */
async function listPage(ctx: AppContext, scope: Scope, q: ListFilters) {
  const rows = await listRows(ctx.db, scope, q);
  // One query for every cost-center name of the page.
  const names = await costCenterNames(
    ctx,
    rows.flatMap((r) => (r.cost_center_id ? [r.cost_center_id] : [])),
  );
  // The page's secret, clock and link prefix once, then a plain map (issue 14, B3: no promise per row).
  const view = listViewContext({
    baseUrl: ctx.config.baseUrl,
    secret: await documentSigningSecret(ctx.config),
    now: ctx.now(),
  });
  const data = rows.map((r) => transactionListViewOf(r, names, view));
  return page(data, q);
}

/** SPEC 4.3 GET /v1/transactions and its panel alias GET /admin/transactions (docs/decisions.md "Charges"). */
export const listRoutes = [
  bind(listTransactions, async (call, ctx) => {
    const principal = call.apiKey();
    const { include_descendants, ...q } = call.query;
    const root = await keyListRoot(
      { store: ctx.store, registry: ctx.events },
      principal.tenantId,
      q.tenant_id,
    );
    return listPage(ctx, { root, subtree: include_descendants, livemode: principal.livemode }, q);
  }),
  bind(listPanelTransactions, async (call, ctx) => {
    const principal = call.session();
    const { include_descendants, livemode, ...q } = call.query;
    if (q.tenant_id !== undefined) await requireTenantInTree(ctx.db, principal, q.tenant_id);
    const root = q.tenant_id ?? treeRoot(principal);
    return listPage(ctx, { root, subtree: include_descendants, livemode }, q);
  }),
];
