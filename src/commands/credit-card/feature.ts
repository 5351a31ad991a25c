import { cardEvents } from '../../aggregates/card.ts';
import type { Feature } from '../feature.ts';
import { createRoute } from './create/route.ts';

/**
 * Card charges (SPEC 4.9; issue 25): `POST /v1/credit-card` and the stored cards it keeps. A card charge is a
 * transaction (its reads, refresh and refund are the transactions feature's, with `credit_card:write`); this
 * feature adds the creation and the `card-<id>` streams.
 */
export const creditCardFeature: Feature = {
  name: 'credit-card',
  tag: 'Charges',
  events: cardEvents,
  projections: {},
  routes: [createRoute],
};
