import { transaction } from '../../../aggregates/transaction.ts';
import type { EventMetadata } from '../../../events/event-store.ts';
import { type CommandDeps, handleCommand } from '../../command-handler.ts';
import { transactionStream } from '../shared/stream.ts';

/**
 * SPEC 4.7: the outcome of a simulated charge, decided by the transaction decider (`simulate_paid` /
 * `simulate_expired`; 409 simulation_not_allowed unless a pending simulated charge). No provider call.
 */
export async function simulateTransaction(
  deps: CommandDeps,
  transactionId: string,
  status: 'paid' | 'expired',
  metadata: EventMetadata,
): Promise<void> {
  await handleCommand(
    deps,
    transaction,
    transactionStream(transactionId),
    { kind: status === 'paid' ? 'simulate_paid' : 'simulate_expired' },
    // Nothing outside the stream was consulted: re-deciding after a concurrent append is safe.
    { metadata, retryOnConflict: true },
  );
}
