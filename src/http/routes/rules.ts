import type { AppContext } from '../../commands/context.ts';
import { providerDeps } from '../../commands/providers.ts';
import { createRoutingRule, updateRoutingRule } from '../../commands/routing-rules.ts';
import { dataEnvelope, errorEnvelope, idParams, listEnvelope } from '../../contract/envelopes.ts';
import { createRuleBody, ruleDto, ruleListQuery, updateRuleBody } from '../../contract/rules.ts';
import { eventMetadata } from '../request-metadata.ts';
import type { HttpServer } from '../server.ts';
import { PROVIDER_ADMIN } from './providers.ts';

/** Panel configuration of routing rules (SPEC 2.7, 2.8, 4.14, 5.7). */
export function registerRuleRoutes(app: HttpServer, ctx: AppContext): void {
  const deps = providerDeps(ctx);
  const access = { auth: 'session' as const, roles: PROVIDER_ADMIN };

  app.post(
    '/admin/rules',
    {
      config: { access },
      schema: {
        operationId: 'createRoutingRule',
        summary: 'Create a routing rule (super_admin)',
        description:
          'tenant_id null (default) makes a global rule. priority defaults to 100 (lower wins), max_amount to 100000000, enabled to true. A missing provider or tenant is 404 not_found.',
        body: createRuleBody,
        response: { 201: dataEnvelope(ruleDto), 404: errorEnvelope },
      },
    },
    async (request, reply) => {
      const b = request.body;
      const { rule } = await createRoutingRule(
        deps,
        {
          method: b.method,
          tenantId: b.tenant_id,
          providerId: b.provider_id,
          priority: b.priority,
          maxAmount: b.max_amount,
          enabled: b.enabled,
        },
        eventMetadata(request),
      );
      return reply.code(201).send({ data: rule });
    },
  );

  app.get(
    '/admin/rules',
    {
      config: { access },
      schema: {
        operationId: 'listRoutingRules',
        summary: 'List routing rules (super_admin), oldest first',
        querystring: ruleListQuery,
        response: { 200: listEnvelope(ruleDto) },
      },
    },
    async (request) => {
      const { limit, offset, method, tenant_id } = request.query;
      let query = ctx.db
        .selectFrom('routing_rules')
        .select(['id', 'method', 'tenant_id', 'provider_id', 'priority', 'max_amount', 'enabled']);
      if (method) query = query.where('method', '=', method);
      if (tenant_id) query = query.where('tenant_id', '=', tenant_id);
      const rows = await query.orderBy('created_at').orderBy('id').limit(limit).offset(offset).execute();
      return { data: rows, meta: { limit, offset, count: rows.length } };
    },
  );

  app.patch(
    '/admin/rules/:id',
    {
      config: { access },
      schema: {
        operationId: 'updateRoutingRule',
        summary: 'Change a routing rule (super_admin): priority, max_amount, enabled',
        description: 'Applies to new charges only; existing transactions keep their provider.',
        params: idParams,
        body: updateRuleBody,
        response: { 200: dataEnvelope(ruleDto), 404: errorEnvelope },
      },
    },
    async (request) => {
      const b = request.body;
      const rule = await updateRoutingRule(
        deps,
        request.params.id,
        { priority: b.priority, maxAmount: b.max_amount, enabled: b.enabled },
        eventMetadata(request),
      );
      return { data: rule };
    },
  );
}
