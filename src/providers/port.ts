import type {
  BoletoOptions,
  ChargeMethod,
  Diagnostics,
  TransactionArtifacts,
} from '../aggregates/transaction.ts';

/**
 * The provider port (DESIGN.md "Providers", issue 13 item 1, issue 24 item 5): one port, two adapters, the
 * simulator (`simulator.ts`) and the external provider (`safe2pay/`), built per provider record by the
 * registry (`registry.ts`, keyed by the record's kind) and resolved per operation
 * (src/commands/provider-adapter.ts).
 *
 * The port grows by capability, not by methods: an adapter has `charges` and, where it supports them,
 * `payouts` (later `cards`, `pixAutomatic`, `subaccounts`: each one more optional field of
 * {@link ProviderPort}). A capability the adapter lacks answers *refused: not supported*
 * ({@link withCapability}), and a record needing it is refused at configuration time (registry.ts).
 *
 * Every operation answers exactly one of three outcomes and never throws for a provider answer: `issued`
 * (the provider confirmed), `refused` (the provider confirmed it did not do it, or it cannot be asked at
 * all), `uncertain` (timeout, reset, unparsable, incomplete or inconsistent answer: the remote state is
 * unknown and must not be guessed; SPEC 3.1). A caller treats anything an adapter throws as `uncertain`.
 */

/** The payer as a provider receives it: the normalized copies (trimmed, upper/lower-cased; SPEC 4.1). */
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

export type ProviderEnvironment = 'sandbox' | 'production';

export interface ProviderContext {
  readonly environment: ProviderEnvironment;
  /** Decrypted credentials of the provider record for its environment, e.g. `{ api_key }`. */
  readonly credentials: Readonly<Record<string, string>>;
  /** A marketplace subaccount's token for this environment; replaces the record's key when set (SPEC 2.8). */
  readonly subaccountToken?: string | null;
  /** Ends the call: an aborted call is `uncertain` (the provider may have acted). */
  readonly signal: AbortSignal;
}

/** What a charge looks like to a provider: the reservation's normalized copies (SPEC 4.1, 4.2). */
export interface PortCharge {
  /** Local id (`txn_…`), also the reference sent to the provider (SPEC 2.2 `id`). */
  readonly transactionId: string;
  readonly method: ChargeMethod;
  /** Integer centavos (SPEC 1). */
  readonly amount: number;
  readonly description: string;
  readonly customer: ProviderCustomer;
  /** Pix: effective seconds (SPEC 4.1, default 3600). Boleto: null. */
  readonly expiresIn: number | null;
  readonly boleto: BoletoOptions | null;
  readonly callbackUrl: string | null;
}

/** Why an outcome is refused or uncertain: a closed set, so nothing the provider wrote can leak through it. */
export type OutcomeReason =
  | 'provider_error'
  | 'credentials_refused'
  | 'credentials_missing'
  | 'status_refused'
  | 'not_supported'
  | 'timeout'
  | 'connection'
  | 'server_error'
  | 'unexpected_http_status'
  | 'unparsable'
  | 'incomplete'
  | 'unknown_status'
  | 'invalid_artifacts'
  | 'mismatch'
  /** Gateway-side: a reserved change whose call ended with no recorded answer (a crash); nothing known sent. */
  | 'interrupted'
  /** Gateway-side: the provider's reads show a change left uncertain never happened. */
  | 'not_applied'
  /** Subaccounts (SPEC 2.8): the provider refused the marketplace matrix's SANDBOX key (its code 301). */
  | 'matrix_sandbox_key'
  /** Subaccounts: the key is not a marketplace matrix's (Safe2Pay code 300: a plain or a child account). */
  | 'not_marketplace';

export interface Refused {
  readonly kind: 'refused';
  readonly reason: OutcomeReason;
  /** Set when the provider created a record and reported it refused (status 8). */
  readonly providerReference: string | null;
  readonly diagnostics: Diagnostics;
}

export interface Uncertain {
  readonly kind: 'uncertain';
  readonly reason: OutcomeReason;
  readonly providerReference: string | null;
  /** The provider's numeric status when one was read but could not be mapped (SPEC 3.1). */
  readonly providerStatus: number | null;
  readonly diagnostics: Diagnostics;
}

export type Outcome<T> = ({ readonly kind: 'issued' } & T) | Refused | Uncertain;

/** SPEC 3.1 states a provider status can map to; anything else is `uncertain`, never pending or paid. */
export type RemoteStatus = 'pending' | 'processing' | 'paid' | 'expired' | 'failed' | 'refunded';

export interface IssuedCharge {
  readonly status: RemoteStatus;
  readonly artifacts: TransactionArtifacts;
  /** Boleto: the due date the provider confirmed, `YYYY-MM-DD`. */
  readonly boletoDueDate: string | null;
}

/** A charge as a query read it back; the caller compares id, amount and reference (SPEC 4.6). */
export interface RemoteCharge {
  readonly providerReference: string;
  readonly reference: string | null;
  /** Integer centavos, converted exactly. */
  readonly amount: number | null;
  readonly status: RemoteStatus;
  readonly providerStatus: number;
  /** SPEC 2.2 `paid_with`: set only for a paid boleto. */
  readonly paidWith: ChargeMethod | null;
  /**
   * SPEC 2.2 double payment: a paid boleto whose Pix was paid too and is still held by the provider (the
   * gateway refunds it with `refund` and `paidWith: 'pix'`). False once that Pix is returned.
   */
  readonly duplicatePayment: boolean;
  /** `YYYY-MM-DD` when the provider gave a payment date. */
  readonly paidOn: string | null;
  readonly boletoDueDate: string | null;
  /**
   * The charge's artifacts as the read shows them (a boleto's line, barcode and its Pix, which may arrive
   * after creation; a Pix's copy-and-paste and QR); null when the answer carries none. `expires_at` is null:
   * the read does not give the deadline.
   */
  readonly artifacts: TransactionArtifacts | null;
}

/** What the gateway knows when it asks: used to check the answer is about the same charge (SPEC 4.6). */
export interface QueryTarget {
  readonly transactionId: string;
  readonly method: ChargeMethod;
  readonly amount: number;
  readonly providerReference: string;
  /** Boleto: the due date expected in the artifacts. */
  readonly boletoDueDate: string | null;
}

export interface RefundTarget {
  readonly transactionId: string;
  readonly method: ChargeMethod;
  readonly providerReference: string;
  readonly paidWith: ChargeMethod | null;
  /** The payer's account for a boleto paid by boleto (SPEC 4.8); never stored. */
  readonly bankAccount: Readonly<Record<string, string>> | null;
}

export interface DueDateTarget {
  readonly transactionId: string;
  readonly amount: number;
  readonly providerReference: string;
  /** New due date, `YYYY-MM-DD` (SPEC 4.8). */
  readonly dueDate: string;
  /** The boleto's options as reserved (the simulator derives `expires_at` from `cancel_after_due`). */
  readonly boleto: BoletoOptions | null;
}

export interface CancelTarget {
  readonly transactionId: string;
  readonly method: ChargeMethod;
  readonly providerReference: string;
}

/** Charges (SPEC 4.1-4.8): creation, reads, refund, due date and cancellation of a Pix or a boleto. */
export interface ChargesCapability {
  /**
   * SPEC 2.3 `provider_request`: the exact body `create` sends, built at reservation; null when the adapter
   * sends nothing anywhere (the simulator: SPEC 2.3 "null for the simulator").
   */
  buildRequest(charge: PortCharge, ctx: Pick<ProviderContext, 'environment'>): Record<string, unknown> | null;
  /** Sends `body` (from {@link buildRequest}) unchanged; `charge` is used to validate the answer. */
  create(
    charge: PortCharge,
    body: Record<string, unknown> | null,
    ctx: ProviderContext,
    now: Date,
  ): Promise<Outcome<IssuedCharge & { readonly providerReference: string }>>;
  query(target: QueryTarget, ctx: ProviderContext): Promise<Outcome<{ readonly charge: RemoteCharge }>>;
  /** For a charge left without an external id (SPEC 3.1 `unknown`): every remote charge with the reference. */
  queryByReference(
    transactionId: string,
    ctx: ProviderContext,
  ): Promise<Outcome<{ readonly charges: readonly RemoteCharge[] }>>;
  refund(
    target: RefundTarget,
    ctx: ProviderContext,
  ): Promise<Outcome<{ readonly refundStatus: 'succeeded' }>>;
  changeDueDate(target: DueDateTarget, ctx: ProviderContext): Promise<Outcome<IssuedCharge>>;
  cancel(target: CancelTarget, ctx: ProviderContext): Promise<Outcome<{ readonly cancelled: true }>>;
}

/** An adapter: its name and its capabilities; every one but `charges` is optional. */
export interface ProviderPort {
  readonly name: string;
  readonly charges: ChargesCapability;
  readonly payouts?: PayoutsCapability | undefined;
  readonly cards?: CardsCapability | undefined;
  readonly pixAutomatic?: PixAutomaticCapability | undefined;
  readonly subaccounts?: SubaccountsCapability | undefined;
}

/**
 * Card data as the payer typed it (SPEC 4.9, 8; wire doc wave 2b §1.2, §7.1): in memory for one `tokenize`
 * call only. Never stored, logged, echoed in an error or put in a body that is kept (SPEC 2.3 keeps a
 * redacted copy).
 */
export interface CardData {
  readonly holder: string;
  /** 13 to 19 digits, Luhn-valid (checked before reservation). */
  readonly number: string;
  /** `MM/YYYY`. */
  readonly expiration: string;
  /** 3 or 4 digits. */
  readonly securityCode: string;
}

/** The placeholder a kept copy of a card body carries instead of the token or the card data. */
export const REDACTED = '<redacted>';

/** A card charge as the port sees it (SPEC 4.9: immediate capture, 1 to 12 installments). */
export interface PortCardCharge {
  /** Local id (`txn_…`), also the provider reference. */
  readonly transactionId: string;
  /** Integer centavos. */
  readonly amount: number;
  readonly installments: number;
  readonly description: string;
  readonly customer: ProviderCustomer;
  readonly callbackUrl: string | null;
}

/**
 * Cards (issue 25; wire doc wave 2b §1, §7.1). The gateway reserves the charge, then `tokenize`s the card
 * data (the only call that carries it), then `charge`s by the token: a crash in between leaves no charge.
 * Reads and the integral refund of a card charge are `charges.query`/`queryByReference`/`refund` with
 * `method: 'credit_card'` (a card answer's statuses: 3/4 paid, 1/2 processing, 8 failed, 6 and 13 refunded,
 * 5 paid under dispute, anything else uncertain).
 */
export interface CardsCapability {
  /**
   * `issued`: the provider's reusable token (the caller encrypts it at once) and the brand when the answer
   * names one. `refused`: the provider will not tokenize this card. `uncertain`: no answer; no money moved.
   */
  tokenize(
    card: CardData,
    ctx: ProviderContext,
  ): Promise<Outcome<{ readonly token: string; readonly brand: string | null }>>;
  /**
   * SPEC 2.3 `provider_request` of a card charge, with the token as {@link REDACTED}; null when the adapter
   * sends nothing (the simulator).
   */
  buildChargeRequest(
    charge: PortCardCharge,
    ctx: Pick<ProviderContext, 'environment'>,
  ): Record<string, unknown> | null;
  /**
   * Sends `body` (from {@link buildChargeRequest}) with `token` in place of the redaction. `issued` with
   * status `paid` (3/4) or `processing` (1/2); `refused` for status 8 or `HasError` (diagnostics: a numeric
   * return code only, SPEC 2.2); `uncertain` for a timeout, a 5xx, an unparsable body or any other status:
   * the card may have been charged, so the caller never sends it again (SPEC 3.1 `unknown`).
   */
  charge(
    charge: PortCardCharge,
    body: Record<string, unknown> | null,
    token: string,
    ctx: ProviderContext,
    now: Date,
  ): Promise<Outcome<IssuedCharge & { readonly providerReference: string }>>;
}

export type Capability = Exclude<keyof ProviderPort, 'name'>;

/**
 * Calls an operation of `capability`, or answers *refused: not supported* when the adapter lacks it: the
 * one place a missing capability becomes an outcome (nothing is sent).
 */
export async function withCapability<C extends Capability, T>(
  adapter: ProviderPort,
  capability: C,
  call: (port: NonNullable<ProviderPort[C]>) => Promise<Outcome<T>>,
): Promise<Outcome<T>> {
  const port = adapter[capability];
  if (port === undefined) {
    return { kind: 'refused', reason: 'not_supported', providerReference: null, diagnostics: NO_DIAGNOSTICS };
  }
  return call(port as NonNullable<ProviderPort[C]>);
}

/**
 * Payouts (issue 22 item 4.2; wire doc wave 2b §5.2-5.3, §7.5): a bank transfer (TED) from the merchant's
 * provider balance to an account in the payer's own name, the refund of a boleto paid by boleto. The provider
 * has no idempotency: `identification` (`refund:txn_…`) is the only reference the gateway controls, so an
 * uncertain `payout` is reconciled with `findPayout` before anything is sent again. Payouts run only where the
 * provider record enables them (`boleto_refund_payout`, src/commands/providers/refund-payout.ts `refundPayoutEnabled`)
 * and its adapter has the capability.
 */

/** The payer's account as a payout sends it: digits only, check digits apart; never stored, logged or echoed. */
export interface PayoutBankAccount {
  /** COMPE bank code, 3 digits. */
  readonly bank_code: string;
  /** Branch (agência) without its check digit. */
  readonly branch: string;
  readonly branch_digit?: string | null;
  /** Account number without its check digit. */
  readonly account: string;
  readonly account_digit?: string | null;
  readonly account_type: 'checking' | 'savings';
}

/**
 * SPEC 4.8 `bank_account` (src/contract/transactions.ts: `account` is the number with its check digit as
 * the last character, `12345-6` or `123456`; `branch` has none) to a {@link PayoutBankAccount}.
 */
export function payoutBankAccount(spec: {
  readonly bank_code: string;
  readonly branch: string;
  readonly account: string;
  readonly account_type: 'checking' | 'savings';
}): PayoutBankAccount {
  const account = spec.account.replace('-', '');
  return {
    bank_code: spec.bank_code,
    branch: spec.branch,
    account: account.slice(0, -1),
    account_digit: account.slice(-1).toUpperCase(),
    account_type: spec.account_type,
  };
}

export interface PayoutRequest {
  /** The refunded charge (`txn_…`). */
  readonly transactionId: string;
  /** The reference sent as `Identification`, e.g. `refund:txn_…` (at most 100 characters). */
  readonly identification: string;
  /** Integer centavos (SPEC 1); decimal reais only on the wire. */
  readonly amount: number;
  /** The account holder: the boleto payer's name and document (CPF/CNPJ), as the provider's panel requires. */
  readonly receiverName: string;
  readonly receiverDocument: string;
  readonly bankAccount: PayoutBankAccount;
  /** `YYYY-MM-DD`, today in America/Sao_Paulo for a transfer sent now. */
  readonly compensationDate: string;
}

/** `PayoutRequest.compensationDate` for a transfer sent at `now`: the day in America/Sao_Paulo (UTC-3, no DST since 2019). */
export function payoutCompensationDate(now: Date): string {
  return new Date(now.getTime() - 3 * 3_600_000).toISOString().slice(0, 10);
}

/** What a poll compares the answer with: the transfer, its reference and its amount must all match. */
export interface PayoutQueryTarget {
  readonly transferId: string;
  readonly identification: string;
  /** Integer centavos. */
  readonly amount: number;
}

/** `processing` until the bank confirms (`transferred`) or gives the money back (`returned`). */
export type PayoutState = 'processing' | 'transferred' | 'returned';

export interface PayoutStatus {
  readonly state: PayoutState;
  /** `transferred`: the provider's confirmation (`HashConfirmation`), the refund's evidence; else null. */
  readonly confirmation: string | null;
  /** `returned`: the bank's occurrence code when one was given (1 to 10 letters or digits), else null. */
  readonly returnReason: string | null;
}

export interface PayoutsCapability {
  /**
   * Sends one transfer. `issued`: accepted and funded from the provider balance (`transferId` is what
   * {@link queryPayout} reads). `refused`: nothing will move (provider error; or an answer asking the merchant
   * to fund the lot by boleto, reason `not_supported`, never to be shown as done). `uncertain`: call
   * {@link findPayout} before sending again.
   */
  payout(input: PayoutRequest, ctx: ProviderContext): Promise<Outcome<{ readonly transferId: string }>>;
  queryPayout(target: PayoutQueryTarget, ctx: ProviderContext): Promise<Outcome<PayoutStatus>>;
  /** Every transfer the provider holds with this `identification`, oldest first; `[]`: none was made. */
  findPayout(
    identification: string,
    ctx: ProviderContext,
  ): Promise<Outcome<{ readonly transferIds: readonly string[] }>>;
}

/**
 * Pix Automatic (issue 27; SPEC 2.6, 3.2, 4.11; wire doc wave 2b §3, §7.3), modelled on the Banco Central's
 * objects: an authorization is a recurrence (`/rec`, `idRec`), a debit one recurring charge (`/cobr`) of
 * it. The provider's own wire (v3, third-party evidence only) sits behind this interface. Fixed amount,
 * no immediate charge (journey 2: the payer approves a QR of the recurrence only) and no bank retry when
 * funds are missing (`NAO_PERMITE`).
 */

/** SPEC 4.11 `interval_months` → BCB `periodicidade`. */
export const PERIODICITY = { 1: 'MENSAL', 3: 'TRIMESTRAL', 6: 'SEMESTRAL', 12: 'ANUAL' } as const;
export type IntervalMonths = keyof typeof PERIODICITY;

/** An authorization as the port creates it: the reservation's normalized copies. */
export interface PortAuthorization {
  /** Local id (`pxa_…`), sent as the contract (`vinculo.contrato`, `Contract`) and used to find it again. */
  readonly authorizationId: string;
  readonly name: string;
  readonly description: string;
  /** Fixed amount of every debit, integer centavos. */
  readonly amount: number;
  /** `YYYY-MM-DD`, the first expected debit (BCB `calendario.dataInicial`). */
  readonly firstDueDate: string;
  readonly intervalMonths: IntervalMonths;
  readonly customer: ProviderCustomer;
}

/**
 * SPEC 3.2 states a provider's authorization status maps to. `failed` is the Banco Central's `REJEITADA`
 * (the payer declined; docs/decisions.md "Pix Automatic (issue 27)"). Anything else is `uncertain`.
 */
export type RemoteAuthorizationStatus = 'pending' | 'approved' | 'expired' | 'cancelled' | 'failed';

export interface AuthorizationTarget {
  readonly authorizationId: string;
  /** The provider's id of the recurrence (`idRec`, v3 `Id`). */
  readonly providerReference: string;
}

/** One debit of an authorization, as the port schedules it. */
export interface PortDebit {
  /** Local id (`txn_…`), sent as the debit's reference. */
  readonly transactionId: string;
  readonly authorization: AuthorizationTarget;
  /** `YYYY-MM-DD`, a date of the authorized calendar, 2 to 10 days ahead (checked before reservation). */
  readonly dueDate: string;
  /** Integer centavos, the authorization's fixed amount. */
  readonly amount: number;
  readonly description: string;
}

/**
 * SPEC 3.1 states a debit maps to: `pending` scheduled (BCB `CRIADA`, `ATIVA`); `paid` (`CONCLUIDA`);
 * `expired` (`EXPIRADA`: no funds, no retry); `failed` (`REJEITADA`, or `CANCELADA` with `cancelled` set).
 */
export type RemoteDebitStatus = 'pending' | 'paid' | 'expired' | 'failed';

export interface RemoteDebit {
  /** The provider's id of the debit (BCB `txid`, v3 schedule `Id`). */
  readonly providerReference: string;
  /** The reference it was scheduled with (`txn_…`); null when the answer carries none. */
  readonly reference: string | null;
  readonly amount: number | null;
  readonly dueDate: string | null;
  readonly status: RemoteDebitStatus;
  /** The provider's status word as read (e.g. `CONCLUIDA`), for the record. */
  readonly providerStatus: string;
  /** `failed` because the payer or the receiver cancelled it (BCB `CANCELADA`), not because it was refused. */
  readonly cancelled: boolean;
  /** `YYYY-MM-DD` of the settlement when paid, else null. */
  readonly paidOn: string | null;
}

export interface DebitTarget {
  readonly transactionId: string;
  readonly authorization: AuthorizationTarget;
  readonly providerReference: string;
  readonly amount: number;
  readonly dueDate: string;
}

export interface PixAutomaticCapability {
  /**
   * SPEC 2.3 `provider_request` of an authorization: the exact body {@link createAuthorization} sends, built
   * at reservation; null for the simulator.
   */
  buildAuthorizationRequest(
    authorization: PortAuthorization,
    ctx: Pick<ProviderContext, 'environment'>,
  ): Record<string, unknown> | null;
  /**
   * `issued`: created and awaiting the payer (`copyPaste` is what the payer's bank app reads).
   * `refused`: confirmed refusal (SPEC 3.2 `failed`). `uncertain`: SPEC 3.2 `unknown`.
   */
  createAuthorization(
    authorization: PortAuthorization,
    body: Record<string, unknown> | null,
    ctx: ProviderContext,
    now: Date,
  ): Promise<Outcome<{ readonly providerReference: string; readonly copyPaste: string }>>;
  queryAuthorization(
    target: AuthorizationTarget,
    ctx: ProviderContext,
  ): Promise<Outcome<{ readonly status: RemoteAuthorizationStatus; readonly providerStatus: string }>>;
  /**
   * Revokes the consent (SPEC 4.11 `DELETE`). `issued`: the provider confirmed it cancelled (or already
   * had); `refused`: it will not (e.g. a debit's first attempt is today); `uncertain`: not confirmed
   * (`502 provider_cancel_unconfirmed`).
   */
  revokeAuthorization(
    target: AuthorizationTarget,
    ctx: ProviderContext,
  ): Promise<Outcome<{ readonly cancelled: true }>>;
  /**
   * Schedules one debit. The provider has no idempotency key here: an `uncertain` answer is followed by
   * {@link findDebits}, never by a second schedule.
   */
  scheduleDebit(
    debit: PortDebit,
    ctx: ProviderContext,
    now: Date,
  ): Promise<Outcome<{ readonly providerReference: string; readonly status: RemoteDebitStatus }>>;
  /** `now`: the simulator pays a simulated debit from its due date on (the test clock's time in test mode). */
  queryDebit(
    target: DebitTarget,
    ctx: ProviderContext,
    now: Date,
  ): Promise<Outcome<{ readonly debit: RemoteDebit }>>;
  /** Every debit of `authorization` scheduled with `transactionId` as its reference; `[]`: none was made. */
  findDebits(
    authorization: AuthorizationTarget,
    transactionId: string,
    ctx: ProviderContext,
  ): Promise<Outcome<{ readonly debits: readonly RemoteDebit[] }>>;
}

/**
 * Marketplace subaccounts (issue 28 items 2 and 6; SPEC 2.7, 2.8, 3.6, 4.14; wire doc §2.12-2.13, wave 2b §4,
 * §7.4). Management is synchronous (no webhook) and always uses the marketplace MATRIX's PRODUCTION key, even
 * for a provider whose charges are sandbox (SPEC 2.8): the caller passes that key in {@link MatrixContext}.
 * The provider has no idempotency and no reference field on a subaccount: an `uncertain` creation is
 * reconciled with {@link SubaccountsCapability.find} by document before anything is sent again (SPEC 3.6).
 */

/**
 * A credential the provider hands out (a subaccount's token or callback secret): returned only to the caller,
 * which encrypts it at once. Its text is a private field, so `JSON.stringify`, `String()`, template strings
 * and `console.log`/pino serializers all show `[secret]`; only {@link ProviderSecret.reveal} gives the value.
 */
export class ProviderSecret {
  readonly #value: string;
  constructor(value: string) {
    this.#value = value;
  }
  reveal(): string {
    return this.#value;
  }
  toString(): string {
    return '[secret]';
  }
  toJSON(): string {
    return '[secret]';
  }
  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return '[secret]';
  }
}

/** The call's key: the matrix's production key (SPEC 2.8), never a subaccount token nor a sandbox key. */
export interface MatrixContext {
  readonly matrixProductionKey: string | null;
  /** Ends the call: an aborted call is `uncertain` (the provider may have acted). */
  readonly signal: AbortSignal;
}

/** A payment method a subaccount fee applies to (Safe2Pay `PaymentMethodCode` 1, 6, 2). */
export type SubaccountFeeMethod = 'boleto' | 'pix' | 'credit_card';

/**
 * One method's fee (wire `MerchantSplit[]` item): a percentage and/or a fixed part, integers only here (the
 * adapter writes decimals on the wire). At least one part is set.
 */
export interface SubaccountFee {
  readonly method: SubaccountFeeMethod;
  /** Percentage in hundredths of a percent (175 = 1.75 %); null: no percentage part. */
  readonly percentHundredths: number | null;
  /** Fixed part in integer centavos; null: no fixed part. */
  readonly fixedCentavos: number | null;
  /** Whether the provider invoices its own fee to the subaccount (`IsSubaccountTaxPayer`) or to the matrix. */
  readonly subaccountPaysProviderFee: boolean;
}

/** The subaccount as the port creates it: the company, its legal responsible, address and payout account. */
export interface PortSubaccount {
  /** Legal name (at most 200 characters). */
  readonly name: string;
  readonly commercialName: string;
  /** CPF (11) or CNPJ (14) digits: what reconciliation matches on. */
  readonly document: string;
  readonly email: string;
  readonly responsible: {
    readonly name: string;
    /** CPF, 11 digits. */
    readonly document: string;
    /** 10 or 11 digits, no +55. */
    readonly phone: string;
    /** `YYYY-MM-DD`. */
    readonly birthDate: string;
  };
  readonly address: NonNullable<ProviderCustomer['address']>;
  /** Where the provider pays the subaccount out; in its own document. Never stored, logged or echoed. */
  readonly bankAccount: PayoutBankAccount;
  /** Omitted: the provider's defaults. */
  readonly fees?: readonly SubaccountFee[];
}

/** The four credentials of a subaccount; null when the answer carries none (never an empty secret). */
export interface SubaccountCredentials {
  readonly productionToken: ProviderSecret | null;
  readonly sandboxToken: ProviderSecret | null;
  /** The secrets the provider echoes in that account's callbacks (wire doc wave 2b §6.1). */
  readonly productionSecretKey: ProviderSecret | null;
  readonly sandboxSecretKey: ProviderSecret | null;
}

/** A subaccount as the provider shows it. No bank data: it never leaves the adapter. */
export interface RemoteSubaccount {
  readonly providerReference: string;
  readonly document: string | null;
  readonly name: string | null;
  readonly email: string | null;
  /** `IsRemoved`: deleted at the provider (the link is to be disabled). */
  readonly removed: boolean;
  /** The fee list as read; null when the answer has none. */
  readonly fees: readonly SubaccountFee[] | null;
  readonly credentials: SubaccountCredentials;
}

export interface SubaccountUpdate {
  readonly providerReference: string;
  readonly name?: string;
  readonly commercialName?: string;
  readonly email?: string;
  readonly responsible?: PortSubaccount['responsible'];
  readonly address?: PortSubaccount['address'];
  readonly bankAccount?: PayoutBankAccount;
  /** SPEC 4.14: a list replaces ALL fees and methods (`[]` removes them); omitted, they are kept. */
  readonly fees?: readonly SubaccountFee[];
}

export interface SubaccountsCapability {
  /**
   * `issued`: created, with its tokens (`credentials`). `refused`: not created (`matrix_sandbox_key` for
   * code 301, `not_marketplace` for 300, `provider_error` with a sanitized code for a validation such as
   * 1343/1346/1273). `uncertain`: it may exist; call {@link find} with the document before a new attempt.
   */
  create(
    input: PortSubaccount,
    ctx: MatrixContext,
  ): Promise<Outcome<{ readonly subaccount: RemoteSubaccount }>>;
  get(
    providerReference: string,
    ctx: MatrixContext,
  ): Promise<Outcome<{ readonly subaccount: RemoteSubaccount }>>;
  /** Every subaccount of the matrix with this document (removed ones too, flagged); `[]`: none. */
  find(
    document: string,
    ctx: MatrixContext,
  ): Promise<Outcome<{ readonly subaccounts: readonly RemoteSubaccount[] }>>;
  update(
    input: SubaccountUpdate,
    ctx: MatrixContext,
  ): Promise<Outcome<{ readonly subaccount: RemoteSubaccount }>>;
  /** Deletes it at the provider (not in the SPEC; a deleted document can be registered again). */
  remove(providerReference: string, ctx: MatrixContext): Promise<Outcome<{ readonly removed: true }>>;
}
