import fc from 'fast-check';
import { DomainError, fold } from '../../src/aggregates/decider.ts';
import {
  type TransactionCommand,
  type TransactionEvent,
  transaction,
} from '../../src/aggregates/transaction.ts';
import { type CommandDeps, handleCommand } from '../../src/commands/command-handler.ts';
import type { EventMetadata } from '../../src/events/event-store.ts';
import { newId } from '../../src/ids.ts';
import { chargeKind, commandOfStep, randomStep, reserveCommand } from './transactions.ts';

/**
 * Charges with random, interleaved command histories (test/support/transactions.ts generators), written
 * through the command handler as the gateway would: a realistic mix of states, refusals and no-ops.
 * Deterministic for a given seed. Rejected commands (DomainError) are part of the mix and append nothing.
 */
export async function populateTransactions(
  deps: Pick<CommandDeps, 'store' | 'registry'>,
  opts: { count: number; seed: number; tenantId?: string; maxSteps?: number; metadata?: EventMetadata },
): Promise<string[]> {
  const tenantId = opts.tenantId ?? 'ten_acme';
  const metadata = opts.metadata ?? { actor: 'system:test', request_id: 'req_history' };
  const charges = fc.sample(
    fc.record({ kind: chargeKind, steps: fc.array(randomStep, { maxLength: opts.maxSteps ?? 10 }) }),
    { numRuns: opts.count, seed: opts.seed },
  );
  let clock = new Date('2026-03-01T12:00:00.000Z').getTime();
  const commandDeps: CommandDeps = { ...deps, now: () => new Date(clock) };
  const ids = charges.map(() => newId('txn'));
  const longest = Math.max(0, ...charges.map((c) => c.steps.length)) + 1;
  for (let i = 0; i < longest; i++) {
    for (const [n, c] of charges.entries()) {
      const id = ids[n];
      if (!id) continue;
      const stream = `transaction-${id}`;
      let command: TransactionCommand;
      if (i === 0) {
        const base = reserveCommand(id, c.kind);
        command = { ...base, tenantId, request: { ...base.request, tenant_id: tenantId } };
      } else {
        const step = c.steps[i - 1];
        if (!step) continue;
        clock += step.advanceSeconds * 1000;
        const current = fold(
          transaction,
          (await deps.store.read(stream)).map((r) => deps.registry.decode(r) as TransactionEvent),
        ).status;
        command = commandOfStep(step, id, c.kind, current);
      }
      try {
        await handleCommand(commandDeps, transaction, stream, command, { metadata });
      } catch (error) {
        if (!(error instanceof DomainError)) throw error;
      }
    }
  }
  return ids;
}
