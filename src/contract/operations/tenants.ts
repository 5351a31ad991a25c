import { ROLES, type Role } from '../../aggregates/access.ts';
import { dataEnvelope, errorEnvelope, idParams, listEnvelope, pageQuery } from '../envelopes.ts';
import { tenant } from '../examples.ts';
import { operation } from '../operation.ts';
import { tenantBody, tenantDto, tenantListQuery, tenantTypeBody, tenantTypeDto } from '../tenants.ts';

/**
 * SPEC 5.7 "Tenants, types, users: super_admin yes; tenant_admin no; viewer no": reads and writes alike
 * (docs/decisions.md "Panel notifications, logs and the roles table"). One's own password is the one
 * exception (src/contract/operations/users.ts `setUserPassword`).
 */
export const ADMIN_WRITE: readonly Role[] = ['super_admin'];
export const ADMIN_READ: readonly Role[] = ['super_admin'];
/** Every panel role: only for acting on one's own account. */
export const ANY_ROLE: readonly Role[] = ROLES;

/** SPEC 2.7, 5.7: a tenant type, its name unique case-insensitively. */
export const createTenantType = operation({
  method: 'POST',
  path: '/admin/tenant-types',
  access: { auth: 'session', roles: ADMIN_WRITE, idempotencyKey: true },
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
  examples: { request: { name: 'Franquia', allows_children: true } },
});

export const listTenantTypes = operation({
  method: 'GET',
  path: '/admin/tenant-types',
  access: { auth: 'session', roles: ADMIN_READ },
  schema: {
    operationId: 'listTenantTypes',
    summary: 'List tenant types (super_admin)',
    querystring: pageQuery,
    response: { 200: listEnvelope(tenantTypeDto) },
  },
});

/** SPEC 1, 2.7, 5.7: a tenant under a parent whose type allows children, or a root. */
export const createTenant = operation({
  method: 'POST',
  path: '/admin/tenants',
  access: { auth: 'session', roles: ADMIN_WRITE, idempotencyKey: true },
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
  examples: {
    request: { name: 'Padaria Pão de Mel Ltda', type_id: 'tty_01jd3t2v4x6z8b0d2f4h6k8m0p', parent_id: null },
  },
});

export const listTenants = operation({
  method: 'GET',
  path: '/admin/tenants',
  access: { auth: 'session', roles: ADMIN_READ },
  schema: {
    operationId: 'listTenants',
    summary: 'List tenants (super_admin)',
    querystring: tenantListQuery,
    response: { 200: listEnvelope(tenantDto) },
  },
});

export const getTenant = operation({
  method: 'GET',
  path: '/admin/tenants/:id',
  access: { auth: 'session', roles: ADMIN_READ },
  schema: {
    operationId: 'getTenant',
    summary: 'Read a tenant (super_admin)',
    description: 'A tenant that does not exist is 404 not_found.',
    params: idParams,
    response: { 200: dataEnvelope(tenantDto), 404: errorEnvelope },
  },
});

/** SPEC 5.5: the subtree's credentials stop working from the next request. */
export const suspendTenant = operation({
  method: 'POST',
  path: '/admin/tenants/:id/suspend',
  access: { auth: 'session', roles: ADMIN_WRITE },
  schema: {
    operationId: 'suspendTenant',
    summary: 'Suspend a tenant and its subtree (super_admin)',
    description:
      "The subtree's keys are refused from the next request (403 tenant_suspended) and its sessions are revoked for good. Your own tenant or one above it: 409 cannot_suspend_self. Repeating is a no-op.",
    params: idParams,
    response: { 200: dataEnvelope(tenantDto), 404: errorEnvelope, 409: errorEnvelope },
  },
  examples: { responses: { 200: { data: { ...tenant, status: 'suspended' } } } },
});

export const reactivateTenant = operation({
  method: 'POST',
  path: '/admin/tenants/:id/reactivate',
  access: { auth: 'session', roles: ADMIN_WRITE },
  schema: {
    operationId: 'reactivateTenant',
    summary: 'Reactivate a tenant (super_admin)',
    description: 'Keys work again; revoked sessions stay revoked. Repeating is a no-op.',
    params: idParams,
    response: { 200: dataEnvelope(tenantDto), 404: errorEnvelope },
  },
});
