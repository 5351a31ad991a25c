import {
  type CheckoutCreatedData,
  type CheckoutState,
  type CheckoutStatus,
  checkout,
} from '../../aggregates/checkout.ts';
import { ApiError } from '../../aggregates/errors.ts';
import { documentSigningSecret } from '../../charge-page/signing-secret.ts';
import { checkoutUrl } from '../../checkout-page/signature.ts';
import type { CheckoutView } from '../../contract/checkouts.ts';
import type { AppContext } from '../context.ts';
import { costCenterNames } from '../cost-centers/names.ts';
import { type FoldedStream, foldExisting } from '../fold-stream.ts';
import { keyReads } from '../tenancy.ts';

/** Hosted checkouts (SPEC 2.7, 4.9): stream, fold and the public view. */

export const checkoutStream = (checkoutId: string) => `checkout-${checkoutId}`;

export type OpenedCheckout = Exclude<CheckoutState, { status: 'none' }>;

export type FoldedCheckout = FoldedStream<OpenedCheckout>;

/** A checkout folded from its stream (always consistent, unlike the read model); ids not `chk_…` are never read. */
export async function foldCheckout(
  ctx: Pick<AppContext, 'store' | 'events'>,
  checkoutId: string,
): Promise<FoldedCheckout | undefined> {
  if (!/^chk_[a-z0-9]{1,60}$/.test(checkoutId)) return undefined;
  return foldExisting(ctx.store, (r) => ctx.events.decodeStored(r), checkout, checkoutStream(checkoutId));
}

/** The public view (src/contract/checkouts.ts); phone and address never leave (SPEC 2.2 rule 4, by analogy). */
export interface CheckoutFacts {
  created: CheckoutCreatedData;
  status: CheckoutStatus;
  transactionIds: readonly string[];
  paidTransactionId: string | null;
  latePayments: readonly string[];
  createdAt: Date;
  updatedAt: Date;
}

/** What the view shows of a folded checkout. */
export function factsOf(folded: { state: OpenedCheckout; createdAt: Date; updatedAt: Date }): CheckoutFacts {
  return {
    created: folded.state.created,
    status: folded.state.status,
    transactionIds: folded.state.attempts.map((a) => a.transactionId),
    paidTransactionId: folded.state.paidTransactionId,
    latePayments: folded.state.latePayments,
    createdAt: folded.createdAt,
    updatedAt: folded.updatedAt,
  };
}

export function checkoutViewOf(
  facts: CheckoutFacts,
  url: string,
  costCenterName: string | null,
): CheckoutView {
  const c = facts.created;
  const customer = c.customer
    ? {
        ...(c.customer.name !== undefined ? { name: c.customer.name } : {}),
        ...(c.customer.document !== undefined ? { document: c.customer.document } : {}),
        ...(c.customer.email !== undefined ? { email: c.customer.email } : {}),
      }
    : null;
  return {
    id: c.checkout_id,
    tenant_id: c.tenant_id,
    livemode: c.livemode,
    status: facts.status,
    methods: [...c.methods],
    amount: c.amount,
    currency: 'BRL',
    reference: c.reference,
    description: c.description,
    customer,
    url,
    expires_at: c.expires_at,
    transaction_ids: [...facts.transactionIds],
    paid_transaction_id: facts.paidTransactionId,
    late_payments: [...facts.latePayments],
    callback_url: c.callback_url,
    cost_center_id: c.cost_center_id,
    cost_center_name: costCenterName,
    created_at: facts.createdAt.toISOString(),
    updated_at: facts.updatedAt.toISOString(),
  };
}

/** The view of a folded checkout, its link signed and its cost center named. */
export async function toCheckoutView(
  ctx: Pick<AppContext, 'db' | 'config'>,
  folded: { state: OpenedCheckout; createdAt: Date; updatedAt: Date },
): Promise<CheckoutView> {
  const secret = await documentSigningSecret(ctx.config);
  const c = folded.state.created;
  const names = c.cost_center_id ? await costCenterNames(ctx, [c.cost_center_id]) : new Map<string, string>();
  return checkoutViewOf(
    factsOf(folded),
    checkoutUrl(ctx.config.baseUrl, secret, c.checkout_id),
    c.cost_center_id ? (names.get(c.cost_center_id) ?? null) : null,
  );
}

/**
 * SPEC 4.9 with 4.4's rule: the key's own tenant or a descendant's, in the key's mode; anything else, missing
 * included, is `404 not_found`.
 */
export async function readableCheckout(
  ctx: Pick<AppContext, 'store' | 'events'>,
  principal: { tenantId: string; livemode: boolean },
  checkoutId: string,
): Promise<FoldedCheckout> {
  const folded = await foldCheckout(ctx, checkoutId);
  if (
    !folded ||
    !(await keyReads({ store: ctx.store, registry: ctx.events }, principal, folded.state.created))
  ) {
    throw new ApiError('not_found', 'The checkout does not exist.');
  }
  return folded;
}
