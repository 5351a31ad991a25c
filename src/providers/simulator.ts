import { randomUUID } from 'node:crypto';
import {
  type BoletoOptions,
  type ChargeMethod,
  NO_ARTIFACTS,
  type TransactionArtifacts,
} from '../aggregates/transaction.ts';
import {
  type CardsCapability,
  type ChargesCapability,
  type IssuedCharge,
  NO_DIAGNOSTICS,
  type Outcome,
  type OutcomeReason,
  type PayoutsCapability,
  type PixAutomaticCapability,
  type ProviderPort,
  type RemoteCharge,
  type RemoteStatus,
  type Uncertain,
} from './port.ts';
import { simulatedPixAutomatic } from './simulator-pix-automatic.ts';
import { type TestCardOutcome, testCard } from './test-cards.ts';

/**
 * The simulator adapter of the provider port (SPEC 1 simulator row): a local record only, `simulated: true`,
 * environment `sandbox`. It also serves test-mode keys (SPEC 5.2), which never reach a provider. No I/O, no
 * money, no credentials, and it never refuses or leaves an outcome uncertain for a Pix or a boleto it was
 * asked about; a card's outcome is its test card's (test-cards.ts), anything else is refused at tokenization.
 *
 * - Pix: `pix_copy_paste` and `pix_qr_code` are {@link SIMULATOR_PIX_MARKER} plus the transaction id: not an
 *   EMV payload (no `000201` header, no CRC), so no bank app accepts it. `expires_at` = now + expires_in.
 * - Boleto: `boleto_url`, `boleto_digitable_line`, `boleto_barcode` and the boleto Pix are null. With
 *   `cancel_after_due` the charge expires at the start of the day after the due date plus
 *   `days_before_cancel` in America/Sao_Paulo (UTC-3, no DST since 2019); otherwise `expires_at` is null.
 * - `buildRequest` is null: nothing is ever sent (SPEC 2.3 `provider_request` "null for the simulator").
 * - Pix Automatic (issue 27): simulator-pix-automatic.ts (a marker copy-and-paste, debits paid on their due date).
 *
 * Its "remote" side is a bounded memory of the charges this adapter issued, so `query`, `queryByReference`
 * and the contract suites (test/support/provider-contract/) see a provider that remembers. The gateway's
 * own record stays the truth for simulated charges: refresh and simulate decide from it (SPEC 3.1, 4.7), and
 * refund, due date and cancel of a charge this memory does not hold (another process issued it, or it was
 * forgotten) are confirmed, because the gateway asks only after its own state allows the change.
 */
export const SIMULATOR_PIX_MARKER = 'SIMULADOR-TESTE-NAO-PAGAVEL';

const SAO_PAULO_OFFSET = '-03:00';
const MEMORY = 10_000;

function addDays(date: string, days: number): string {
  const d = new Date(`${date}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + days);
  return d.toISOString().slice(0, 10);
}

/** Start of (due date + 1 + days_before_cancel) in Sao Paulo, as UTC ISO 8601. */
export function boletoCancelAt(dueDate: string, daysBeforeCancel: number): string {
  return new Date(`${addDays(dueDate, 1 + daysBeforeCancel)}T00:00:00${SAO_PAULO_OFFSET}`).toISOString();
}

/** What the simulator's answer depends on; other facts of a charge may be passed along and are ignored. */
export interface SimulatedChargeInput {
  readonly transactionId: string;
  readonly method: ChargeMethod;
  readonly expiresIn: number | null;
  readonly boleto: BoletoOptions | null;
  /** The instant of the call (deadlines are computed from it). */
  readonly now: Date;
  readonly [other: string]: unknown;
}

/**
 * A payout's id at the simulator (issue 22 item 4.2): derived from its identification, so a payout sent again
 * after a lost answer names the same transfer, and any process answers a poll about it the same way.
 */
export const simulatorTransferId = (identification: string) => `sim_tr_${identification}`;

/** The confirmation a simulated payout reports: a marker, never a bank's end-to-end id. */
export const SIMULATOR_TRANSFER_MARKER = 'SIMULADOR-TRANSFERENCIA';

/** The local id's reference at the simulator: stable, so every answer about a charge names the same id. */
export const simulatorReference = (transactionId: string) => `sim_${transactionId}`;

export function simulatedArtifacts(request: SimulatedChargeInput): TransactionArtifacts {
  const base: TransactionArtifacts = {
    ...NO_ARTIFACTS,
    provider_reference: simulatorReference(request.transactionId),
  };
  if (request.method === 'pix') {
    const marker = `${SIMULATOR_PIX_MARKER}:${request.transactionId}`;
    const seconds = request.expiresIn ?? 3600;
    return {
      ...base,
      pix_copy_paste: marker,
      pix_qr_code: marker,
      expires_at: new Date(request.now.getTime() + seconds * 1000).toISOString(),
    };
  }
  const options = request.boleto;
  if (options?.cancel_after_due) {
    return { ...base, expires_at: boletoCancelAt(options.due_date, options.days_before_cancel) };
  }
  return base;
}

interface Remembered {
  readonly transactionId: string;
  readonly method: ChargeMethod;
  readonly amount: number;
  status: RemoteStatus;
  paidWith: ChargeMethod | null;
  paidOn: string | null;
  dueDate: string | null;
  artifacts: TransactionArtifacts;
}

function refusedState(reason: OutcomeReason): Outcome<never> {
  return { kind: 'refused', reason, providerReference: null, diagnostics: NO_DIAGNOSTICS };
}

function unknownCharge(providerReference: string): Uncertain {
  // Not remembered is not "does not exist": the gateway's record is the truth (see above).
  return {
    kind: 'uncertain',
    reason: 'incomplete',
    providerReference,
    providerStatus: null,
    diagnostics: NO_DIAGNOSTICS,
  };
}

/** Return codes of the simulated declines, as an issuer would give them (wire doc wave 2b §1.8). */
const DECLINE_CODES: Partial<Record<TestCardOutcome, string>> = { declined: '05', insufficient_funds: '51' };

/** A simulated card token names its test card's outcome; it is encrypted at rest like a real one. */
const SIMULATED_TOKEN = /^simcard:(approved|declined|insufficient_funds|uncertain):[0-9a-f-]{36}$/;

export interface SimulatorAdapter extends ProviderPort {
  readonly payouts: PayoutsCapability;
  readonly cards: CardsCapability;
  readonly pixAutomatic: PixAutomaticCapability;
  /** The payer pays a charge the simulator remembers (the contract suite's `settle`); false when unknown. */
  settle(providerReference: string, via: ChargeMethod, now?: Date): boolean;
}

export function createSimulatorAdapter(options: { memory?: number } = {}): SimulatorAdapter {
  const limit = options.memory ?? MEMORY;
  const charges = new Map<string, Remembered>();
  /** Payouts this process accepted, by identification (bounded like the charges). */
  const payouts = new Set<string>();

  function remember(reference: string, charge: Remembered): void {
    charges.delete(reference);
    charges.set(reference, charge);
    // Oldest first out: a Map iterates in insertion order.
    while (charges.size > limit) {
      const oldest = charges.keys().next().value;
      if (oldest === undefined) break;
      charges.delete(oldest);
    }
  }

  function remote(reference: string, c: Remembered): RemoteCharge {
    return {
      providerReference: reference,
      reference: c.transactionId,
      amount: c.amount,
      status: c.status,
      providerStatus: 0,
      paidWith: c.status === 'paid' && c.method !== 'pix' ? c.paidWith : null,
      // The simulator settles a charge one way only; a double payment is the external provider's case.
      duplicatePayment: false,
      paidOn: c.paidOn,
      boletoDueDate: c.dueDate,
      artifacts: c.artifacts,
    };
  }

  const chargesCapability: ChargesCapability = {
    buildRequest() {
      return null;
    },

    async create(charge, _body, _ctx, now) {
      const artifacts = simulatedArtifacts({ ...charge, now });
      const reference = simulatorReference(charge.transactionId);
      const dueDate = charge.boleto?.due_date ?? null;
      remember(reference, {
        transactionId: charge.transactionId,
        method: charge.method,
        amount: charge.amount,
        status: 'pending',
        paidWith: null,
        paidOn: null,
        dueDate,
        artifacts,
      });
      return {
        kind: 'issued',
        providerReference: reference,
        status: 'pending',
        artifacts,
        boletoDueDate: dueDate,
      };
    },

    async query(target) {
      const c = charges.get(target.providerReference);
      if (!c) return unknownCharge(target.providerReference);
      return { kind: 'issued', charge: remote(target.providerReference, c) };
    },

    async queryByReference(transactionId) {
      const found = [...charges.entries()].filter(([, c]) => c.transactionId === transactionId);
      return { kind: 'issued', charges: found.map(([ref, c]) => remote(ref, c)) };
    },

    // No money moved, so there is nothing to return: the refund is confirmed at once. Payments simulated by
    // the gateway (SPEC 4.7) are not in this memory, so only what it knows cannot be refunded is refused:
    // a charge refunded already (never twice) or cancelled.
    async refund(target) {
      const c = charges.get(target.providerReference);
      if (c && (c.status === 'refunded' || c.status === 'expired')) return refusedState('status_refused');
      if (c) c.status = 'refunded';
      return { kind: 'issued', refundStatus: 'succeeded' };
    },

    async changeDueDate(target): Promise<Outcome<IssuedCharge>> {
      const c = charges.get(target.providerReference);
      if (c && c.status !== 'pending' && c.status !== 'processing') return refusedState('status_refused');
      const o = target.boleto;
      const artifacts: TransactionArtifacts = {
        ...(c?.artifacts ??
          simulatedArtifacts({ ...target, method: 'boleto', expiresIn: null, now: new Date() })),
        provider_reference: target.providerReference,
        expires_at: o?.cancel_after_due ? boletoCancelAt(target.dueDate, o.days_before_cancel) : null,
      };
      if (c) {
        c.dueDate = target.dueDate;
        c.artifacts = artifacts;
      }
      return { kind: 'issued', status: 'pending', artifacts, boletoDueDate: target.dueDate };
    },

    async cancel(target) {
      const c = charges.get(target.providerReference);
      if (c && c.status !== 'pending') return refusedState('status_refused');
      if (c) c.status = 'expired';
      return { kind: 'issued', cancelled: true };
    },
  };

  const cardsCapability: CardsCapability = {
    async tokenize(card) {
      const known = testCard(card.number);
      if (!known) {
        return {
          kind: 'refused',
          reason: 'status_refused',
          providerReference: null,
          diagnostics: {
            ...NO_DIAGNOSTICS,
            provider_error_message: 'Test mode accepts only the documented test card numbers.',
          },
        };
      }
      return { kind: 'issued', token: `simcard:${known.outcome}:${randomUUID()}`, brand: known.brand };
    },

    buildChargeRequest() {
      return null;
    },

    async charge(charge, _body, token, _ctx, now) {
      const outcome = SIMULATED_TOKEN.exec(token)?.[1] as TestCardOutcome | undefined;
      const reference = simulatorReference(charge.transactionId);
      if (outcome === undefined) return refusedState('credentials_refused');
      if (outcome === 'uncertain') {
        return {
          kind: 'uncertain',
          reason: 'timeout',
          providerReference: null,
          providerStatus: null,
          diagnostics: NO_DIAGNOSTICS,
        };
      }
      const declined = DECLINE_CODES[outcome];
      const artifacts: TransactionArtifacts = { ...NO_ARTIFACTS, provider_reference: reference };
      remember(reference, {
        transactionId: charge.transactionId,
        method: 'credit_card',
        amount: charge.amount,
        status: declined ? 'failed' : 'paid',
        paidWith: declined ? null : 'credit_card',
        paidOn: declined ? null : new Date(now.getTime() - 3 * 3_600_000).toISOString().slice(0, 10),
        dueDate: null,
        artifacts,
      });
      if (declined) {
        return {
          kind: 'refused',
          reason: 'status_refused',
          providerReference: reference,
          diagnostics: {
            provider_error_code: declined,
            provider_error_message: 'The card issuer declined the charge.',
            provider_http_status: null,
          },
        };
      }
      return { kind: 'issued', providerReference: reference, status: 'paid', artifacts, boletoDueDate: null };
    },
  };

  return {
    name: 'simulator',
    charges: chargesCapability,
    payouts: simulatedPayouts(payouts, limit),
    cards: cardsCapability,
    // Issue 27: Pix Automatic with nothing sent (simulator-pix-automatic.ts).
    pixAutomatic: simulatedPixAutomatic(),

    settle(providerReference, via, now = new Date()) {
      const c = charges.get(providerReference);
      if (c?.status !== 'pending') return false;
      c.status = 'paid';
      c.paidWith = c.method === 'pix' ? 'pix' : via;
      c.paidOn = new Date(now.getTime() - 3 * 3_600_000).toISOString().slice(0, 10);
      return true;
    },
  };
}

/**
 * Payouts for test keys and simulator records (issue 22 item 4.2): test mode mirrors live, so a payout is
 * accepted (`sim_tr_<identification>`) and the first poll, and every later one, reports it `transferred` with
 * a marker confirmation; it is never `returned`. No money moves and no bank is called. It never answers
 * `uncertain`; a request the real adapter would refuse before sending (amount not a positive integer of
 * centavos) is refused here too. `findPayout` answers from this process's memory: the deterministic id makes
 * sending again after a miss harmless.
 */
function simulatedPayouts(remembered: Set<string>, limit: number): PayoutsCapability {
  return {
    async payout(input) {
      if (!Number.isSafeInteger(input.amount) || input.amount < 1 || input.identification === '') {
        return refusedState('not_supported');
      }
      remembered.delete(input.identification);
      remembered.add(input.identification);
      while (remembered.size > limit) {
        const oldest = remembered.values().next().value;
        if (oldest === undefined) break;
        remembered.delete(oldest);
      }
      return { kind: 'issued', transferId: simulatorTransferId(input.identification) };
    },
    async queryPayout(target) {
      return {
        kind: 'issued',
        state: 'transferred',
        confirmation: `${SIMULATOR_TRANSFER_MARKER}:${target.transferId}`,
        returnReason: null,
      };
    },
    async findPayout(identification) {
      const known = remembered.has(identification);
      return { kind: 'issued', transferIds: known ? [simulatorTransferId(identification)] : [] };
    },
  };
}

/** The gateway's simulator: one per process (its memory is only what `query` answers from). */
export const simulatorAdapter: SimulatorAdapter = createSimulatorAdapter();
