import { card } from '../../aggregates/card.ts';
import type { RecordCaptured, ReserveTransaction } from '../../aggregates/transaction.ts';
import type { EventMetadata } from '../../events/event-store.ts';
import { newId } from '../../ids.ts';
import { NO_DIAGNOSTICS, type PortCardCharge, withCapability } from '../../providers/port.ts';
import { handleCommand } from '../command-handler.ts';
import type { AdapterContext } from '../provider-adapter.ts';
import { callProvider } from '../provider-call.ts';
import {
  blockedAfterReservation,
  CREATION_REFUSED,
  type CreationRecord,
  creationRecord,
  reservationAdapter,
} from '../transactions/create/issuance.ts';
import type { CardSecret } from './card-charge.ts';
import { type CardBinding, cardKey, openCardToken, sealCardToken } from './card-token.ts';
import { cardStream } from './stored-card.ts';

/**
 * A card charge at its provider (issue 25 item 2; wire doc wave 2b §7.1), after the reservation is committed:
 *
 *   1. the token: `tokenize` the card data (the only call that carries it; it lives in this request's
 *      memory and nowhere else), or open the stored card's sealed token;
 *   2. `charge` by the token;
 *   3. captured (3/4) -> record_captured (paid), and a card tokenized by this charge is kept (Card.Saved,
 *      its token sealed) before the outcome is appended; refused -> record_refused (failed); status 1/2
 *      (an acquirer still deciding), no answer, or anything unreadable -> record_uncertain (unknown): the
 *      card may have been charged, so it is never sent again (SPEC 3.1).
 *
 * A tokenization that is refused or unanswered charged nothing: the charge is `failed` with a guidance
 * saying so (the integrator retries with a new key). A crash between the two calls leaves the reservation
 * `processing` and no charge at the provider: the reconciler marks it `unknown` and finds nothing by
 * reference.
 */

const NOT_TOKENIZED =
  'The card could not be tokenized; nothing was charged. Check the data or try another card.';

export interface CardIssueContext extends AdapterContext {
  readonly now: () => Date;
}

function refusedBeforeCharge(guidance: string, httpStatus: number | null): CreationRecord {
  return {
    kind: 'record_refused',
    failureCode: CREATION_REFUSED,
    providerReference: null,
    diagnostics: { ...NO_DIAGNOSTICS, provider_error_message: guidance, provider_http_status: httpStatus },
  };
}

export async function issueCardCharge(
  ctx: CardIssueContext,
  reserve: ReserveTransaction,
  charge: PortCardCharge,
  secret: CardSecret,
  metadata: EventMetadata,
): Promise<CreationRecord | RecordCaptured> {
  const resolved = await reservationAdapter(ctx, reserve);
  if (resolved === null) return blockedAfterReservation();
  const key = await cardKey(ctx.config);
  const newCardId = secret.kind === 'data' ? newId('card') : null;
  const binding: CardBinding = {
    cardId: bindingId(secret, newCardId),
    tenantId: reserve.tenantId,
    livemode: reserve.livemode,
    providerId: reserve.providerId,
    environment: reserve.environment,
  };

  let token: string;
  if (secret.kind === 'data') {
    const tokenized = await callProvider(() =>
      withCapability(resolved.adapter, 'cards', (cards) => cards.tokenize(secret.data, resolved.context())),
    );
    if (tokenized.kind !== 'issued') {
      return refusedBeforeCharge(
        tokenized.diagnostics.provider_error_message ?? NOT_TOKENIZED,
        tokenized.diagnostics.provider_http_status,
      );
    }
    token = tokenized.token;
  } else {
    token = openCardToken(key, binding, secret.card.token_sealed);
  }

  const body =
    reserve.providerRequest === null
      ? null
      : (structuredClone(reserve.providerRequest) as Record<string, unknown>);
  const answer = await callProvider(() =>
    withCapability(resolved.adapter, 'cards', (cards) =>
      cards.charge(charge, body, token, resolved.context(), ctx.now()),
    ),
  );
  if (answer.kind !== 'issued') return creationRecord(answer);
  if (answer.status !== 'paid') {
    return {
      kind: 'record_uncertain',
      providerReference: answer.providerReference,
      diagnostics: NO_DIAGNOSTICS,
    };
  }
  if (secret.kind === 'data' && newCardId !== null) {
    const m = reserve.creditCard?.card;
    if (!m) throw new Error('a card charge was reserved without its masked card');
    await handleCommand(
      { store: ctx.deps.store, registry: ctx.deps.registry, now: ctx.now },
      card,
      cardStream(newCardId),
      {
        kind: 'save',
        card: {
          card_id: newCardId,
          tenant_id: reserve.tenantId,
          livemode: reserve.livemode,
          provider_id: reserve.providerId,
          environment: reserve.environment,
          subaccount_id: reserve.subaccountId,
          brand: m.brand,
          last_four: m.last_four,
          holder: m.holder,
          expiration: m.expiration,
          token_sealed: sealCardToken(key, binding, token),
          transaction_id: reserve.transactionId,
        },
      },
      { metadata, from: { state: card.initialState, version: 0 } },
    );
  }
  return {
    kind: 'record_captured',
    providerReference: answer.providerReference,
    cardId: secret.kind === 'data' ? newCardId : secret.kind === 'stored' ? secret.card.card_id : null,
  };
}

/** The id a kept token is sealed to: the new card's, the stored card's, or the subscription's. */
function bindingId(secret: CardSecret, newCardId: string | null): string {
  if (secret.kind === 'data') return newCardId as string;
  return secret.kind === 'stored' ? secret.card.card_id : secret.subscriptionId;
}
