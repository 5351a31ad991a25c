import { ApiError } from '../../../aggregates/errors.ts';
import { documentSigningSecret } from '../../../charge-page/signing-secret.ts';
import { errorResponses, listEnvelope } from '../../../contract/envelopes.ts';
import { panelTransactionQuery, publicTransactionQuery } from '../../../contract/transactions.ts';
import { apiKeyPrincipal, sessionPrincipal } from '../../../http/auth.ts';
import { compiledSerializer } from '../../../http/compiled-serializer.ts';
import type { HttpServer } from '../../../http/server.ts';
import type { AppContext } from '../../context.ts';
import { costCenterNames, isTenantInTree } from '../../cost-centers.ts';
import { requireTenantInTree, treeRoot } from '../../tenancy.ts';
import { listViewContext, transactionListViewOf, transactionView } from '../view.ts';
import { type ListFilters, listRows, type Scope } from './list-query.ts';

/** The page of `listQuery` as views; count = page size. */
async function listTransactions(ctx: AppContext, scope: Scope, q: ListFilters) {
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
  return { data, meta: { limit: q.limit, offset: q.offset, count: data.length } };
}

/** SPEC 4.3 GET /v1/transactions and its panel alias GET /admin/transactions (docs/decisions.md "Charges"). */
export function registerTransactionListRoutes(app: HttpServer, ctx: AppContext): void {
  app.get(
    '/v1/transactions',
    {
      config: { access: { auth: 'api_key', scopes: ['transactions:read'] } },
      // A page of up to 100 charges built from typed rows: no zod pass over each field (issue 14, B3).
      serializerCompiler: compiledSerializer,
      schema: {
        operationId: 'listTransactions',
        summary:
          "List transactions of the key's tenant (and, on request, its descendants), in the key's mode",
        description:
          'Newest first. Page forward by adding `limit` to `offset` until fewer than `limit` items return; `meta.count` is the page size, not a total.',
        querystring: publicTransactionQuery,
        response: { 200: listEnvelope(transactionView), ...errorResponses(401, 403, 404, 422) },
      },
    },
    async (request) => {
      const principal = apiKeyPrincipal(request);
      const { include_descendants, ...q } = request.query;
      const root = q.tenant_id ?? principal.tenantId;
      const deps = { store: ctx.store, registry: ctx.events };
      if (!(await isTenantInTree(deps, principal.tenantId, root))) throw new ApiError('not_found');
      return listTransactions(ctx, { root, subtree: include_descendants, livemode: principal.livemode }, q);
    },
  );

  app.get(
    '/admin/transactions',
    {
      config: { access: { auth: 'session', roles: ['super_admin', 'tenant_admin', 'viewer'] } },
      serializerCompiler: compiledSerializer,
      schema: {
        operationId: 'listPanelTransactions',
        summary: "List transactions in the user's tree (every tenant for a super_admin)",
        description:
          'Every panel role reads, within its tree. Production by default (`livemode=false` for test mode). A `tenant_id` outside the tree is 404.',
        querystring: panelTransactionQuery,
        response: { 200: listEnvelope(transactionView), ...errorResponses(401, 403, 404, 422) },
      },
    },
    async (request) => {
      const principal = sessionPrincipal(request);
      const { include_descendants, livemode, ...q } = request.query;
      if (q.tenant_id !== undefined) await requireTenantInTree(ctx.db, principal, q.tenant_id);
      const root = q.tenant_id ?? treeRoot(principal);
      return listTransactions(ctx, { root, subtree: include_descendants, livemode }, q);
    },
  );
}
