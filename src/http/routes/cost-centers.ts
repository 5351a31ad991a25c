import { sql } from 'kysely';
import type { CommandDeps } from '../../commands/command-handler.ts';
import type { AppContext } from '../../commands/context.ts';
import {
  type CostCenterRecord,
  createCostCenter,
  isTenantInTree,
  readCostCenter,
  updateCostCenter,
} from '../../commands/cost-centers.ts';
import {
  costCenterListQuery,
  costCenterView,
  createCostCenterBody,
  updateCostCenterBody,
} from '../../contract/cost-centers.ts';
import {
  dataEnvelope,
  errorEnvelope,
  IDEMPOTENCY_REPLAYED,
  idParams,
  listEnvelope,
} from '../../contract/envelopes.ts';
import { apiKeyPrincipal, idempotencyKeyOf } from '../auth.ts';
import { ApiError } from '../errors.ts';
import { eventMetadata } from '../request-metadata.ts';
import type { HttpServer } from '../server.ts';

const ROUTE = '/v1/cost-centers';

/** Public cost centers (SPEC 4.12, 5.3, 5.4; docs/decisions.md "Charges"). */
export function registerCostCenterRoutes(app: HttpServer, ctx: AppContext): void {
  const deps = (): CommandDeps => ({ store: ctx.store, registry: ctx.events, now: () => ctx.now() });

  app.get(
    ROUTE,
    {
      config: { access: { auth: 'api_key', scopes: ['transactions:read'] } },
      schema: {
        operationId: 'listCostCenters',
        summary: "List cost centers of the key's tenant (and, on request, its descendants)",
        description:
          "Oldest first. `tenant_id` selects the filter root within the key's tree (outside: 404); `include_descendants=true` adds its subtree. Test and production keys see the same centers.",
        querystring: costCenterListQuery,
        response: { 200: listEnvelope(costCenterView), 404: errorEnvelope },
      },
    },
    async (request) => {
      const principal = apiKeyPrincipal(request);
      const { limit, offset, active, tenant_id, include_descendants } = request.query;
      const root = tenant_id ?? principal.tenantId;
      if (!(await isTenantInTree(deps(), principal.tenantId, root))) throw new ApiError('not_found');
      const rows = await ctx.db
        .selectFrom('cost_centers')
        .select(['id', 'tenant_id', 'name', 'active', 'created_at', 'updated_at'])
        .$if(!include_descendants, (q) => q.where('tenant_id', '=', root))
        .$if(include_descendants, (q) =>
          q.where(
            sql<boolean>`tenant_id in (select id from tenants where ancestor_ids @> array[${root}]::text[])`,
          ),
        )
        .$if(active !== undefined, (q) => q.where('active', '=', active ?? true))
        .orderBy('created_at', 'asc')
        .orderBy('id', 'asc')
        .limit(limit)
        .offset(offset)
        .execute();
      return {
        data: rows.map(
          (r): CostCenterRecord => ({
            id: r.id,
            tenant_id: r.tenant_id,
            name: r.name,
            active: r.active,
            created_at: new Date(r.created_at).toISOString(),
            updated_at: new Date(r.updated_at).toISOString(),
          }),
        ),
        // SPEC 2.1: count is the size of this page, not the total.
        meta: { limit, offset, count: rows.length },
      };
    },
  );

  app.get(
    `${ROUTE}/:id`,
    {
      config: { access: { auth: 'api_key', scopes: ['transactions:read'] } },
      schema: {
        operationId: 'getCostCenter',
        summary: "A cost center of the key's tenant or of a descendant",
        params: idParams,
        response: { 200: dataEnvelope(costCenterView), 404: errorEnvelope },
      },
    },
    async (request) => {
      const principal = apiKeyPrincipal(request);
      return { data: await readCostCenter(deps(), principal.tenantId, request.params.id) };
    },
  );

  app.post(
    ROUTE,
    {
      config: {
        access: {
          auth: 'api_key',
          scopes: ['cost_centers:write'],
          notForDeveloperKeys: true,
          idempotencyKey: 'optional',
        },
      },
      schema: {
        operationId: 'createCostCenter',
        summary: "Create a cost center for the key's tenant",
        description:
          'Idempotency-Key optional here; when sent, malformed is 400 idempotency_key_required and the scope is tenant + key (a center is the same in test and production). A replay with the same key and body answers 200 with `Idempotency-Replayed: true` and the same center; another body is 409 idempotency_conflict. Developer keys are refused (403 insufficient_scope).',
        body: createCostCenterBody,
        response: {
          200: dataEnvelope(costCenterView).meta({ description: 'Replay: the center this key created' }),
          201: dataEnvelope(costCenterView).meta({ description: 'Created' }),
          409: errorEnvelope,
        },
      },
    },
    async (request, reply) => {
      const principal = apiKeyPrincipal(request);
      const { record, created } = await createCostCenter(
        deps(),
        {
          tenantId: principal.tenantId,
          name: request.body.name,
          // Optional here, but honoured (and checked) when sent.
          idempotencyKey:
            request.headers['idempotency-key'] === undefined ? undefined : idempotencyKeyOf(request),
          route: ROUTE,
        },
        eventMetadata(request),
      );
      if (!created) reply.header(IDEMPOTENCY_REPLAYED, 'true');
      return reply.code(created ? 201 : 200).send({ data: record });
    },
  );

  app.patch(
    `${ROUTE}/:id`,
    {
      config: { access: { auth: 'api_key', scopes: ['cost_centers:write'], notForDeveloperKeys: true } },
      schema: {
        operationId: 'updateCostCenter',
        summary: "Rename, deactivate or reactivate a cost center of the key's own tenant",
        description:
          "A descendant's center is 403 forbidden (writes only the own tenant); outside the key's tree, 404. Repeating a change is a no-op. Deactivation keeps existing classifications.",
        params: idParams,
        body: updateCostCenterBody,
        response: { 200: dataEnvelope(costCenterView), 404: errorEnvelope },
      },
    },
    async (request) => {
      const principal = apiKeyPrincipal(request);
      const record = await updateCostCenter(
        deps(),
        {
          costCenterId: request.params.id,
          keyTenantId: principal.tenantId,
          name: request.body.name,
          active: request.body.active,
        },
        eventMetadata(request),
      );
      return { data: record };
    },
  );
}
