import { DomainError } from '../../../aggregates/decider.ts';
import { createCreditCard } from '../../../contract/operations/credit-card.ts';
import type { CardData } from '../../../providers/port.ts';
import { bind } from '../../bind.ts';
import { create } from '../../transactions/create/route.ts';
import type { CardCharge } from '../card-charge.ts';
import { cardChargeFromData } from '../card-from-data.ts';
import { ownedCard } from '../stored-card.ts';

/**
 * `POST /v1/credit-card` (SPEC 4.9, 8; issue 25): a card charge of the key's tenant, through the one charge
 * creation (src/commands/transactions/create/): the same idempotency, routing, production controls and
 * reserve -> call -> record, the call being tokenize then charge (../issue-card.ts). The card data is taken
 * out of the body here and travels only as this request's {@link CardCharge}; the body the creation keeps
 * has no card in it, only the masked card.
 */
export const createRoute = bind(createCreditCard, async (call, ctx) => {
  const { credit_card, installments, ...body } = call.body;
  const owner = call.apiKey();
  let card: CardCharge;
  if (credit_card.card_id !== undefined) {
    const kept = await ownedCard({ store: ctx.store, registry: ctx.events }, credit_card.card_id, owner);
    if (!kept) {
      throw new DomainError('validation_error', 'No such card for this key.', {
        param: 'credit_card.card_id',
      });
    }
    const { card_id, brand, last_four, holder, expiration } = kept;
    card = {
      installments: installments ?? 1,
      masked: { card_id, brand, last_four, holder, expiration },
      fingerprint: null,
      secret: { kind: 'stored', card: kept },
    };
  } else {
    // The schema has made sure all four are here (creditCardInput).
    const data: CardData = {
      holder: (credit_card.holder as string).trim(),
      number: credit_card.number as string,
      expiration: credit_card.expiration as string,
      securityCode: credit_card.security_code as string,
    };
    card = await cardChargeFromData(ctx.config, data, installments ?? 1);
  }
  return create(ctx, 'credit_card', '/v1/credit-card', call, body, owner, card);
});
