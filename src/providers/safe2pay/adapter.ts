import type { Dispatcher } from 'undici';
import type { ChargeMethod, TransactionArtifacts } from '../../aggregates/transaction.ts';
import type {
  CancelTarget,
  ChargesCapability,
  DueDateTarget,
  IssuedCharge,
  Outcome,
  PortCharge,
  ProviderContext,
  ProviderPort,
  QueryTarget,
  RefundTarget,
  RemoteCharge,
  Uncertain,
} from '../port.ts';
import { paymentBelowAmount, underpaidDiagnostics } from './amount-paid.ts';
import {
  barcode,
  barcodeAmount,
  boletoDetailsOf,
  digitableLine,
  httpsUrl,
  pixCopyPaste,
  sameBoleto,
} from './artifacts.ts';
import { buildPaymentBody, PAYMENT_METHOD } from './build-request.ts';
import { createSafe2PayCards } from './cards.ts';
import { endOfDueDayUtc, parseProviderDate, toProviderDate } from './dates.ts';
import type { Exchange } from './http.ts';
import { jsonAnswer } from './http-outcome.ts';
import { keyedCall } from './keyed-call.ts';
import { reaisToCentavos } from './money.ts';
import { chargeAnswer, refused, uncertain } from './outcomes.ts';
import { createSafe2PayPixAutomatic } from './pix-automatic.ts';
import { mapCardStatus, mapStatus, statusCode } from './status.ts';
import { createSafe2PaySubaccounts } from './subaccounts.ts';
import { createSafe2PayPayouts } from './transfers.ts';
import { type Detail, type Interpreted, idOf, isRecord } from './wire-values.ts';

/**
 * The Safe2Pay adapter (wire doc `shared/providers/safe2pay-wire.md`; issue 13). Hosts are configuration:
 * the defaults are the real ones (wire doc 2.1: the same hosts for sandbox and production; the environment is
 * the token plus `IsSandbox`), tests point both at the provider emulator.
 */

export const SAFE2PAY_PAYMENT_HOST = 'https://payment.safe2pay.com.br';
export const SAFE2PAY_API_HOST = 'https://api.safe2pay.com.br';

export interface Safe2PayConfig {
  /** Base of `POST /v2/Payment` (creation and boleto changes). */
  readonly paymentHost?: string;
  /** Base of `/v2/Transaction/*`, `/v2/Pix/Cancel`, `/v2/BankSlip/*`. */
  readonly apiHost?: string;
  readonly application?: string;
  readonly notificationUrl?: string | null;
  readonly dispatcher?: Dispatcher;
}

/**
 * The v2 envelope `{HasError, ErrorCode, Error, ResponseDetail}` (wire doc 2.3) and the HTTP status, to one
 * decision: the status first (http-outcome.ts), then HasError on HTTP 200 is a refusal, and an envelope-less
 * body or one without a ResponseDetail uncertain.
 */
function interpret(answer: Exchange): Interpreted {
  const read = jsonAnswer(answer, (envelope) => envelope.ErrorCode);
  if ('kind' in read) return read;
  const { json: envelope, httpStatus: status } = read;
  if (typeof envelope.HasError !== 'boolean') return uncertain('unparsable', status);
  if (envelope.HasError) return refused('provider_error', envelope.ErrorCode ?? null, status);
  if (envelope.ResponseDetail === undefined || envelope.ResponseDetail === null) {
    return uncertain('incomplete', status);
  }
  return { ok: true, detail: envelope.ResponseDetail, httpStatus: status };
}

interface BoletoCheck {
  readonly amount: number;
  readonly dueDate: string | null;
  /**
   * Whether the boleto's Pix can be paid: production only. SPEC 1 (external provider / sandbox: "no Pix
   * payable") and 2.2: a sandbox boleto's `KeyPix` is not read at all (issue 22 item 2), so neither a
   * creation, a refresh nor a due-date change hands it out.
   */
  readonly payablePix: boolean;
}

/** Boleto artifacts (wire doc 2.6, 2.10 `PaymentObject`) checked per SPEC 4.2: malformed, or not the expected boleto. */
function boletoArtifacts(
  source: Detail,
  check: BoletoCheck,
  /** A read (SPEC 3.1 "Other rules"): a Pix that fails its check is the failed half, left null, not the boleto's. */
  read = false,
):
  | { artifacts: Omit<TransactionArtifacts, 'provider_reference' | 'expires_at'>; dueDate: string }
  | 'invalid'
  | 'mismatch' {
  const url = httpsUrl(source.BankSlipUrl);
  const line = digitableLine(source.DigitableLine);
  const code = barcode(source.Barcode);
  const dueDate = parseProviderDate(source.DueDate);
  if (!url || !line || !code || !dueDate || !sameBoleto(line, code)) return 'invalid';
  if (barcodeAmount(code) !== check.amount) return 'mismatch';
  if (check.dueDate !== null && dueDate !== check.dueDate) return 'mismatch';
  // The attached Pix (newer responses, wire doc 1 and 2.6): absent or null while it is being issued.
  const rawPix = check.payablePix ? source.KeyPix : null;
  const pixAbsent = rawPix === undefined || rawPix === null || rawPix === '';
  const pix = pixAbsent ? null : pixCopyPaste(rawPix);
  if (!pixAbsent && pix === null && !read) return 'invalid';
  return {
    dueDate,
    artifacts: {
      pix_copy_paste: null,
      pix_qr_code: null,
      boleto_url: url,
      boleto_digitable_line: line,
      boleto_barcode: code,
      boleto_pix_copy_paste: pix,
      boleto_pix_expires_at: pix ? endOfDueDayUtc(dueDate) : null,
      // A read's PaymentObject carries no FEBRABAN fields (wire doc 2.10): absent, the held ones stay.
      ...(read ? {} : { boleto_details: boletoDetailsOf(source) }),
    },
  };
}

const NO_BOLETO = {
  boleto_url: null,
  boleto_digitable_line: null,
  boleto_barcode: null,
  boleto_pix_copy_paste: null,
  boleto_pix_expires_at: null,
} as const;

function paymentMethodCode(value: unknown): string | null {
  if (typeof value === 'string' || typeof value === 'number') return String(value).trim();
  if (isRecord(value)) return paymentMethodCode(value.Code);
  return null;
}

/** The Safe2Pay adapter's capabilities: all of today's are always there. */
export interface Safe2PayAdapter extends ProviderPort {
  readonly payouts: NonNullable<ProviderPort['payouts']>;
  readonly cards: NonNullable<ProviderPort['cards']>;
  readonly pixAutomatic: NonNullable<ProviderPort['pixAutomatic']>;
  readonly subaccounts: NonNullable<ProviderPort['subaccounts']>;
}

/**
 * A card refund's answer (wire doc wave 2b §1.7): `true` (Z22) or an object with `isCancelled` (OFF-NET; the
 * PascalCase spelling is read too, as .NET serializers may write it). Anything else is not an answer.
 */
function cancelledFlag(detail: unknown): boolean | null {
  if (typeof detail === 'boolean') return detail;
  if (!isRecord(detail)) return null;
  const flag = detail.isCancelled ?? detail.IsCancelled;
  return typeof flag === 'boolean' ? flag : null;
}

export function createSafe2PayAdapter(config: Safe2PayConfig = {}): Safe2PayAdapter {
  const paymentHost = (config.paymentHost ?? SAFE2PAY_PAYMENT_HOST).replace(/\/+$/, '');
  const apiHost = (config.apiHost ?? SAFE2PAY_API_HOST).replace(/\/+$/, '');
  const buildOptions = {
    application: config.application ?? 'Calebe',
    notificationUrl: config.notificationUrl ?? null,
  };

  /** SPEC 2.8: a subaccount's token replaces the record's key; the matrix key is never a fallback. */
  function apiKey(ctx: ProviderContext): string | null {
    if (ctx.subaccountToken !== undefined && ctx.subaccountToken !== null) return ctx.subaccountToken || null;
    return ctx.credentials.api_key || ctx.credentials.apiKey || null;
  }

  async function call(
    ctx: ProviderContext,
    method: 'GET' | 'POST' | 'DELETE',
    url: string,
    body?: Record<string, unknown>,
  ): Promise<Interpreted> {
    return keyedCall(apiKey(ctx), ctx, { method, url, body }, config.dispatcher, interpret);
  }

  /** A charge answer (creation or due-date change) to an outcome; `check` says what must come back. */
  function issuedFrom(
    result: Interpreted,
    method: ChargeMethod,
    check: BoletoCheck & { expiresAt: string | null; expectedId: string | null },
  ): Outcome<IssuedCharge & { readonly providerReference: string }> {
    const answer = chargeAnswer(result, check.expectedId);
    if (!('id' in answer)) return answer;
    const { detail, id, http } = answer;
    const code = statusCode(detail.Status);
    const status = mapStatus(code);
    // SPEC 3.1: a confirmed refusal also when the error flag is false but the charge status shows failure.
    if (status === 'failed') return refused('status_refused', null, http, id);
    if (status !== 'pending' && status !== 'processing' && status !== 'paid') {
      return uncertain('unknown_status', http, { providerReference: id, providerStatus: code });
    }
    if (method === 'pix') {
      const copyPaste = pixCopyPaste(detail.Key);
      const qr = detail.QrCode;
      if (!copyPaste || (qr !== undefined && qr !== null && typeof qr !== 'string')) {
        return uncertain('invalid_artifacts', http, { providerReference: id });
      }
      return {
        kind: 'issued',
        providerReference: id,
        status,
        boletoDueDate: null,
        artifacts: {
          provider_reference: id,
          pix_copy_paste: copyPaste,
          pix_qr_code: typeof qr === 'string' && qr !== '' ? qr : null,
          expires_at: check.expiresAt,
          boleto_url: null,
          boleto_digitable_line: null,
          boleto_barcode: null,
          boleto_pix_copy_paste: null,
          boleto_pix_expires_at: null,
        },
      };
    }
    const boleto = boletoArtifacts(detail, check);
    if (boleto === 'invalid') return uncertain('invalid_artifacts', http, { providerReference: id });
    if (boleto === 'mismatch') return uncertain('mismatch', http, { providerReference: id });
    return {
      kind: 'issued',
      providerReference: id,
      status,
      boletoDueDate: boleto.dueDate,
      // A real boleto expires only when the bank reports the write-off (SPEC 3.1), so no local deadline.
      artifacts: { provider_reference: id, expires_at: null, ...boleto.artifacts },
    };
  }

  /** A transaction read (wire doc 2.10) to a {@link RemoteCharge}, or the outcome that stops it. */
  function remoteCharge(
    value: unknown,
    method: ChargeMethod | null,
    http: number,
    boletoDueDate: string | null,
    payablePix: boolean,
  ): RemoteCharge | Uncertain {
    if (!isRecord(value)) return uncertain('incomplete', http);
    const id = idOf(value.IdTransaction);
    if (!id) return uncertain('incomplete', http);
    const code = statusCode(value.Status ?? value.TransactionStatus);
    const remoteMethod = paymentMethodCode(value.PaymentMethod);
    // By reference the method is not known locally: a card reads as method 2 (wire doc wave 2b §1.1).
    const isCard =
      method === 'credit_card' || (method === null && remoteMethod === PAYMENT_METHOD.credit_card);
    const status = isCard ? mapCardStatus(code) : mapStatus(code);
    if (code === null || status === null) {
      return uncertain('unknown_status', http, { providerReference: id, providerStatus: code });
    }
    const amount = reaisToCentavos(value.Amount);
    if (amount === null)
      return uncertain('unparsable', http, { providerReference: id, providerStatus: code });
    const reference = typeof value.Reference === 'string' ? value.Reference : null;
    const po = value.PaymentObject;
    // By reference the method is not known locally: a boleto reads as method 1 or carries boleto fields.
    const isBoleto =
      method === 'boleto' ||
      (method === null &&
        !isCard &&
        (remoteMethod === PAYMENT_METHOD.boleto || (isRecord(po) && po.Barcode !== undefined)));
    // A card read has no artifacts: its masked number is the gateway's own, kept at reservation.
    let artifacts: TransactionArtifacts | null = null;
    let dueDate: string | null = null;
    if (isBoleto && isRecord(po) && po.Barcode !== undefined) {
      const b = boletoArtifacts(po, { amount, dueDate: boletoDueDate, payablePix }, true);
      if (b === 'invalid')
        return uncertain('invalid_artifacts', http, { providerReference: id, providerStatus: code });
      if (b === 'mismatch')
        return uncertain('mismatch', http, { providerReference: id, providerStatus: code });
      dueDate = b.dueDate;
      artifacts = { provider_reference: id, expires_at: null, ...b.artifacts };
    } else if (!isBoleto && !isCard && isRecord(po)) {
      // A Pix read carries `PaymentObject{QrCode, Key}` (wire doc 2.10): kept only when the Key is a valid BR Code.
      const copyPaste = pixCopyPaste(po.Key);
      if (copyPaste) {
        artifacts = {
          ...NO_BOLETO,
          provider_reference: id,
          pix_copy_paste: copyPaste,
          pix_qr_code: typeof po.QrCode === 'string' && po.QrCode !== '' ? po.QrCode : null,
          expires_at: null,
        };
      }
    }
    // The wire doc shows no field that tells a boleto paid by its Pix apart (section 3). The transaction's
    // `PaymentMethod` is read: code 6 (Pix) on a boleto read means its Pix paid it; anything else is boleto.
    // Only a paid read says how it was paid; a later refund keeps the paid_with recorded at payment (SPEC 2.2).
    let paidWith: ChargeMethod | null = null;
    if (status === 'paid' && isCard) paidWith = 'credit_card';
    else if (status === 'paid' && isBoleto) paidWith = remoteMethod === PAYMENT_METHOD.pix ? 'pix' : 'boleto';
    // Nor one for a double payment: `AmountPayment`, what the payer paid, at twice the amount or more means the
    // boleto and its Pix were both paid (a late boleto's interest alone never doubles it). Emulator convention.
    const amountPaid = value.AmountPayment === undefined ? null : reaisToCentavos(value.AmountPayment);
    const duplicatePayment = paidWith === 'boleto' && amountPaid !== null && amountPaid >= 2 * amount;
    return {
      providerReference: id,
      reference,
      amount,
      status,
      providerStatus: code,
      paidWith,
      duplicatePayment,
      paidOn: parseProviderDate(value.PaymentDate),
      boletoDueDate: dueDate,
      artifacts,
    };
  }

  /** Wire doc wave 2b §1.7: the integral card refund; a timeout is uncertain, read before asking again. */
  async function refundCard(
    target: RefundTarget,
    ctx: ProviderContext,
  ): Promise<Outcome<{ readonly refundStatus: 'succeeded' }>> {
    const url = `${apiHost}/v2/CreditCard/Cancel/${encodeURIComponent(target.providerReference)}`;
    const result = await call(ctx, 'DELETE', url);
    if (!('ok' in result)) return result;
    const cancelled = cancelledFlag(result.detail);
    if (cancelled === true) return { kind: 'issued', refundStatus: 'succeeded' };
    if (cancelled === false)
      return refused('status_refused', null, result.httpStatus, target.providerReference);
    return uncertain('incomplete', result.httpStatus, { providerReference: target.providerReference });
  }

  const charges: ChargesCapability = {
    buildRequest(charge, ctx) {
      return buildPaymentBody(charge, ctx.environment, buildOptions);
    },

    async create(charge: PortCharge, body, ctx, now) {
      // The reservation always carries the body buildRequest made (SPEC 2.3); without it nothing is sent.
      if (body === null) return refused('not_supported', null, null);
      const result = await call(ctx, 'POST', `${paymentHost}/v2/Payment`, body);
      const expiresAt =
        charge.method === 'pix'
          ? new Date(now.getTime() + (charge.expiresIn ?? 3600) * 1000).toISOString()
          : null;
      return issuedFrom(result, charge.method, {
        amount: charge.amount,
        dueDate: charge.boleto?.due_date ?? null,
        payablePix: ctx.environment === 'production',
        expiresAt,
        expectedId: null,
      });
    },

    async query(target: QueryTarget, ctx) {
      const url = `${apiHost}/v2/Transaction/Get?Id=${encodeURIComponent(target.providerReference)}`;
      const result = await call(ctx, 'GET', url);
      if (!('ok' in result)) return result;
      const payablePix = ctx.environment === 'production';
      const charge = remoteCharge(
        result.detail,
        target.method,
        result.httpStatus,
        target.boletoDueDate,
        payablePix,
      );
      if ('kind' in charge) return charge;
      // SPEC 4.6: external id, exact amount and internal reference must match.
      const same =
        charge.providerReference === target.providerReference &&
        charge.amount === target.amount &&
        charge.reference === target.transactionId;
      if (!same) {
        return uncertain('mismatch', result.httpStatus, {
          providerReference: target.providerReference,
          providerStatus: charge.providerStatus,
        });
      }
      // Issue 22 item 2: "paid" with less than the amount (SPEC 3.1 exact-amount row) proves no payment of it.
      const amountPayment = isRecord(result.detail) ? result.detail.AmountPayment : undefined;
      if (charge.status === 'paid' && paymentBelowAmount(amountPayment, target.amount)) {
        return {
          ...uncertain('mismatch', result.httpStatus, {
            providerReference: target.providerReference,
            providerStatus: charge.providerStatus,
          }),
          diagnostics: underpaidDiagnostics(result.httpStatus),
        };
      }
      return { kind: 'issued', charge };
    },

    async queryByReference(transactionId, ctx) {
      const url = `${apiHost}/v2/Transaction/Reference?reference=${encodeURIComponent(transactionId)}`;
      const result = await call(ctx, 'GET', url);
      if (!('ok' in result)) return result;
      // A list answer: `ResponseDetail: {TotalItems, Objects: [...]}` (wire doc 2.3, 2.10).
      const detail = result.detail;
      if (!isRecord(detail) || !Array.isArray(detail.Objects))
        return uncertain('incomplete', result.httpStatus);
      const charges: RemoteCharge[] = [];
      for (const item of detail.Objects) {
        const charge = remoteCharge(item, null, result.httpStatus, null, ctx.environment === 'production');
        if ('kind' in charge) return charge;
        if (charge.reference !== transactionId) {
          return uncertain('mismatch', result.httpStatus, { providerReference: charge.providerReference });
        }
        charges.push(charge);
      }
      return { kind: 'issued', charges };
    },

    async refund(target: RefundTarget, ctx) {
      // Wire doc 2.11: Pix is refunded by `DELETE /v2/Pix/Cancel/{id}`. A boleto settled by its Pix is refunded
      // by Pix (SPEC 4.8) through the same call on the boleto's transaction id, the only id the wire shows for
      // it. A boleto paid by boleto is refunded by bank transfer in the provider's panel, not through the API
      // (wire doc 2.11): refused locally, nothing is sent.
      if (target.method === 'credit_card') return refundCard(target, ctx);
      const byPix = target.method === 'pix' || target.paidWith === 'pix';
      if (!byPix) return refused('not_supported', null, null);
      const url = `${apiHost}/v2/Pix/Cancel/${encodeURIComponent(target.providerReference)}`;
      const result = await call(ctx, 'DELETE', url);
      if (!('ok' in result)) return result;
      if (result.detail === true) return { kind: 'issued', refundStatus: 'succeeded' };
      if (result.detail === false) return refused('status_refused', null, result.httpStatus);
      return uncertain('incomplete', result.httpStatus);
    },

    async changeDueDate(target: DueDateTarget, ctx) {
      // Only a boleto has a due date; the gateway always passes its options, so a target without them (a card
      // or a Pix) is refused unsent.
      if (target.boleto === null) return refused('not_supported', null, null);
      // Wire doc 2.7: `Command 1` + `DueDate` on the payment host; the answer is a boleto response.
      const body = {
        Id: Number(target.providerReference),
        PaymentMethod: PAYMENT_METHOD.boleto,
        PaymentObject: { Command: 1, DueDate: toProviderDate(target.dueDate) },
      };
      const result = await call(ctx, 'POST', `${paymentHost}/v2/Payment`, body);
      const outcome = issuedFrom(result, 'boleto', {
        amount: target.amount,
        dueDate: target.dueDate,
        payablePix: ctx.environment === 'production',
        expiresAt: null,
        expectedId: target.providerReference,
      });
      if (outcome.kind !== 'issued') return outcome;
      return {
        kind: 'issued',
        status: outcome.status,
        artifacts: outcome.artifacts,
        boletoDueDate: outcome.boletoDueDate,
      };
    },

    async cancel(target: CancelTarget, ctx) {
      // A card is captured at once (SPEC 4.9): undone only by a refund, never cancelled.
      if (target.method === 'credit_card') return refused('not_supported', null, null);
      // Wire doc 2.11: Pix cancel and boleto write-off ("baixa"), both answering `ResponseDetail: true`.
      const id = encodeURIComponent(target.providerReference);
      const url =
        target.method === 'pix'
          ? `${apiHost}/v2/Pix/Cancel/${id}`
          : `${apiHost}/v2/BankSlip/WriteOffBankSlip?idTransaction=${id}`;
      const result = await call(ctx, 'DELETE', url);
      if (!('ok' in result)) return result;
      if (result.detail === true) return { kind: 'issued', cancelled: true };
      if (result.detail === false) return refused('status_refused', null, result.httpStatus);
      return uncertain('incomplete', result.httpStatus);
    },
  };

  const wire = { paymentHost, apiHost, buildOptions, call };
  return {
    name: 'safe2pay',
    charges,
    // Issue 22 item 4.2: payouts over `v2/Transfer` (transfers.ts), same hosts, key and envelope rules.
    payouts: createSafe2PayPayouts(wire),
    // Issue 25: tokenize and charge by token (cards.ts); card reads and refunds are `charges` above.
    cards: createSafe2PayCards(wire),
    // Issue 27: Pix Automatic over the v3 wire (pix-automatic.ts), on the payment host, its own interpreter.
    pixAutomatic: createSafe2PayPixAutomatic({
      paymentHost,
      application: buildOptions.application,
      apiKey,
      ...(config.dispatcher ? { dispatcher: config.dispatcher } : {}),
    }),
    // Issue 28: subaccounts (subaccounts.ts), v2 envelope, always the matrix's production key (SPEC 2.8).
    subaccounts: createSafe2PaySubaccounts({
      apiHost,
      call: (ctx, method, url, body) =>
        keyedCall(ctx.matrixProductionKey, ctx, { method, url, body }, config.dispatcher, interpret),
    }),
  };
}
