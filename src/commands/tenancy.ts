import { type Kysely, sql } from 'kysely';
import { DomainError } from '../aggregates/decider.ts';
import { ApiError } from '../aggregates/errors.ts';
import { constantQuery } from '../db/constant-query.ts';
import type { Database } from '../db/schema.ts';
import { inSubtreeSql, tenantSuspendedText } from '../db/tenancy-sql.ts';
import type { CommandDeps } from './command-handler.ts';
import type { SessionPrincipal } from './principal.ts';
import { loadTenant } from './tenants/tenant-record.ts';

/**
 * Tenancy (SPEC 5.5, 5.7; DESIGN.md "Feature modules"): who sees which tenant's records, who writes them,
 * when a tenant's credentials stop, and the mode a key acts in. Every rule is spelled here once; its SQL
 * text lives in src/db/tenancy-sql.ts, below the projections and routing that need it too, and is handed
 * on from here so the layers above read tenancy from this one module.
 */

type ReadDeps = Pick<CommandDeps, 'store' | 'registry'>;

// --- Tree scope -----------------------------------------------------------------------------------------

export { inSubtreeText } from '../db/tenancy-sql.ts';

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

/** A where-clause fragment: the `tenants` row (its `ancestor_ids` column) lies in the subtree of `root`. */
export function tenantRowInSubtreeSql(root: string) {
  return inSubtreeSql('ancestor_ids', root);
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
    .$if(root !== undefined, (q) => q.where(tenantRowInSubtreeSql(root as string)))
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
  return sql<boolean>`${sql.ref(column)} in (select id from tenants where ${tenantRowInSubtreeSql(root)})`;
}

/** Whether `tenantId` is `rootTenantId` or one of its descendants (folded from the tenant's stream). */
export async function isTenantInTree(
  deps: ReadDeps,
  rootTenantId: string,
  tenantId: string,
): Promise<boolean> {
  if (tenantId === rootTenantId) return true;
  const tenant = await loadTenant(deps, tenantId);
  return tenant?.ancestor_ids.includes(rootTenantId) ?? false;
}

/**
 * SPEC 4.4, 5.2: whether a key reads a record: of its mode, and of its own tenant or a descendant. A record it
 * does not read answers `404 not_found`, like a missing one.
 */
export async function keyReads(
  deps: ReadDeps,
  principal: { tenantId: string; livemode: boolean },
  record: { tenant_id: string; livemode: boolean },
): Promise<boolean> {
  return (
    record.livemode === principal.livemode &&
    (await isTenantInTree(deps, principal.tenantId, record.tenant_id))
  );
}

/**
 * SPEC 4.4: the tenant a key's list reads, its own unless the query names one of its descendants; any
 * other tenant answers `404 not_found`.
 */
export async function keyListRoot(deps: ReadDeps, keyTenantId: string, tenantId?: string): Promise<string> {
  const root = tenantId ?? keyTenantId;
  if (!(await isTenantInTree(deps, keyTenantId, root))) throw new ApiError('not_found');
  return root;
}

// --- Own-tenant writes ----------------------------------------------------------------------------------

/**
 * SPEC 5.5: a key reads its descendants' records but writes only its own tenant's; a descendant's record
 * answers `403 forbidden` with `message` (one outside the tree was already a 404 when it was read).
 */
export function requireOwnTenant(keyTenantId: string, recordTenantId: string, message: string): void {
  if (recordTenantId !== keyTenantId) throw new DomainError('forbidden', message);
}

// --- The exact tenant's subaccount (issue 28) goes here: like a write, it is the record's own tenant's,
// never an ancestor's, so it sits beside requireOwnTenant.

// --- Suspended ancestors --------------------------------------------------------------------------------

export { chainSuspendedText, tenantSuspendedText } from '../db/tenancy-sql.ts';

const tenantSuspended = constantQuery<{ suspended: boolean }>(
  `select ${tenantSuspendedText('$1')} as suspended`,
);

/** SPEC 5.5: whether the tenant or one of its ancestors is suspended. */
export async function isTenantBlocked(db: Kysely<Database>, tenantId: string): Promise<boolean> {
  const { rows } = await tenantSuspended(db, [tenantId]);
  return rows[0]?.suspended ?? false;
}

/** SPEC 5.5: a tenant whose tenant or ancestor is suspended acts no more: `403 tenant_suspended`. */
export async function requireTenantActive(db: Kysely<Database>, tenantId: string): Promise<void> {
  if (await isTenantBlocked(db, tenantId)) throw new ApiError('tenant_suspended');
}

/**
 * SPEC 5.5 `cannot_suspend_self`: whether `tenantId` is the actor's own tenant or one above it (folded
 * from the actor tenant's stream).
 */
export async function isOwnOrAbove(
  deps: ReadDeps,
  actorTenantId: string,
  tenantId: string,
): Promise<boolean> {
  return isTenantInTree(deps, tenantId, actorTenantId);
}

// --- Mode -----------------------------------------------------------------------------------------------

/** SPEC 5.1: the mode a key acts in, as the API names it, from the `livemode` its records carry. */
export type Mode = 'live' | 'test';
export const modeOf = (livemode: boolean): Mode => (livemode ? 'live' : 'test');
export const livemodeOf = (mode: Mode): boolean => mode === 'live';
