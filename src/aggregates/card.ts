import { z } from 'zod';
import { defineEvent } from '../events/event-registry.ts';
import { type Decider, DomainError, type DomainEvent } from './decider.ts';
import { maskedCard } from './transaction/events.ts';

/**
 * A stored card (issue 25 item 2; stream `card-<id>`): the reusable token a provider returned for a card an
 * approved charge tokenized, sealed with AES-256-GCM and bound to the card id, tenant, mode, provider and
 * environment (src/commands/credit-card/card-token.ts), so it opens nowhere else. Integrators see only
 * Calebe's own id (`card_…`) and the masked card; the token never leaves the gateway, and the number and
 * security code never reach it. Saved once, never changed: a card charged again is the same card.
 */

const savedData = z.strictObject({
  card_id: z.string().startsWith('card_'),
  tenant_id: z.string().startsWith('ten_'),
  livemode: z.boolean(),
  /** null for a test-mode card, which only the simulator ever sees (SPEC 5.2). */
  provider_id: z.string().startsWith('prv_').nullable(),
  environment: z.enum(['sandbox', 'production']),
  /**
   * The marketplace subaccount link whose token made the provider's token (SPEC 2.8), null when none; absent
   * from cards kept before the field (issue 28): not known.
   */
  subaccount_id: z.string().startsWith('sac_').nullable().optional(),
  brand: maskedCard.shape.brand,
  last_four: maskedCard.shape.last_four,
  holder: maskedCard.shape.holder,
  expiration: maskedCard.shape.expiration,
  /** The provider's token, sealed (`v1.<iv>.<ciphertext>.<tag>`): never the token itself. */
  token_sealed: z.string().regex(/^v1\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/),
  /** The charge whose approval kept it. */
  transaction_id: z.string().startsWith('txn_'),
});
export type CardSavedData = z.infer<typeof savedData>;
export type CardState = { readonly status: 'none' } | ({ readonly status: 'saved' } & CardSavedData);

export const cardEvents = [
  defineEvent({
    type: 'Card.Saved',
    audit: {
      action: 'card.saved',
      when: 'an approved card charge kept its card (token sealed; never the number)',
    },
    schema: savedData,
  }),
];

export type CardEvent = DomainEvent<'Card.Saved', CardSavedData>;

export interface SaveCard {
  readonly kind: 'save';
  readonly card: CardSavedData;
}
export type CardCommand = SaveCard;

export const card: Decider<CardCommand, CardEvent, CardState> = {
  initialState: { status: 'none' },
  evolve(_state, event) {
    return { status: 'saved', ...event.data };
  },
  decide(command, state) {
    if (state.status === 'saved') {
      return new DomainError('conflict', 'This card is already saved.', { card_id: state.card_id });
    }
    const parsed = savedData.safeParse(command.card);
    if (!parsed.success) {
      return new DomainError('validation_error', 'The card to save is not valid.', {
        param: parsed.error.issues[0]?.path.join('.') ?? 'card',
      });
    }
    return [{ type: 'Card.Saved', data: parsed.data }];
  },
};
