import assert from 'node:assert/strict';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, test } from 'vitest';
import { DomainError, fold } from '../../src/aggregates/decider.ts';
import {
  type TransactionCommand,
  type TransactionEvent,
  transaction,
} from '../../src/aggregates/transaction.ts';
import { type CommandDeps, handleCommand } from '../../src/commands/command-handler.ts';
import { createEventRegistry, inlineProjections } from '../../src/commands/index.ts';
import { PostgresEventStore } from '../../src/events/postgres-event-store.ts';
import { newId } from '../../src/ids.ts';
import { createTestDatabase, type TestDatabase } from '../support/databases.ts';
import { chargeKind, commandOfStep, randomStep, reserveCommand } from '../support/transactions.ts';

/**
 * Issue 13 item 9: the status each event leaves (SPEC 3.1) is written once and read by the decider's
 * `evolve`, the transactions read model and the webhook outbox (SPEC 6 `transaction.updated` carries the new
 * status). Over random command histories the three agree: the folded status equals the read model's status
 * equals the outbox's fold and the status of the charge's last webhook message.
 */
const metadata = { actor: 'system:test', request_id: 'req_status_agreement' };

describe('one event-to-status mapping (SPEC 3.1, 6; issue 13 item 9)', () => {
  let t: TestDatabase;
  let store: PostgresEventStore;
  let deps: CommandDeps;
  let clock = new Date('2026-03-01T12:00:00.000Z').getTime();

  beforeAll(async () => {
    t = await createTestDatabase();
    store = new PostgresEventStore(t.db, inlineProjections);
    deps = { store, registry: createEventRegistry(), now: () => new Date(clock) };
  });
  afterAll(() => t.drop());

  async function folded(id: string) {
    const events = (await store.read(`transaction-${id}`)).map((r) => deps.registry.decode(r));
    return fold(transaction, events as TransactionEvent[]).status;
  }

  async function run(id: string, command: TransactionCommand) {
    try {
      await handleCommand(deps, transaction, `transaction-${id}`, command, { metadata });
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
    }
  }

  test('property: folded status = read model status = outbox status, after random histories', async () => {
    const charge = fc.record({ kind: chargeKind, steps: fc.array(randomStep, { maxLength: 14 }) });
    await fc.assert(
      fc.asyncProperty(charge, async (c) => {
        const id = newId('txn');
        // A callback_url gives every status change a destination, so each one leaves a message.
        await run(id, reserveCommand(id, c.kind, { callbackUrl: 'https://shop.example.com/hook' }));
        for (const step of c.steps) {
          clock += step.advanceSeconds * 1000;
          await run(id, commandOfStep(step, id, c.kind, await folded(id)));
        }
        const status = await folded(id);
        const row = await t.db
          .selectFrom('transactions')
          .select('status')
          .where('id', '=', id)
          .executeTakeFirstOrThrow();
        const outboxState = await t.db
          .selectFrom('webhook_charge_states')
          .select('status')
          .where('transaction_id', '=', id)
          .executeTakeFirstOrThrow();
        const lastMessage = await t.db
          .selectFrom('webhook_messages')
          .select(['status', 'previous_status'])
          .where('transaction_id', '=', id)
          .orderBy('sequence', 'desc')
          .limit(1)
          .executeTakeFirstOrThrow();
        assert.equal(row.status, status);
        assert.equal(outboxState.status, status);
        assert.equal(lastMessage.status, status);
        assert.notEqual(lastMessage.previous_status, status);
      }),
      { numRuns: 40, seed: 913 },
    );
  });
});
