import type { Dispatcher } from 'undici';
import {
  type AuthorizationTarget,
  type DebitTarget,
  PERIODICITY,
  type PixAutomaticCapability,
  type PortAuthorization,
  type ProviderContext,
  type Refused,
  type RemoteAuthorizationStatus,
  type RemoteDebit,
  type Uncertain,
} from '../port.ts';
import { pixCopyPaste } from './artifacts.ts';
import type { Exchange } from './http.ts';
import { jsonAnswer } from './http-outcome.ts';
import { keyedCall } from './keyed-call.ts';
import { centavosToReais, reaisToCentavos } from './money.ts';
import { uncertain } from './outcomes.ts';
import { isRecord } from './wire-values.ts';

/**
 * Safe2Pay's Pix Automatic wire (issue 27; SPEC 2.6, 3.2, 4.11; wire doc wave 2b §3.5, §3.6, §7.3): the v3
 * endpoints under `{payment host}/v3/pix/automatic/authorizations`, seen only in third-party code
 * (docs/decisions.md "Pix Automatic (issue 27): the provider's wire"). v3 has no `HasError` envelope: the HTTP
 * status decides, answers are `{traceId, data}`, errors carry `ErrorCode|code` (kept only when numeric,
 * SPEC 2.2) and a text the adapter never reads. Both casings are read (`Id`/`id`, `QrData`/`qrData`...).
 *
 * No `ImmediatePayment` is ever sent (SPEC 4.11: no charge at authorization, journey 2); no bank retry
 * (`RetryPolicy: NAO_PERMITE`). Money is decimal reais only here (money.ts); the key travels only in the
 * `X-API-KEY` header (http.ts), never in an outcome.
 */

export interface PixAutomaticWire {
  readonly paymentHost: string;
  readonly application: string;
  /** The record's key or the subaccount's token for this context (adapter.ts); null: none configured. */
  apiKey(ctx: ProviderContext): string | null;
  readonly dispatcher?: Dispatcher;
}

type V3 = { readonly ok: true; readonly data: unknown; readonly httpStatus: number } | Refused | Uncertain;

/**
 * The v3 interpreter, beside adapter.ts's v2 one: the status decides as for v2 (http-outcome.ts), then a 2xx
 * JSON object without `data` is uncertain.
 */
function interpretV3(answer: Exchange): V3 {
  const read = jsonAnswer(answer, (json) => json.ErrorCode ?? json.code ?? json.errorCode);
  if ('kind' in read) return read;
  const data = read.json.data ?? read.json.Data;
  if (data === undefined || data === null) return uncertain('incomplete', read.httpStatus);
  return { ok: true, data, httpStatus: read.httpStatus };
}

/** A field in either casing (`Id` or `id`). */
function field(o: unknown, pascal: string): unknown {
  if (!isRecord(o)) return undefined;
  const value = o[pascal];
  return value !== undefined ? value : o[pascal.charAt(0).toLowerCase() + pascal.slice(1)];
}

/** The provider's ids (a BCB `idRec` or `txid`, or an opaque id): letters, digits, `-` and `_`, up to 64. */
function idOf(value: unknown): string | null {
  if (typeof value === 'number' && Number.isSafeInteger(value) && value > 0) return String(value);
  return typeof value === 'string' && /^[0-9A-Za-z_-]{1,64}$/.test(value.trim()) ? value.trim() : null;
}

function statusOf(value: unknown): string | null {
  return typeof value === 'string' && /^[A-Za-z_]{1,40}$/.test(value.trim())
    ? value.trim().toUpperCase()
    : null;
}

/** `YYYY-MM-DD` from a date or a date-time; null otherwise. */
function dateOf(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const day = value.trim().slice(0, 10);
  if (!/^[0-9]{4}-[0-9]{2}-[0-9]{2}$/.test(day)) return null;
  const d = new Date(`${day}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === day ? day : null;
}

/** Wire doc §3.6: the authorization statuses; anything else is not mapped (never approved). */
const AUTHORIZATION_STATUS: Readonly<Record<string, RemoteAuthorizationStatus>> = {
  CRIADA: 'pending',
  APROVADA: 'approved',
  ATIVA: 'approved',
  EXPIRADA: 'expired',
  CANCELADA: 'cancelled',
  REJEITADA: 'failed',
};

/** Wire doc §3.6: a debit's statuses (`CANCELADA` is failed with `cancelled`, SPEC has no state for it). */
const DEBIT_STATUS: Readonly<Record<string, { status: RemoteDebit['status']; cancelled: boolean }>> = {
  CRIADA: { status: 'pending', cancelled: false },
  ATIVA: { status: 'pending', cancelled: false },
  CONCLUIDA: { status: 'paid', cancelled: false },
  EXPIRADA: { status: 'expired', cancelled: false },
  REJEITADA: { status: 'failed', cancelled: false },
  CANCELADA: { status: 'failed', cancelled: true },
};

const strip = (text: string) => text.normalize('NFD').replace(/[\u0300-\u036f]/g, '');

/** Wire doc §3.5: 10-11 digits, no +55. */
function phoneOf(phone: string | undefined): string | undefined {
  if (phone === undefined) return undefined;
  const digits = phone.replace(/[^0-9]/g, '');
  return (digits.length === 12 || digits.length === 13) && digits.startsWith('55') ? digits.slice(2) : digits;
}

/** Wire doc §3.5 create body, PascalCase (CNV §5.5, JAX): no `ImmediatePayment` (journey 2). */
export function authorizationBody(a: PortAuthorization, application: string): Record<string, unknown> {
  const c = a.customer;
  const address = c.address;
  const phone = phoneOf(c.phone);
  return {
    Application: application,
    Contract: {
      Name: a.name,
      Description: a.description,
      Customer: {
        Identity: c.document ?? '',
        Name: c.name ?? '',
        ...(c.email !== undefined ? { Email: c.email } : {}),
        ...(phone !== undefined ? { Phone: phone } : {}),
        ...(address
          ? {
              // JAX strips accents from the address; the provider's handling of them is UNKNOWN.
              Address: {
                ZipCode: address.zip_code,
                Street: strip(address.street),
                Number: address.number,
                ...(address.complement !== undefined ? { Complement: strip(address.complement) } : {}),
                District: strip(address.district),
                StateInitials: address.state,
                CityName: strip(address.city),
                CountryName: 'Brasil',
              },
            }
          : {}),
      },
    },
    Calendar: {
      StartDate: a.firstDueDate,
      Periodicity: PERIODICITY[a.intervalMonths],
      RetryPolicy: 'NAO_PERMITE',
    },
    Amount: { Fixed: centavosToReais(a.amount) },
  };
}

/** One schedule as a read shows it; the outcome when it cannot be read as one. */
function debitOf(item: unknown, http: number): RemoteDebit | Uncertain {
  const id = idOf(field(item, 'Id'));
  if (!id) return uncertain('incomplete', http);
  const word = statusOf(field(item, 'Status'));
  const mapped = word === null ? undefined : DEBIT_STATUS[word];
  if (!word || !mapped) return uncertain('unknown_status', http, { providerReference: id });
  const reference = field(item, 'Reference');
  const rawAmount = field(item, 'Amount');
  const amount = rawAmount === undefined || rawAmount === null ? null : reaisToCentavos(rawAmount);
  if (rawAmount !== undefined && rawAmount !== null && amount === null)
    return uncertain('mismatch', http, { providerReference: id });
  return {
    providerReference: id,
    reference: typeof reference === 'string' && reference !== '' ? reference : null,
    amount,
    dueDate: dateOf(field(field(item, 'Calendar'), 'DueDate')),
    status: mapped.status,
    providerStatus: word,
    cancelled: mapped.cancelled,
    paidOn: mapped.status === 'paid' ? dateOf(field(item, 'SettlementDate')) : null,
  };
}

export function createSafe2PayPixAutomatic(wire: PixAutomaticWire): PixAutomaticCapability {
  const base = `${wire.paymentHost}/v3/pix/automatic/authorizations`;
  const path = (id: string) => `${base}/${encodeURIComponent(id)}`;

  async function call(
    ctx: ProviderContext,
    method: 'GET' | 'POST' | 'DELETE',
    url: string,
    body?: Record<string, unknown>,
  ): Promise<V3> {
    return keyedCall(wire.apiKey(ctx), ctx, { method, url, body }, wire.dispatcher, interpretV3);
  }

  const capability: PixAutomaticCapability = {
    buildAuthorizationRequest(authorization) {
      return authorizationBody(authorization, wire.application);
    },

    async createAuthorization(authorization, body, ctx) {
      const result = await call(
        ctx,
        'POST',
        base,
        body ?? authorizationBody(authorization, wire.application),
      );
      if (!('ok' in result)) return result;
      const http = result.httpStatus;
      const id = idOf(field(result.data, 'Id'));
      if (!id) return uncertain('incomplete', http);
      if (statusOf(field(result.data, 'Status')) !== 'CRIADA')
        return uncertain('unknown_status', http, { providerReference: id });
      const raw = field(field(result.data, 'QrData'), 'PixCopyAndPaste');
      if (raw === undefined || raw === null || raw === '')
        return uncertain('incomplete', http, { providerReference: id });
      const copyPaste = pixCopyPaste(raw);
      if (!copyPaste) return uncertain('invalid_artifacts', http, { providerReference: id });
      return { kind: 'issued', providerReference: id, copyPaste };
    },

    async queryAuthorization(target, ctx) {
      const result = await call(ctx, 'GET', path(target.providerReference));
      if (!('ok' in result)) return result;
      const http = result.httpStatus;
      const id = idOf(field(result.data, 'Id'));
      if (!id) return uncertain('incomplete', http);
      if (id !== target.providerReference) return uncertain('mismatch', http, { providerReference: id });
      const word = statusOf(field(result.data, 'Status'));
      const status = word === null ? undefined : AUTHORIZATION_STATUS[word];
      if (!word || !status) return uncertain('unknown_status', http, { providerReference: id });
      return { kind: 'issued', status, providerStatus: word };
    },

    async revokeAuthorization(target, ctx) {
      const result = await call(ctx, 'DELETE', path(target.providerReference));
      if (!('ok' in result)) return result;
      return { kind: 'issued', cancelled: true };
    },

    async scheduleDebit(debit, ctx) {
      const result = await call(
        ctx,
        'POST',
        `${path(debit.authorization.providerReference)}/chargeSchedules`,
        {
          Application: wire.application,
          Reference: debit.transactionId,
          Calendar: { DueDate: debit.dueDate },
          Amount: centavosToReais(debit.amount),
          AdditionalInformation: debit.description,
        },
      );
      if (!('ok' in result)) return result;
      const http = result.httpStatus;
      const id = idOf(field(result.data, 'Id'));
      if (!id) return uncertain('incomplete', http);
      const word = statusOf(field(result.data, 'Status'));
      if (word !== 'CRIADA' && word !== 'ATIVA')
        return uncertain('unknown_status', http, { providerReference: id });
      return { kind: 'issued', providerReference: id, status: 'pending' };
    },

    async queryDebit(target: DebitTarget, ctx) {
      const url = `${path(target.authorization.providerReference)}/chargeSchedules/${encodeURIComponent(target.providerReference)}`;
      const result = await call(ctx, 'GET', url);
      if (!('ok' in result)) return result;
      const debit = debitOf(result.data, result.httpStatus);
      if ('kind' in debit) return debit;
      const differs =
        debit.providerReference !== target.providerReference ||
        (debit.reference !== null && debit.reference !== target.transactionId) ||
        (debit.amount !== null && debit.amount !== target.amount) ||
        (debit.dueDate !== null && debit.dueDate !== target.dueDate);
      if (differs)
        return uncertain('mismatch', result.httpStatus, { providerReference: debit.providerReference });
      return { kind: 'issued', debit };
    },

    async findDebits(authorization: AuthorizationTarget, transactionId, ctx) {
      const url = `${path(authorization.providerReference)}/chargeSchedules?reference=${encodeURIComponent(transactionId)}`;
      const result = await call(ctx, 'GET', url);
      if (!('ok' in result)) return result;
      const items = Array.isArray(result.data) ? result.data : field(result.data, 'Items');
      if (!Array.isArray(items)) return uncertain('incomplete', result.httpStatus);
      const debits: RemoteDebit[] = [];
      for (const item of items) {
        const debit = debitOf(item, result.httpStatus);
        if ('kind' in debit) return debit;
        // A debit with another reference is not one of ours; one without a reference cannot be told apart.
        if (debit.reference === null) return uncertain('incomplete', result.httpStatus);
        if (debit.reference === transactionId) debits.push(debit);
      }
      return { kind: 'issued', debits };
    },
  };
  return capability;
}
