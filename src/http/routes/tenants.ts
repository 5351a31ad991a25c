import { sql } from 'kysely';
import { isDomainError } from '../../aggregates/decider.ts';
import { isValidRegistryName } from '../../aggregates/registry-name.ts';
import type { AppContext } from '../../commands/context.ts';
import { claimIdempotencyKey } from '../../commands/idempotency.ts';
import { requireTenantInTree, treeRoot } from '../../commands/tenancy.ts';
import {
  createTenant,
  createTenantType,
  loadTenant,
  reactivateTenant,
  suspendTenant,
  type TenantRecord,
} from '../../commands/tenants.ts';
import { identityDeps } from '../../commands/users.ts';
import {
  dataEnvelope,
  errorEnvelope,
  IDEMPOTENCY_REPLAYED,
  idParams,
  listEnvelope,
  pageQuery,
} from '../../contract/envelopes.ts';
import {
  tenantBody,
  tenantDto,
  tenantListQuery,
  tenantTypeBody,
  tenantTypeDto,
} from '../../contract/tenants.ts';
import { sha256Hex } from '../../crypto/secrets.ts';
import { newId } from '../../ids.ts';
import { idempotencyKeyOf, ROLES, type Role, sessionPrincipal } from '../auth.ts';
import { ApiError } from '../errors.ts';
import { eventMetadata } from '../request-metadata.ts';
import type { HttpServer } from '../server.ts';

/** SPEC 5.7 "Tenants, types, users": writes are super_admin only; reads are tree-scoped (docs/decisions.md "Admin"). */
export const ADMIN_WRITE: readonly Role[] = ['super_admin'];
export const ADMIN_READ: readonly Role[] = ROLES;

type TenantFields = Pick<TenantRecord, 'id' | 'name' | 'type_id' | 'parent_id' | 'status'>;

const toDto = (t: TenantFields) => ({
  id: t.id,
  name: t.name,
  type_id: t.type_id,
  parent_id: t.parent_id,
  status: t.status,
});

/**
 * The tenant id a creation gets is derived from the caller and its Idempotency-Key, so the creation is one
 * append to a stream that must not exist: a repeat finds the tenant, and a crash leaves nothing half done.
 */
export function tenantIdFor(userId: string, idempotencyKey: string): string {
  return `ten_${sha256Hex(`${userId}\n${idempotencyKey}`).slice(0, 26)}`;
}

/** Tenant types and tenants of the panel (SPEC 1, 2.7, 5.5, 5.7, 7). */
export function registerTenantRoutes(app: HttpServer, ctx: AppContext): void {
  const deps = identityDeps(ctx);

  app.post(
    '/admin/tenant-types',
    {
      config: { access: { auth: 'session', roles: ADMIN_WRITE, idempotencyKey: true } },
      schema: {
        operationId: 'createTenantType',
        summary: 'Create a tenant type (super_admin)',
        description:
          'Names are unique case-insensitively: another type with the name is 409 conflict. The same Idempotency-Key with the same body answers 200 with the same type and Idempotency-Replayed: true; with another body, 409 idempotency_conflict.',
        body: tenantTypeBody,
        response: {
          200: dataEnvelope(tenantTypeDto).meta({
            description: 'Replay of an earlier creation (Idempotency-Replayed: true)',
          }),
          201: dataEnvelope(tenantTypeDto).meta({ description: 'Created' }),
          409: errorEnvelope,
        },
      },
    },
    async (request, reply) => {
      const principal = sessionPrincipal(request);
      const body = { name: request.body.name.trim(), allows_children: request.body.allows_children };
      // Validated before the claim: every claim must be completable (docs/decisions.md "Admin").
      if (!isValidRegistryName(body.name)) {
        throw new ApiError('validation_error', 'The name must have 2 to 120 bytes.', { param: 'name' });
      }
      const metadata = eventMetadata(request);
      // The key is claimed before the name, so requests sharing a key can never claim two names.
      const { first, claim } = await claimIdempotencyKey(
        ctx,
        {
          scope: principal.userId,
          key: idempotencyKeyOf(request),
          method: 'POST',
          route: '/admin/tenant-types',
          body,
          resourceId: newId('tty'),
          payload: {},
        },
        metadata,
      );
      // A replay completes a claim whose type was never created, under the same id.
      const { type } = await createTenantType(
        deps,
        { typeId: claim.resource_id, name: body.name, allowsChildren: body.allows_children },
        metadata,
      );
      if (!first) reply.header(IDEMPOTENCY_REPLAYED, 'true');
      return reply.code(first ? 201 : 200).send({ data: type });
    },
  );

  app.get(
    '/admin/tenant-types',
    {
      config: { access: { auth: 'session', roles: ADMIN_READ } },
      schema: {
        operationId: 'listTenantTypes',
        summary: 'List tenant types (every panel role; types hold no tenant data)',
        querystring: pageQuery,
        response: { 200: listEnvelope(tenantTypeDto) },
      },
    },
    async (request) => {
      const { limit, offset } = request.query;
      const rows = await ctx.db
        .selectFrom('tenant_types')
        .select(['id', 'name', 'allows_children'])
        .orderBy('created_at')
        .orderBy('id')
        .limit(limit)
        .offset(offset)
        .execute();
      return { data: rows, meta: { limit, offset, count: rows.length } };
    },
  );

  app.post(
    '/admin/tenants',
    {
      config: { access: { auth: 'session', roles: ADMIN_WRITE, idempotencyKey: true } },
      schema: {
        operationId: 'createTenant',
        summary: 'Create a tenant (super_admin)',
        description:
          "Missing type or parent: 404 not_found. The parent's type must allow children (409 conflict). The same Idempotency-Key with the same body answers 200 with the same tenant and Idempotency-Replayed: true; with another body, 409 idempotency_conflict.",
        body: tenantBody,
        response: {
          200: dataEnvelope(tenantDto).meta({
            description: 'Replay of an earlier creation (Idempotency-Replayed: true)',
          }),
          201: dataEnvelope(tenantDto).meta({ description: 'Created' }),
          404: errorEnvelope,
          409: errorEnvelope,
        },
      },
    },
    async (request, reply) => {
      const principal = sessionPrincipal(request);
      const tenantId = tenantIdFor(principal.userId, idempotencyKeyOf(request));
      const body = request.body;
      const input = {
        tenantId,
        name: body.name,
        typeId: body.type_id,
        parentId: body.parent_id ?? null,
      };
      const sameBody = (t: TenantRecord) =>
        t.name === body.name.trim() && t.type_id === input.typeId && t.parent_id === input.parentId;

      const earlier = await loadTenant(deps, tenantId);
      if (earlier) {
        if (!sameBody(earlier)) throw new ApiError('idempotency_conflict');
        reply.header(IDEMPOTENCY_REPLAYED, 'true');
        return reply.code(200).send({ data: toDto(earlier) });
      }
      try {
        const created = await createTenant(deps, input, eventMetadata(request));
        return reply.code(201).send({ data: toDto(created) });
      } catch (error) {
        if (!isDomainError(error) || error.code !== 'conflict') throw error;
        // The id belongs to this key: if the tenant exists now, a concurrent request with the key made it.
        const raced = await loadTenant(deps, tenantId);
        if (!raced) throw error;
        if (!sameBody(raced)) throw new ApiError('idempotency_conflict');
        reply.header(IDEMPOTENCY_REPLAYED, 'true');
        return reply.code(200).send({ data: toDto(raced) });
      }
    },
  );

  app.get(
    '/admin/tenants',
    {
      config: { access: { auth: 'session', roles: ADMIN_READ } },
      schema: {
        operationId: 'listTenants',
        summary: "List tenants: all for super_admin, the caller's own tree otherwise",
        querystring: tenantListQuery,
        response: { 200: listEnvelope(tenantDto) },
      },
    },
    async (request) => {
      const { limit, offset, status } = request.query;
      const root = treeRoot(sessionPrincipal(request));
      const rows = await ctx.db
        .selectFrom('tenants')
        .select(['id', 'name', 'type_id', 'parent_id', 'status'])
        .$if(root !== undefined, (q) => q.where(sql<boolean>`ancestor_ids @> array[${root}]::text[]`))
        .$if(status !== undefined, (q) => q.where('status', '=', status ?? 'active'))
        .orderBy('created_at')
        .orderBy('id')
        .limit(limit)
        .offset(offset)
        .execute();
      return { data: rows.map(toDto), meta: { limit, offset, count: rows.length } };
    },
  );

  app.get(
    '/admin/tenants/:id',
    {
      config: { access: { auth: 'session', roles: ADMIN_READ } },
      schema: {
        operationId: 'getTenant',
        summary: 'Read a tenant',
        description: 'A tenant outside the caller’s tree is 404 not_found.',
        params: idParams,
        response: { 200: dataEnvelope(tenantDto), 404: errorEnvelope },
      },
    },
    async (request) => {
      await requireTenantInTree(ctx.db, sessionPrincipal(request), request.params.id);
      // Folded from the stream: always consistent, whatever the read model's lag.
      const t = await loadTenant(deps, request.params.id);
      if (!t) throw new ApiError('not_found');
      return { data: toDto(t) };
    },
  );

  app.post(
    '/admin/tenants/:id/suspend',
    {
      config: { access: { auth: 'session', roles: ADMIN_WRITE } },
      schema: {
        operationId: 'suspendTenant',
        summary: 'Suspend a tenant and its subtree (super_admin)',
        description:
          "The subtree's keys are refused from the next request (403 tenant_suspended) and its sessions are revoked for good. Your own tenant or one above it: 409 cannot_suspend_self. Repeating is a no-op.",
        params: idParams,
        response: { 200: dataEnvelope(tenantDto), 404: errorEnvelope, 409: errorEnvelope },
      },
    },
    async (request) => {
      const principal = sessionPrincipal(request);
      const t = await suspendTenant(deps, request.params.id, eventMetadata(request), {
        actorTenantId: principal.tenantId,
      });
      return { data: toDto(t) };
    },
  );

  app.post(
    '/admin/tenants/:id/reactivate',
    {
      config: { access: { auth: 'session', roles: ADMIN_WRITE } },
      schema: {
        operationId: 'reactivateTenant',
        summary: 'Reactivate a tenant (super_admin)',
        description: 'Keys work again; revoked sessions stay revoked. Repeating is a no-op.',
        params: idParams,
        response: { 200: dataEnvelope(tenantDto), 404: errorEnvelope },
      },
    },
    async (request) => {
      const t = await reactivateTenant(deps, request.params.id, eventMetadata(request));
      return { data: toDto(t) };
    },
  );
}
