import type { Selectable } from 'kysely';
import { type RawBuilder, sql } from 'kysely';
import type { z } from 'zod';
import { documentSigningSecret } from '../../../charge-page/signing-secret.ts';
import type { TransactionsTable } from '../../../db/schema.ts';
import { requireTenantInTree, treeRoot } from '../../../http/admin-scope.ts';
import { apiKeyPrincipal, sessionPrincipal } from '../../../http/auth.ts';
import { compiledSerializer } from '../../../http/compiled-serializer.ts';
import type { AppContext } from '../../../http/context.ts';
import { panelTransactionQuery, publicTransactionQuery } from '../../../http/contract/transactions.ts';
import { ApiError } from '../../../http/errors.ts';
import { errorResponses, listEnvelope } from '../../../http/schemas.ts';
import type { HttpServer } from '../../../http/server.ts';
import { transactionView, transactionViewOf } from '../../../http/transaction-dto.ts';
import { costCenterNames, isTenantInTree } from '../../cost-centers.ts';

type Filters = z.infer<typeof publicTransactionQuery>;

type Row = Selectable<TransactionsTable>;

export interface Scope {
  /** The tenant the list is rooted at; undefined = unrestricted (super_admin). */
  root: string | undefined;
  /** Whether the root's descendants are included. */
  subtree: boolean;
  livemode: boolean;
}

/** The optional SPEC 4.3 filters, on the charges aliased `x`. */
function filtersOf(q: Omit<Filters, 'include_descendants'>): RawBuilder<unknown>[] {
  const where: RawBuilder<unknown>[] = [];
  if (q.status !== undefined) where.push(sql`x.status = ${q.status}`);
  if (q.method !== undefined) where.push(sql`x.method = ${q.method}`);
  if (q.reference !== undefined) where.push(sql`x.reference = ${q.reference}`);
  if (q.cost_center_id === 'unassigned') where.push(sql`x.cost_center_id is null`);
  else if (q.cost_center_id !== undefined) where.push(sql`x.cost_center_id = ${q.cost_center_id}`);
  return where;
}

export type ListFilters = Omit<Filters, 'include_descendants'>;

/**
 * SPEC 4.3: newest first (created_at desc, id desc), one mode, the optional filters. Exported for the B3
 * benchmark's bare-SQL reference.
 */
export function listQuery(scope: Scope, q: ListFilters): RawBuilder<Row> {
  const { root, subtree, livemode } = scope;
  const where = [sql`x.livemode = ${livemode}`, ...filtersOf(q)];
  if (root !== undefined && !subtree) where.push(sql`x.tenant_id = ${root}`);
  const order = sql`order by created_at desc, id desc`;
  // A subtree is read tenant by tenant, each through its own index with its own limit, then merged: one
  // filter over the whole subtree made PostgreSQL scan and sort every charge of it (BENCHMARKS.md B3).
  return root !== undefined && subtree
    ? sql<Row>`
        select t.* from tenants s cross join lateral (
          select x.* from transactions x where x.tenant_id = s.id and ${sql.join(where, sql` and `)}
          ${order} limit ${q.offset + q.limit}) t
        where s.ancestor_ids @> array[${root}]::text[]
        order by t.created_at desc, t.id desc limit ${q.limit} offset ${q.offset}`
    : sql<Row>`
        select x.* from transactions x where ${sql.join(where, sql` and `)}
        ${order} limit ${q.limit} offset ${q.offset}`;
}

/** The page of `listQuery` as views; count = page size. */
async function listTransactions(ctx: AppContext, scope: Scope, q: ListFilters) {
  const { rows } = await listQuery(scope, q).execute(ctx.db);
  // One query for every cost-center name of the page.
  const names = await costCenterNames(
    ctx,
    rows.flatMap((r) => (r.cost_center_id ? [r.cost_center_id] : [])),
  );
  // The page's secret and clock once, then a plain map (issue 14, B3: no promise per row).
  const view = {
    baseUrl: ctx.config.baseUrl,
    secret: await documentSigningSecret(ctx.config),
    now: ctx.now(),
  };
  const data = rows.map((r) => transactionViewOf(r, names, view));
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
          'SPEC 4.3. Newest first. Page forward by adding `limit` to `offset` until fewer than `limit` items return; `meta.count` is the page size, not a total.',
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
          'SPEC 4.3 admin scope and 5.7: every role reads. Production by default (`livemode=false` for test mode). A `tenant_id` outside the tree is 404.',
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
