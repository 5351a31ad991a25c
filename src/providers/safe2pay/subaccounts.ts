import {
  type MatrixContext,
  type Outcome,
  type PortSubaccount,
  ProviderSecret,
  type Refused,
  type RemoteSubaccount,
  type SubaccountFee,
  type SubaccountFeeMethod,
  type SubaccountsCapability,
  sanitizeDiagnostics,
  type Uncertain,
} from '../port.ts';
import { bankData, validBankAccount } from './bank-account.ts';
import { centavosToReaisText, reaisToCentavos } from './money.ts';
import { refused, uncertain } from './outcomes.ts';
import { type Detail, type Interpreted, idOf, isRecord } from './wire-values.ts';

/**
 * Marketplace subaccounts over Safe2Pay's `Marketplace/*` (issue 28; wire doc §2.12-2.13, wave 2b §4.1-4.2,
 * §7.4), on the API host, with the v2 envelope interpreter and always the matrix's production key (SPEC 2.8;
 * `call` is given it by adapter.ts). Assumptions where the wire is INFERRED (docs/decisions.md "Marketplace
 * subaccounts (issue 28): the provider's wire"):
 * - `Add` may answer the record with its tokens, or less: without tokens the adapter reads them by `Get`.
 * - `Update` is a PUT of a whole `Merchant`: the adapter reads the record and sends it back whole with the
 *   changes, so what the caller omits (the fee list above all, SPEC 4.14) is kept whether the provider merges
 *   or replaces.
 * - No filter on `List` is documented: a reconciliation pages through it and matches `Identity`.
 * - Charges of a subaccount use its own token (ProviderContext.subaccountToken); no per-transaction `Splits`
 *   (SPEC 1 excludes dynamic split; wave 2b §4.3).
 * Codes: 301 is refused as `matrix_sandbox_key`, 300 as `not_marketplace`; any other code is a sanitized
 * `provider_error` with a static message (diagnostics.ts), never the provider's text.
 */

export type MatrixCall = (
  ctx: MatrixContext,
  method: 'GET' | 'POST' | 'PUT' | 'DELETE',
  url: string,
  body?: Record<string, unknown>,
) => Promise<Interpreted>;

const INVALID_REQUEST =
  'Dados da subconta inválidos; nada foi enviado. / Invalid subaccount data; nothing was sent.';

/** Marketplace/List page size, and how many pages a reconciliation reads before it gives up as uncertain. */
const ROWS_PER_PAGE = 100;
const MAX_PAGES = 50;

const METHOD_CODE: Readonly<Record<SubaccountFeeMethod, string>> = {
  boleto: '1',
  pix: '6',
  credit_card: '2',
};
const METHOD_OF: Readonly<Record<string, SubaccountFeeMethod>> = {
  '1': 'boleto',
  '6': 'pix',
  '2': 'credit_card',
};

/** The `Merchant` fields an update sends back (wave 2b §4.1); everything else a read shows is not writable. */
const MERCHANT_FIELDS = [
  'Name',
  'CommercialName',
  'Identity',
  'Email',
  'ResponsibleName',
  'ResponsibleIdentity',
  'ResponsiblePhone',
  'ResponsibleBirthDate',
  'TechName',
  'TechIdentity',
  'TechEmail',
  'TechPhone',
  'IsPanelRestricted',
  'IsTransferCheckingAccountDisabled',
  'Address',
  'BankData',
] as const;

function invalid(): Refused {
  return {
    kind: 'refused',
    reason: 'not_supported',
    providerReference: null,
    diagnostics: sanitizeDiagnostics({ guidance: INVALID_REQUEST }),
  };
}

/** 301 and 300 as their typed refusals (SPEC 2.8; wave 2b §4.1, §4.5); the rest as interpreted. */
function typed(result: Refused | Uncertain): Refused | Uncertain {
  if (result.kind !== 'refused' || result.reason !== 'provider_error') return result;
  const code = result.diagnostics.provider_error_code;
  if (code === '301') return refused('matrix_sandbox_key', code, result.diagnostics.provider_http_status);
  if (code === '300') return refused('not_marketplace', code, result.diagnostics.provider_http_status);
  return result;
}

function validFee(fee: SubaccountFee): boolean {
  const pct = fee.percentHundredths;
  const fixed = fee.fixedCentavos;
  return (
    METHOD_CODE[fee.method] !== undefined &&
    (pct !== null || fixed !== null) &&
    (pct === null || (Number.isSafeInteger(pct) && pct >= 0 && pct <= 10_000)) &&
    (fixed === null || (Number.isSafeInteger(fixed) && fixed >= 0 && fixed <= 100_000_000)) &&
    typeof fee.subaccountPaysProviderFee === 'boolean'
  );
}

function validFees(fees: readonly SubaccountFee[] | undefined): boolean {
  if (fees === undefined) return true;
  const methods = new Set(fees.map((f) => f.method));
  return methods.size === fees.length && fees.every(validFee);
}

const text = (v: string, max: number) => v.trim().length >= 1 && v.trim().length <= max;

function validResponsible(r: PortSubaccount['responsible']): boolean {
  return (
    text(r.name, 200) &&
    /^[0-9]{11}$/.test(r.document) &&
    /^[0-9]{10,11}$/.test(r.phone) &&
    /^[0-9]{4}-[0-9]{2}-[0-9]{2}$/.test(r.birthDate)
  );
}

function validCreate(input: PortSubaccount): boolean {
  return (
    text(input.name, 200) &&
    text(input.commercialName, 200) &&
    /^(?:[0-9]{11}|[0-9]{14})$/.test(input.document) &&
    text(input.email, 200) &&
    validResponsible(input.responsible) &&
    validBankAccount(input.bankAccount) &&
    validFees(input.fees)
  );
}

/** SPEC 4.14 fee list → wire `MerchantSplit[]` (wave 2b §4.2: `Tax` as a decimal string). */
export function merchantSplit(fees: readonly SubaccountFee[]): Record<string, unknown>[] {
  return fees.map((fee) => ({
    PaymentMethodCode: METHOD_CODE[fee.method],
    IsSubaccountTaxPayer: fee.subaccountPaysProviderFee,
    Taxes: [
      ...(fee.percentHundredths === null
        ? []
        : [{ TaxTypeName: '1', Tax: centavosToReaisText(fee.percentHundredths) }]),
      ...(fee.fixedCentavos === null
        ? []
        : [{ TaxTypeName: '2', Tax: centavosToReaisText(fee.fixedCentavos) }]),
    ],
  }));
}

function addressBody(a: PortSubaccount['address']): Record<string, unknown> {
  return {
    ZipCode: a.zip_code,
    Street: a.street,
    Number: a.number,
    ...(a.complement ? { Complement: a.complement } : {}),
    District: a.district,
    CityName: a.city,
    StateInitials: a.state,
    CountryName: 'Brasil',
  };
}

function responsibleBody(r: PortSubaccount['responsible']): Record<string, unknown> {
  return {
    ResponsibleName: r.name.trim(),
    ResponsibleIdentity: r.document,
    ResponsiblePhone: r.phone,
    ResponsibleBirthDate: r.birthDate,
  };
}

/** Wave 2b §4.1 `Merchant` body of a creation. */
export function merchantBody(input: PortSubaccount): Record<string, unknown> {
  return {
    Name: input.name.trim(),
    CommercialName: input.commercialName.trim(),
    Identity: input.document,
    Email: input.email.trim(),
    ...responsibleBody(input.responsible),
    // Wave 2b §6.4: the gateway talks to payers, the panel stays closed to the subaccount.
    IsPanelRestricted: true,
    Address: addressBody(input.address),
    BankData: bankData(input.bankAccount),
    ...(input.fees === undefined ? {} : { MerchantSplit: merchantSplit(input.fees) }),
  };
}

const code = (v: unknown): string =>
  typeof v === 'string' || typeof v === 'number' ? String(v).trim() : isRecord(v) ? code(v.Code ?? v.Id) : '';

/**
 * A read's `MerchantSplit` (it may carry `PaymentMethod{Code}` and `TaxType{Id}` instead of the request's
 * codes, wire doc §2.13) in the request shape; null when an item is unreadable.
 */
function requestSplitOf(value: unknown): Record<string, unknown>[] | null {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) return null;
  const out: Record<string, unknown>[] = [];
  for (const item of value) {
    if (!isRecord(item) || !Array.isArray(item.Taxes)) return null;
    const method = code(item.PaymentMethodCode ?? item.PaymentMethod);
    if (!/^[0-9]{1,2}$/.test(method)) return null;
    const taxes: Record<string, unknown>[] = [];
    for (const tax of item.Taxes) {
      if (!isRecord(tax)) return null;
      const type = code(tax.TaxTypeName ?? tax.TaxType);
      const value = reaisToCentavos(tax.Tax);
      if ((type !== '1' && type !== '2') || value === null) return null;
      taxes.push({ TaxTypeName: type, Tax: centavosToReaisText(value) });
    }
    out.push({
      PaymentMethodCode: method,
      IsSubaccountTaxPayer: item.IsSubaccountTaxPayer === true,
      Taxes: taxes,
    });
  }
  return out;
}

/** The fee list a read shows; null when unreadable or naming a method the port does not know. */
export function feesOf(value: unknown): SubaccountFee[] | null {
  const split = requestSplitOf(value);
  if (split === null) return null;
  const fees: SubaccountFee[] = [];
  for (const item of split) {
    const method = METHOD_OF[String(item.PaymentMethodCode)];
    if (!method) return null;
    let percentHundredths: number | null = null;
    let fixedCentavos: number | null = null;
    for (const tax of item.Taxes as { TaxTypeName: string; Tax: string }[]) {
      const n = reaisToCentavos(tax.Tax);
      if (tax.TaxTypeName === '1') percentHundredths = n;
      else fixedCentavos = n;
    }
    fees.push({
      method,
      percentHundredths,
      fixedCentavos,
      subaccountPaysProviderFee: item.IsSubaccountTaxPayer === true,
    });
  }
  return fees;
}

const secret = (v: unknown) =>
  typeof v === 'string' && v.trim() !== '' ? new ProviderSecret(v.trim()) : null;
const textOf = (v: unknown) => (typeof v === 'string' ? v : null);

/** `MarketplaceResponse` → {@link RemoteSubaccount}; null without an id. */
function remoteOf(detail: Detail): RemoteSubaccount | null {
  const id = idOf(detail.Id);
  if (!id) return null;
  return {
    providerReference: id,
    document: textOf(detail.Identity),
    name: textOf(detail.Name),
    email: textOf(detail.Email),
    removed: detail.IsRemoved === true,
    fees: feesOf(detail.MerchantSplit),
    credentials: {
      productionToken: secret(detail.Token),
      sandboxToken: secret(detail.TokenSandbox),
      productionSecretKey: secret(detail.SecretKey),
      sandboxSecretKey: secret(detail.SecretKeySandbox),
    },
  };
}

const sameFees = (a: readonly SubaccountFee[] | null, b: readonly SubaccountFee[]) =>
  a !== null &&
  a.length === b.length &&
  b.every((f) =>
    a.some(
      (g) =>
        g.method === f.method &&
        g.percentHundredths === f.percentHundredths &&
        g.fixedCentavos === f.fixedCentavos &&
        g.subaccountPaysProviderFee === f.subaccountPaysProviderFee,
    ),
  );

export function createSafe2PaySubaccounts({
  apiHost,
  call,
}: {
  readonly apiHost: string;
  readonly call: MatrixCall;
}): SubaccountsCapability {
  const getUrl = (id: string) => `${apiHost}/v2/Marketplace/Get?Id=${encodeURIComponent(id)}`;

  /** The record by id, its raw detail kept for an update. */
  async function read(
    providerReference: string,
    ctx: MatrixContext,
  ): Promise<{ remote: RemoteSubaccount; detail: Detail; http: number } | Refused | Uncertain> {
    if (!idOf(providerReference)) return invalid();
    const result = await call(ctx, 'GET', getUrl(providerReference));
    if (!('ok' in result)) return typed(result);
    const http = result.httpStatus;
    if (!isRecord(result.detail)) return uncertain('incomplete', http);
    const remote = remoteOf(result.detail);
    if (!remote) return uncertain('incomplete', http);
    // An answer about another subaccount proves nothing about this one.
    if (remote.providerReference !== providerReference) {
      return uncertain('mismatch', http, { providerReference });
    }
    return { remote, detail: result.detail, http };
  }

  return {
    async create(input, ctx) {
      if (!validCreate(input)) return invalid();
      const result = await call(ctx, 'POST', `${apiHost}/v2/Marketplace/Add`, merchantBody(input));
      if (!('ok' in result)) return typed(result);
      const http = result.httpStatus;
      if (!isRecord(result.detail)) return uncertain('incomplete', http);
      const id = idOf(result.detail.Id);
      if (!id) return uncertain('incomplete', http);
      let remote = remoteOf(result.detail);
      // An answer without the tokens (INFERRED alternative): they are read back at once.
      if (!remote?.credentials.productionToken || !remote.credentials.sandboxToken) {
        const back = await read(id, ctx);
        if (!('remote' in back)) {
          // Created for certain, tokens unread: uncertain with its id, so a refresh by id completes it.
          return uncertain(back.kind === 'refused' ? 'incomplete' : back.reason, http, {
            providerReference: id,
          });
        }
        remote = back.remote;
      }
      if (remote.document !== input.document) return uncertain('mismatch', http, { providerReference: id });
      return { kind: 'issued', subaccount: remote };
    },

    async get(providerReference, ctx) {
      const got = await read(providerReference, ctx);
      return 'remote' in got ? { kind: 'issued', subaccount: got.remote } : got;
    },

    async find(document, ctx) {
      if (!/^(?:[0-9]{11}|[0-9]{14})$/.test(document)) return invalid();
      const found: RemoteSubaccount[] = [];
      let seen = 0;
      for (let page = 1; page <= MAX_PAGES; page++) {
        const url = `${apiHost}/v2/Marketplace/List?PageNumber=${page}&RowsPerPage=${ROWS_PER_PAGE}`;
        const result = await call(ctx, 'GET', url);
        if (!('ok' in result)) return typed(result);
        const detail = result.detail;
        if (!isRecord(detail) || !Array.isArray(detail.Objects))
          return uncertain('incomplete', result.httpStatus);
        for (const item of detail.Objects) {
          if (!isRecord(item)) return uncertain('incomplete', result.httpStatus);
          if (item.Identity !== document) continue;
          const remote = remoteOf(item);
          if (!remote) return uncertain('incomplete', result.httpStatus);
          found.push(remote);
        }
        seen += detail.Objects.length;
        const total = typeof detail.TotalItems === 'number' ? detail.TotalItems : null;
        if (detail.Objects.length < ROWS_PER_PAGE || (total !== null && seen >= total)) {
          return { kind: 'issued', subaccounts: found };
        }
      }
      // More subaccounts than a reconciliation reads: not "none", so never a reason to create again.
      return uncertain('incomplete', null);
    },

    async update(input, ctx) {
      if (
        (input.name !== undefined && !text(input.name, 200)) ||
        (input.commercialName !== undefined && !text(input.commercialName, 200)) ||
        (input.email !== undefined && !text(input.email, 200)) ||
        (input.responsible !== undefined && !validResponsible(input.responsible)) ||
        (input.bankAccount !== undefined && !validBankAccount(input.bankAccount)) ||
        !validFees(input.fees)
      ) {
        return invalid();
      }
      const current = await read(input.providerReference, ctx);
      if (!('remote' in current)) return current;
      const kept: Record<string, unknown> = {};
      for (const field of MERCHANT_FIELDS) {
        if (current.detail[field] !== undefined && current.detail[field] !== null)
          kept[field] = current.detail[field];
      }
      // SPEC 4.14: omitted, the fees as read are sent back unchanged (a provider that replaces keeps them).
      const split =
        input.fees === undefined ? requestSplitOf(current.detail.MerchantSplit) : merchantSplit(input.fees);
      if (split === null)
        return uncertain('unparsable', current.http, { providerReference: input.providerReference });
      const body: Record<string, unknown> = {
        ...kept,
        ...(input.name === undefined ? {} : { Name: input.name.trim() }),
        ...(input.commercialName === undefined ? {} : { CommercialName: input.commercialName.trim() }),
        ...(input.email === undefined ? {} : { Email: input.email.trim() }),
        ...(input.responsible === undefined ? {} : responsibleBody(input.responsible)),
        ...(input.address === undefined ? {} : { Address: addressBody(input.address) }),
        ...(input.bankAccount === undefined ? {} : { BankData: bankData(input.bankAccount) }),
        MerchantSplit: split,
      };
      const url = `${apiHost}/v2/Marketplace/Update?Id=${encodeURIComponent(input.providerReference)}`;
      const result = await call(ctx, 'PUT', url, body);
      if (!('ok' in result)) return typed(result);
      // The answer may be the record or a bare `true`: what proves the change is the record read back.
      const after =
        isRecord(result.detail) && idOf(result.detail.Id) === input.providerReference
          ? remoteOf(result.detail)
          : null;
      let remote = after;
      if (!remote) {
        const back = await read(input.providerReference, ctx);
        // Sent and accepted, not read back: not known to be applied.
        if (!('remote' in back)) {
          return back.kind === 'uncertain'
            ? back
            : uncertain('incomplete', result.httpStatus, { providerReference: input.providerReference });
        }
        remote = back.remote;
      }
      if (input.fees !== undefined && !sameFees(remote.fees, input.fees)) {
        return uncertain('mismatch', result.httpStatus, { providerReference: input.providerReference });
      }
      return { kind: 'issued', subaccount: remote };
    },

    async remove(providerReference, ctx): Promise<Outcome<{ readonly removed: true }>> {
      if (!idOf(providerReference)) return invalid();
      const url = `${apiHost}/v2/Marketplace/Delete?Id=${encodeURIComponent(providerReference)}`;
      const result = await call(ctx, 'DELETE', url);
      if (!('ok' in result)) return typed(result);
      if (result.detail === true) return { kind: 'issued', removed: true };
      if (result.detail === false)
        return refused('status_refused', null, result.httpStatus, providerReference);
      return uncertain('incomplete', result.httpStatus, { providerReference });
    },
  };
}
