import type { Scope } from '../../../aggregates/access.ts';
import {
  type CheckoutCreatedData,
  type CheckoutCustomer,
  type CheckoutMethod,
  checkout,
} from '../../../aggregates/checkout.ts';
import { DomainError, isDomainError } from '../../../aggregates/decider.ts';
import {
  CHECKOUT_BOLETO_DUE_IN_DAYS_DEFAULT,
  CHECKOUT_EXPIRES_IN,
  type CreateCheckoutBody,
} from '../../../contract/checkouts.ts';
import type { EventMetadata } from '../../../events/event-store.ts';
import { newId } from '../../../ids.ts';
import { checkDestinationSyntax, destinationPolicy } from '../../../webhooks/ssrf-guard.ts';
import { createClaimed } from '../../claimed-creation.ts';
import type { AppContext } from '../../context.ts';
import { resolveCostCenter } from '../../cost-centers/resolve.ts';
import { cardKey } from '../../credit-card/card-token.ts';
import { readClaim } from '../../idempotency.ts';
import { type ApiKeyPrincipal, refuseBodyTenant, requireScopes } from '../../principal.ts';
import { checkoutStream, type FoldedCheckout, foldCheckout } from '../record.ts';
import { requirePayableRoute } from '../routing.ts';

/** SPEC 5.3: the scope a checkout offering each method needs. */
export const METHOD_SCOPE: Readonly<Record<CheckoutMethod, Scope>> = {
  pix: 'pix:write',
  boleto: 'boleto:write',
  credit_card: 'credit_card:write',
};

export type CheckoutContext = Pick<AppContext, 'store' | 'events' | 'db' | 'now' | 'config'>;

function invalid(param: string, message: string): DomainError {
  return new DomainError('validation_error', message, { param });
}

/** What a charge of `method` needs from the payer (SPEC 4.1, 4.2): the first missing field, or undefined. */
export function missingPayerField(customer: CheckoutCustomer, method: CheckoutMethod): string | undefined {
  if (method === 'boleto' && (customer.email === undefined || customer.email.trim() === ''))
    return 'customer.email';
  if (customer.phone === undefined || customer.phone.trim() === '') return 'customer.phone';
  if (customer.address === undefined) return 'customer.address';
  return undefined;
}

/**
 * `POST /v1/checkouts` (SPEC 4 common rules, 4.9, 5.3). Checks, in order: each method's scope (403), the
 * tenant from the key (422), boleto options only with boleto, a sent customer complete
 * for every offered method, the callback_url's syntax, the cost center, routing of each method; then claims
 * the key (scope tenant + key, in the key's mode; the hash covers the normalized body with its defaults) and
 * appends `Checkout.Created`. A replay answers the checkout as it is now; a claim whose checkout was never
 * created (a crash between the appends) is completed from the claim.
 */
export async function createCheckout(
  ctx: CheckoutContext,
  principal: ApiKeyPrincipal,
  input: { body: CreateCheckoutBody; idempotencyKey: string; route: string },
  metadata: EventMetadata,
): Promise<{ folded: FoldedCheckout; created: boolean }> {
  const b = input.body;
  requireScopes(
    principal,
    b.methods.map((m) => METHOD_SCOPE[m]),
  );
  refuseBodyTenant(b.tenant_id);
  return openCheckout(ctx, { tenantId: principal.tenantId, livemode: principal.livemode }, input, metadata);
}

/** Whose checkout it is: the key's tenant and mode, or a subscription's for a Pix cycle's link. */
export interface CheckoutOwner {
  readonly tenantId: string;
  readonly livemode: boolean;
}

/**
 * The checkout itself once its caller is authorized (the API above; the subscription scheduler for a Pix
 * cycle, SPEC 4.10). `deadline`: a fixed end instead of `expires_in` (a cycle's link is open until the end of
 * its due day, which may be more than the contract's 86400 s away: the public limits stay the API's);
 * `subscriptionId`: the subscription whose cycle the link is (its charge takes that subscription's cost
 * center when the payer chooses to pay).
 */
export async function openCheckout(
  ctx: CheckoutContext,
  owner: CheckoutOwner,
  input: {
    body: CreateCheckoutBody;
    idempotencyKey: string;
    route: string;
    deadline?: Date | undefined;
    subscriptionId?: string | undefined;
  },
  metadata: EventMetadata,
): Promise<{ folded: FoldedCheckout; created: boolean }> {
  const b = input.body;
  const expiresIn = b.expires_in ?? CHECKOUT_EXPIRES_IN.default;
  const normalized = {
    tenant_id: owner.tenantId,
    methods: b.methods,
    amount: b.amount,
    reference: b.reference,
    description: b.description,
    customer: b.customer ?? null,
    ...(input.deadline ? { expires_at: input.deadline.toISOString() } : { expires_in: expiresIn }),
    boleto: b.boleto
      ? { ...b.boleto, due_in_days: b.boleto.due_in_days ?? CHECKOUT_BOLETO_DUE_IN_DAYS_DEFAULT }
      : b.methods.includes('boleto')
        ? { due_in_days: CHECKOUT_BOLETO_DUE_IN_DAYS_DEFAULT }
        : null,
    cost_center_id: b.cost_center_id ?? null,
    callback_url: b.callback_url ?? null,
  };
  const scope = owner.tenantId;
  const deps = { store: ctx.store, registry: ctx.events, now: () => ctx.now() };

  const checkoutId = newId('chk');
  const data: CheckoutCreatedData = {
    checkout_id: checkoutId,
    tenant_id: owner.tenantId,
    livemode: owner.livemode,
    methods: [...b.methods],
    amount: b.amount,
    reference: b.reference,
    description: b.description,
    customer: normalized.customer,
    expires_at: (input.deadline ?? new Date(ctx.now().getTime() + expiresIn * 1000)).toISOString(),
    boleto: normalized.boleto,
    callback_url: normalized.callback_url,
    cost_center_id: normalized.cost_center_id,
    ...(input.subscriptionId !== undefined ? { subscription_id: input.subscriptionId } : {}),
  };

  try {
    await validate(ctx, owner, b, data);
  } catch (error) {
    // A replay is answered as stored, even when it would not pass today (a deactivated cost center).
    const held = await readClaim(deps, scope, input.idempotencyKey, owner.livemode);
    if (!held) throw error;
  }
  return createClaimed(
    deps,
    {
      principal: owner,
      idempotencyKey: input.idempotencyKey,
      route: input.route,
      body: normalized,
      resourceId: checkoutId,
    },
    data,
    {
      decider: checkout,
      stream: checkoutStream,
      create: (claimed: CheckoutCreatedData) => ({ kind: 'create', data: claimed }) as const,
      fold: (id) => foldCheckout(ctx, id),
      payloadKey: 'checkout',
    },
    metadata,
  );
}

async function validate(
  ctx: CheckoutContext,
  principal: CheckoutOwner,
  b: CreateCheckoutBody,
  data: CheckoutCreatedData,
): Promise<void> {
  if (b.boleto !== undefined && !b.methods.includes('boleto')) {
    throw invalid('boleto', 'boleto options are accepted only when boleto is offered.');
  }
  if (b.customer) {
    for (const method of b.methods) {
      const missing = missingPayerField(b.customer, method);
      if (missing) throw invalid(missing, `${missing} is required to offer ${method} with a customer.`);
    }
  }
  if (b.callback_url !== undefined) {
    const check = checkDestinationSyntax(b.callback_url, destinationPolicy(ctx.config));
    if (!check.ok) throw invalid('callback_url', `callback_url is not allowed: ${check.reason}.`);
  }
  if (b.cost_center_id !== undefined) {
    // A subscription's link carries the subscription's center, which may have been deactivated (SPEC 4.10).
    await resolveCostCenter(ctx, principal.tenantId, b.cost_center_id, {
      inherited: data.subscription_id !== undefined,
    });
  }
  // A card is charged only with a key to seal its token: refused now rather than on the payer's page.
  if (b.methods.includes('credit_card')) await cardKey(ctx.config);
  for (const method of b.methods) {
    await requirePayableRoute(ctx, {
      tenantId: principal.tenantId,
      livemode: principal.livemode,
      method,
      amount: b.amount,
    });
  }
  // The decider's own checks on the very facts the claim will hold, before the claim is taken.
  const probe = checkout.decide({ kind: 'create', data }, checkout.initialState, { now: ctx.now() });
  if (isDomainError(probe)) throw probe;
}
