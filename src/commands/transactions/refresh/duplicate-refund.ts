import { type TransactionFacts, transaction } from '../../../aggregates/transaction.ts';
import type { EventMetadata } from '../../../events/event-store.ts';
import type { RemoteCharge } from '../../../providers/port.ts';
import { type CommandDeps, handleCommand } from '../../command-handler.ts';
import type { ResolvedExternal } from '../../provider-adapter.ts';
import { guarded } from '../shared/provider-changes.ts';
import { transactionStream } from '../shared/stream.ts';

/**
 * The automatic refund of the Pix of a boleto paid twice (SPEC 2.2: "Double payment gives `boleto` and the Pix
 * is refunded"; issue 13 item 4), run by a refresh (or the reconciler) after it read the charge.
 *
 * Exactly once, whatever the concurrency and the failures:
 * - The call is preceded by a committed claim (`Transaction.DuplicateRefundAttempted`, conditioned on the
 *   attempt count read): of two concurrent refreshes only the one whose append wins calls the provider.
 * - Its answer is recorded: confirmed (`DuplicateRefunded`), refused (`DuplicateRefundRefused`, not retried
 *   automatically), or nothing when uncertain, which leaves the claim open.
 * - An open claim is never answered by calling again blindly: the next pass first reads the charge. A read
 *   that no longer shows the Pix held settles it (`source: provider`); one that still shows it may claim the
 *   next attempt, but only once the earlier call has surely ended (older than the provider call timeout).
 */

export interface DuplicateRefundContext {
  deps: CommandDeps;
  external: ResolvedExternal;
  /** The provider call timeout (PROVIDER_TIMEOUT_MS): an open claim younger than this is still in flight. */
  retryAfterMs: number;
}

export type DuplicateRefundResult = 'none' | 'succeeded' | 'refused' | 'uncertain' | 'in_flight';

export async function settleDuplicateRefund(
  ctx: DuplicateRefundContext,
  state: TransactionFacts,
  remote: RemoteCharge,
  metadata: EventMetadata,
): Promise<DuplicateRefundResult> {
  const owed = state.duplicateRefund;
  if (state.status !== 'paid' || owed === null) return 'none';
  if (owed.status === 'succeeded' || owed.status === 'refused') return 'none';
  const id = state.reserved.transaction_id;
  const stream = transactionStream(id);
  const options = { metadata, retryOnConflict: true } as const;
  if (!remote.duplicatePayment) {
    // The read no longer shows the Pix held: the earlier call (or the provider itself) returned it.
    await handleCommand(
      ctx.deps,
      transaction,
      stream,
      { kind: 'record_duplicate_refund', attempt: owed.attempts, source: 'provider' },
      options,
    );
    return 'succeeded';
  }
  const claim = await handleCommand(
    ctx.deps,
    transaction,
    stream,
    { kind: 'claim_duplicate_refund', observedAttempts: owed.attempts, retryAfterMs: ctx.retryAfterMs },
    options,
  );
  const claimed = claim.events.find((e) => e.type === 'Transaction.DuplicateRefundAttempted');
  if (claimed?.type !== 'Transaction.DuplicateRefundAttempted') return 'in_flight';
  const attempt = claimed.data.attempt;
  // Wire doc 2.11: a boleto's Pix payment is returned with the Pix refund on the boleto's transaction id.
  const outcome = await guarded(() =>
    ctx.external.adapter.charges.refund(
      {
        transactionId: id,
        method: 'boleto',
        providerReference: remote.providerReference,
        paidWith: 'pix',
        bankAccount: null,
      },
      ctx.external.context(),
    ),
  );
  if (outcome.kind === 'uncertain') return 'uncertain';
  if (outcome.kind === 'issued') {
    await handleCommand(
      ctx.deps,
      transaction,
      stream,
      { kind: 'record_duplicate_refund', attempt, source: 'refund' },
      options,
    );
    return 'succeeded';
  }
  await handleCommand(
    ctx.deps,
    transaction,
    stream,
    { kind: 'record_duplicate_refund_refused', attempt, diagnostics: outcome.diagnostics },
    options,
  );
  return 'refused';
}
