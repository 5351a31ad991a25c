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
import { handleCommand } from '../../command-handler.ts';
import type { AppContext } from '../../context.ts';
import { resolveCostCenter } from '../../cost-centers/resolve.ts';
import { cardKey } from '../../credit-card/card-token.ts';
import { claimIdempotencyKey, type JsonValue, readClaim, requestHash } from '../../idempotency.ts';
import { type ApiKeyPrincipal, requireScopes } from '../../principal.ts';
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
  if (b.tenant_id !== undefined) {
    throw new DomainError(
      'tenant_from_api_key',
      'Do not send tenant_id: the tenant comes from the API key.',
      {
        param: 'tenant_id',
      },
    );
  }
  const normalized = {
    tenant_id: principal.tenantId,
    methods: b.methods,
    amount: b.amount,
    reference: b.reference,
    description: b.description,
    customer: b.customer ?? null,
    expires_in: b.expires_in ?? CHECKOUT_EXPIRES_IN.default,
    boleto: b.boleto
      ? { ...b.boleto, due_in_days: b.boleto.due_in_days ?? CHECKOUT_BOLETO_DUE_IN_DAYS_DEFAULT }
      : b.methods.includes('boleto')
        ? { due_in_days: CHECKOUT_BOLETO_DUE_IN_DAYS_DEFAULT }
        : null,
    cost_center_id: b.cost_center_id ?? null,
    callback_url: b.callback_url ?? null,
  };
  const scope = principal.tenantId;
  const hash = requestHash('POST', input.route, normalized);
  const deps = { store: ctx.store, registry: ctx.events, now: () => ctx.now() };

  const checkoutId = newId('chk');
  const data: CheckoutCreatedData = {
    checkout_id: checkoutId,
    tenant_id: principal.tenantId,
    livemode: principal.livemode,
    methods: [...b.methods],
    amount: b.amount,
    reference: b.reference,
    description: b.description,
    customer: normalized.customer,
    expires_at: new Date(ctx.now().getTime() + normalized.expires_in * 1000).toISOString(),
    boleto: normalized.boleto,
    callback_url: normalized.callback_url,
    cost_center_id: normalized.cost_center_id,
  };

  try {
    await validate(ctx, principal, b, data);
  } catch (error) {
    // A replay is answered as stored, even when it would not pass today (a deactivated cost center).
    const held = await readClaim(deps, scope, input.idempotencyKey, principal.livemode);
    if (!held) throw error;
  }
  const { first, claim } = await claimIdempotencyKey(
    deps,
    {
      scope,
      livemode: principal.livemode,
      key: input.idempotencyKey,
      method: 'POST',
      route: input.route,
      body: normalized,
      requestHash: hash,
      resourceId: checkoutId,
      payload: { checkout: JSON.parse(JSON.stringify(data)) as JsonValue },
    },
    metadata,
  );
  const id = claim.resource_id;
  const existing = first ? undefined : await foldCheckout(ctx, id);
  if (existing) return { folded: existing, created: false };
  const claimed = claim.payload.checkout as unknown as CheckoutCreatedData;
  const r = await handleCommand(
    deps,
    checkout,
    checkoutStream(id),
    { kind: 'create', data: claimed },
    {
      metadata,
      retryOnConflict: true,
    },
  );
  const folded = await foldCheckout(ctx, id);
  if (!folded) throw new Error(`checkout ${id} missing after its creation`);
  return { folded, created: first && r.events.length > 0 };
}

async function validate(
  ctx: CheckoutContext,
  principal: ApiKeyPrincipal,
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
    await resolveCostCenter(ctx, principal.tenantId, b.cost_center_id);
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
