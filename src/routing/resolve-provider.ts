import type { Kysely } from 'kysely';
import { DomainError } from '../aggregates/decider.ts';
import type { PaymentMethod } from '../aggregates/provider.ts';
import { constantQuery } from '../db/constant-query.ts';
import type { Database } from '../db/schema.ts';
import { chainOfText } from '../db/tenancy-sql.ts';

/**
 * SPEC 2.8: the one place that picks the provider of a new charge. `resolveProvider` is pure over
 * loaded rows (property-tested in test/unit/routing.test.ts); `loadRoutingCandidates` reads them from the
 * read models. Test-mode charges (SPEC 5.2: `livemode: false`) are routed the same way (SPEC 1: "the same
 * validation") and then served by the simulator, never reaching the provider returned here; the production
 * controls of SPEC 5.8 are checked by live issuance only.
 */

export interface CandidateProvider {
  readonly id: string;
  readonly kind: 'simulator' | 'external';
  readonly environment: 'sandbox' | 'production';
  readonly enabled: boolean;
  readonly enabledMethods: readonly string[];
  readonly isMarketplace: boolean;
}

export interface CandidateRule {
  readonly id: string;
  readonly method: PaymentMethod;
  /** null: global. */
  readonly tenantId: string | null;
  readonly priority: number;
  readonly maxAmount: number;
  readonly enabled: boolean;
  readonly createdAt: Date;
  /** undefined when the rule names a provider the read model does not hold. */
  readonly provider: CandidateProvider | undefined;
}

export interface RoutingRequest {
  readonly method: PaymentMethod;
  readonly amount: number;
  /** The tenant's chain from `tenants.ancestor_ids`: root first, the tenant itself last. */
  readonly ancestorIds: readonly string[];
}

export interface Resolution {
  readonly ruleId: string;
  readonly provider: CandidateProvider;
  /** Where the rule was found: 0 is the tenant's own, 1 its parent, ...; `global` for tenant_id null. */
  readonly level: number | 'global';
}

/** Step 4: lowest priority, then oldest creation, then id. */
export function compareWithinLevel(a: CandidateRule, b: CandidateRule): number {
  if (a.priority !== b.priority) return a.priority - b.priority;
  const at = a.createdAt.getTime() - b.createdAt.getTime();
  if (at !== 0) return at;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/** Step 1: an active rule for the method whose provider is enabled and lists the method. */
function eligible(rule: CandidateRule, method: PaymentMethod): boolean {
  return (
    rule.enabled &&
    rule.method === method &&
    rule.provider?.enabled === true &&
    rule.provider.enabledMethods.includes(method)
  );
}

/**
 * Steps 1 to 5 of SPEC 2.8. Levels are tried nearest first (own, parent, ..., root, global), so a child's
 * rule always precedes a parent's whatever the priorities. The rule chosen is final: exceeding its
 * `max_amount` is `422 amount_limit_exceeded`, never a reason to try another rule (no failover).
 * With no eligible rule anywhere: `422 provider_method_disabled` when some active rule of the chain for the
 * method points at an enabled provider that does not list the method (the method is what blocks), else
 * `422 provider_not_configured`.
 */
export function resolveProvider(request: RoutingRequest, rules: readonly CandidateRule[]): Resolution {
  const { method, amount } = request;
  const chain = [...request.ancestorIds].reverse();
  const levels: { key: string | null; level: number | 'global' }[] = [
    ...chain.map((id, i) => ({ key: id, level: i })),
    { key: null, level: 'global' as const },
  ];
  for (const { key, level } of levels) {
    const best = rules.filter((r) => r.tenantId === key && eligible(r, method)).sort(compareWithinLevel)[0];
    if (!best?.provider) continue;
    if (amount > best.maxAmount) {
      throw new DomainError('amount_limit_exceeded', "The amount is above the routing rule's maximum.");
    }
    return { ruleId: best.id, provider: best.provider, level };
  }
  const inChain = new Set<string | null>([...chain, null]);
  const methodBlocks = rules.some(
    (r) =>
      r.enabled &&
      r.method === method &&
      inChain.has(r.tenantId) &&
      r.provider?.enabled === true &&
      !r.provider.enabledMethods.includes(method),
  );
  if (methodBlocks) {
    throw new DomainError('provider_method_disabled', 'The method is disabled on the provider of the rule.');
  }
  throw new DomainError('provider_not_configured', NOT_CONFIGURED);
}

/**
 * Issue 23 item 1.8: what to set, for the person who just ran `calebe bootstrap` against a server started
 * with ENABLE_SIMULATOR=false (the default with DATABASE_URL) and got this with the demo's test key. The
 * resolver does not know the key's mode, so the message names both ways out.
 */
const NOT_CONFIGURED =
  'No routing rule with an enabled provider serves this payment method for your tenant. An administrator ' +
  'adds one with POST /admin/rules; for test keys, starting the gateway with ENABLE_SIMULATOR=true creates ' +
  "the simulator's global Pix, boleto and card rules.";

interface CandidateRow {
  ancestor_ids: string[];
  id: string | null;
  method: PaymentMethod | null;
  tenant_id: string | null;
  priority: number | null;
  max_amount: number | null;
  enabled: boolean | null;
  created_at: Date | string | null;
  p_id: string | null;
  kind: 'simulator' | 'external' | null;
  environment: 'sandbox' | 'production' | null;
  p_enabled: boolean | null;
  enabled_methods: string[] | null;
  is_marketplace: boolean | null;
}

/**
 * The tenant's chain and its candidate rules in one read (issue 14: one round trip and constant text; it
 * was two kysely-built reads). The chain row always comes back; with no rule, its rule columns are null.
 */
const candidates = constantQuery<CandidateRow>(`
  with chain as (select ${chainOfText('$1')} as ancestor_ids)
  select c.ancestor_ids, r.id, r.method, r.tenant_id, r.priority, r.max_amount, r.enabled, r.created_at,
    p.id as p_id, p.kind, p.environment, p.enabled as p_enabled, p.enabled_methods, p.is_marketplace
  from chain c
  left join routing_rules r on r.method = $2 and (r.tenant_id is null or r.tenant_id = any(c.ancestor_ids))
  left join providers p on p.id = r.provider_id`);

/**
 * The rules that can apply to a tenant and method: its own, its ancestors' and the global ones, each with
 * its provider. An unknown tenant has no chain of its own and falls back to global rules.
 */
export async function loadRoutingCandidates(
  db: Kysely<Database>,
  tenantId: string,
  method: PaymentMethod,
): Promise<{ ancestorIds: string[]; rules: CandidateRule[] }> {
  const { rows } = await candidates(db, [tenantId, method]);
  const ancestorIds = rows[0]?.ancestor_ids ?? [tenantId];
  const rules: CandidateRule[] = [];
  for (const row of rows) {
    if (row.id === null) continue;
    rules.push({
      id: row.id,
      method: row.method as PaymentMethod,
      tenantId: row.tenant_id,
      priority: row.priority as number,
      maxAmount: row.max_amount as number,
      enabled: row.enabled === true,
      createdAt: new Date(row.created_at as Date | string),
      provider:
        row.p_id && row.kind && row.environment && row.enabled_methods
          ? {
              id: row.p_id,
              kind: row.kind,
              environment: row.environment,
              enabled: row.p_enabled === true,
              enabledMethods: row.enabled_methods,
              isMarketplace: row.is_marketplace === true,
            }
          : undefined,
    });
  }
  return { ancestorIds, rules };
}

/** Loads and resolves: what issuance calls for a new charge of either mode (SPEC 2.8). */
export async function resolveProviderFor(
  db: Kysely<Database>,
  request: { tenantId: string; method: PaymentMethod; amount: number },
): Promise<Resolution> {
  const { ancestorIds, rules } = await loadRoutingCandidates(db, request.tenantId, request.method);
  return resolveProvider({ method: request.method, amount: request.amount, ancestorIds }, rules);
}
