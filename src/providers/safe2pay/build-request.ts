import type { PortCharge, ProviderCustomer, ProviderEnvironment } from '../port.ts';
import { toProviderDate } from './dates.ts';
import { centavosToReais } from './money.ts';

/**
 * The Safe2Pay `POST /v2/Payment` body (wire doc 2.4-2.6), built once at reservation and stored as SPEC 2.3
 * `provider_request`; `create` sends this object unchanged. Field names and shapes follow the official SDK
 * models (npm `safe2pay` lib/Models: Transaction, Customer, Address, Product, Pix, Bankslip).
 */

export const PAYMENT_METHOD = { boleto: '1', credit_card: '2', pix: '6' } as const;

export interface BuildOptions {
  /** `Application` names the integrating system in the provider's panel (wire doc 2.4, at most 100). */
  readonly application: string;
  /** The gateway's own receiver of Safe2Pay notifications, when configured (wire doc 2.16). */
  readonly notificationUrl: string | null;
}

/** The payer as the official `Customer` model (wire doc 2.4); shared by every charge body (cards.ts too). */
export function customer(c: ProviderCustomer): Record<string, unknown> {
  const a = c.address;
  return {
    Name: c.name ?? '',
    Identity: c.document ?? '',
    ...(c.phone !== undefined ? { Phone: c.phone } : {}),
    ...(c.email !== undefined ? { Email: c.email } : {}),
    ...(a
      ? {
          Address: {
            ZipCode: a.zip_code,
            Street: a.street,
            Number: a.number,
            ...(a.complement !== undefined ? { Complement: a.complement } : {}),
            District: a.district,
            CityName: a.city,
            StateInitials: a.state,
            CountryName: 'Brasil',
          },
        }
      : {}),
  };
}

function paymentObject(charge: PortCharge): Record<string, unknown> {
  if (charge.method === 'pix') {
    // Official Pix model has the single field `Expiration`, in seconds (wire doc 2.5).
    return { Expiration: charge.expiresIn ?? 3600 };
  }
  const o = charge.boleto;
  // A card is charged by its token through the cards capability (cards.ts), never by this body.
  if (!o) throw new TypeError('a boleto charge needs its boleto options');
  return {
    DueDate: toProviderDate(o.due_date),
    ...(o.instruction ? { Instruction: o.instruction } : {}),
    PenaltyRate: o.penalty_rate,
    InterestRate: o.interest_rate,
    CancelAfterDue: o.cancel_after_due,
    DaysBeforeCancel: o.days_before_cancel,
  };
}

/** What every `/v2/Payment` body carries besides its method's `PaymentObject`. */
export interface PaymentBodyBase {
  /** `txn_…`, sent as `Reference`. */
  readonly transactionId: string;
  /** Integer centavos; decimal reais only on the wire. */
  readonly amount: number;
  readonly description: string;
  readonly customer: ProviderCustomer;
}

/** A `/v2/Payment` body of `method` with its `PaymentObject` (wire doc 2.4; wave 2b §1.3 for the card). */
export function paymentBody(
  charge: PaymentBodyBase,
  method: keyof typeof PAYMENT_METHOD,
  object: Record<string, unknown>,
  environment: ProviderEnvironment,
  options: BuildOptions,
): Record<string, unknown> {
  return {
    IsSandbox: environment === 'sandbox',
    Application: options.application,
    ...(options.notificationUrl ? { CallbackUrl: options.notificationUrl } : {}),
    Reference: charge.transactionId,
    PaymentMethod: PAYMENT_METHOD[method],
    PaymentObject: object,
    Customer: customer(charge.customer),
    // No top-level amount in the official SDKs: the charge value is the sum of the products (wire doc 2.4).
    Products: [
      { Code: '1', Description: charge.description, UnitPrice: centavosToReais(charge.amount), Quantity: 1 },
    ],
  };
}

export function buildPaymentBody(
  charge: PortCharge,
  environment: ProviderEnvironment,
  options: BuildOptions,
): Record<string, unknown> {
  return paymentBody(charge, charge.method, paymentObject(charge), environment, options);
}
