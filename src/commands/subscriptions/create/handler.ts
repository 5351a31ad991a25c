import { DomainError, isDomainError } from '../../../aggregates/decider.ts';
import { type SubscriptionCreatedData, subscription } from '../../../aggregates/subscription.ts';
import { addDays, saoPauloDate } from '../../../aggregates/subscription-calendar.ts';
import { ADVANCE_DAYS, type CreateSubscriptionBody } from '../../../contract/subscriptions.ts';
import type { EventMetadata } from '../../../events/event-store.ts';
import { newId } from '../../../ids.ts';
import type { CardData } from '../../../providers/port.ts';
import { checkDestinationSyntax, destinationPolicy } from '../../../webhooks/ssrf-guard.ts';
import { createClaimed } from '../../claimed-creation.ts';
import type { AppContext } from '../../context.ts';
import { resolveCostCenter } from '../../cost-centers/resolve.ts';
import type { CardCharge } from '../../credit-card/card-charge.ts';
import { isCardExpired } from '../../credit-card/card-expiry.ts';
import { cardChargeFromData } from '../../credit-card/card-from-data.ts';
import { cardKey } from '../../credit-card/card-token.ts';
import { ownedCard } from '../../credit-card/stored-card.ts';
import { type JsonValue, readClaim } from '../../idempotency.ts';
import { type ApiKeyPrincipal, refuseBodyTenant, requireScopes } from '../../principal.ts';
import { foldTestClock } from '../../test-clocks/record.ts';
import { route } from '../../transactions/create/handler.ts';
import { requireAutomaticContract } from '../automatic/authorization.ts';
import { claimAuthorizationUse } from '../automatic/claim-authorization.ts';
import { cardRouteInput, requireKeptByRoute } from '../emit/register-card.ts';
import { type FoldedSubscription, foldSubscription, subscriptionStream } from '../record.ts';
import { SUBSCRIPTION_METHOD_SCOPE } from '../scope.ts';
import { issueFirstCycle } from './first-charge.ts';

export type SubscriptionCreateContext = Pick<
  AppContext,
  'store' | 'events' | 'db' | 'now' | 'config' | 'providers'
>;

function invalid(param: string, message: string): DomainError {
  return new DomainError('validation_error', message, { param });
}

/** SPEC 4.10 `credit_card` as idempotency compares it: a token, or the data's keyed fingerprint, never the data. */
function cardForHash(b: CreateSubscriptionBody, typed: CardCharge | null): JsonValue {
  const c = b.credit_card;
  if (!c) return null;
  const common = { installments: c.installments, authorized: c.authorized };
  if (c.token !== undefined) return { token: c.token, ...common };
  return {
    holder: c.holder ?? null,
    expiration: c.expiration ?? null,
    fingerprint: typed?.fingerprint ?? null,
    ...common,
  };
}

/**
 * `POST /v1/subscriptions` (SPEC 4 common rules, 4.10, 5.3, 5.5, 8; docs/decisions.md "Subscriptions (issue
 * 26)"). Checks, in order: the method's write scope (403), `tenant_id` (422 tenant_from_api_key), then every
 * rule that needs the server (validate below); then claims the key (scope tenant + key in the key's mode; the
 * hash covers the normalized body with its defaults, the cost center and the card's fingerprint, never the
 * card number or code) and appends `Subscription.Created`. A replay answers the subscription as it is now,
 * never re-validated; a claim left without its subscription (a crash between the appends) is completed from
 * the claim. The request that created it then registers a card and issues the first cycle
 * (./first-charge.ts); a replay never issues another.
 */
export async function createSubscription(
  ctx: SubscriptionCreateContext,
  principal: ApiKeyPrincipal,
  input: { body: CreateSubscriptionBody; idempotencyKey: string; route: string },
  metadata: EventMetadata,
): Promise<{ folded: FoldedSubscription; created: boolean }> {
  const b = input.body;
  requireScopes(principal, [SUBSCRIPTION_METHOD_SCOPE[b.method]]);
  refuseBodyTenant(b.tenant_id);
  const scope = principal.tenantId;
  const deps = { store: ctx.store, registry: ctx.events, now: () => ctx.now() };
  const subscriptionId = newId('sub');
  const data: SubscriptionCreatedData = {
    subscription_id: subscriptionId,
    tenant_id: principal.tenantId,
    livemode: principal.livemode,
    name: b.name,
    description: b.description ?? b.name,
    amount: b.amount,
    method: b.method,
    first_due_date: b.first_due_date,
    interval_months: b.interval_months,
    advance_days: b.advance_days ?? ADVANCE_DAYS[b.method].default,
    customer: b.customer,
    authorization_id: b.authorization_id ?? null,
    callback_url: b.callback_url ?? null,
    cost_center_id: b.cost_center_id ?? null,
    test_clock_id: b.test_clock_id ?? null,
  };

  // Card data is fingerprinted first: a replay's hash needs it even when validation fails today.
  const typed = b.credit_card ? await typedCard(ctx, b.credit_card) : null;
  let card: CardCharge | null = typed;
  try {
    card = await validate(ctx, principal, b, data, typed);
  } catch (error) {
    // A replay is answered as stored, even when it would not pass today (a date now in the past).
    const held = await readClaim(deps, scope, input.idempotencyKey, principal.livemode);
    if (!held) throw error;
  }
  const { subscription_id: _, ...facts } = data;
  // One subscription per authorization, claimed before the key (a refused claim leaves no key behind).
  const claimedId =
    data.authorization_id === null || (await readClaim(deps, scope, input.idempotencyKey, principal.livemode))
      ? subscriptionId
      : await claimAuthorizationUse(
          ctx,
          {
            authorization_id: data.authorization_id,
            subscription_id: subscriptionId,
            tenant_id: principal.tenantId,
            livemode: principal.livemode,
            idempotency_key: input.idempotencyKey,
          },
          metadata,
        );
  const normalized = { ...facts, credit_card: cardForHash(b, typed) };
  const { folded, created } = await createClaimed(
    deps,
    {
      principal,
      idempotencyKey: input.idempotencyKey,
      route: input.route,
      body: normalized,
      resourceId: claimedId,
    },
    { ...data, subscription_id: claimedId },
    {
      decider: subscription,
      stream: subscriptionStream,
      create: (claimed: SubscriptionCreatedData) => ({ kind: 'create', data: claimed }) as const,
      fold: (id) => foldSubscription(ctx, id),
      payloadKey: 'subscription',
    },
    metadata,
  );
  if (!created) return { folded, created };
  return { folded: await issueFirstCycle(ctx, folded, card, metadata), created };
}

/**
 * The rules of a new subscription that need the clock, other records or the configuration; reads only, so a
 * refusal stores nothing. Answers the card to register (card subscriptions), held in memory only.
 */
async function validate(
  ctx: SubscriptionCreateContext,
  principal: ApiKeyPrincipal,
  b: CreateSubscriptionBody,
  data: SubscriptionCreatedData,
  typed: CardCharge | null,
): Promise<CardCharge | null> {
  const now = ctx.now();
  const today = saoPauloDate(await subscriptionNow(ctx, principal, b.test_clock_id));
  if (b.first_due_date < today) {
    throw invalid('first_due_date', 'first_due_date must be today or later (America/Sao_Paulo).');
  }
  if ((b.method === 'boleto' || b.method === 'pix') && b.first_due_date > addDays(today, 365)) {
    throw invalid('first_due_date', 'first_due_date must be at most 365 days ahead for boleto and pix.');
  }
  if (b.method === 'pix_automatic' && b.first_due_date < addDays(today, 2)) {
    throw invalid('first_due_date', 'first_due_date must be at least 2 days ahead for pix_automatic.');
  }
  if (b.method === 'pix_automatic') await requireAutomaticContract(ctx, data);
  if (b.callback_url !== undefined) {
    const check = checkDestinationSyntax(b.callback_url, destinationPolicy(ctx.config));
    if (!check.ok) throw invalid('callback_url', `callback_url is not allowed: ${check.reason}.`);
  }
  if (b.cost_center_id !== undefined) await resolveCostCenter(ctx, principal.tenantId, b.cost_center_id);
  const card = b.method === 'credit_card' ? await cardOf(ctx, principal, b, typed) : null;
  if (card) await requireCardRoute(ctx, data, card);
  const probe = subscription.decide({ kind: 'create', data }, subscription.initialState, { now });
  if (isDomainError(probe)) throw probe;
  return card;
}

/**
 * The time a new subscription's dates are judged by: its test clock's frozen time when it has one (issue 26
 * item 6: a subscription on a clock lives in the clock's time), else the gateway's. A clock is a test key's
 * own (test mode, its tenant exactly, not deleted); a live key's or any other is `422 validation_error`.
 */
async function subscriptionNow(
  ctx: SubscriptionCreateContext,
  principal: ApiKeyPrincipal,
  testClockId: string | undefined,
): Promise<Date> {
  if (testClockId === undefined) return ctx.now();
  if (principal.livemode) throw invalid('test_clock_id', 'Test clocks are for test keys only.');
  const clock = await foldTestClock(ctx, testClockId);
  if (!clock || clock.state.created.tenant_id !== principal.tenantId) {
    throw invalid('test_clock_id', 'No such test clock for this key.');
  }
  return new Date(clock.state.frozenTime);
}

/** Card data as typed (the contract's schema has checked its shape and Luhn): held in memory, fingerprinted. */
async function typedCard(
  ctx: SubscriptionCreateContext,
  c: NonNullable<CreateSubscriptionBody['credit_card']>,
): Promise<CardCharge | null> {
  if (c.token !== undefined) return null;
  const cardData: CardData = {
    holder: (c.holder as string).trim(),
    number: c.number as string,
    expiration: c.expiration as string,
    securityCode: c.security_code as string,
  };
  return cardChargeFromData(ctx.config, cardData, 1);
}

/** SPEC 4.10: a kept card of this tenant and mode, or typed card data; not expired; a key to seal its token. */
async function cardOf(
  ctx: SubscriptionCreateContext,
  principal: ApiKeyPrincipal,
  b: CreateSubscriptionBody,
  typed: CardCharge | null,
): Promise<CardCharge> {
  const c = b.credit_card;
  if (!c) throw invalid('credit_card', 'credit_card is required with credit_card.');
  // The registration seals the provider's token: refused now when no key can seal it.
  await cardKey(ctx.config);
  if (typed) {
    if (isCardExpired(typed.masked.expiration, ctx.now())) {
      throw invalid('credit_card.expiration', 'The card has expired (MM/YYYY before this month).');
    }
    return typed;
  }
  const kept = await ownedCard({ store: ctx.store, registry: ctx.events }, c.token ?? '', principal);
  if (!kept) throw invalid('credit_card.token', 'No such card for this key.');
  if (isCardExpired(kept.expiration, ctx.now())) {
    throw invalid('credit_card.token', 'The card has expired (MM/YYYY before this month).');
  }
  const { card_id, brand, last_four, holder, expiration } = kept;
  return {
    installments: 1,
    masked: { card_id, brand, last_four, holder, expiration },
    fingerprint: null,
    secret: { kind: 'stored', card: kept },
  };
}

/**
 * SPEC 4.10: "for card, creation requires enabled routing and production authorization, else the registration
 * is refused": routed as the registration and the first cycle's charge will be (./first-charge.ts,
 * emit/register-card.ts `cardRouteInput`: routing, the simulator switch, the production controls for that
 * charge's reference and key); a kept card must have been kept by the account the route leads to.
 */
async function requireCardRoute(
  ctx: SubscriptionCreateContext,
  data: SubscriptionCreatedData,
  card: CardCharge,
): Promise<void> {
  const routed = await route(ctx, cardRouteInput(data));
  if (card.secret.kind === 'stored') requireKeptByRoute(card.secret.card, routed);
}
