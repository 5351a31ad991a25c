import assert from 'node:assert/strict';
import { ulid } from 'ulid';
import { afterAll, beforeAll } from 'vitest';
import { type ProviderEmulator, startProviderEmulator } from '../../../src/providers/emulator/server.ts';
import type { PortCharge, ProviderContext, ProviderPort } from '../../../src/providers/port.ts';
import { createSafe2PayAdapter } from '../../../src/providers/safe2pay/adapter.ts';
import { createSimulatorAdapter } from '../../../src/providers/simulator.ts';
import { type EmulatorControl, emulatorControl, portCustomer } from '../emulator-control.ts';

/**
 * The provider contract's harnesses (DESIGN.md "Providers", issue 24 item 5): each capability has its suite
 * (./charges.ts, ./payouts.ts), run against both subjects below, the simulator and Safe2Pay over the
 * provider emulator. A subject's harness can settle a charge and confirm a transfer; a remote one can also
 * make the provider refuse or fail.
 */

/** Operations a remote harness can fault, by capability (the emulator's operation names). */
export type ContractOperation =
  | 'create'
  | 'query'
  | 'refund'
  | 'change_due_date'
  | 'cancel'
  | 'transfer_create'
  | 'transfer_get'
  | 'tokenize';

/**
 * Card numbers that give each outcome on a subject (issue 25): the simulator's documented test cards
 * (src/providers/test-cards.ts) or the emulator's last-digit sandbox cards (src/providers/emulator/cards.ts).
 */
export interface ContractTestCards {
  readonly approved: string;
  /** Declined by the issuer with return code "05". */
  readonly declined: string;
  /** The acquirer never answers: uncertain (a remote one after the context's signal ends). */
  readonly uncertain: string;
}

export interface ContractHarness {
  readonly adapter: ProviderPort;
  /** A working context of the harness's environment. */
  context(signal?: AbortSignal): ProviderContext;
  /** The payer pays: `via` pix for a Pix charge or a boleto's Pix, boleto for the boleto itself. */
  settle(providerReference: string, via: 'pix' | 'boleto'): Promise<void>;
  /** The bank confirms a payout's transfer with `confirmation` (a provider that confirms at once: nothing). */
  confirmTransfer(transferId: string, confirmation: string): Promise<void>;
  readonly testCards: ContractTestCards;
}

/** What only a remote provider can be made to do (the simulator never refuses nor fails; SPEC 1). */
export interface RemoteHarness extends ContractHarness {
  /** Credentials the provider does not accept. */
  refusedContext(): ProviderContext;
  /** The next `operation` about `reference` is a business refusal carrying provider code `code`. */
  refuseNext(operation: ContractOperation, reference: string, code: string): Promise<void>;
  /** The next `operation` about `reference` gets a server error (the provider may or may not have acted). */
  failNext(operation: ContractOperation, reference: string): Promise<void>;
  /** The provider does the next `operation` about `reference` but its answer is lost. */
  loseAnswerOfNext(operation: ContractOperation, reference: string): Promise<void>;
}

/** An adapter under contract: its name, and whether it is the simulator (SPEC 1's table decides). */
export type ContractSubject =
  | { readonly name: string; readonly simulated: true; readonly harness: () => ContractHarness }
  | { readonly name: string; readonly simulated: false; readonly harness: () => RemoteHarness };

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

/** The simulator adapter (SPEC 1 simulator row), a fresh memory per file. */
export function simulatorSubject(): ContractSubject {
  const adapter = createSimulatorAdapter();
  const harness: ContractHarness = {
    adapter,
    context: (signal) => ({
      environment: 'sandbox',
      credentials: {},
      signal: signal ?? AbortSignal.timeout(60_000),
    }),
    settle: async (providerReference, via) => {
      if (!adapter.settle(providerReference, via)) throw new Error(`no open charge ${providerReference}`);
    },
    // A simulated payout is transferred from its first poll.
    confirmTransfer: async () => {},
    testCards: { approved: '4111111111111111', declined: '4000000000000002', uncertain: '4000000000000119' },
  };
  return { name: 'simulator', simulated: true, harness: () => harness };
}

/**
 * The Safe2Pay adapter over undici against the provider emulator on a real socket (issue 13), with the
 * emulator's default production key; the emulator starts before the calling file's tests and stops after.
 */
export function emulatorSubject(): ContractSubject {
  let emulator: ProviderEmulator;
  let control: EmulatorControl;
  let adapter: ProviderPort;
  beforeAll(async () => {
    emulator = await startProviderEmulator({ port: 0, host: '127.0.0.1' });
    control = emulatorControl(emulator.url);
    adapter = createSafe2PayAdapter({ paymentHost: emulator.paymentUrl, apiHost: emulator.apiUrl });
  });
  afterAll(async () => {
    await emulator.close();
  });
  const context = (signal?: AbortSignal): ProviderContext => ({
    environment: 'production',
    credentials: { api_key: 'emu-production-key' },
    signal: signal ?? AbortSignal.timeout(60_000),
  });
  const harness: RemoteHarness = {
    get adapter() {
      return adapter;
    },
    context,
    refusedContext: () => ({ ...context(), credentials: { api_key: 'revoked-key' } }),
    refuseNext: (operation, reference, code) =>
      control.fault({ operation, reference, fault: { type: 'has_error', code, message: 'Recusado.' } }),
    failNext: (operation, reference) =>
      control.fault({ operation, reference, fault: { type: 'http_error', status: 500 } }),
    loseAnswerOfNext: (operation, reference) =>
      control.fault({ operation, reference, fault: { type: 'reset' } }),
    settle: (providerReference, via) =>
      control.move(providerReference, via === 'pix' ? 'paid_pix' : 'paid_boleto'),
    confirmTransfer: (transferId, confirmation) =>
      control.moveTransfer(transferId, { to: 'transferred', hash: confirmation }),
    // Cielo's last-digit rule: 1 authorized, 2 declined "05", 6 charged without an answer.
    testCards: { approved: '4111111111111111', declined: '4000000000000002', uncertain: '4000000000000036' },
  };
  return { name: 'Safe2Pay adapter over the emulator', simulated: false, harness: () => harness };
}
