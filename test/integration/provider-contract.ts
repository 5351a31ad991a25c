import assert from 'node:assert/strict';
import { getBoletoInfo, isValidBoleto, isValidPixPayload } from '@brazilian-utils/brazilian-utils';
import { ulid } from 'ulid';
import { describe, test } from 'vitest';
import type { ExternalProvider, PortCharge, ProviderContext } from '../../src/providers/port.ts';
import { portCustomer } from '../support/emulator-control.ts';

/**
 * The external-provider contract (DESIGN.md "Providers", issue 13): what every adapter of the port must do,
 * whatever the provider. An adapter's test file supplies a {@link ContractHarness} that can make the provider
 * refuse, fail or settle a charge, and runs {@link providerContract}. Expected values come from SPEC.md (1,
 * 2.2, 3.1, 4.1, 4.2, 4.6, 4.8), never from the adapter.
 */

export type ContractOperation = 'create' | 'query' | 'refund' | 'change_due_date' | 'cancel';

export interface ContractHarness {
  readonly adapter: ExternalProvider;
  /** A working context of the harness's environment. */
  context(signal?: AbortSignal): ProviderContext;
  /** Credentials the provider does not accept. */
  refusedContext(): ProviderContext;
  /** The next `operation` about `reference` is a business refusal carrying provider code `code`. */
  refuseNext(operation: ContractOperation, reference: string, code: string): Promise<void>;
  /** The next `operation` about `reference` gets a server error (the provider may or may not have acted). */
  failNext(operation: ContractOperation, reference: string): Promise<void>;
  /** The provider does the next `operation` about `reference` but its answer is lost. */
  loseAnswerOfNext(operation: ContractOperation, reference: string): Promise<void>;
  /** The payer pays: `via` pix for a Pix charge or a boleto's Pix, boleto for the boleto itself. */
  settle(providerReference: string, via: 'pix' | 'boleto'): Promise<void>;
}

/** `YYYY-MM-DD` in Sao Paulo, `days` from today (SPEC 4.2: due dates are today to today+365 there). */
export function saoPauloDate(days: number): string {
  return new Date(Date.now() - 3 * 3_600_000 + days * 86_400_000).toISOString().slice(0, 10);
}

export function pixCharge(amount = 1250, expiresIn = 1800): PortCharge {
  return {
    transactionId: `txn_${ulid()}`,
    method: 'pix',
    amount,
    description: 'Pedido 42',
    customer: portCustomer,
    expiresIn,
    boleto: null,
    callbackUrl: null,
  };
}

export function boletoCharge(amount = 15_990, dueDate = saoPauloDate(10)): PortCharge {
  return {
    transactionId: `txn_${ulid()}`,
    method: 'boleto',
    amount,
    description: 'Mensalidade novembro',
    customer: portCustomer,
    expiresIn: null,
    boleto: {
      due_date: dueDate,
      instruction: null,
      penalty_rate: 2,
      interest_rate: 1,
      cancel_after_due: false,
      days_before_cancel: 0,
    },
    callbackUrl: null,
  };
}

/** Diagnostics as SPEC 2.2 and 8 allow them. */
export function assertSanitized(d: {
  provider_error_code: string | null;
  provider_error_message: string | null;
  provider_http_status: number | null;
}): void {
  if (d.provider_error_code !== null) assert.match(d.provider_error_code, /^[0-9]{1,10}$/);
  if (d.provider_error_message !== null) assert.ok(d.provider_error_message.length <= 400);
  if (d.provider_http_status !== null) {
    assert.ok(Number.isInteger(d.provider_http_status));
    assert.ok(d.provider_http_status >= 100 && d.provider_http_status <= 599);
  }
}

export function providerContract(name: string, harness: () => ContractHarness): void {
  async function issue(h: ContractHarness, charge: PortCharge, now = new Date()) {
    const body = h.adapter.buildRequest(charge, h.context());
    const outcome = await h.adapter.create(charge, body, h.context(), now);
    assert.equal(outcome.kind, 'issued', JSON.stringify(outcome));
    if (outcome.kind !== 'issued') throw new Error('unreachable');
    return outcome;
  }

  describe(`provider contract: ${name}`, () => {
    describe('create', () => {
      test('Pix is issued pending with a payable BR Code, expiring expires_in after the call (SPEC 4.1)', async () => {
        const h = harness();
        const charge = pixCharge(1250, 1800);
        const now = new Date('2026-11-23T12:00:00.000Z');
        const outcome = await issue(h, charge, now);
        assert.equal(outcome.status, 'pending');
        assert.match(outcome.providerReference, /\S/);
        assert.equal(outcome.artifacts.provider_reference, outcome.providerReference);
        assert.ok(isValidPixPayload(outcome.artifacts.pix_copy_paste ?? ''));
        assert.equal(outcome.artifacts.expires_at, '2026-11-23T12:30:00.000Z');
        assert.equal(outcome.artifacts.boleto_url, null);
        assert.equal(outcome.artifacts.boleto_digitable_line, null);
      });

      test('boleto is issued with https URL, valid 47-48 digit line, 44 digit code of the amount and due date (SPEC 4.2)', async () => {
        const h = harness();
        const due = saoPauloDate(15);
        const charge = boletoCharge(15_990, due);
        const outcome = await issue(h, charge);
        const a = outcome.artifacts;
        assert.equal(outcome.status, 'pending');
        assert.equal(outcome.boletoDueDate, due);
        assert.match(a.boleto_url ?? '', /^https:\/\//);
        assert.match(a.boleto_digitable_line ?? '', /^[0-9]{47,48}$/);
        assert.match(a.boleto_barcode ?? '', /^[0-9]{44}$/);
        assert.ok(isValidBoleto(a.boleto_digitable_line ?? ''));
        const info = getBoletoInfo(a.boleto_digitable_line ?? '', {
          referenceDate: new Date(`${due}T12:00:00Z`),
        });
        assert.equal(info?.amount, 15_990);
        assert.equal(info?.expirationDate?.toISOString().slice(0, 10), due);
        assert.equal(a.pix_copy_paste, null);
      });

      test('a business refusal is refused with the provider code and sanitized diagnostics', async () => {
        const h = harness();
        const charge = pixCharge();
        await h.refuseNext('create', charge.transactionId, '1234');
        const outcome = await h.adapter.create(
          charge,
          h.adapter.buildRequest(charge, h.context()),
          h.context(),
          new Date(),
        );
        assert.equal(outcome.kind, 'refused');
        if (outcome.kind !== 'refused') return;
        assert.equal(outcome.diagnostics.provider_error_code, '1234');
        assertSanitized(outcome.diagnostics);
      });

      test('refused credentials are refused', async () => {
        const h = harness();
        const charge = pixCharge();
        const ctx = h.refusedContext();
        const outcome = await h.adapter.create(charge, h.adapter.buildRequest(charge, ctx), ctx, new Date());
        assert.equal(outcome.kind, 'refused');
      });

      test('a server error is uncertain, never refused (SPEC 3.1: the charge may exist)', async () => {
        const h = harness();
        const charge = boletoCharge();
        await h.failNext('create', charge.transactionId);
        const outcome = await h.adapter.create(
          charge,
          h.adapter.buildRequest(charge, h.context()),
          h.context(),
          new Date(),
        );
        assert.equal(outcome.kind, 'uncertain');
        if (outcome.kind === 'uncertain') assertSanitized(outcome.diagnostics);
      });
    });

    describe('query', () => {
      test('reads the charge back with the same id, amount and reference (SPEC 4.6), then paid once settled', async () => {
        const h = harness();
        const charge = pixCharge(4321);
        const created = await issue(h, charge);
        const target = {
          transactionId: charge.transactionId,
          method: 'pix' as const,
          amount: 4321,
          providerReference: created.providerReference,
          boletoDueDate: null,
        };
        const before = await h.adapter.query(target, h.context());
        assert.equal(before.kind, 'issued', JSON.stringify(before));
        if (before.kind !== 'issued') return;
        assert.equal(before.charge.status, 'pending');
        assert.equal(before.charge.amount, 4321);
        assert.equal(before.charge.reference, charge.transactionId);
        assert.equal(before.charge.providerReference, created.providerReference);
        await h.settle(created.providerReference, 'pix');
        const after = await h.adapter.query(target, h.context());
        assert.equal(after.kind === 'issued' && after.charge.status, 'paid');
      });

      test('a boleto paid by boleto reads paid_with boleto (SPEC 2.2)', async () => {
        const h = harness();
        const charge = boletoCharge();
        const created = await issue(h, charge);
        await h.settle(created.providerReference, 'boleto');
        const outcome = await h.adapter.query(
          {
            transactionId: charge.transactionId,
            method: 'boleto',
            amount: charge.amount,
            providerReference: created.providerReference,
            boletoDueDate: created.boletoDueDate,
          },
          h.context(),
        );
        assert.equal(outcome.kind, 'issued', JSON.stringify(outcome));
        if (outcome.kind !== 'issued') return;
        assert.equal(outcome.charge.status, 'paid');
        assert.equal(outcome.charge.paidWith, 'boleto');
      });

      test('refused and uncertain answers', async () => {
        const h = harness();
        const charge = pixCharge();
        const created = await issue(h, charge);
        const target = {
          transactionId: charge.transactionId,
          method: 'pix' as const,
          amount: charge.amount,
          providerReference: created.providerReference,
          boletoDueDate: null,
        };
        await h.refuseNext('query', charge.transactionId, '77');
        const refused = await h.adapter.query(target, h.context());
        assert.equal(refused.kind, 'refused');
        await h.failNext('query', charge.transactionId);
        assert.equal((await h.adapter.query(target, h.context())).kind, 'uncertain');
      });

      test('by reference finds a charge whose creation answer was lost (SPEC 3.1 unknown, no external id)', async () => {
        const h = harness();
        const charge = pixCharge(999);
        await h.loseAnswerOfNext('create', charge.transactionId);
        const lost = await h.adapter.create(
          charge,
          h.adapter.buildRequest(charge, h.context()),
          h.context(),
          new Date(),
        );
        assert.equal(lost.kind, 'uncertain');
        const found = await h.adapter.queryByReference(charge.transactionId, h.context());
        assert.equal(found.kind, 'issued', JSON.stringify(found));
        if (found.kind !== 'issued') return;
        assert.equal(found.charges.length, 1);
        assert.equal(found.charges[0]?.amount, 999);
        assert.equal(found.charges[0]?.reference, charge.transactionId);
        const none = await h.adapter.queryByReference(`txn_${ulid()}`, h.context());
        assert.deepEqual(none.kind === 'issued' && none.charges, []);
      });
    });

    describe('refund (SPEC 4.8)', () => {
      test('a paid Pix is refunded; refusal and server error are refused and uncertain', async () => {
        const h = harness();
        const charge = pixCharge();
        const created = await issue(h, charge);
        await h.settle(created.providerReference, 'pix');
        const target = {
          transactionId: charge.transactionId,
          method: 'pix' as const,
          providerReference: created.providerReference,
          paidWith: null,
          bankAccount: null,
        };
        await h.refuseNext('refund', charge.transactionId, '55');
        assert.equal((await h.adapter.refund(target, h.context())).kind, 'refused');
        await h.failNext('refund', charge.transactionId);
        assert.equal((await h.adapter.refund(target, h.context())).kind, 'uncertain');
        const done = await h.adapter.refund(target, h.context());
        assert.deepEqual(done, { kind: 'issued', refundStatus: 'succeeded' });
        const after = await h.adapter.query(
          {
            transactionId: charge.transactionId,
            method: 'pix',
            amount: charge.amount,
            providerReference: created.providerReference,
            boletoDueDate: null,
          },
          h.context(),
        );
        assert.equal(after.kind === 'issued' && after.charge.status, 'refunded');
      });
    });

    describe('change due date (SPEC 4.8)', () => {
      test('an open boleto gets the new due date and a new line; refusal and server error', async () => {
        const h = harness();
        const charge = boletoCharge(2_000, saoPauloDate(5));
        const created = await issue(h, charge);
        const target = {
          transactionId: charge.transactionId,
          amount: 2_000,
          providerReference: created.providerReference,
          dueDate: saoPauloDate(40),
        };
        await h.refuseNext('change_due_date', charge.transactionId, '88');
        assert.equal((await h.adapter.changeDueDate(target, h.context())).kind, 'refused');
        await h.failNext('change_due_date', charge.transactionId);
        assert.equal((await h.adapter.changeDueDate(target, h.context())).kind, 'uncertain');
        const changed = await h.adapter.changeDueDate(target, h.context());
        assert.equal(changed.kind, 'issued', JSON.stringify(changed));
        if (changed.kind !== 'issued') return;
        assert.equal(changed.boletoDueDate, saoPauloDate(40));
        assert.notEqual(changed.artifacts.boleto_digitable_line, created.artifacts.boleto_digitable_line);
        assert.ok(isValidBoleto(changed.artifacts.boleto_digitable_line ?? ''));
      });
    });

    describe('cancel', () => {
      test('an open Pix and an open boleto are cancelled; a server error is uncertain', async () => {
        const h = harness();
        const pix = pixCharge();
        const boleto = boletoCharge();
        const p = await issue(h, pix);
        const b = await issue(h, boleto);
        await h.failNext('cancel', boleto.transactionId);
        const failed = await h.adapter.cancel(
          { transactionId: boleto.transactionId, method: 'boleto', providerReference: b.providerReference },
          h.context(),
        );
        assert.equal(failed.kind, 'uncertain');
        for (const [charge, created] of [
          [pix, p],
          [boleto, b],
        ] as const) {
          const outcome = await h.adapter.cancel(
            {
              transactionId: charge.transactionId,
              method: charge.method,
              providerReference: created.providerReference,
            },
            h.context(),
          );
          assert.deepEqual(outcome, { kind: 'issued', cancelled: true });
        }
      });
    });
  });
}
