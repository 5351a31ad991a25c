import assert from 'node:assert/strict';
import { ulid } from 'ulid';
import { describe, test } from 'vitest';
import {
  type PayoutRequest,
  type PayoutsCapability,
  payoutBankAccount,
} from '../../../src/providers/port.ts';
import {
  assertSanitized,
  type ContractHarness,
  type ContractSubject,
  type RemoteHarness,
  saoPauloDate,
} from './harness.ts';

/**
 * The `payouts` capability's contract (issue 22 item 4.2, issue 24 item 5): what every adapter that can pay a
 * boleto refund out to the payer's account must do (test/integration/provider-contract-payouts.test.ts runs
 * it on the simulator and on Safe2Pay over the emulator). The provider has no idempotency, so the
 * identification is what finds a transfer again; the bank account never leaves through an outcome. Wire
 * details (bodies, hosts, pages) stay in test/integration/safe2pay-payouts.test.ts.
 */

/** The account number of {@link payoutRequest}'s account, which no outcome may carry. */
const ACCOUNT_NUMBER = '98765432';

export function payoutRequest(amount = 1999, identification = `refund:txn_${ulid()}`): PayoutRequest {
  return {
    transactionId: identification.replace('refund:', ''),
    identification,
    amount,
    receiverName: 'Maria Silva',
    receiverDocument: '12345678909',
    bankAccount: payoutBankAccount({
      bank_code: '341',
      branch: '0937',
      account: `${ACCOUNT_NUMBER}-1`,
      account_type: 'checking',
    }),
    compensationDate: saoPauloDate(0),
  };
}

export function payoutsContract(subject: ContractSubject): void {
  const harness = (): ContractHarness => subject.harness();
  /** Only registered for a remote provider (the simulator never refuses a valid payout nor fails). */
  const remote = (): RemoteHarness => {
    if (subject.simulated) throw new Error('a remote-only case ran against the simulator');
    return subject.harness();
  };
  const payouts = (h: ContractHarness): PayoutsCapability => {
    assert.ok(h.adapter.payouts, `${subject.name} has the payouts capability`);
    return h.adapter.payouts;
  };
  /** Every outcome a case saw, to show the bank account never leaves through one. */
  const outcomes: unknown[] = [];
  const seen = <T>(outcome: T): T => {
    outcomes.push(outcome);
    return outcome;
  };

  async function issuedPayout(h: ContractHarness, input: PayoutRequest): Promise<string> {
    const outcome = seen(await payouts(h).payout(input, h.context()));
    assert.equal(outcome.kind, 'issued', JSON.stringify(outcome));
    if (outcome.kind !== 'issued') throw new Error('unreachable');
    assert.match(outcome.transferId, /\S/);
    return outcome.transferId;
  }

  describe(`payouts contract: ${subject.name}`, () => {
    test('issued under a transfer id that its identification finds again, and no other identification does', async () => {
      const h = harness();
      const input = payoutRequest();
      const transferId = await issuedPayout(h, input);
      const found = seen(await payouts(h).findPayout(input.identification, h.context()));
      assert.deepEqual(found, { kind: 'issued', transferIds: [transferId] });
      const none = seen(await payouts(h).findPayout(`refund:txn_${ulid()}`, h.context()));
      assert.deepEqual(none, { kind: 'issued', transferIds: [] });
    });

    test('a poll reads the transfer; once the bank confirms, transferred with the confirmation as evidence', async () => {
      const h = harness();
      const input = payoutRequest(1999);
      const transferId = await issuedPayout(h, input);
      const target = { transferId, identification: input.identification, amount: 1999 };
      const before = seen(await payouts(h).queryPayout(target, h.context()));
      assert.equal(before.kind, 'issued', JSON.stringify(before));
      if (before.kind !== 'issued') return;
      assert.ok(before.state === 'processing' || before.state === 'transferred', before.state);
      await h.confirmTransfer(transferId, 'E00000000202611270315abcdef12345');
      const after = seen(await payouts(h).queryPayout(target, h.context()));
      assert.equal(after.kind, 'issued', JSON.stringify(after));
      if (after.kind !== 'issued') return;
      assert.equal(after.state, 'transferred');
      assert.match(after.confirmation ?? '', /\S/);
      assert.equal(after.returnReason, null);
    });

    test('an amount that is not a positive integer of centavos is refused before anything is sent', async () => {
      const h = harness();
      for (const amount of [0, -5, 19.5]) {
        const input = payoutRequest(amount);
        const outcome = seen(await payouts(h).payout(input, h.context()));
        assert.equal(outcome.kind === 'refused' && outcome.reason, 'not_supported', String(amount));
        const found = await payouts(h).findPayout(input.identification, h.context());
        assert.deepEqual(found, { kind: 'issued', transferIds: [] });
      }
    });

    if (!subject.simulated) {
      test('a business refusal is refused with sanitized diagnostics, and nothing was made', async () => {
        const h = remote();
        const input = payoutRequest();
        await h.refuseNext('transfer_create', input.identification, '4321');
        const outcome = seen(await payouts(h).payout(input, h.context()));
        assert.equal(outcome.kind, 'refused');
        if (outcome.kind !== 'refused') return;
        assert.equal(outcome.diagnostics.provider_error_code, '4321');
        assert.deepEqual(await payouts(h).findPayout(input.identification, h.context()), {
          kind: 'issued',
          transferIds: [],
        });
      });

      test('refused credentials are refused', async () => {
        const h = remote();
        const outcome = seen(await payouts(h).payout(payoutRequest(), h.refusedContext()));
        assert.equal(outcome.kind, 'refused');
      });

      test('a server error is uncertain; an answer lost after the work is found by its identification', async () => {
        const h = remote();
        const failed = payoutRequest();
        await h.failNext('transfer_create', failed.identification);
        const five = seen(await payouts(h).payout(failed, h.context()));
        assert.equal(five.kind, 'uncertain');
        const lost = payoutRequest();
        await h.loseAnswerOfNext('transfer_create', lost.identification);
        const reset = seen(await payouts(h).payout(lost, h.context()));
        assert.equal(reset.kind, 'uncertain');
        const found = await payouts(h).findPayout(lost.identification, h.context());
        assert.equal(found.kind === 'issued' && found.transferIds.length, 1);
      });

      test('a poll that fails is uncertain', async () => {
        const h = remote();
        const input = payoutRequest();
        const transferId = await issuedPayout(h, input);
        await h.failNext('transfer_get', input.identification);
        const target = { transferId, identification: input.identification, amount: input.amount };
        assert.equal(seen(await payouts(h).queryPayout(target, h.context())).kind, 'uncertain');
      });
    }

    test('the bank account never appears in an outcome or its diagnostics', () => {
      assert.ok(outcomes.length >= 5);
      assert.ok(!JSON.stringify(outcomes).includes(ACCOUNT_NUMBER));
      for (const o of outcomes as Array<{ diagnostics?: Parameters<typeof assertSanitized>[0] }>) {
        if (o.diagnostics) assertSanitized(o.diagnostics);
      }
    });
  });
}
