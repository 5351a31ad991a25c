import { DomainError, isDomainError } from '../../../aggregates/decider.ts';
import { subscription } from '../../../aggregates/subscription.ts';
import { saoPauloDate } from '../../../aggregates/subscription-calendar.ts';
import { cycleStream, subscriptionCycle } from '../../../aggregates/subscription-cycle.ts';
import type { EventMetadata } from '../../../events/event-store.ts';
import { handleCommand } from '../../command-handler.ts';
import type { CardCharge } from '../../credit-card/card-charge.ts';
import { foldTestClock } from '../../test-clocks/record.ts';
import { cycleIdentity, type EmitContext } from '../emit/context.ts';
import { type CardToRegister, registerCard } from '../emit/register-card.ts';
import { type FoldedSubscription, foldSubscription, subscriptionStream } from '../record.ts';
import { advanceSubscription } from '../schedule/advance.ts';

/** The card to register, from the card the creation validated (memory only). */
function toRegister(card: CardCharge): CardToRegister {
  if (card.secret.kind === 'data') return { kind: 'data', data: card.secret.data };
  if (card.secret.kind === 'stored') return { kind: 'stored', cardId: card.secret.card.card_id };
  throw new Error('a subscription is never created from another subscription’s card');
}

/** A subscription's time: its test clock's frozen time (issue 26 item 6), else the gateway's. */
async function timeOf(ctx: EmitContext, testClockId: string | null): Promise<Date> {
  if (testClockId === null) return ctx.now();
  const clock = await foldTestClock(ctx, testClockId);
  return clock ? new Date(clock.state.frozenTime) : ctx.now();
}

/**
 * What follows a new subscription (SPEC 3.3, 4.10; docs/decisions.md "Subscriptions (issue 26)"): a card
 * subscription's card is registered (tokenized and sealed to the subscription; a refusal cancels the
 * subscription, reason the refusal's code, and answers that refusal with `subscription_id`), and a card whose
 * first due date is in the future is recorded as cycle 0; then the first cycle is issued at once by the
 * scheduler's own code (`advanceSubscription`, first look), whose failures before reservation become
 * `last_error` and are retried every 15 minutes. Runs only for the request that created the subscription:
 * a replay never issues another first charge.
 */
export async function issueFirstCycle(
  base: EmitContext,
  folded: FoldedSubscription,
  card: CardCharge | null,
  metadata: EventMetadata,
): Promise<FoldedSubscription> {
  const s = folded.state.created;
  const now = await timeOf(base, s.test_clock_id);
  const ctx: EmitContext = { ...base, now: () => now };
  const deps = { store: ctx.store, registry: ctx.events, now: () => now };
  if (card) {
    const registered = await registerCard(ctx, s.subscription_id, toRegister(card), metadata).catch(
      async (error: unknown) => {
        if (!isDomainError(error)) throw error;
        await handleCommand(
          deps,
          subscription,
          subscriptionStream(s.subscription_id),
          { kind: 'cancel', reason: error.code },
          { metadata, retryOnConflict: true },
        );
        throw new DomainError(error.code, error.message, {
          ...error.details,
          subscription_id: s.subscription_id,
        });
      },
    );
    const today = saoPauloDate(now);
    if (s.first_due_date > today) {
      const stream = cycleStream(s.subscription_id, today);
      const identity = cycleIdentity({ subscription: registered.state, cycle: 0, dueDate: today });
      await handleCommand(deps, subscriptionCycle, stream, { kind: 'reserve', identity }, { metadata });
      await handleCommand(
        deps,
        subscriptionCycle,
        stream,
        { kind: 'issue', transactionId: null, checkoutId: null },
        { metadata, retryOnConflict: true },
      );
    }
  }
  await advanceSubscription(ctx, s.subscription_id, now, metadata, { first: true });
  const after = await foldSubscription(ctx, s.subscription_id);
  if (!after) throw new Error(`subscription ${s.subscription_id} missing after its first cycle`);
  return after;
}
