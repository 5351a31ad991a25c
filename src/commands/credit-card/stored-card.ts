import { type CardSavedData, card } from '../../aggregates/card.ts';
import type { CommandDeps } from '../command-handler.ts';
import { foldStream } from '../fold-stream.ts';

/** The stream of a stored card: `card-<card_id>`. */
export const cardStream = (cardId: string) => `card-${cardId}`;

/**
 * The stored card `cardId` when the key's tenant and mode own it; null otherwise (one answer for a card that
 * does not exist and one of another tenant or mode, so an id is no oracle). Read from its stream.
 */
export async function ownedCard(
  deps: Pick<CommandDeps, 'store' | 'registry'>,
  cardId: string,
  owner: { readonly tenantId: string; readonly livemode: boolean },
): Promise<CardSavedData | null> {
  const state = await foldStream(deps, card, cardStream(cardId));
  if (state.status !== 'saved') return null;
  if (state.tenant_id !== owner.tenantId || state.livemode !== owner.livemode) return null;
  const { status: _, ...saved } = state;
  return saved;
}
