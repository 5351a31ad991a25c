import { sql } from 'kysely';

/**
 * The tenant tree as SQL (SPEC 5.5, 5.7), at the lowest floor: projections and routing sit below
 * src/commands/tenancy.ts, which holds the rules and hands these on. `tenants.ancestor_ids` holds root
 * first, the tenant itself last, so a subtree is `@> {root}` (GIN index) and a tenant's chain is the tenants
 * whose id is `any(ancestor_ids)`. Column arguments are this code's own names, never a request's.
 */

/** The subtree test as constant SQL text: `ancestorIds` holds a tenant's chain, `root` names the root. */
export const inSubtreeText = (ancestorIds: string, root: string) =>
  `${ancestorIds} @> array[${root}]::text[]`;

/** The subtree test with `root` as a parameter, for kysely-built statements. */
export function inSubtreeSql(ancestorIds: string, root: string) {
  return sql<boolean>`${sql.raw(ancestorIds)} @> array[${root}]::text[]`;
}

/** The chain of the tenant whose id is `tenantId` (text); an unknown tenant is its own chain. */
export const chainOfText = (tenantId: string) =>
  `coalesce((select ancestor_ids from tenants where id = ${tenantId}), array[${tenantId}::text])`;

/**
 * SPEC 5.5: whether a tenant or one of its ancestors is suspended, as constant SQL text given the column
 * holding the tenant's chain (`ancestorIds`, when the tenant row is already joined) ...
 */
export const chainSuspendedText = (ancestorIds: string) =>
  `exists (select 1 from tenants a where a.id = any(${ancestorIds}) and a.status = 'suspended')`;

/** ... or given the expression naming the tenant's id (a null id: not suspended). */
export const tenantSuspendedText = (tenantId: string) =>
  `exists (select 1 from tenants t join tenants a on a.id = any(t.ancestor_ids)
    where t.id = ${tenantId} and a.status = 'suspended')`;
