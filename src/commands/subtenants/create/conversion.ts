import type { z } from 'zod';
import { isDomainError } from '../../../aggregates/decider.ts';
import type { PaymentMethod } from '../../../aggregates/provider.ts';
import type { SubtenantSubaccountBody, subtenantSubaccount } from '../../../contract/subtenants.ts';
import type { EventMetadata } from '../../../events/event-store.ts';
import {
  type CandidateRule,
  loadRoutingCandidates,
  resolveProvider,
} from '../../../routing/resolve-provider.ts';
import { readClaim } from '../../idempotency.ts';
import { createSubaccount } from '../../subaccounts/create/handler.ts';
import { resolveMatrix, type SubaccountCtx } from '../../subaccounts/provider.ts';
import { type LoadedSubaccount, loadSubaccount } from '../../subaccounts/record.ts';

/**
 * SPEC 4.13 "registers a child company and tries to convert its subaccount" (docs/decisions.md "Subtenants
 * (issue 28 item 1)"). The provider is never the client's choice (SPEC 1): it is the marketplace provider the
 * new subtenant's routing reaches (SPEC 2.8), and the creation is POST /admin/subaccounts' own
 * reserve -> call -> record (src/commands/subaccounts/create/handler.ts), under the idempotency key
 * `subtenant:<tenant id>` in the provider's scope: one provider call per subtenant, whoever repeats it.
 */

export type SubtenantSubaccount = z.infer<typeof subtenantSubaccount>;

/** The methods whose route is looked at, in this order: the first that reaches a marketplace provider wins. */
export const CONVERSION_METHODS = [
  'boleto',
  'pix',
  'credit_card',
] as const satisfies readonly PaymentMethod[];

export type NotAttemptedReason = 'no_marketplace_route' | 'marketplace_unavailable';

/** Where the subaccount will be requested, or why it will not be. */
export type ConversionTarget =
  | { readonly providerId: string }
  | { readonly providerId: null; readonly reason: NotAttemptedReason };

/** The idempotency key of a subtenant's conversion, in the marketplace provider's scope. */
export const conversionKey = (tenantId: string) => `subtenant:${tenantId}`;

/**
 * Pure: the provider the subtenant's routing reaches for the first of {@link CONVERSION_METHODS} whose route
 * ends at an external `is_marketplace` provider (SPEC 2.8 steps 1-4, as a charge of that method would be
 * routed; the amount does not choose a provider, so `max_amount` is left out). A method with no route, or
 * routed elsewhere, is passed over. null: none does.
 */
export function marketplaceOf(
  ancestorIds: readonly string[],
  rulesByMethod: ReadonlyMap<PaymentMethod, readonly CandidateRule[]>,
): string | null {
  for (const method of CONVERSION_METHODS) {
    let provider: ReturnType<typeof resolveProvider>['provider'];
    try {
      ({ provider } = resolveProvider({ method, amount: 0, ancestorIds }, rulesByMethod.get(method) ?? []));
    } catch (error) {
      if (isDomainError(error)) continue;
      throw error;
    }
    if (provider.kind === 'external' && provider.isMarketplace) return provider.id;
  }
  return null;
}

/**
 * Read before anything is claimed: the marketplace provider of a subtenant `childId` of `parentId` (its chain
 * is the parent's plus itself), and whether that provider can manage subaccounts now (the same check POST
 * /admin/subaccounts makes first: an external marketplace record whose credentials open).
 */
export async function conversionTarget(
  ctx: SubaccountCtx,
  parentId: string,
  childId: string,
): Promise<ConversionTarget> {
  const loaded = await Promise.all(CONVERSION_METHODS.map((m) => loadRoutingCandidates(ctx.db, parentId, m)));
  const rulesByMethod = new Map<PaymentMethod, CandidateRule[]>(
    CONVERSION_METHODS.map((m, i) => [m, loaded[i]?.rules ?? []]),
  );
  const parentChain = loaded[0]?.ancestorIds ?? [parentId];
  const providerId = marketplaceOf([...parentChain, childId], rulesByMethod);
  if (providerId === null) return { providerId: null, reason: 'no_marketplace_route' };
  try {
    await resolveMatrix(ctx, providerId);
  } catch (error) {
    if (isDomainError(error)) return { providerId: null, reason: 'marketplace_unavailable' };
    throw error;
  }
  return { providerId };
}

const NOT_ATTEMPTED_MESSAGES: Record<NotAttemptedReason, string> = {
  no_marketplace_route:
    'No routing rule of this subtenant reaches a marketplace provider: no subaccount was requested.',
  marketplace_unavailable:
    'The marketplace provider cannot manage subaccounts now (its configuration is incomplete): nothing was sent.',
};

export function notAttempted(reason: NotAttemptedReason): SubtenantSubaccount {
  return {
    id: null,
    status: 'not_attempted',
    last_error_code: reason,
    last_provider_error_code: null,
    last_error_message: NOT_ATTEMPTED_MESSAGES[reason],
  };
}

function outcomeOf({ state }: LoadedSubaccount): SubtenantSubaccount {
  const { id, status, lastErrorCode, lastProviderErrorCode, lastErrorMessage } = state;
  return {
    id,
    status,
    last_error_code: lastErrorCode,
    last_provider_error_code: lastProviderErrorCode,
    last_error_message: lastErrorMessage,
  };
}

/**
 * The conversion of subtenant `tenantId` at `providerId`: POST /admin/subaccounts' creation with the key
 * {@link conversionKey}. A replay finds the record its claim names without any check or call; a first
 * request (or a replay finding no claim: a crash between the tenant and its reservation) creates it.
 * A refusal of the creation's own checks (the provider changed meanwhile) is `not_attempted`, never an
 * error: the subtenant exists already.
 */
export async function convertSubaccount(
  ctx: SubaccountCtx,
  input: {
    tenantId: string;
    providerId: string;
    body: SubtenantSubaccountBody;
    route: string;
    replay: boolean;
  },
  metadata: EventMetadata,
): Promise<SubtenantSubaccount> {
  const deps = { store: ctx.store, registry: ctx.events };
  const key = conversionKey(input.tenantId);
  if (input.replay) {
    const claim = await readClaim(deps, input.providerId, key);
    const loaded = claim ? await loadSubaccount(deps, claim.resource_id) : undefined;
    if (loaded) return outcomeOf(loaded);
  }
  try {
    const { loaded } = await createSubaccount(
      ctx,
      {
        body: { ...input.body, provider_id: input.providerId, tenant_id: input.tenantId },
        idempotencyKey: key,
        route: input.route,
      },
      metadata,
    );
    return outcomeOf(loaded);
  } catch (error) {
    if (isDomainError(error)) return notAttempted('marketplace_unavailable');
    throw error;
  }
}
