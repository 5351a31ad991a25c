import assert from 'node:assert/strict';
import { getBoletoInfo, isValidBoleto, isValidPixPayload } from '@brazilian-utils/brazilian-utils';
import { ulid } from 'ulid';
import { describe, test } from 'vitest';
import type { PortCharge } from '../../../src/providers/port.ts';
import {
  assertSanitized,
  boletoCharge,
  type ContractHarness,
  type ContractSubject,
  pixCharge,
  type RemoteHarness,
  saoPauloDate,
} from './harness.ts';

/**
 * The `charges` capability's contract (DESIGN.md "Providers", issues 13 item 1 and 24 item 5): what every
 * adapter's charges must do, the simulator and the external provider alike
 * (test/integration/provider-contract-charges.test.ts runs it on both). Expected values come from SPEC.md
 * (1, 2.2, 2.3, 3.1, 4.1, 4.2, 4.6, 4.8), never from the adapter. What differs is SPEC 1's table: a
 * simulated charge has a test marker instead of a payable Pix and no boleto numbers, sends nothing (SPEC 2.3
 * `provider_request` null) and cannot be refused by a provider; a remote one has real artifacts and the
 * fault cases.
 */

export function chargesContract(subject: ContractSubject): void {
  const simulated = subject.simulated;
  const harness = (): ContractHarness => subject.harness();
  /** Only registered for a remote provider (no test is skipped: the simulator has no such case). */
  const remote = (): RemoteHarness => {
    if (subject.simulated) throw new Error('a remote-only case ran against the simulator');
    return subject.harness();
  };

  async function issue(h: ContractHarness, charge: PortCharge, now = new Date()) {
    const body = h.adapter.charges.buildRequest(charge, h.context());
    const outcome = await h.adapter.charges.create(charge, body, h.context(), now);
    assert.equal(outcome.kind, 'issued', JSON.stringify(outcome));
    if (outcome.kind !== 'issued') throw new Error('unreachable');
    return outcome;
  }

  describe(`charges contract: ${subject.name}`, () => {
    describe('create', () => {
      test('Pix is issued pending, expiring expires_in after the call; payable only when not simulated (SPEC 1, 4.1)', async () => {
        const h = harness();
        const charge = pixCharge(1250, 1800);
        const now = new Date('2026-11-23T12:00:00.000Z');
        const outcome = await issue(h, charge, now);
        assert.equal(outcome.status, 'pending');
        assert.match(outcome.providerReference, /\S/);
        assert.equal(outcome.artifacts.provider_reference, outcome.providerReference);
        // SPEC 1: the simulator's payload is a test marker no bank accepts; a provider's is a BR Code.
        assert.equal(isValidPixPayload(outcome.artifacts.pix_copy_paste ?? ''), !simulated);
        assert.match(outcome.artifacts.pix_copy_paste ?? '', /\S/);
        assert.equal(outcome.artifacts.expires_at, '2026-11-23T12:30:00.000Z');
        assert.equal(outcome.artifacts.boleto_url, null);
        assert.equal(outcome.artifacts.boleto_digitable_line, null);
      });

      if (simulated) {
        test('boleto is issued pending with no URL, line, barcode or Pix (SPEC 1 simulator row, 4.2)', async () => {
          const h = harness();
          const due = saoPauloDate(15);
          const outcome = await issue(h, boletoCharge(15_990, due));
          const a = outcome.artifacts;
          assert.equal(outcome.status, 'pending');
          assert.equal(outcome.boletoDueDate, due);
          assert.deepEqual(
            [
              a.boleto_url,
              a.boleto_digitable_line,
              a.boleto_barcode,
              a.boleto_pix_copy_paste,
              a.pix_copy_paste,
            ],
            [null, null, null, null, null],
          );
        });

        test('nothing is sent anywhere: no provider body (SPEC 2.3), no credentials needed', async () => {
          const h = harness();
          const charge = pixCharge();
          const ctx = { ...h.context(), credentials: {} };
          assert.equal(h.adapter.charges.buildRequest(charge, ctx), null);
          assert.equal((await h.adapter.charges.create(charge, null, ctx, new Date())).kind, 'issued');
        });
      } else {
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
          const h = remote();
          const charge = pixCharge();
          await h.refuseNext('create', charge.transactionId, '1234');
          const outcome = await h.adapter.charges.create(
            charge,
            h.adapter.charges.buildRequest(charge, h.context()),
            h.context(),
            new Date(),
          );
          assert.equal(outcome.kind, 'refused');
          if (outcome.kind !== 'refused') return;
          assert.equal(outcome.diagnostics.provider_error_code, '1234');
          assertSanitized(outcome.diagnostics);
        });

        test('refused credentials are refused', async () => {
          const h = remote();
          const charge = pixCharge();
          const ctx = h.refusedContext();
          const outcome = await h.adapter.charges.create(
            charge,
            h.adapter.charges.buildRequest(charge, ctx),
            ctx,
            new Date(),
          );
          assert.equal(outcome.kind, 'refused');
        });

        test('a server error is uncertain, never refused (SPEC 3.1: the charge may exist)', async () => {
          const h = remote();
          const charge = boletoCharge();
          await h.failNext('create', charge.transactionId);
          const outcome = await h.adapter.charges.create(
            charge,
            h.adapter.charges.buildRequest(charge, h.context()),
            h.context(),
            new Date(),
          );
          assert.equal(outcome.kind, 'uncertain');
          if (outcome.kind === 'uncertain') assertSanitized(outcome.diagnostics);
        });
      }
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
        const before = await h.adapter.charges.query(target, h.context());
        assert.equal(before.kind, 'issued', JSON.stringify(before));
        if (before.kind !== 'issued') return;
        assert.equal(before.charge.status, 'pending');
        assert.equal(before.charge.amount, 4321);
        assert.equal(before.charge.reference, charge.transactionId);
        assert.equal(before.charge.providerReference, created.providerReference);
        await h.settle(created.providerReference, 'pix');
        const after = await h.adapter.charges.query(target, h.context());
        assert.equal(after.kind === 'issued' && after.charge.status, 'paid');
      });

      for (const via of ['boleto', 'pix'] as const) {
        test(`a boleto paid by ${via === 'pix' ? 'its Pix' : 'boleto'} reads paid_with ${via} (SPEC 2.2)`, async () => {
          const h = harness();
          const charge = boletoCharge();
          const created = await issue(h, charge);
          await h.settle(created.providerReference, via);
          const outcome = await h.adapter.charges.query(
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
          assert.equal(outcome.charge.paidWith, via);
        });
      }

      test('by reference finds the charges with that reference, none for another (SPEC 3.1 unknown)', async () => {
        const h = harness();
        const charge = pixCharge(999);
        await issue(h, charge);
        const found = await h.adapter.charges.queryByReference(charge.transactionId, h.context());
        assert.equal(found.kind, 'issued', JSON.stringify(found));
        if (found.kind !== 'issued') return;
        assert.equal(found.charges.length, 1);
        assert.equal(found.charges[0]?.amount, 999);
        assert.equal(found.charges[0]?.reference, charge.transactionId);
        const none = await h.adapter.charges.queryByReference(`txn_${ulid()}`, h.context());
        assert.deepEqual(none.kind === 'issued' && none.charges, []);
      });

      if (!simulated) {
        test('refused and uncertain answers', async () => {
          const h = remote();
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
          const refused = await h.adapter.charges.query(target, h.context());
          assert.equal(refused.kind, 'refused');
          await h.failNext('query', charge.transactionId);
          assert.equal((await h.adapter.charges.query(target, h.context())).kind, 'uncertain');
        });

        test('by reference finds a charge whose creation answer was lost (SPEC 3.1 unknown, no external id)', async () => {
          const h = remote();
          const charge = pixCharge(999);
          await h.loseAnswerOfNext('create', charge.transactionId);
          const lost = await h.adapter.charges.create(
            charge,
            h.adapter.charges.buildRequest(charge, h.context()),
            h.context(),
            new Date(),
          );
          assert.equal(lost.kind, 'uncertain');
          const found = await h.adapter.charges.queryByReference(charge.transactionId, h.context());
          assert.equal(found.kind, 'issued', JSON.stringify(found));
          if (found.kind !== 'issued') return;
          assert.equal(found.charges.length, 1);
          assert.equal(found.charges[0]?.amount, 999);
        });
      }
    });

    describe('refund (SPEC 4.8)', () => {
      for (const [method, via] of [
        ['pix', 'pix'],
        ['boleto', 'pix'],
      ] as const) {
        test(`a paid ${method === 'pix' ? 'Pix' : 'boleto settled by its Pix'} is refunded by Pix and reads refunded`, async () => {
          const h = harness();
          const charge = method === 'pix' ? pixCharge() : boletoCharge();
          const created = await issue(h, charge);
          await h.settle(created.providerReference, via);
          const target = {
            transactionId: charge.transactionId,
            method,
            providerReference: created.providerReference,
            paidWith: method === 'boleto' ? via : null,
            bankAccount: null,
          };
          const done = await h.adapter.charges.refund(target, h.context());
          assert.deepEqual(done, { kind: 'issued', refundStatus: 'succeeded' });
          const after = await h.adapter.charges.query(
            {
              transactionId: charge.transactionId,
              method,
              amount: charge.amount,
              providerReference: created.providerReference,
              boletoDueDate: null,
            },
            h.context(),
          );
          assert.equal(after.kind === 'issued' && after.charge.status, 'refunded');
          // SPEC 3.1 "only move allowed from paid": a second integral refund is never made.
          assert.equal((await h.adapter.charges.refund(target, h.context())).kind, 'refused');
        });
      }

      if (!simulated) {
        test('refusal and server error are refused and uncertain', async () => {
          const h = remote();
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
          assert.equal((await h.adapter.charges.refund(target, h.context())).kind, 'refused');
          await h.failNext('refund', charge.transactionId);
          assert.equal((await h.adapter.charges.refund(target, h.context())).kind, 'uncertain');
          const done = await h.adapter.charges.refund(target, h.context());
          assert.deepEqual(done, { kind: 'issued', refundStatus: 'succeeded' });
        });
      }
    });

    describe('change due date (SPEC 4.8)', () => {
      test('an open boleto gets the new due date; a provider boleto a new valid line', async () => {
        const h = harness();
        const charge = boletoCharge(2_000, saoPauloDate(5));
        const created = await issue(h, charge);
        const target = {
          transactionId: charge.transactionId,
          amount: 2_000,
          providerReference: created.providerReference,
          dueDate: saoPauloDate(40),
          boleto: charge.boleto,
        };
        if (!simulated) {
          const r = remote();
          await r.refuseNext('change_due_date', charge.transactionId, '88');
          assert.equal((await h.adapter.charges.changeDueDate(target, h.context())).kind, 'refused');
          await r.failNext('change_due_date', charge.transactionId);
          assert.equal((await h.adapter.charges.changeDueDate(target, h.context())).kind, 'uncertain');
        }
        const changed = await h.adapter.charges.changeDueDate(target, h.context());
        assert.equal(changed.kind, 'issued', JSON.stringify(changed));
        if (changed.kind !== 'issued') return;
        assert.equal(changed.boletoDueDate, saoPauloDate(40));
        if (simulated) {
          assert.equal(changed.artifacts.boleto_digitable_line, null);
        } else {
          assert.notEqual(changed.artifacts.boleto_digitable_line, created.artifacts.boleto_digitable_line);
          assert.ok(isValidBoleto(changed.artifacts.boleto_digitable_line ?? ''));
        }
        // The read shows the new date: a caller that lost this answer can tell the change happened.
        const read = await h.adapter.charges.query(
          {
            transactionId: charge.transactionId,
            method: 'boleto',
            amount: 2_000,
            providerReference: created.providerReference,
            boletoDueDate: null,
          },
          h.context(),
        );
        assert.equal(read.kind === 'issued' && read.charge.boletoDueDate, saoPauloDate(40));
      });
    });

    describe('cancel', () => {
      test('an open Pix and an open boleto are cancelled', async () => {
        const h = harness();
        const pix = pixCharge();
        const boleto = boletoCharge();
        const p = await issue(h, pix);
        const b = await issue(h, boleto);
        if (!simulated) {
          await remote().failNext('cancel', boleto.transactionId);
          const failed = await h.adapter.charges.cancel(
            { transactionId: boleto.transactionId, method: 'boleto', providerReference: b.providerReference },
            h.context(),
          );
          assert.equal(failed.kind, 'uncertain');
        }
        for (const [charge, created] of [
          [pix, p],
          [boleto, b],
        ] as const) {
          const outcome = await h.adapter.charges.cancel(
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
