import type { AttentionCode, SkipCode } from '../../../aggregates/subscription-cycle.ts';
import {
  type TransactionState,
  type TransactionStatus,
  transaction,
} from '../../../aggregates/transaction.ts';
import type { EventMetadata } from '../../../events/event-store.ts';
import { foldStream } from '../../fold-stream.ts';
import type { ChargeOutcome } from '../../transactions/create/handler.ts';
import { transactionStream } from '../../transactions/shared/stream.ts';
import type { CycleToIssue, EmitContext } from './context.ts';

/** What issuing a cycle produced: its charge or Pix link, and how it ended (docs/decisions.md, issue 26). */
export type Issued =
  | { readonly kind: 'issued'; readonly transactionId: string | null; readonly checkoutId: string | null }
  | { readonly kind: 'attention'; readonly transactionId: string; readonly code: AttentionCode }
  /** Nothing was charged and nothing can be for this cycle (a Pix Automatic authorization that ended). */
  | { readonly kind: 'skipped'; readonly code: SkipCode }
  /**
   * The charge under the cycle's key is still being made by another attempt (a second worker, or one that
   * crashed before the reconciler ends it): the cycle stays pending and is looked at again.
   */
  | { readonly kind: 'in_progress' };

/** How one method issues a cycle (SPEC 4.10); the emission picks it by the subscription's method. */
export type CycleIssuer = (ctx: EmitContext, c: CycleToIssue, metadata: EventMetadata) => Promise<Issued>;

/**
 * A cycle's charge status (SPEC 3.1) as the cycle records it (SPEC 2.5, 3.4): issued unless refused
 * (`provider_rejected`) or unconfirmed (`payment_unknown`, `payment_processing`); a charge already paid,
 * expired or refunded when a replay reads it was issued.
 */
export function issuedFromCharge(transactionId: string, status: TransactionStatus): Issued {
  switch (status) {
    case 'failed':
      return { kind: 'attention', transactionId, code: 'provider_rejected' };
    case 'unknown':
      return { kind: 'attention', transactionId, code: 'payment_unknown' };
    case 'processing':
      return { kind: 'attention', transactionId, code: 'payment_processing' };
    default:
      return { kind: 'issued', transactionId, checkoutId: null };
  }
}

/**
 * What a cycle's charge request (a charge or a Pix Automatic debit, under the cycle's key) issued: its
 * recorded status, read from the stream when the outcome does not carry it.
 */
export async function issuedFromOutcome(ctx: EmitContext, outcome: ChargeOutcome): Promise<Issued> {
  const state: TransactionState =
    outcome.state ??
    (await foldStream(
      { store: ctx.store, registry: ctx.events },
      transaction,
      transactionStream(outcome.transactionId),
    ));
  // A replay that finds the charge still processing (another attempt is making it), or whose reservation is
  // not readable yet (EventStoreDB: claim, then Reserved), is in progress, not an outcome of the cycle.
  if (state.status === 'none' || (outcome.kind === 'replayed' && state.status === 'processing')) {
    return { kind: 'in_progress' };
  }
  return issuedFromCharge(outcome.transactionId, state.status);
}
