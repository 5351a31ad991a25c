import type { Selectable } from 'kysely';
import type { z } from 'zod';
import type { Role } from '../../aggregates/access.ts';
import { ApiError } from '../../aggregates/errors.ts';
import { splitOf } from '../../aggregates/fees.ts';
import {
  type BoletoDetails,
  type TransactionReservedData,
  transaction,
} from '../../aggregates/transaction.ts';
import { signedDocumentUrl } from '../../charge-page/signature.ts';
import { documentSigningSecret } from '../../charge-page/signing-secret.ts';
import { documentSignatureOf } from '../../charge-page/stored-signature.ts';
import type { TransactionView, transactionRequestView } from '../../contract/transactions.ts';
import type { TransactionsTable } from '../../db/schema.ts';
import { transactionRowFromState } from '../../projections/transactions.ts';
import type { AppContext } from '../context.ts';
import { loadCostCenter } from '../cost-centers/record.ts';
import { foldExisting } from '../fold-stream.ts';
import { isTenantInTree } from '../tenancy.ts';
import { type Instant, isoOfUtcText, isoOrNull, type ListRow } from './list/list-query.ts';
import { transactionStream } from './shared/stream.ts';

export {
  type TransactionView,
  transactionRequestView,
  transactionView,
} from '../../contract/transactions.ts';

/**
 * SPEC 2.3 / 4.5: the creation snapshot of a transaction the caller may read (checked by the caller), for
 * GET /v1/transactions/{id}/request and its panel alias; none stored is `404 not_found`.
 */
/** SPEC 2.3 from the reservation, as the `transaction_requests` projection stores it (DESIGN.md "Reads"). */
export function transactionRequestData(folded: FoldedTransaction): z.infer<typeof transactionRequestView> {
  return {
    transaction_id: folded.row.id,
    source: 'captured',
    request: folded.reserved.request,
    provider_request: folded.reserved.provider_request,
    missing_fields: [],
  };
}

/**
 * Issue 23 item 2.10, SPEC 5.7 (docs/decisions.md "Provider hosts, webhook URLs, events visibility"): who
 * among the panel roles sees the payer's personal data of a charge (the creation snapshot's `customer`, the
 * `provider_request` built from it, a refund's bank-account reference). super_admin and tenant_admin do (they
 * act on the charge: refunds, due dates, support); a viewer reads the charge as SPEC 2.2 shows it, which
 * holds no payer data, so every panel read (the snapshot alias and the event history) withholds it.
 */
export function seesPayerData(role: Role): boolean {
  return role !== 'viewer';
}

/** The creation snapshot without the payer: `customer` null (its keys would already say what was given). */
function withoutCustomer(request: Record<string, unknown>): Record<string, unknown> {
  return 'customer' in request ? { ...request, customer: null } : request;
}

/** transactionRequestData as `role` may see it (seesPayerData): a viewer's has no payer data. */
export function transactionRequestDataFor(
  folded: FoldedTransaction,
  role: Role,
): z.infer<typeof transactionRequestView> {
  const data = transactionRequestData(folded);
  if (seesPayerData(role)) return data;
  return { ...data, request: withoutCustomer(data.request), provider_request: null };
}

/**
 * One event payload of a charge's history as `role` may see it: for a viewer, `Transaction.Reserved` without
 * the payer (its snapshot's customer and its provider_request) and a refund request without the bank
 * account's vault reference; everything else as recorded.
 */
export function transactionEventDataFor(
  type: string,
  data: Record<string, unknown>,
  role: Role,
): Record<string, unknown> {
  if (seesPayerData(role)) return data;
  if (type === 'Transaction.Reserved') {
    const request = data.request;
    return {
      ...data,
      ...(isPlainRecord(request) ? { request: withoutCustomer(request) } : {}),
      ...('provider_request' in data ? { provider_request: null } : {}),
    };
  }
  if ('bank_account' in data) {
    const { bank_account: _withheld, ...rest } = data;
    return rest;
  }
  return data;
}

function isPlainRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const iso = (v: Date | string | null): string | null =>
  v === null ? null : (v instanceof Date ? v : new Date(v)).toISOString();

type Row = Selectable<TransactionsTable>;

/**
 * The view of a `transactions` row, folded or projected. Lists pass the centers' names they read from the
 * read model; without `names`, the center's name is folded from its stream (a read by id stays consistent).
 */
export async function toTransactionView(
  ctx: Pick<AppContext, 'config' | 'now' | 'store' | 'events'>,
  row: Row,
  names?: Map<string, string>,
): Promise<TransactionView> {
  const secret = await documentSigningSecret(ctx.config);
  const ccNames = names ?? (await foldedCostCenterName(ctx, row.cost_center_id));
  return transactionViewOf(row, ccNames, { baseUrl: ctx.config.baseUrl, secret, now: ctx.now() });
}

/** What every view of a page shares: resolved once per page, not once per row (issue 14, B3). */
export interface ViewContext {
  baseUrl: string;
  /** The document signing secret (documentSigningSecret). */
  secret: string;
  /** The instant the boleto's Pix deadline is compared with. */
  now: Date;
}

/** What both views take as stored: every column they read but the instants and the boleto link. */
type StoredColumns = Omit<ListRow, Instant | 'has_boleto_url' | 'document_signature'>;

/** The SPEC 2.2 view, once for both readers: the stored columns, the instants as ISO text, the links. */
function viewOf(
  row: StoredColumns,
  times: Record<Instant, string | null>,
  links: { documentUrl: string; hasBoletoUrl: boolean },
  now: Date,
  ccNames: Map<string, string>,
): TransactionView {
  const uncertain = row.status === 'unknown' || row.status === 'processing';
  // The ISO text is the deadline truncated to the millisecond, as the stored instant is.
  const pixDeadline = times.boleto_pix_expires_at;
  const boletoPixLive =
    row.status === 'pending' && pixDeadline !== null && now.getTime() <= Date.parse(pixDeadline);
  const { documentUrl } = links;
  return {
    id: row.id,
    tenant_id: row.tenant_id,
    amount: Number(row.amount),
    // SPEC 2.2: fixed at issuance; older history (no fee facts) retained nothing.
    retained_amount: row.fees?.retained_amount ?? 0,
    currency: row.currency,
    status: row.status,
    method: row.method,
    reference: row.reference,
    description: row.description,
    simulated: row.simulated,
    environment: row.environment,
    livemode: row.livemode,
    pix_copy_paste: uncertain ? null : row.pix_copy_paste,
    pix_qr_code: uncertain ? null : row.pix_qr_code,
    expires_at: times.expires_at,
    provider_reference: row.provider_reference,
    subaccount_id: row.subaccount_id,
    failure_code: row.failure_code,
    provider_error_code: row.provider_error_code,
    provider_error_message: row.provider_error_message,
    provider_http_status: row.provider_http_status,
    boleto_due_date: row.boleto_due_date,
    boleto_url: links.hasBoletoUrl ? `${documentUrl}/boleto.pdf` : null,
    document_url: documentUrl,
    boleto_digitable_line: row.boleto_digitable_line,
    boleto_barcode: row.boleto_barcode,
    boleto_pix_copy_paste: boletoPixLive ? row.boleto_pix_copy_paste : null,
    boleto_pix_expires_at: pixDeadline,
    paid_with: row.paid_with,
    paid_at: times.paid_at,
    duplicate_payment_at: times.duplicate_payment_at,
    split: splitOf(Number(row.amount), row.fees, row.paid_with),
    tenant_fee_id: row.fees?.tenant_fee_id ?? null,
    fee_starts_on: row.fees?.fee_starts_on ?? null,
    cost_center_id: row.cost_center_id,
    cost_center_name: row.cost_center_id ? (ccNames.get(row.cost_center_id) ?? null) : null,
    callback_url: row.callback_url,
    refund: row.refund_status === null ? null : { status: row.refund_status },
    credit_card: row.credit_card === null ? null : { card_id: row.card_id, ...row.credit_card },
    pix_automatic_authorization_id: row.pix_automatic_authorization_id,
    scheduled_due_date: row.scheduled_due_date,
    created_at: times.created_at ?? '',
    updated_at: times.updated_at ?? '',
  };
}

/** toTransactionView without the awaits: the names and secret already in hand. */
export function transactionViewOf(
  row: Row,
  ccNames: Map<string, string>,
  view: ViewContext,
): TransactionView {
  // The read model's signature when it was made with this secret: no HMAC per row (issue 14).
  const documentUrl = signedDocumentUrl(
    view.baseUrl,
    row.id,
    documentSignatureOf(view.secret, row.id, row.document_signature ?? null),
  );
  const times = {
    expires_at: iso(row.expires_at),
    boleto_pix_expires_at: iso(row.boleto_pix_expires_at),
    paid_at: iso(row.paid_at),
    duplicate_payment_at: iso(row.duplicate_payment_at),
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  };
  return viewOf(row, times, { documentUrl, hasBoletoUrl: row.boleto_url !== null }, view.now, ccNames);
}

/** What a list page's views share: ViewContext and the document links' prefix, built once per page. */
export interface ListViewContext extends ViewContext {
  /** `{base_url}/cobranca/` as signedDocumentUrl writes it (a trailing slash on the base dropped). */
  documentPrefix: string;
}

export function listViewContext(view: ViewContext): ListViewContext {
  return { ...view, documentPrefix: `${view.baseUrl.replace(/\/+$/, '')}/cobranca/` };
}

/**
 * transactionViewOf for a row of the list statement (src/commands/transactions/list/list-query.ts): the
 * same SPEC 2.2 view from the columns the view reads, timestamps already UTC text (issue 14, B3).
 * test/http/transaction-list.test.ts checks every field against GET /v1/transactions/{id}.
 */
export function transactionListViewOf(
  row: ListRow,
  ccNames: Map<string, string>,
  view: ListViewContext,
): TransactionView {
  const documentUrl = `${view.documentPrefix}${encodeURIComponent(row.id)}/${documentSignatureOf(
    view.secret,
    row.id,
    row.document_signature,
  )}`;
  const times = {
    expires_at: isoOrNull(row.expires_at),
    boleto_pix_expires_at: isoOrNull(row.boleto_pix_expires_at),
    paid_at: isoOrNull(row.paid_at),
    duplicate_payment_at: isoOrNull(row.duplicate_payment_at),
    created_at: isoOfUtcText(row.created_at),
    updated_at: isoOfUtcText(row.updated_at),
  };
  return viewOf(row, times, { documentUrl, hasBoletoUrl: row.has_boleto_url }, view.now, ccNames);
}

async function foldedCostCenterName(
  ctx: Pick<AppContext, 'store' | 'events'>,
  id: string | null,
): Promise<Map<string, string>> {
  const center = id ? await loadCostCenter({ store: ctx.store, registry: ctx.events }, id) : undefined;
  return center ? new Map([[center.id, center.name]]) : new Map();
}

export interface FoldedTransaction {
  /** The row the `transactions` projection holds, or will hold once it has applied the stream. */
  row: Row;
  /** The reservation, with the SPEC 2.3 creation snapshot. */
  reserved: TransactionReservedData;
  /** The provider's FEBRABAN fields of a boleto, for its PDF only (not a Transaction field). */
  boletoDetails: BoletoDetails | null;
}

/**
 * A charge folded from its stream (DESIGN.md "A command answers from its own fold", "Reads": a GET by id
 * may fold the stream). Never the read model, which may not have the last append yet in async mode.
 */
export async function foldTransaction(
  ctx: Pick<AppContext, 'store' | 'events'>,
  id: string,
): Promise<FoldedTransaction | undefined> {
  const folded = await foldExisting(
    ctx.store,
    (r) => ctx.events.decodeStored(r),
    transaction,
    transactionStream(id),
  );
  if (!folded) return undefined;
  const { state, version, createdAt, updatedAt } = folded;
  return {
    row: transactionRowFromState(state, { recordedAt: createdAt }, { recordedAt: updatedAt, version }),
    reserved: state.reserved,
    boletoDetails: state.artifacts.boleto_details ?? null,
  };
}

export async function findTransactionRow(
  ctx: Pick<AppContext, 'store' | 'events'>,
  id: string,
): Promise<Row | undefined> {
  return (await foldTransaction(ctx, id))?.row;
}

/**
 * SPEC 4.4: the key's own tenant or a descendant's (a parent reads a child's without opting in), in the
 * key's mode; anything else, missing included, is `404 not_found`.
 */
export async function readableTransaction(
  ctx: Pick<AppContext, 'store' | 'events'>,
  principal: { tenantId: string; livemode: boolean },
  id: string,
): Promise<Row> {
  return (await readableFoldedTransaction(ctx, principal, id)).row;
}

/** readableTransaction with the reservation (SPEC 4.5 reads the creation snapshot from it). */
export async function readableFoldedTransaction(
  ctx: Pick<AppContext, 'store' | 'events'>,
  principal: { tenantId: string; livemode: boolean },
  id: string,
): Promise<FoldedTransaction> {
  const folded = await foldTransaction(ctx, id);
  const row = folded?.row;
  if (
    !folded ||
    !row ||
    row.livemode !== principal.livemode ||
    !(await isTenantInTree({ store: ctx.store, registry: ctx.events }, principal.tenantId, row.tenant_id))
  ) {
    throw new ApiError('not_found', 'The transaction does not exist.');
  }
  return folded;
}
