import assert from 'node:assert/strict';
import { describe, test } from 'vitest';
import type { DecideContext } from '../../src/aggregates/decider.ts';
import { boletoPolicy } from '../../src/aggregates/transaction/policies/boleto.ts';
import { creditCardPolicy } from '../../src/aggregates/transaction/policies/credit-card.ts';
import { pixPolicy } from '../../src/aggregates/transaction/policies/pix.ts';
import {
  CHARGE_KINDS,
  CHARGE_METHODS,
  CHARGE_POLICIES,
  policyFor,
  type TransactionEvent,
  transaction,
} from '../../src/aggregates/transaction.ts';
import { scenario } from '../support/given-when-then.ts';
import { boletoArtifacts, pixArtifacts, reserveCommand } from '../support/transactions.ts';

/**
 * Per-method policies (issue 13 item 9; DESIGN.md "Providers": a new method is a new policy). Each policy
 * is checked against the SPEC sentence it transcribes, then through the one decider, so a policy value
 * that drifts from the decider's behaviour fails here. Expected values come from SPEC.md.
 */
const T0 = new Date('2026-03-01T12:00:00.000Z');
const ctx: DecideContext = { now: T0 };
const ID = 'txn_1';

function history(kind: 'pix_live' | 'boleto_live'): TransactionEvent[] {
  const decision = transaction.decide(reserveCommand(ID, kind), transaction.initialState, ctx);
  assert.ok(Array.isArray(decision));
  const artifacts = kind === 'pix_live' ? pixArtifacts() : boletoArtifacts();
  return [
    ...decision,
    { type: 'Transaction.Issued', data: { transaction_id: ID, source: 'creation', ...artifacts } },
  ];
}

describe('every charge kind has a policy', () => {
  test('CHARGE_KINDS and CHARGE_POLICIES name the same kinds, each policy under its own kind', () => {
    assert.deepEqual(Object.keys(CHARGE_POLICIES).sort(), [...CHARGE_KINDS].sort());
    for (const [kind, policy] of Object.entries(CHARGE_POLICIES)) assert.equal(policy.kind, kind);
  });

  test('SPEC 2.2: a pix charge is created with method pix, a boleto with boleto', () => {
    assert.equal(CHARGE_POLICIES.pix.method, 'pix');
    assert.equal(CHARGE_POLICIES.boleto.method, 'boleto');
    for (const policy of Object.values(CHARGE_POLICIES)) assert.ok(CHARGE_METHODS.includes(policy.method));
  });

  test('SPEC 2.2: every stored method has its policy; a key of Object is no method', () => {
    assert.equal(policyFor('pix'), pixPolicy);
    assert.equal(policyFor('boleto'), boletoPolicy);
    assert.equal(policyFor('credit_card'), creditCardPolicy);
    assert.equal(policyFor('toString'), null);
  });
});

describe('Card policy (SPEC 1, 4.9, 5.3, 8)', () => {
  test('SPEC 4.9: captured at once, no expiry, no due date, no boleto options; paid only by the card', () => {
    assert.equal(creditCardPolicy.writeScope, 'credit_card:write');
    assert.equal(creditCardPolicy.checkFields({ expiresIn: null, boleto: null }), null);
    assert.equal(creditCardPolicy.checkFields({ expiresIn: 3600, boleto: null })?.param, 'expires_in');
    assert.equal(creditCardPolicy.deadlineExpires, false);
    assert.equal(creditCardPolicy.dueDate, false);
    assert.equal(creditCardPolicy.acceptsPayment('credit_card', false), true);
    assert.equal(creditCardPolicy.acceptsPayment('pix', false), false);
    assert.equal(creditCardPolicy.refundNeedsBankAccount('credit_card'), false);
  });

  test('SPEC 1: the external provider sandbox serves boleto only, so not cards', () => {
    assert.equal(creditCardPolicy.sandboxRefusal?.code, 'provider_card_sandbox_unsupported');
  });
});

describe('Pix policy (SPEC 1, 3.1, 4.1, 5.3, 8)', () => {
  test('SPEC 4.1/8: expires_in of 60 to 86400 seconds, no boleto options', () => {
    assert.equal(pixPolicy.expiresIn, true);
    assert.equal(pixPolicy.boletoOptions, false);
    assert.equal(pixPolicy.checkFields({ expiresIn: 60, boleto: null }), null);
    assert.equal(pixPolicy.checkFields({ expiresIn: 86_400, boleto: null }), null);
    assert.equal(pixPolicy.checkFields({ expiresIn: 59, boleto: null })?.param, 'expires_in');
    assert.equal(pixPolicy.checkFields({ expiresIn: 86_401, boleto: null })?.param, 'expires_in');
    assert.equal(pixPolicy.checkFields({ expiresIn: null, boleto: null })?.param, 'expires_in');
  });

  test('SPEC 1: the external provider has no Pix sandbox; SPEC 4.1: scope pix:write', () => {
    assert.equal(pixPolicy.sandboxRefusal?.code, 'provider_pix_sandbox_unsupported');
    assert.equal(pixPolicy.writeScope, 'pix:write');
    const sandbox = reserveCommand(ID, 'pix_live', { environment: 'sandbox' });
    scenario(transaction).given([]).when(sandbox, ctx).thenFails('provider_pix_sandbox_unsupported');
  });

  test('SPEC 3.1: expiry by deadline applies to Pix; no payment intent; paid only by Pix', () => {
    assert.equal(pixPolicy.deadlineExpires, true);
    assert.equal(pixPolicy.paymentIntent, false);
    assert.equal(pixPolicy.acceptsPayment('pix', false), true);
    assert.equal(pixPolicy.acceptsPayment('boleto', false), false);
    assert.equal(pixPolicy.acceptsPayment('pix', true), false);
    const pending = history('pix_live');
    scenario(transaction)
      .given(pending)
      .when({ kind: 'refresh_processing', observedStatus: 'pending', providerReference: 'ext_1' }, ctx)
      .thenFails('provider_refresh_failed');
    scenario(transaction)
      .given(pending)
      .when(
        {
          kind: 'refresh_paid',
          observedStatus: 'pending',
          providerReference: 'ext_1',
          paidWith: 'boleto',
          duplicatePayment: false,
        },
        ctx,
      )
      .thenFails('provider_refresh_failed');
    scenario(transaction)
      .given(pending)
      .when(
        {
          kind: 'refresh_expired',
          source: 'deadline',
          observedStatus: 'pending',
          providerReference: 'ext_1',
        },
        { now: new Date('2026-03-01T13:00:01.000Z') },
      )
      .thenEmits([{ type: 'Transaction.Expired', data: { transaction_id: ID, source: 'deadline' } }]);
  });

  test('SPEC 4.8: a Pix has no due date to change and is refunded by Pix', () => {
    assert.equal(pixPolicy.dueDate, false);
    assert.equal(pixPolicy.boletoPix, false);
    assert.equal(pixPolicy.refundNeedsBankAccount('pix'), false);
    scenario(transaction)
      .given(history('pix_live'))
      .when({ kind: 'change_due_date', dueDate: '2026-03-20', expiresAt: null }, ctx)
      .thenFails('conflict');
  });
});

describe('Boleto policy (SPEC 2.2, 3.1, 4.2, 4.8)', () => {
  test('SPEC 4.2: a due date (real calendar day), no expires_in; scope boleto:write; has a sandbox', () => {
    assert.equal(boletoPolicy.expiresIn, false);
    assert.equal(boletoPolicy.boletoOptions, true);
    assert.equal(boletoPolicy.sandboxRefusal, null);
    assert.equal(boletoPolicy.writeScope, 'boleto:write');
    const options = {
      due_date: '2026-03-10',
      instruction: null,
      penalty_rate: 0,
      interest_rate: 0,
      cancel_after_due: false,
      days_before_cancel: 0,
    };
    assert.equal(boletoPolicy.checkFields({ expiresIn: null, boleto: options }), null);
    assert.equal(boletoPolicy.checkFields({ expiresIn: 3600, boleto: options })?.param, 'expires_in');
    assert.equal(
      boletoPolicy.checkFields({ expiresIn: null, boleto: { ...options, due_date: '2026-02-30' } })?.param,
      'boleto.due_date',
    );
    assert.equal(boletoPolicy.checkFields({ expiresIn: null, boleto: null })?.param, 'boleto.due_date');
  });

  test('SPEC 3.1: provider status 2 is a payment intent (processing); a real boleto never expires by deadline', () => {
    assert.equal(boletoPolicy.paymentIntent, true);
    assert.equal(boletoPolicy.deadlineExpires, false);
    const pending = history('boleto_live');
    scenario(transaction)
      .given(pending)
      .when({ kind: 'refresh_processing', observedStatus: 'pending', providerReference: 'ext_1' }, ctx)
      .thenEmits([{ type: 'Transaction.PaymentProcessing', data: { transaction_id: ID } }]);
    scenario(transaction)
      .given(pending)
      .when(
        {
          kind: 'refresh_expired',
          source: 'deadline',
          observedStatus: 'pending',
          providerReference: 'ext_1',
        },
        { now: new Date('2026-04-01T00:00:00.000Z') },
      )
      .thenEmits([]);
  });

  test('SPEC 2.2: paid by boleto, by its Pix or by both (a double payment)', () => {
    assert.equal(boletoPolicy.acceptsPayment('boleto', false), true);
    assert.equal(boletoPolicy.acceptsPayment('pix', false), true);
    assert.equal(boletoPolicy.acceptsPayment('boleto', true), true);
    assert.equal(boletoPolicy.boletoPix, true);
  });

  test('SPEC 4.8: the due date of an open boleto changes; paid by boleto it is refunded to a bank account', () => {
    assert.equal(boletoPolicy.dueDate, true);
    assert.equal(boletoPolicy.refundNeedsBankAccount('boleto'), true);
    assert.equal(boletoPolicy.refundNeedsBankAccount('pix'), false);
    scenario(transaction)
      .given(history('boleto_live'))
      .when({ kind: 'change_due_date', dueDate: '2026-03-20', expiresAt: null }, ctx)
      .thenEmits([
        {
          type: 'Transaction.DueDateChanged',
          data: {
            transaction_id: ID,
            boleto_due_date: '2026-03-20',
            previous_due_date: '2026-03-10',
            expires_at: null,
          },
        },
      ]);
  });
});
