import assert from 'node:assert/strict';
import { ulid } from 'ulid';
import { describe, test } from 'vitest';
import {
  type CardData,
  type CardsCapability,
  type PortCardCharge,
  REDACTED,
} from '../../../src/providers/port.ts';
import { portCustomer } from '../emulator-control.ts';
import {
  assertSanitized,
  type ContractHarness,
  type ContractSubject,
  type RemoteHarness,
} from './harness.ts';

/**
 * The `cards` capability's contract (issue 25; SPEC 2.2, 2.3, 3.1, 4.8, 4.9, 8): what every adapter that
 * charges cards must do (test/integration/provider-contract-cards.test.ts runs it on the simulator and on
 * Safe2Pay over the emulator). Tokenize, then charge by the token: authorized is `paid` and reads back paid
 * by card; declined is refused with a numeric return code; no answer is uncertain, never charged again; a
 * paid card is refunded integrally. Card data and tokens never leave through an outcome, and the kept body
 * (SPEC 2.3) has neither. Wire details stay in test/integration/safe2pay-cards.test.ts.
 */

const SECURITY_CODE = '737';

function cardData(number: string): CardData {
  return { holder: 'MARIA SILVA', number, expiration: '12/2031', securityCode: SECURITY_CODE };
}

export function cardCharge(amount = 12_590, installments = 1): PortCardCharge {
  return {
    transactionId: `txn_${ulid()}`,
    amount,
    installments,
    description: 'Pedido 42',
    customer: portCustomer,
    callbackUrl: null,
  };
}

export function cardsContract(subject: ContractSubject): void {
  const harness = (): ContractHarness => subject.harness();
  /** Only registered for a remote provider (the simulator never refuses a test card's charge as a provider). */
  const remote = (): RemoteHarness => {
    if (subject.simulated) throw new Error('a remote-only case ran against the simulator');
    return subject.harness();
  };
  const cards = (h: ContractHarness): CardsCapability => {
    assert.ok(h.adapter.cards, `${subject.name} has the cards capability`);
    return h.adapter.cards;
  };
  /** Every outcome but an issued token (the token itself), and every kept body: no card data nor token in any. */
  const seen: unknown[] = [];
  const secrets = new Set<string>();

  async function tokenOf(h: ContractHarness, number: string): Promise<string> {
    secrets.add(number);
    const outcome = await cards(h).tokenize(cardData(number), h.context());
    assert.equal(outcome.kind, 'issued', JSON.stringify(outcome));
    if (outcome.kind !== 'issued') throw new Error('unreachable');
    assert.match(outcome.token, /\S/);
    assert.ok(!outcome.token.includes(number), 'the token is not the card number');
    secrets.add(outcome.token);
    return outcome.token;
  }

  async function charged(h: ContractHarness, number: string, charge = cardCharge(), signal?: AbortSignal) {
    const token = await tokenOf(h, number);
    const context = h.context(signal);
    const body = cards(h).buildChargeRequest(charge, context);
    seen.push(body);
    if (body !== null) {
      const po = body.PaymentObject as Record<string, unknown>;
      assert.equal(po.Token, REDACTED);
    }
    const outcome = await cards(h).charge(charge, body, token, context, new Date());
    seen.push(outcome);
    return { charge, outcome };
  }

  describe(`cards contract: ${subject.name}`, () => {
    test('authorized: issued paid with only the provider reference; it reads back paid by card (SPEC 2.2, 3.1, 4.9)', async () => {
      const h = harness();
      const { charge, outcome } = await charged(h, h.testCards.approved);
      assert.equal(outcome.kind, 'issued', JSON.stringify(outcome));
      if (outcome.kind !== 'issued') return;
      assert.equal(outcome.status, 'paid');
      assert.match(outcome.providerReference, /\S/);
      assert.equal(outcome.artifacts.provider_reference, outcome.providerReference);
      for (const field of ['pix_copy_paste', 'pix_qr_code', 'boleto_url', 'boleto_digitable_line'] as const) {
        assert.equal(outcome.artifacts[field], null, field);
      }
      const target = {
        transactionId: charge.transactionId,
        method: 'credit_card' as const,
        amount: charge.amount,
        providerReference: outcome.providerReference,
        boletoDueDate: null,
      };
      const read = await h.adapter.charges.query(target, h.context());
      seen.push(read);
      assert.equal(read.kind, 'issued', JSON.stringify(read));
      if (read.kind !== 'issued') return;
      assert.equal(read.charge.status, 'paid');
      assert.equal(read.charge.paidWith, 'credit_card');
      assert.equal(read.charge.amount, charge.amount);
      assert.equal(read.charge.reference, charge.transactionId);
      const byReference = await h.adapter.charges.queryByReference(charge.transactionId, h.context());
      seen.push(byReference);
      assert.equal(byReference.kind === 'issued' && byReference.charges.length, 1);
    });

    test('declined: refused with the provider reference and return code "05" as digits (SPEC 2.2); reads failed', async () => {
      const h = harness();
      const { charge, outcome } = await charged(h, h.testCards.declined);
      assert.equal(outcome.kind, 'refused', JSON.stringify(outcome));
      if (outcome.kind !== 'refused') return;
      assert.equal(outcome.reason, 'status_refused');
      assert.equal(outcome.diagnostics.provider_error_code, '05');
      assert.match(outcome.diagnostics.provider_error_message ?? '', /\S/);
      assertSanitized(outcome.diagnostics);
      assert.match(outcome.providerReference ?? '', /\S/);
      const read = await h.adapter.charges.query(
        {
          transactionId: charge.transactionId,
          method: 'credit_card',
          amount: charge.amount,
          providerReference: outcome.providerReference ?? '',
          boletoDueDate: null,
        },
        h.context(),
      );
      seen.push(read);
      assert.equal(read.kind === 'issued' && read.charge.status, 'failed');
    });

    test('no answer: uncertain, with no provider reference to trust (SPEC 3.1 unknown)', async () => {
      const h = harness();
      const { outcome } = await charged(h, h.testCards.uncertain, cardCharge(), AbortSignal.timeout(1000));
      assert.equal(outcome.kind, 'uncertain', JSON.stringify(outcome));
      if (outcome.kind !== 'uncertain') return;
      assert.equal(outcome.providerReference, null);
      assertSanitized(outcome.diagnostics);
    });

    test('a paid card is refunded integrally: succeeded, then it reads refunded (SPEC 4.8)', async () => {
      const h = harness();
      const { charge, outcome } = await charged(h, h.testCards.approved);
      if (outcome.kind !== 'issued') throw new Error(JSON.stringify(outcome));
      const refund = await h.adapter.charges.refund(
        {
          transactionId: charge.transactionId,
          method: 'credit_card',
          providerReference: outcome.providerReference,
          paidWith: 'credit_card',
          bankAccount: null,
        },
        h.context(),
      );
      seen.push(refund);
      assert.deepEqual(refund, { kind: 'issued', refundStatus: 'succeeded' });
      const read = await h.adapter.charges.query(
        {
          transactionId: charge.transactionId,
          method: 'credit_card',
          amount: charge.amount,
          providerReference: outcome.providerReference,
          boletoDueDate: null,
        },
        h.context(),
      );
      seen.push(read);
      assert.equal(read.kind === 'issued' && read.charge.status, 'refunded');
    });

    if (!subject.simulated) {
      test('credentials the provider does not accept: tokenize refused, nothing tokenized', async () => {
        const h = remote();
        const outcome = await cards(h).tokenize(cardData(h.testCards.approved), h.refusedContext());
        seen.push(outcome);
        assert.equal(outcome.kind === 'refused' && outcome.reason, 'credentials_refused');
      });

      test('a provider refusal of the charge is refused with its numeric code; a server error is uncertain', async () => {
        const h = remote();
        const refusedCharge = cardCharge();
        await h.refuseNext('create', refusedCharge.transactionId, '1001');
        const refused = (await charged(h, h.testCards.approved, refusedCharge)).outcome;
        assert.equal(refused.kind, 'refused');
        if (refused.kind === 'refused') assert.equal(refused.diagnostics.provider_error_code, '1001');
        const failedCharge = cardCharge();
        await h.failNext('create', failedCharge.transactionId);
        const failed = (await charged(h, h.testCards.approved, failedCharge)).outcome;
        assert.equal(failed.kind, 'uncertain');
      });

      test('a lost answer is uncertain; the reference finds the card charged, paid (recovery, never resent)', async () => {
        const h = remote();
        const charge = cardCharge();
        await h.loseAnswerOfNext('create', charge.transactionId);
        const { outcome } = await charged(h, h.testCards.approved, charge);
        assert.equal(outcome.kind, 'uncertain');
        const found = await h.adapter.charges.queryByReference(charge.transactionId, h.context());
        seen.push(found);
        assert.equal(found.kind, 'issued');
        if (found.kind !== 'issued') return;
        assert.deepEqual(
          found.charges.map((c) => [c.status, c.paidWith, c.amount]),
          [['paid', 'credit_card', charge.amount]],
        );
      });
    }

    test('no outcome and no kept body holds a card number, the security code or a token (SPEC 8)', () => {
      assert.ok(seen.length >= 10, `${seen.length} values seen`);
      const text = JSON.stringify(seen);
      for (const secret of secrets)
        assert.ok(!text.includes(secret), 'a card number or token left the adapter');
      assert.doesNotMatch(text, new RegExp(`"${SECURITY_CODE}"`));
    });
  });
}
