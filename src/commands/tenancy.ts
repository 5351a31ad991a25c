import { type Kysely, sql } from 'kysely';
import { ApiError } from '../aggregates/errors.ts';
import type { Database } from '../db/schema.ts';
import type { CommandDeps } from './command-handler.ts';
import type { SessionPrincipal } from './principal.ts';
import { loadTenant } from './tenants/tenant-record.ts';

/**
 * SPEC 5.7: a super_admin sees every tenant; a tenant_admin or viewer sees its own tenant and descendants.
 * Anything outside answers `404 not_found`, never 403, so ids of other trees are not confirmed.
 * `undefined` means unrestricted.
 */
export function treeRoot(principal: SessionPrincipal): string | undefined {
  if (principal.role === 'super_admin') return undefined;
  if (!principal.tenantId) throw new ApiError('forbidden');
  return principal.tenantId;
}

/** Whether `tenantId` exists and lies inside the principal's tree (index-backed: GIN on ancestor_ids). */
export async function isInTree(
  db: Kysely<Database>,
  principal: SessionPrincipal,
  tenantId: string,
): Promise<boolean> {
  const root = treeRoot(principal);
  const row = await db
    .selectFrom('tenants')
    .select('id')
    .where('id', '=', tenantId)
    .$if(root !== undefined, (q) => q.where(sql<boolean>`ancestor_ids @> array[${root}]::text[]`))
    .executeTakeFirst();
  return row !== undefined;
}

export async function requireTenantInTree(
  db: Kysely<Database>,
  principal: SessionPrincipal,
  tenantId: string,
): Promise<void> {
  if (!(await isInTree(db, principal, tenantId))) throw new ApiError('not_found');
}

/** A where-clause fragment limiting `<alias>.tenant_id` to the principal's tree, or true for super_admin. */
export function tenantInTreeSql(principal: SessionPrincipal, column = 'tenant_id') {
  return tenantInSubtreeSql(treeRoot(principal), column);
}

/** A where-clause fragment limiting `column` to the subtree rooted at `root`, or true when undefined. */
export function tenantInSubtreeSql(root: string | undefined, column: string) {
  if (root === undefined) return sql<boolean>`true`;
  return sql<boolean>`${sql.ref(column)} in (select id from tenants where ancestor_ids @> array[${root}]::text[])`;
}

/** Whether `tenantId` is `rootTenantId` or one of its descendants (folded from the tenant's stream). */
export async function isTenantInTree(
  deps: Pick<CommandDeps, 'store' | 'registry'>,
  rootTenantId: string,
  tenantId: string,
): Promise<boolean> {
  if (tenantId === rootTenantId) return true;
  const tenant = await loadTenant(deps, tenantId);
  return tenant?.ancestor_ids.includes(rootTenantId) ?? false;
}
