import type { CardSavedData } from '../../../aggregates/card.ts';
import { DomainError } from '../../../aggregates/decider.ts';
import {
  type SubscriptionCard,
  type SubscriptionCreatedData,
  subscription,
} from '../../../aggregates/subscription.ts';
import type { MaskedCard } from '../../../aggregates/transaction.ts';
import type { EventMetadata } from '../../../events/event-store.ts';
import { type CardData, withCapability } from '../../../providers/port.ts';
import { handleCommand } from '../../command-handler.ts';
import { opensAt } from '../../credit-card/card-charge.ts';
import { maskedCardOf } from '../../credit-card/card-from-data.ts';
import { type CardBinding, cardKey, openCardToken, sealCardToken } from '../../credit-card/card-token.ts';
import { ownedCard } from '../../credit-card/stored-card.ts';
import { type CreateChargeInput, type Route, route } from '../../transactions/create/handler.ts';
import { type FoldedSubscription, foldSubscription, subscriptionStream } from '../record.ts';
import { CYCLE_ROUTE, cycleIdempotencyKey, cycleReference, type EmitContext } from './context.ts';

/** The card a card subscription is created with (SPEC 4.10): its data, or a stored card `card_…`. */
export type CardToRegister =
  | { readonly kind: 'data'; readonly data: CardData }
  | { readonly kind: 'stored'; readonly cardId: string };

function invalid(param: string, message: string): DomainError {
  return new DomainError('validation_error', message, { param });
}

/**
 * How a card subscription is routed (SPEC 2.8, 4.10): as its first cycle's charge will be, with that charge's
 * reference and key, so the production controls judge registration and first debit alike (a restricted live
 * scope names that charge).
 */
export function cardRouteInput(s: SubscriptionCreatedData): CreateChargeInput {
  return {
    tenantId: s.tenant_id,
    livemode: s.livemode,
    method: 'credit_card',
    idempotencyKey: cycleIdempotencyKey(s.subscription_id, s.first_due_date),
    route: CYCLE_ROUTE,
    body: {
      amount: s.amount,
      reference: cycleReference(s.subscription_id, s.first_due_date),
      description: s.description,
      customer: s.customer,
    },
  };
}

/** A stored card opens only where it was kept: the provider account the route leads to now ({@link opensAt}). */
export function requireKeptByRoute(stored: CardSavedData, routed: Route): void {
  if (!opensAt(stored, routed)) {
    throw invalid(
      'credit_card.token',
      'This card was kept by another provider account; send the card data instead.',
    );
  }
}

/**
 * Registers a card subscription's card (SPEC 4.10; docs/decisions.md "Subscriptions (issue 26)"): routed as
 * a card charge of the subscription's tenant and mode would be (routing and production controls refuse it
 * first), tokenized through the routed adapter (test mode: the simulator, no provider call), or a stored card
 * opened with its own binding; then the token is sealed to the subscription (binding: subscription id,
 * tenant, mode, provider, environment) and Subscription.CardRegistered appended. The number and security
 * code live only in this call's memory.
 */
export async function registerCard(
  ctx: EmitContext,
  subscriptionId: string,
  card: CardToRegister,
  metadata: EventMetadata,
): Promise<FoldedSubscription> {
  const folded = await foldSubscription(ctx, subscriptionId);
  if (!folded) throw new DomainError('not_found', 'The subscription does not exist.');
  const s = folded.state.created;
  const key = await cardKey(ctx.config);
  const routed = await route(ctx, cardRouteInput(s));
  const binding: CardBinding = {
    cardId: subscriptionId,
    tenantId: s.tenant_id,
    livemode: s.livemode,
    providerId: routed.providerId,
    environment: routed.environment,
  };
  const { token, masked } =
    card.kind === 'data'
      ? await tokenize(routed, card.data)
      : await openStored(ctx, key, routed, s, card.cardId);
  const registered: SubscriptionCard = {
    card: masked,
    provider_id: routed.providerId,
    environment: routed.environment,
    subaccount_id: routed.subaccountId,
    token_sealed: sealCardToken(key, binding, token),
  };
  await handleCommand(
    { store: ctx.store, registry: ctx.events, now: () => ctx.now() },
    subscription,
    subscriptionStream(subscriptionId),
    { kind: 'register_card', card: registered },
    { metadata, retryOnConflict: true },
  );
  const after = await foldSubscription(ctx, subscriptionId);
  if (!after) throw new DomainError('not_found', 'The subscription does not exist.');
  return after;
}

async function tokenize(routed: Route, data: CardData): Promise<{ token: string; masked: MaskedCard }> {
  const adapter = routed.adapter;
  // An adapter that throws is an unanswered call; either way nothing was charged.
  const answer = await withCapability(adapter.adapter, 'cards', (cards) =>
    cards.tokenize(data, adapter.context()),
  ).catch(() => undefined);
  if (answer?.kind !== 'issued') {
    throw new DomainError('provider_rejected', 'The card could not be registered; nothing was charged.');
  }
  return { token: answer.token, masked: maskedCardOf(data) };
}

/** A stored card of the same tenant and mode, kept by the provider account the subscription is routed to. */
async function openStored(
  ctx: EmitContext,
  key: Buffer,
  routed: Route,
  owner: { tenant_id: string; livemode: boolean },
  cardId: string,
): Promise<{ token: string; masked: MaskedCard }> {
  const stored = await ownedCard({ store: ctx.store, registry: ctx.events }, cardId, {
    tenantId: owner.tenant_id,
    livemode: owner.livemode,
  });
  if (!stored) throw invalid('credit_card.token', 'The card does not exist.');
  requireKeptByRoute(stored, routed);
  const token = openCardToken(
    key,
    {
      cardId: stored.card_id,
      tenantId: stored.tenant_id,
      livemode: stored.livemode,
      providerId: stored.provider_id,
      environment: stored.environment,
    },
    stored.token_sealed,
  );
  const { card_id, brand, last_four, holder, expiration } = stored;
  return { token, masked: { card_id, brand, last_four, holder, expiration } };
}
