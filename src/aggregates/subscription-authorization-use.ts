import { z } from 'zod';
import { defineEvent, type EventOf } from '../events/event-registry.ts';

/**
 * SPEC 4.10: one Pix Automatic authorization serves one subscription (`409 automatic_authorization_in_use`).
 * The use is a reservation stream (`pix_automatic_authorization_use-<authorization_id>`, appended with
 * `no_stream` before the subscription is created, DESIGN.md "Uniqueness uses reservation streams"). It names
 * the idempotency key it was claimed under, so a retry of the same request (after a crash between the two
 * appends) finds its own claim and completes the same subscription.
 */
const claimedData = z.strictObject({
  authorization_id: z.string().startsWith('pxa_'),
  subscription_id: z.string().startsWith('sub_'),
  tenant_id: z.string().startsWith('ten_'),
  livemode: z.boolean(),
  idempotency_key: z.string(),
});
export type AuthorizationUseClaimedData = z.infer<typeof claimedData>;

export const authorizationUseEvents = [
  defineEvent({
    type: 'Subscription.AuthorizationClaimed',
    audit: {
      action: 'subscription.authorization_claimed',
      when: 'a Pix Automatic authorization was taken by the subscription about to be created (one per authorization)',
    },
    schema: claimedData,
  }),
];

export type AuthorizationUseEvent = EventOf<(typeof authorizationUseEvents)[number]>;

export const authorizationUseStream = (authorizationId: string) =>
  `pix_automatic_authorization_use-${authorizationId}`;
