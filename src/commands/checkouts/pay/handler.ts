import {
  acceptsPayments,
  type CheckoutCustomer,
  type CheckoutMethod,
  checkout,
  offeredMethods,
} from '../../../aggregates/checkout.ts';
import { DomainError } from '../../../aggregates/decider.ts';
import { saoPauloDate } from '../../../aggregates/transaction.ts';
import { newBoletoBody, newPixBody } from '../../../contract/charges.ts';
import { creditCardInput } from '../../../contract/credit-card.ts';
import type { EventMetadata } from '../../../events/event-store.ts';
import { handleCommand } from '../../command-handler.ts';
import type { AppContext } from '../../context.ts';
import type { CardCharge } from '../../credit-card/card-charge.ts';
import { cardChargeFromData } from '../../credit-card/card-from-data.ts';
import { foldSubscription } from '../../subscriptions/record.ts';
import { type ChargeBody, createCharge } from '../../transactions/create/handler.ts';
import { checkoutStream, foldCheckout } from '../record.ts';

/** The route a checkout's charges are hashed under (their Idempotency-Key is the checkout's, see below). */
export const CHECKOUT_CHARGE_ROUTE = '/checkout/{id}/pay';

/** A form nonce: 16 random bytes as base64url, made when the page is rendered. */
export const NONCE_SHAPE = /^[A-Za-z0-9_-]{22}$/;

export interface PayInput {
  checkoutId: string;
  method: string;
  /** The one-time nonce of the form the payer posted. */
  nonce: string;
  /** The payer's data from the form, only when the checkout has no customer. */
  payer?: CheckoutCustomer | undefined;
  /**
   * The card typed on the page (method credit_card): held in this request's memory for the one provider
   * call only, never stored, logged or shown again (the card charge's own rules, src/commands/credit-card/).
   */
  card?: PayerCard | undefined;
}

export interface PayerCard {
  holder?: string | undefined;
  number?: string | undefined;
  expiration?: string | undefined;
  security_code?: string | undefined;
}

export type PayOutcome = { kind: 'charged'; transactionId: string } | { kind: 'closed' };

function addDays(date: string, days: number): string {
  const d = new Date(`${date}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + days);
  return d.toISOString().slice(0, 10);
}

/** SPEC 4.1, 4.2 payer rules, read by the charge bodies' own schemas: the first field at fault. */
function payerIssue(method: CheckoutMethod, customer: CheckoutCustomer): DomainError | undefined {
  const schema = (method === 'boleto' ? newBoletoBody : newPixBody).shape.customer;
  const parsed = schema.safeParse(customer);
  if (parsed.success) return undefined;
  const issue = parsed.error.issues[0];
  const param = ['customer', ...(issue?.path ?? []).map(String)].join('.');
  return new DomainError('validation_error', issue?.message ?? 'invalid', { param });
}

/**
 * The card a payer typed, as POST /v1/credit-card takes it (src/commands/credit-card/create/route.ts): shape
 * and Luhn by the card contract, one installment, the masked card and the keyed fingerprint idempotency
 * compares. A refused field names it (`credit_card.<field>`), never its value.
 */
async function cardCharge(ctx: AppContext, typed: PayerCard): Promise<CardCharge> {
  const parsed = creditCardInput.safeParse({
    holder: typed.holder,
    number: typed.number?.replace(/[\s.-]/g, ''),
    expiration: typed.expiration?.trim(),
    security_code: typed.security_code?.trim(),
  });
  if (!parsed.success) {
    const field = String(parsed.error.issues[0]?.path[0] ?? 'number');
    throw new DomainError('validation_error', 'The card data is invalid.', { param: `credit_card.${field}` });
  }
  const data = {
    holder: (parsed.data.holder as string).trim(),
    number: parsed.data.number as string,
    expiration: parsed.data.expiration as string,
    securityCode: parsed.data.security_code as string,
  };
  return cardChargeFromData(ctx.config, data, 1);
}

/**
 * The payer picked a method on the page (docs/decisions.md "Hosted checkout (issue 25)"): the charge is made
 * by the command of POST /v1/pix, /v1/boleto and /v1/credit-card (`createCharge`: same validation, routing, production
 * controls, money-once reservation), for the checkout's tenant and mode, with the checkout's amount,
 * reference, description, cost center and callback_url (SPEC 6: the checkout's callback_url receives its
 * charges' events). Its Idempotency-Key is `checkout.<checkout id>.<form nonce>`, so a double submit of one
 * form makes one charge, and another form (another nonce) a new attempt. The charge is then linked to the
 * checkout (`Checkout.PaymentStarted`; a repeat is a no-op), whatever its outcome; a refused charge (a
 * declined card) is followed at once, so the page offers the methods again.
 */
export async function payCheckout(
  ctx: AppContext,
  input: PayInput,
  metadata: EventMetadata,
): Promise<PayOutcome> {
  const folded = await foldCheckout(ctx, input.checkoutId);
  if (!folded) throw new DomainError('not_found', 'The checkout does not exist.');
  const c = folded.state.created;
  // A card past the carding cap is refused here, before any charge, like a method never offered.
  const method = offeredMethods(folded.state).find((m) => m === input.method);
  if (!method)
    throw new DomainError('validation_error', 'Choose one of the offered methods.', { param: 'method' });
  if (!NONCE_SHAPE.test(input.nonce)) {
    throw new DomainError('validation_error', 'The form expired; reload the page.', { param: 'nonce' });
  }
  if (!acceptsPayments(folded.state, ctx.now())) return { kind: 'closed' };
  const customer = c.customer ?? input.payer ?? {};
  const issue = payerIssue(method, customer);
  if (issue) throw issue;
  const card = method === 'credit_card' ? await cardCharge(ctx, input.card ?? {}) : undefined;
  // SPEC 4.10: a subscription's Pix link charges with the subscription's cost center as it is now.
  const subscription =
    c.subscription_id === undefined ? undefined : await foldSubscription(ctx, c.subscription_id);
  const costCenter = subscription ? subscription.state.costCenterId : c.cost_center_id;
  const body: ChargeBody = {
    amount: c.amount,
    reference: c.reference,
    description: c.description,
    customer,
    ...(costCenter !== null ? { cost_center_id: costCenter } : {}),
    ...(c.callback_url !== null ? { callback_url: c.callback_url } : {}),
  };
  if (method === 'boleto') {
    const o = c.boleto ?? { due_in_days: 3 };
    body.boleto = {
      due_date: addDays(saoPauloDate(ctx.now()), o.due_in_days),
      ...(o.instruction !== undefined ? { instruction: o.instruction } : {}),
      ...(o.cancel_after_due !== undefined ? { cancel_after_due: o.cancel_after_due } : {}),
      ...(o.days_before_cancel !== undefined ? { days_before_cancel: o.days_before_cancel } : {}),
    };
  }
  const deps = { store: ctx.store, registry: ctx.events, now: () => ctx.now() };
  const link = (transactionId: string) =>
    handleCommand(
      deps,
      checkout,
      checkoutStream(c.checkout_id),
      { kind: 'start', transactionId, method },
      { metadata, retryOnConflict: true },
    );
  const charged = await createCharge(
    ctx,
    {
      tenantId: c.tenant_id,
      livemode: c.livemode,
      method,
      idempotencyKey: `checkout.${c.checkout_id}.${input.nonce}`,
      route: CHECKOUT_CHARGE_ROUTE,
      body,
      ...(card ? { card } : {}),
      // Checked when the link was created; a center deactivated since still classifies its charges.
      inheritedCostCenter: true,
    },
    metadata,
  ).catch(async (error: unknown) => {
    // Reserved, but its result not saved (SPEC 7 reconciliation_required): the charge exists and may be
    // settled paid by the reconciler, so it is linked before the refusal goes up; never lost.
    const id = error instanceof DomainError ? error.details.transaction_id : undefined;
    if (error instanceof DomainError && error.code === 'reconciliation_required' && typeof id === 'string') {
      await link(id);
    }
    throw error;
  });
  await link(charged.transactionId);
  return { kind: 'charged', transactionId: charged.transactionId };
}
