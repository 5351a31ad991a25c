import type { ErrorCode } from '../../errors.ts';
import type { BoletoOptions } from '../events.ts';
import type { ChargeKind, ChargeMethod } from '../vocabulary.ts';

export interface SandboxRefusal {
  readonly code: Extract<ErrorCode, `provider_${string}_sandbox_unsupported`>;
  readonly message: string;
}

/** A creation field a method refuses (422 validation_error on `param`), in the decider's words. */
export interface MethodRefusal {
  readonly param: string;
  readonly message: string;
}

/** The method's own fields of a reservation (SPEC 4.1, 4.2): the rest is common to every method. */
export interface MethodFields {
  readonly expiresIn: number | null;
  readonly boleto: BoletoOptions | null;
}

/**
 * What differs between kinds of charge (DESIGN.md "Providers": "a new method is a new policy, not new
 * branches across the file"). The one transaction decider and the transaction handlers ask the charge's
 * policy instead of testing `method`; card, checkout and Pix Automatic land as new policies. Pure data and
 * pure functions: a policy holds no I/O and no clock.
 */
export interface ChargePolicy {
  /** The kind it is the policy of: its key in CHARGE_POLICIES. */
  readonly kind: ChargeKind;
  /** The method a charge of this kind is created with (SPEC 2.2 `method`). */
  readonly method: ChargeMethod;
  /** The API key scope a write on a charge of this method needs besides its own (SPEC 5.3). */
  readonly writeScope: `${ChargeMethod}:write`;
  /**
   * Null when the external provider's sandbox serves this kind; otherwise the refusal of a charge routed there
   * (SPEC 1: boleto only; Pix `provider_pix_sandbox_unsupported`, card its sibling).
   */
  readonly sandboxRefusal: SandboxRefusal | null;
  /** The charge carries `expires_in` seconds from its reservation (SPEC 4.1; default 3600). */
  readonly expiresIn: boolean;
  /** The charge needs boleto options (due date, fines, SPEC 4.2). */
  readonly boletoOptions: boolean;
  /** The creation checks of the method's own fields (decider cell (c)); null when they hold. */
  checkFields(fields: MethodFields): MethodRefusal | null;
  /** Provider status 2 (a payment intent, SPEC 3.1) is a known status (decider cell (b)). */
  readonly paymentIntent: boolean;
  /** Whether a provider read paid with `paidWith` (and maybe twice) is a valid payment of this charge. */
  acceptsPayment(paidWith: ChargeMethod, duplicatePayment: boolean): boolean;
  /**
   * The provider may report the charge failed after it was issued (decider cell (x)): a Pix Automatic debit
   * the payer's bank rejected or that was cancelled (docs/decisions.md "Pix Automatic (issue 27): debits and
   * polling"). False for the rest: their failures are known at creation only.
   */
  readonly failsAfterIssue: boolean;
  /** The charge expires when `expires_at` passes, without a provider status (decider cell (e)). */
  readonly deadlineExpires: boolean;
  /** The charge has a due date that can be changed (SPEC 4.8; decider cell (d)). */
  readonly dueDate: boolean;
  /** A real charge may get a Pix after creation and be paid by both it and that Pix (SPEC 2.2, 4.2). */
  readonly boletoPix: boolean;
  /** A refund of a charge paid with `paidWith` goes to the payer's bank account (SPEC 4.8 `bank_account`). */
  refundNeedsBankAccount(paidWith: ChargeMethod | null): boolean;
  /**
   * The charge can be refunded through SPEC 4.8 (the provider's refund, or a payout). False for a Pix
   * Automatic debit: its return is not the Pix charge's refund (docs/decisions.md "Pix Automatic (issue 27):
   * debits and polling"), refused before anything is reserved.
   */
  readonly refundable: boolean;
}
