import assert from 'node:assert/strict';
import { describe, test } from 'vitest';
import { createSimulatorAdapter } from '../../src/providers/simulator.ts';
import { payoutRequest } from '../support/provider-contract/payouts.ts';

// Issue 22 item 4.2 for test keys and simulator records: test mode mirrors live. A payout is accepted under
// an id derived from its identification, reported transferred from the first poll, and never uncertain.

const ctx = { environment: 'sandbox' as const, credentials: {}, signal: AbortSignal.timeout(60_000) };

describe('simulator payouts', () => {
  test('accepted under a deterministic id; the same identification names the same transfer', async () => {
    const adapter = createSimulatorAdapter().payouts;
    const first = await adapter.payout(payoutRequest(undefined, 'refund:txn_1'), ctx);
    assert.deepEqual(first, { kind: 'issued', transferId: 'sim_tr_refund:txn_1' });
    assert.deepEqual(await adapter.payout(payoutRequest(undefined, 'refund:txn_1'), ctx), first);
    assert.deepEqual(await adapter.findPayout('refund:txn_1', ctx), {
      kind: 'issued',
      transferIds: ['sim_tr_refund:txn_1'],
    });
    assert.deepEqual(await adapter.findPayout('refund:txn_2', ctx), { kind: 'issued', transferIds: [] });
  });

  test('the first poll reports transferred with a marker confirmation, whichever process asks', async () => {
    const adapter = createSimulatorAdapter().payouts;
    const { transferId } = (await adapter.payout(payoutRequest(undefined, 'refund:txn_3'), ctx)) as {
      transferId: string;
    };
    const target = { transferId, identification: 'refund:txn_3', amount: 1999 };
    const expected = {
      kind: 'issued',
      state: 'transferred',
      confirmation: 'SIMULADOR-TRANSFERENCIA:sim_tr_refund:txn_3',
      returnReason: null,
    };
    assert.deepEqual(await adapter.queryPayout(target, ctx), expected);
    // Another process's simulator (an empty memory) answers the same.
    assert.deepEqual(await createSimulatorAdapter().payouts.queryPayout(target, ctx), expected);
  });

  test('never uncertain; an amount that is not positive centavos is refused before anything', async () => {
    const adapter = createSimulatorAdapter().payouts;
    for (const amount of [0, -5, 19.5]) {
      const outcome = await adapter.payout(payoutRequest(amount, 'refund:txn_4'), ctx);
      assert.equal(outcome.kind, 'refused');
    }
    assert.deepEqual(await adapter.findPayout('refund:txn_4', ctx), { kind: 'issued', transferIds: [] });
  });
});
