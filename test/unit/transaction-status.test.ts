import assert from 'node:assert/strict';
import { describe, test } from 'vitest';
import {
  STATUS_AFTER,
  TRANSACTION_STATUSES,
  transactionTransitions,
} from '../../src/aggregates/transaction.ts';

/**
 * Issue 13 item 9: the decider's state table (SPEC 3.1, 4.6-4.8) names, in every cell that emits, the status
 * the charge moves to; the one event-to-status mapping must say the same, or the read models (which use the
 * mapping) would show another status than the decider's fold.
 */
describe('event-to-status mapping against the state table (SPEC 3.1)', () => {
  test('every emitting cell moves to the status the mapping gives (or stays when it gives none)', () => {
    let cells = 0;
    for (const [from, row] of Object.entries(transactionTransitions)) {
      for (const [kind, move] of Object.entries(row)) {
        if (!('emits' in move)) continue;
        cells++;
        const expected = STATUS_AFTER[move.emits] ?? from;
        assert.equal(move.to, expected, `${from} x ${kind} emits ${move.emits}`);
      }
    }
    assert.ok(cells > 20);
  });

  test('SPEC 3.1: the status events lead to the seven statuses, the rest leave the status as it was', () => {
    assert.deepEqual(STATUS_AFTER['Transaction.Reserved'], 'processing');
    assert.deepEqual(STATUS_AFTER['Transaction.Paid'], 'paid');
    assert.deepEqual(STATUS_AFTER['Transaction.Refunded'], 'refunded');
    assert.deepEqual(STATUS_AFTER['Transaction.DueDateChanged'], null);
    assert.deepEqual(STATUS_AFTER['Transaction.RefundUnconfirmed'], null);
    const reached = new Set(Object.values(STATUS_AFTER).filter((s) => s !== null));
    assert.deepEqual([...reached].sort(), [...TRANSACTION_STATUSES].sort());
  });
});
