import type {
  BoletoOptions,
  ChargeMethod,
  Diagnostics,
  TransactionArtifacts,
} from '../aggregates/transaction.ts';

/**
 * The provider port (DESIGN.md "Command handlers": reserve -> call -> record outcome). Issuance builds a
 * {@link ProviderChargeRequest} from the reservation (normalized copies: trimmed text, upper-cased state and
 * document, lower-cased e-mail; SPEC 4.1) and an adapter answers with one of three outcomes. Adapters never
 * throw for a provider answer; a thrown error is treated as `uncertain` by the caller (the charge may exist).
 */

export interface ProviderCustomer {
  name?: string;
  document?: string;
  email?: string;
  phone?: string;
  address?: {
    zip_code: string;
    street: string;
    number: string;
    complement?: string;
    district: string;
    city: string;
    state: string;
  };
}

export interface ProviderChargeRequest {
  /** The local id, also the reference sent to the provider (SPEC 2.2 `id`). */
  transactionId: string;
  method: ChargeMethod;
  amount: number;
  reference: string;
  description: string;
  customer: ProviderCustomer;
  /** Pix: effective seconds. Boleto: null. */
  expiresIn: number | null;
  boleto: BoletoOptions | null;
  /** The body prepared at reservation (SPEC 2.3 `provider_request`); null for the simulator. */
  providerRequest: Readonly<Record<string, unknown>> | null;
  /** The instant of the call (deadlines are computed from it). */
  now: Date;
}

export type ProviderChargeOutcome =
  | { kind: 'issued'; artifacts: TransactionArtifacts }
  | {
      kind: 'refused';
      failureCode: string;
      providerReference: string | null;
      diagnostics: Diagnostics;
    }
  | { kind: 'uncertain'; providerReference: string | null; diagnostics: Diagnostics };

/** SPEC 4.8: an integral refund of a paid charge. */
export interface ProviderRefundRequest {
  transactionId: string;
  providerReference: string | null;
  method: ChargeMethod;
  amount: number;
  /** How the charge was settled: a boleto paid by its Pix is refunded by Pix. */
  paidWith: ChargeMethod | null;
  /** The payer's account, for a boleto paid by boleto (SPEC 4.8); never stored by the gateway. */
  bankAccount: Readonly<Record<string, string>> | null;
  now: Date;
}

/** SPEC 4.8: a new due date for an open boleto. */
export interface ProviderDueDateRequest {
  transactionId: string;
  providerReference: string | null;
  dueDate: string;
  boleto: BoletoOptions;
  now: Date;
}

export interface PaymentProvider {
  readonly kind: 'simulator' | 'external';
  createCharge(request: ProviderChargeRequest): Promise<ProviderChargeOutcome>;
  /** Resolves once the provider confirmed the refund; throws when it did not. */
  refundCharge(request: ProviderRefundRequest): Promise<{ refundStatus: 'succeeded' }>;
  /** Resolves with the charge's new deadline (`expires_at`) once the provider moved the due date. */
  changeDueDate(request: ProviderDueDateRequest): Promise<{ expiresAt: string | null }>;
}

/** SPEC 2.2 rules 2-3: value-or-null, never raw provider text. */
export function sanitizeDiagnostics(raw: {
  code?: unknown;
  httpStatus?: unknown;
  /** A static, safe guidance text chosen by the adapter (never the provider's message). */
  guidance?: string | null;
}): Diagnostics {
  const code = typeof raw.code === 'string' || typeof raw.code === 'number' ? String(raw.code) : '';
  const status = typeof raw.httpStatus === 'number' ? raw.httpStatus : Number.NaN;
  return {
    provider_error_code: /^[0-9]{1,10}$/.test(code) ? code : null,
    provider_error_message: raw.guidance ? raw.guidance.slice(0, 400) : null,
    provider_http_status: Number.isInteger(status) && status >= 100 && status <= 599 ? status : null,
  };
}

export const NO_DIAGNOSTICS: Diagnostics = {
  provider_error_code: null,
  provider_error_message: null,
  provider_http_status: null,
};

type AdapterKind = PaymentProvider['kind'];
const overrides = new WeakMap<object, Partial<Record<AdapterKind, PaymentProvider>>>();

/**
 * Replaces the adapter of a kind for one application context (tests wrap the simulator to count calls).
 * Keyed by the context object, so two gateways in one process never share an override.
 */
export function useProviderAdapter(context: object, kind: AdapterKind, adapter: PaymentProvider): void {
  overrides.set(context, { ...overrides.get(context), [kind]: adapter });
}

/** The adapter for a kind in this context, or undefined when none is wired (no external adapter yet). */
export function providerAdapter(
  context: object,
  kind: AdapterKind,
  defaults: Partial<Record<AdapterKind, PaymentProvider>>,
): PaymentProvider | undefined {
  return overrides.get(context)?.[kind] ?? defaults[kind];
}
