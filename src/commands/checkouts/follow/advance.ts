import { type CheckoutCommand, type CheckoutState, checkout } from '../../../aggregates/checkout.ts';
import type { EventMetadata } from '../../../events/event-store.ts';
import { handleCommand } from '../../command-handler.ts';
import type { AppContext } from '../../context.ts';
import { foldTransaction } from '../../transactions/view.ts';
import { checkoutStream, type FoldedCheckout, foldCheckout } from '../record.ts';

/** What a charge's status (SPEC 3.1) tells its checkout; undefined while it may still be paid. */
export function attemptCommand(
  transactionId: string,
  status: string,
): Extract<CheckoutCommand, { kind: 'attempt_paid' | 'attempt_failed' }> | undefined {
  // A refunded charge was paid first: it counts as the payment it was.
  if (status === 'paid' || status === 'refunded') return { kind: 'attempt_paid', transactionId };
  if (status === 'failed' || status === 'expired')
    return { kind: 'attempt_failed', transactionId, outcome: status };
  return undefined;
}

/**
 * Moves a checkout along its charges and its deadline (docs/decisions.md "Hosted checkout (issue 25)"): each
 * charge still pending on the checkout is folded from its own stream (never the read model, which may trail)
 * and its outcome reported (paid first, so a payment that raced a failure completes), then the deadline. Run
 * by the follower job and by the payer page's reads, so the payer sees a payment at once; both may run
 * together: every append checks the stream's version and re-decides, and every move repeats as a no-op.
 */
export async function advanceCheckout(
  ctx: Pick<AppContext, 'store' | 'events'>,
  checkoutId: string,
  now: Date,
  metadata: EventMetadata,
  /**
   * How the checkout is first read: foldCheckout, or the payer page's read that brings the tenant's name in
   * the same statement (src/commands/checkouts/page-read.ts); any of them folds the stream itself.
   */
  read: (checkoutId: string) => Promise<FoldedCheckout | undefined> = (id) => foldCheckout(ctx, id),
): Promise<FoldedCheckout | undefined> {
  const before = await read(checkoutId);
  if (!before) return undefined;
  const commands: CheckoutCommand[] = [];
  for (const attempt of before.state.attempts) {
    if (attempt.outcome !== 'pending') continue;
    const charge = await foldTransaction(ctx, attempt.transactionId);
    const command = charge ? attemptCommand(attempt.transactionId, charge.row.status) : undefined;
    if (command) commands.push(command);
  }
  commands.sort((a, b) => (a.kind === b.kind ? 0 : a.kind === 'attempt_paid' ? -1 : 1));
  commands.push({ kind: 'expire' });
  const deps = { store: ctx.store, registry: ctx.events, now: () => now };
  let appended = false;
  // Each decision starts from the state already folded (a page read costs no second read of the stream); a
  // concurrent append fails the version check and is re-decided from the stream.
  let known: { state: CheckoutState; version: number } = { state: before.state, version: before.version };
  for (const command of commands) {
    const r = await handleCommand(deps, checkout, checkoutStream(checkoutId), command, {
      metadata,
      retryOnConflict: true,
      from: known,
    });
    known = { state: r.state, version: r.version };
    appended ||= r.events.length > 0;
  }
  return appended ? foldCheckout(ctx, checkoutId) : before;
}
