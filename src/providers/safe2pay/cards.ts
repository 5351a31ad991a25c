import { NO_ARTIFACTS } from '../../aggregates/transaction.ts';
import { type CardsCapability, REDACTED, sanitizeDiagnostics } from '../port.ts';
import { paymentBody } from './build-request.ts';
import type { CapabilityWire } from './capability-wire.ts';
import { declineDiagnostics } from './card-declines.ts';
import { chargeAnswer, uncertain } from './outcomes.ts';
import { mapCardStatus, statusCode } from './status.ts';
import { isRecord } from './wire-values.ts';

/**
 * Safe2Pay's card wire (issue 25; wire doc wave 2b §1.1-1.3, §1.8, §7.1): tokenize on the payment host
 * (`POST /v2/token`), then charge by the token (`POST /v2/Payment`, `PaymentMethod "2"`). Reads and the
 * integral refund of a card charge are the adapter's `charges` (adapter.ts, `method: 'credit_card'`).
 *
 * The card data and the token are only ever in a request body: the kept body (SPEC 2.3) carries
 * {@link REDACTED}, no outcome or diagnostic holds either, and http.ts neither logs nor echoes a body.
 */

/** Static guidance (SPEC 2.2 rule 3), never the provider's text. */
const NO_TOKEN =
  'O provedor aceitou o cartão mas não devolveu token (relatado em sandbox); nada foi cobrado. / The provider accepted the card but returned no token (reported in sandbox); nothing was charged.';
const NOT_A_CARD_BODY =
  'Corpo de cobrança de cartão inválido; nada foi enviado. / Invalid card charge body; nothing was sent.';

/** A token as the SDKs show it (32 hex characters in the examples, at most 42-50 long; wire doc §1.2). */
const TOKEN = /^[0-9A-Za-z_-]{1,100}$/;

/** The brand as the answer names it, not decoded (its code table is UNKNOWN, wire doc §1.8). */
function brandOf(value: unknown): string | null {
  const text = typeof value === 'number' && Number.isInteger(value) ? String(value) : value;
  if (typeof text !== 'string') return null;
  const trimmed = text.trim();
  return /^[0-9A-Za-z][0-9A-Za-z _-]{0,29}$/.test(trimmed) ? trimmed : null;
}

export function createSafe2PayCards({ paymentHost, buildOptions, call }: CapabilityWire): CardsCapability {
  return {
    async tokenize(card, ctx) {
      const result = await call(ctx, 'POST', `${paymentHost}/v2/token`, {
        Holder: card.holder,
        CardNumber: card.number,
        ExpirationDate: card.expiration,
        SecurityCode: card.securityCode,
        IsSandbox: ctx.environment === 'sandbox',
      });
      if (!('ok' in result)) return result;
      const detail = isRecord(result.detail) ? result.detail : {};
      const token = detail.Token;
      if (typeof token !== 'string' || !TOKEN.test(token)) {
        return {
          kind: 'refused',
          reason: 'incomplete',
          providerReference: null,
          diagnostics: sanitizeDiagnostics({ httpStatus: result.httpStatus, guidance: NO_TOKEN }),
        };
      }
      return { kind: 'issued', token, brand: brandOf(detail.Brand) };
    },

    buildChargeRequest(charge, ctx) {
      return paymentBody(
        charge,
        'credit_card',
        {
          Token: REDACTED,
          InstallmentQuantity: charge.installments,
          // SPEC 4.9: captured at once; no buyer-paid interest, so the charged total is the products' sum (§1.5).
          IsPreAuthorization: false,
          IsApplyInterest: false,
        },
        ctx.environment,
        buildOptions,
      );
    },

    async charge(charge, body, token, ctx) {
      const po = body?.PaymentObject;
      // Only a body buildChargeRequest made for this charge is sent; anything else is refused unsent.
      if (
        body === null ||
        !isRecord(po) ||
        po.Token !== REDACTED ||
        body.Reference !== charge.transactionId
      ) {
        return {
          kind: 'refused',
          reason: 'not_supported',
          providerReference: null,
          diagnostics: sanitizeDiagnostics({ guidance: NOT_A_CARD_BODY }),
        };
      }
      // A copy: the caller's body stays redacted (it is the kept SPEC 2.3 `provider_request`).
      const sent = { ...body, PaymentObject: { ...po, Token: token } };
      const answer = chargeAnswer(await call(ctx, 'POST', `${paymentHost}/v2/Payment`, sent));
      if (!('id' in answer)) return answer;
      const { detail, id, http } = answer;
      // The card answer has no `Reference` in the SDK models (§1.3); one that names another charge is not ours.
      if (detail.Reference !== undefined && detail.Reference !== charge.transactionId) {
        return uncertain('mismatch', http, { providerReference: id });
      }
      const code = statusCode(detail.Status);
      const status = mapCardStatus(code);
      if (status === 'failed') {
        const card = isRecord(detail.CreditCard) ? detail.CreditCard : {};
        return {
          kind: 'refused',
          reason: 'status_refused',
          providerReference: id,
          diagnostics: declineDiagnostics(card.ReturnCode, http),
        };
      }
      // At creation only an authorization (3/4) or a pending one (1/2) is an answer; 5, 6, 13 cannot be.
      if ((code !== 1 && code !== 2 && code !== 3 && code !== 4) || status === null) {
        return uncertain('unknown_status', http, { providerReference: id, providerStatus: code });
      }
      return {
        kind: 'issued',
        providerReference: id,
        status,
        boletoDueDate: null,
        artifacts: { ...NO_ARTIFACTS, provider_reference: id },
      };
    },
  };
}
