import assert from 'node:assert/strict';
import { ulid } from 'ulid';
import { afterAll, beforeAll, describe, test } from 'vitest';
import { type ProviderEmulator, startProviderEmulator } from '../../../src/providers/emulator/server.ts';
import type {
  AuthorizationTarget,
  DebitTarget,
  PixAutomaticCapability,
  PortAuthorization,
  PortDebit,
  ProviderContext,
} from '../../../src/providers/port.ts';
import { createSafe2PayAdapter } from '../../../src/providers/safe2pay/adapter.ts';
import { createSimulatorAdapter } from '../../../src/providers/simulator.ts';
import { type EmulatorControl, emulatorControl, portCustomer } from '../emulator-control.ts';
import { assertSanitized, saoPauloDate } from './harness.ts';

/**
 * The `pixAutomatic` capability's contract (issue 27; SPEC 2.2, 2.3, 3.1, 3.2, 4.11): what every adapter
 * offering Pix Automatic must do, run by test/integration/provider-contract-pix-automatic.test.ts on the
 * simulator and on Safe2Pay over the provider emulator. Create an authorization (pending, a copy-and-paste),
 * schedule a debit on it (pending, scheduled), read it paid on its due date, revoke the authorization; no
 * credential in any outcome. Where the two differ by design (SPEC 1 simulator row), each case says so:
 *
 * - the simulator sends nothing (`buildAuthorizationRequest` null), its copy-and-paste is a marker no bank
 *   accepts, it cannot be asked an authorization's state nor to find debits (`not_supported`: the gateway's
 *   record is the truth), and a debit is paid from its due date on without anyone paying;
 * - the remote provider's authorization waits for the payer, refuses a debit before approval, and can
 *   refuse, fail or lose an answer (the remote-only cases).
 *
 * Wire details and every mapping row stay in test/integration/safe2pay-pix-automatic.test.ts.
 */

export interface PixHarness {
  readonly pix: PixAutomaticCapability;
  context(signal?: AbortSignal): ProviderContext;
  /** The payer approves the authorization in the bank app (the simulator: nothing to do). */
  approve(target: AuthorizationTarget): Promise<void>;
  /** The debit is settled on its due date; answers the `now` a query must be made at to see it. */
  settle(target: DebitTarget): Promise<Date>;
}

export interface PixRemoteHarness extends PixHarness {
  readonly control: EmulatorControl;
  /** Credentials the provider does not accept. */
  refusedContext(): ProviderContext;
}

export type PixSubject =
  | { readonly name: string; readonly simulated: true; readonly harness: () => PixHarness }
  | { readonly name: string; readonly simulated: false; readonly harness: () => PixRemoteHarness };

export const PRODUCTION_KEY = 'emu-production-key';

export function portAuthorization(overrides: Partial<PortAuthorization> = {}): PortAuthorization {
  return {
    authorizationId: `pxa_${ulid()}`,
    name: 'Plano mensal',
    description: 'Assinatura Calebe',
    amount: 4_990,
    firstDueDate: saoPauloDate(5),
    intervalMonths: 1,
    customer: portCustomer,
    ...overrides,
  };
}

export function portDebit(
  authorization: AuthorizationTarget,
  dueDate = saoPauloDate(3),
  amount = 4_990,
): PortDebit {
  return {
    transactionId: `txn_${ulid()}`,
    authorization,
    dueDate,
    amount,
    description: 'Mensalidade',
  };
}

/** The simulator adapter's Pix Automatic (SPEC 1 simulator row), a fresh adapter per file. */
export function simulatorPixSubject(): PixSubject {
  const adapter = createSimulatorAdapter();
  const harness: PixHarness = {
    pix: adapter.pixAutomatic,
    context: (signal) => ({
      environment: 'sandbox',
      credentials: {},
      signal: signal ?? AbortSignal.timeout(60_000),
    }),
    approve: async () => {},
    // Paid from the start of its due date in America/Sao_Paulo (03:00 UTC).
    settle: async (target) => new Date(`${target.dueDate}T03:00:00Z`),
  };
  return { name: 'simulator', simulated: true, harness: () => harness };
}

/** Safe2Pay's v3 Pix Automatic over undici against the emulator on a real socket, production key. */
export function emulatorPixSubject(): PixSubject {
  let emulator: ProviderEmulator;
  let control: EmulatorControl;
  let pix: PixAutomaticCapability;
  beforeAll(async () => {
    emulator = await startProviderEmulator({ port: 0, host: '127.0.0.1' });
    control = emulatorControl(emulator.url);
    pix = createSafe2PayAdapter({ paymentHost: emulator.paymentUrl, apiHost: emulator.apiUrl }).pixAutomatic;
  });
  afterAll(async () => {
    await emulator.close();
  });
  const context = (signal?: AbortSignal): ProviderContext => ({
    environment: 'production',
    credentials: { api_key: PRODUCTION_KEY },
    signal: signal ?? AbortSignal.timeout(60_000),
  });
  const harness: PixRemoteHarness = {
    get pix() {
      return pix;
    },
    get control() {
      return control;
    },
    context,
    refusedContext: () => ({ ...context(), credentials: { api_key: 'revoked-key' } }),
    approve: (target) => control.moveAuthorization(target.providerReference, 'approve'),
    settle: async (target) => {
      await control.moveDebit(target.providerReference, 'pay', target.dueDate);
      return new Date();
    },
  };
  return { name: 'Safe2Pay adapter over the emulator', simulated: false, harness: () => harness };
}

export function pixAutomaticContract(subject: PixSubject): void {
  const h = (): PixHarness => subject.harness();
  const remote = (): PixRemoteHarness => {
    if (subject.simulated) throw new Error('a remote-only case ran against the simulator');
    return subject.harness();
  };
  /** Every outcome seen: none may carry a credential (SPEC 2.2, 8). */
  const seen: unknown[] = [];
  const see = <T>(outcome: T): T => {
    seen.push(outcome);
    return outcome;
  };

  async function authorized(approve = true): Promise<AuthorizationTarget & { copyPaste: string }> {
    const a = portAuthorization();
    const ctx = h().context();
    const body = h().pix.buildAuthorizationRequest(a, ctx);
    const created = see(await h().pix.createAuthorization(a, body, ctx, new Date()));
    assert.equal(created.kind, 'issued', JSON.stringify(created));
    if (created.kind !== 'issued') throw new Error('unreachable');
    const target = { authorizationId: a.authorizationId, providerReference: created.providerReference };
    if (approve) await h().approve(target);
    return { ...target, copyPaste: created.copyPaste };
  }

  async function scheduled(target: AuthorizationTarget, dueDate = saoPauloDate(3)): Promise<DebitTarget> {
    const debit = portDebit(target, dueDate);
    const outcome = see(await h().pix.scheduleDebit(debit, h().context(), new Date()));
    assert.equal(outcome.kind, 'issued', JSON.stringify(outcome));
    if (outcome.kind !== 'issued') throw new Error('unreachable');
    assert.equal(outcome.status, 'pending');
    return {
      transactionId: debit.transactionId,
      authorization: target,
      providerReference: outcome.providerReference,
      amount: debit.amount,
      dueDate: debit.dueDate,
    };
  }

  describe(`Pix Automatic contract: ${subject.name} (issue 27; SPEC 3.2, 4.11)`, () => {
    test('an authorization is issued with a provider reference and a copy-and-paste (SPEC 3.2 pending)', async () => {
      const a = await authorized(false);
      assert.match(a.providerReference, /\S/);
      if (subject.simulated) {
        assert.equal(a.providerReference, `sim_${a.authorizationId}`);
        // SPEC 4.11: a test copy_paste is a marker no bank accepts (not an EMV payload).
        assert.equal(a.copyPaste, `SIMULADOR-TESTE-NAO-PAGAVEL-${a.authorizationId}`);
        assert.doesNotMatch(a.copyPaste, /^000201/);
      } else {
        assert.match(a.copyPaste, /^000201/);
      }
    });

    test('SPEC 2.3 provider_request: the exact body, fixed amount in reais, NAO_PERMITE, no immediate payment (null for the simulator)', () => {
      const a = portAuthorization({ amount: 12_345, intervalMonths: 3 });
      const body = h().pix.buildAuthorizationRequest(a, { environment: 'production' });
      if (subject.simulated) {
        assert.equal(body, null);
        return;
      }
      assert.ok(body);
      assert.deepEqual(body.Calendar, {
        StartDate: a.firstDueDate,
        Periodicity: 'TRIMESTRAL',
        RetryPolicy: 'NAO_PERMITE',
      });
      assert.deepEqual(body.Amount, { Fixed: 123.45 });
      assert.equal('ImmediatePayment' in body, false);
    });

    test('a debit is scheduled pending (SPEC 4.11 scheduled, no QR), reads pending, then paid on its due date', async () => {
      const a = await authorized();
      const d = await scheduled(a);
      const before = see(await h().pix.queryDebit(d, h().context(), new Date()));
      assert.equal(before.kind, 'issued', JSON.stringify(before));
      if (before.kind !== 'issued') return;
      assert.deepEqual(
        [before.debit.status, before.debit.paidOn, before.debit.cancelled],
        ['pending', null, false],
      );
      const at = await h().settle(d);
      const after = see(await h().pix.queryDebit(d, h().context(), at));
      assert.equal(after.kind, 'issued', JSON.stringify(after));
      if (after.kind !== 'issued') return;
      assert.deepEqual(
        [after.debit.status, after.debit.paidOn, after.debit.amount, after.debit.providerReference],
        ['paid', d.dueDate, 4_990, d.providerReference],
      );
      assert.equal(after.debit.providerStatus, 'CONCLUIDA');
    });

    test('revoking an authorization is confirmed (SPEC 4.11 DELETE)', async () => {
      const a = await authorized();
      const outcome = see(await h().pix.revokeAuthorization(a, h().context()));
      assert.deepEqual(outcome, { kind: 'issued', cancelled: true });
    });

    if (subject.simulated) {
      test('simulator: the authorization cannot be read nor debits found (not_supported: the gateway record is the truth)', async () => {
        const a = await authorized(false);
        const q = see(await h().pix.queryAuthorization(a, h().context()));
        assert.deepEqual([q.kind, q.kind === 'refused' && q.reason], ['refused', 'not_supported']);
        const f = see(await h().pix.findDebits(a, 'txn_x', h().context()));
        assert.deepEqual([f.kind, f.kind === 'refused' && f.reason], ['refused', 'not_supported']);
      });
    } else {
      test('remote: pending until the payer approves, then approved; a debit before approval is refused (sanitized)', async () => {
        const a = await authorized(false);
        const pending = see(await h().pix.queryAuthorization(a, h().context()));
        assert.deepEqual(pending, { kind: 'issued', status: 'pending', providerStatus: 'CRIADA' });
        const early = see(await h().pix.scheduleDebit(portDebit(a), h().context(), new Date()));
        assert.equal(early.kind, 'refused');
        if (early.kind === 'refused') {
          assertSanitized(early.diagnostics);
          assert.equal(early.diagnostics.provider_error_code, '9010');
        }
        await h().approve(a);
        const approved = see(await h().pix.queryAuthorization(a, h().context()));
        assert.deepEqual(approved, { kind: 'issued', status: 'approved', providerStatus: 'APROVADA' });
      });

      test('remote: a second debit for the same due date is refused; after a lost answer, findDebits shows the one made', async () => {
        const r = remote();
        const a = await authorized();
        const d = await scheduled(a, saoPauloDate(4));
        const again = see(await r.pix.scheduleDebit(portDebit(a, saoPauloDate(4)), r.context(), new Date()));
        assert.equal(again.kind, 'refused');
        const lost = portDebit(a, saoPauloDate(6));
        await r.control.fault({
          operation: 'pixauto_schedule',
          reference: lost.transactionId,
          fault: { type: 'no_answer' },
        });
        const outcome = see(await r.pix.scheduleDebit(lost, r.context(AbortSignal.timeout(300)), new Date()));
        assert.deepEqual(
          [outcome.kind, outcome.kind === 'uncertain' && outcome.reason],
          ['uncertain', 'timeout'],
        );
        const found = see(await r.pix.findDebits(a, lost.transactionId, r.context()));
        assert.equal(found.kind, 'issued');
        if (found.kind !== 'issued') return;
        assert.deepEqual(
          found.debits.map((x) => [x.reference, x.status, x.amount, x.dueDate]),
          [[lost.transactionId, 'pending', 4_990, saoPauloDate(6)]],
        );
        assert.notEqual(found.debits[0]?.providerReference, d.providerReference);
      });

      test('remote: refused credentials are refused, and nothing is created', async () => {
        const r = remote();
        const outcome = see(
          await r.pix.createAuthorization(portAuthorization(), null, r.refusedContext(), new Date()),
        );
        assert.deepEqual(
          [outcome.kind, outcome.kind === 'refused' && outcome.reason],
          ['refused', 'credentials_refused'],
        );
      });
    }

    test('no outcome carries a credential or a provider text (SPEC 2.2, 8)', () => {
      const text = JSON.stringify(seen);
      assert.ok(seen.length > 0);
      assert.ok(!text.includes(PRODUCTION_KEY));
      assert.ok(!text.includes('revoked-key'));
      for (const o of seen as { diagnostics?: Parameters<typeof assertSanitized>[0] }[]) {
        if (o.diagnostics) assertSanitized(o.diagnostics);
      }
      // The emulator's refusal texts (Portuguese, from the provider) never pass through.
      assert.ok(!text.includes('não está aprovada'));
    });
  });
}
