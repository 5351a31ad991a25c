import { randomBytes } from 'node:crypto';
import { isValidCPF } from '@brazilian-utils/brazilian-utils';
import { wireCentavos } from './amounts.ts';
import {
  EMULATOR_CODES,
  error,
  isRecord,
  ok,
  queryParam,
  type Route,
  type WireAnswer,
  type WireRequest,
} from './wire.ts';

/**
 * Marketplace subaccounts (issue 28; wire doc §2.12-2.13, wave 2b §4.1-4.2, §7.7): `Marketplace/Add|Get|List|
 * Update|Delete` on the API host, synchronous, answered in the v2 envelope. Only a matrix PRODUCTION key
 * manages them: the matrix's sandbox key gets SPEC 2.8's code 301, any other key (a plain sandbox key, a
 * subaccount's own token) Safe2Pay's 300 (wave 2b §4.1). The observed onboarding codes are produced as the
 * wire doc describes them: 1346 a required field missing, 1343 the responsible's CPF failing the check
 * (here: its check digits), 1273 a fixed Pix fee below R$ 0,35. Each subaccount gets a production and a
 * sandbox token and secret; a charge sent with one of its tokens is attributed to it (charges.ts `account`).
 */

export const SUBACCOUNT_CODES = {
  notMarketplace: '300',
  responsibleCpf: '1343',
  missingField: '1346',
  pixFeeBelowMinimum: '1273',
} as const;

/**
 * Where the wire doc is INFERRED, which behaviour the emulator shows (docs/provider-emulator.md):
 * - `update`: `merge` keeps what a `Marketplace/Update` body omits; `replace` stores the body as the whole
 *   record (an omitted `MerchantSplit` clears the fees), as a PUT of a full `Merchant` may do.
 * - `addAnswer`: `full` answers `Add` with the record and its tokens (OFF-NET `MarketplaceResponse`);
 *   `id_only` answers `{Id}` only, the tokens readable by `Get`.
 */
export interface SubaccountSettings {
  update: 'merge' | 'replace';
  addAnswer: 'full' | 'id_only';
}

const DEFAULT_SETTINGS: SubaccountSettings = { update: 'merge', addAnswer: 'full' };

export interface EmulatedSubaccount {
  readonly id: number;
  /** The `Merchant` as last written, without `BankData` (kept apart, masked in views). */
  merchant: Record<string, unknown>;
  bankData: Record<string, unknown> | null;
  readonly token: string;
  readonly tokenSandbox: string;
  readonly secretKey: string;
  readonly secretKeySandbox: string;
  removed: boolean;
}

const REQUIRED = [
  'Identity',
  'Name',
  'CommercialName',
  'Email',
  'ResponsibleName',
  'ResponsibleIdentity',
  'ResponsiblePhone',
  'ResponsibleBirthDate',
] as const;

const ADDRESS_REQUIRED = ['ZipCode', 'Street', 'Number', 'District', 'CityName', 'StateInitials'] as const;

const filled = (v: unknown) => typeof v === 'string' && v.trim() !== '';

/** Wire `MerchantSplit[]`: the shape, and the Pix minimum (1273). Answers an error or null. */
function checkSplit(split: unknown): WireAnswer | null {
  if (split === undefined || split === null) return null;
  if (!Array.isArray(split)) return error(EMULATOR_CODES.invalidBody, 'MerchantSplit must be a list');
  for (const item of split) {
    if (!isRecord(item) || !/^[0-9]{1,2}$/.test(String(item.PaymentMethodCode ?? ''))) {
      return error(EMULATOR_CODES.invalidBody, 'MerchantSplit[].PaymentMethodCode is required');
    }
    if (!Array.isArray(item.Taxes) || item.Taxes.length === 0) {
      return error(EMULATOR_CODES.invalidBody, 'MerchantSplit[].Taxes is required');
    }
    for (const tax of item.Taxes) {
      const type = isRecord(tax) ? String(tax.TaxTypeName ?? '') : '';
      const value = isRecord(tax) ? wireCentavos(Number(tax.Tax)) : null;
      if ((type !== '1' && type !== '2') || value === null || value < 0) {
        return error(EMULATOR_CODES.invalidBody, 'MerchantSplit[].Taxes[] needs TaxTypeName "1"|"2" and Tax');
      }
      if (String(item.PaymentMethodCode) === '6' && type === '2' && value < 35) {
        return error(SUBACCOUNT_CODES.pixFeeBelowMinimum, 'Taxa Pix abaixo do mínimo de R$ 0,35.');
      }
    }
  }
  return null;
}

/** A `Merchant` body: 1346 for a missing field, 1343 for the responsible's CPF, the fee checks. */
function checkMerchant(body: Record<string, unknown>): WireAnswer | null {
  for (const field of REQUIRED) {
    if (!filled(body[field])) return error(SUBACCOUNT_CODES.missingField, `Campo obrigatório: ${field}.`);
  }
  const address = body.Address;
  if (!isRecord(address)) return error(SUBACCOUNT_CODES.missingField, 'Campo obrigatório: Address.');
  for (const field of ADDRESS_REQUIRED) {
    if (!filled(address[field]))
      return error(SUBACCOUNT_CODES.missingField, `Campo obrigatório: Address.${field}.`);
  }
  if (!/^(?:[0-9]{11}|[0-9]{14})$/.test(String(body.Identity))) {
    return error(EMULATOR_CODES.invalidBody, 'Identity must be a CPF or CNPJ (digits)');
  }
  if (!isValidCPF(String(body.ResponsibleIdentity))) {
    return error(SUBACCOUNT_CODES.responsibleCpf, 'CPF do responsável não confere na Receita Federal.');
  }
  return checkSplit(body.MerchantSplit);
}

/** The matrix account's callback secret (the emulator's; the provider's panel shows the real one). */
export const EMULATOR_MATRIX_SECRET = 'emu-matrix-secret-key';

const token = () => randomBytes(18).toString('hex').toUpperCase();

export class SubaccountStore {
  #byId = new Map<number, EmulatedSubaccount>();
  #next = 70001;
  settings: SubaccountSettings = { ...DEFAULT_SETTINGS };

  create(merchant: Record<string, unknown>): EmulatedSubaccount {
    const { BankData, ...rest } = merchant;
    const sub: EmulatedSubaccount = {
      id: this.#next++,
      merchant: rest,
      bankData: isRecord(BankData) ? BankData : null,
      token: token(),
      tokenSandbox: token(),
      secretKey: token(),
      secretKeySandbox: token(),
      removed: false,
    };
    this.#byId.set(sub.id, sub);
    return sub;
  }

  get(id: number): EmulatedSubaccount | undefined {
    return this.#byId.get(id);
  }

  all(): EmulatedSubaccount[] {
    return [...this.#byId.values()];
  }

  /** The subaccount and environment a key is a token of (a removed account's tokens stop working). */
  owner(key: string): { id: number; env: 'sandbox' | 'production' } | null {
    for (const s of this.#byId.values()) {
      if (s.removed) continue;
      if (s.token === key) return { id: s.id, env: 'production' };
      if (s.tokenSandbox === key) return { id: s.id, env: 'sandbox' };
    }
    return null;
  }

  configure(input: Record<string, unknown>): SubaccountSettings | null {
    const next = { ...this.settings };
    if (input.update !== undefined) {
      if (input.update !== 'merge' && input.update !== 'replace') return null;
      next.update = input.update;
    }
    if (input.addAnswer !== undefined) {
      if (input.addAnswer !== 'full' && input.addAnswer !== 'id_only') return null;
      next.addAnswer = input.addAnswer;
    }
    this.settings = next;
    return next;
  }

  clear(): void {
    this.#byId.clear();
    this.#next = 70001;
    this.settings = { ...DEFAULT_SETTINGS };
  }
}

/** `MarketplaceResponse` (OFF-NET): the record with its four credentials, as the provider answers it. */
export function subaccountDetail(s: EmulatedSubaccount): Record<string, unknown> {
  return {
    ...s.merchant,
    Id: s.id,
    IdMerchantRoot: 1,
    MerchantType: 2,
    BankData: s.bankData,
    Token: s.token,
    TokenSandbox: s.tokenSandbox,
    SecretKey: s.secretKey,
    SecretKeySandbox: s.secretKeySandbox,
    MerchantSplit: Array.isArray(s.merchant.MerchantSplit) ? s.merchant.MerchantSplit : [],
    Configuration: {
      MerchantNotify: {
        IsPaymentReceived: false,
        IsBankSlipCreated: false,
        IsBankSlipDue: false,
        IsPaymentRefused: false,
      },
    },
    IsRemoved: s.removed,
  };
}

/** The matrix-only gate of every `Marketplace/*` route (SPEC 2.8 and wave 2b §4.1). */
function gate(req: WireRequest): WireAnswer | null {
  if (req.matrixSandboxKey) {
    return error(EMULATOR_CODES.matrixSandboxKey, 'A chave sandbox da conta matriz não gerencia subcontas.');
  }
  if (req.environment !== 'production' || (req.subaccountId ?? null) !== null) {
    return error(
      SUBACCOUNT_CODES.notMarketplace,
      'Recurso não permitido para conta diferente de Marketplace.',
    );
  }
  return null;
}

const idOf = (raw: string | null) => (raw !== null && /^[0-9]{1,15}$/.test(raw) ? Number(raw) : null);

function positive(raw: string | null, fallback: number, max: number): number {
  const n = raw !== null && /^[0-9]{1,7}$/.test(raw) ? Number(raw) : fallback;
  return Math.min(Math.max(n, 1), max);
}

/** The `Marketplace/*` route of a request, or null when it is not one. */
export function routeSubaccount(req: WireRequest, store: SubaccountStore): Route | null {
  const path = req.path.toLowerCase();
  if (!path.startsWith('/v2/marketplace/') || (req.host !== 'any' && req.host !== 'api')) return null;
  const verb = req.method.toUpperCase();
  const body = isRecord(req.body) ? req.body : {};
  const identity = typeof body.Identity === 'string' ? body.Identity : null;
  const id = idOf(queryParam(req.query, 'Id'));
  const base = { chargeId: null };
  // The subaccount the query's `Id` names (get, update, delete) when the call runs; its document for the log.
  const current = () => (id === null ? undefined : store.get(id));
  const identityOfId = (current()?.merchant.Identity as string | undefined) ?? null;
  /**
   * The run of a call on the subaccount its `Id` names (get, update, delete): the gate, then that account or
   * 404 (`live`: a removed one is not found either; `any`: `Get` still shows it, flagged), then `act`.
   */
  const target = (which: 'any' | 'live', act: (sub: EmulatedSubaccount) => WireAnswer) => (): WireAnswer => {
    const refused = gate(req);
    if (refused) return refused;
    const sub = current();
    if (!sub || (which === 'live' && sub.removed)) {
      return error(EMULATOR_CODES.notFound, 'Subconta não encontrada.');
    }
    return act(sub);
  };

  if (verb === 'POST' && path === '/v2/marketplace/add') {
    return {
      ...base,
      operation: 'subaccount_create',
      reference: identity,
      run() {
        const refused = gate(req) ?? checkMerchant(body);
        if (refused) return refused;
        if (store.all().some((s) => !s.removed && s.merchant.Identity === body.Identity)) {
          return error(EMULATOR_CODES.notAllowed, 'Já existe subconta com este documento.');
        }
        const sub = store.create(body);
        return ok(store.settings.addAnswer === 'full' ? subaccountDetail(sub) : { Id: sub.id });
      },
    };
  }
  if (verb === 'GET' && path === '/v2/marketplace/get') {
    return {
      ...base,
      operation: 'subaccount_get',
      reads: true,
      reference: identityOfId,
      run: target('any', (sub) => ok(subaccountDetail(sub))),
    };
  }
  if (verb === 'GET' && path === '/v2/marketplace/list') {
    const page = positive(queryParam(req.query, 'PageNumber'), 1, 1_000_000);
    const rows = positive(queryParam(req.query, 'RowsPerPage'), 10, 100);
    return {
      ...base,
      operation: 'subaccount_list',
      reads: true,
      reference: null,
      run() {
        const refused = gate(req);
        if (refused) return refused;
        const all = store.all();
        const slice = all.slice((page - 1) * rows, page * rows);
        return ok({ TotalItems: all.length, Objects: slice.map(subaccountDetail) });
      },
    };
  }
  if (verb === 'PUT' && path === '/v2/marketplace/update') {
    return {
      ...base,
      operation: 'subaccount_update',
      reference: identityOfId,
      run: target('live', (sub) => {
        const { BankData, ...rest } = body;
        // The document is the account's: an update never moves it to another one.
        const next =
          store.settings.update === 'merge'
            ? { ...sub.merchant, ...rest, Identity: sub.merchant.Identity }
            : { ...rest, Identity: sub.merchant.Identity };
        const invalid = checkMerchant(next);
        if (invalid) return invalid;
        sub.merchant = next;
        if (isRecord(BankData)) sub.bankData = BankData;
        else if (store.settings.update === 'replace') sub.bankData = null;
        return ok(subaccountDetail(sub));
      }),
    };
  }
  if (verb === 'DELETE' && path === '/v2/marketplace/delete') {
    return {
      ...base,
      operation: 'subaccount_delete',
      reference: identityOfId,
      run: target('live', (sub) => {
        sub.removed = true;
        return ok(true);
      }),
    };
  }
  return null;
}

/** Bank data in the call log and the control views: the bank and the last two digits of the account only. */
export function maskedSubaccountForCallLog(body: unknown): unknown {
  if (!isRecord(body) || !isRecord(body.BankData)) return body;
  const b = body.BankData;
  const account = typeof b.BankAccount === 'string' ? b.BankAccount : '';
  return { ...body, BankData: { Bank: b.Bank, BankAccountLast2: account.slice(-2) } };
}

/**
 * `/_emulator/subaccounts` (list, with its tokens: a test stands in for the provider's panel) and
 * `/_emulator/subaccounts/settings`; null when the path is another one.
 */
export function subaccountControl(
  store: SubaccountStore,
  method: string,
  path: string,
  body: Record<string, unknown>,
): { status: number; json: unknown } | null {
  if (path === '/subaccounts/settings' && (method === 'GET' || method === 'POST')) {
    const settings = method === 'POST' ? store.configure(body) : { ...store.settings };
    if (!settings) {
      return { status: 400, json: { error: 'update must be merge or replace; addAnswer full or id_only' } };
    }
    return { status: 200, json: { subaccounts: settings } };
  }
  if (method === 'GET' && path === '/subaccounts') {
    const list = store.all().map((s) => maskedSubaccountForCallLog(subaccountDetail(s)));
    return { status: 200, json: { subaccounts: list } };
  }
  return null;
}

/**
 * The callback the provider would POST for a charge (wire doc §2.16, wave 2b §6.1): the charging account's
 * own `SecretKey` in the body (a subaccount's for its charges, INFERRED), status as the provider holds it.
 */
export function callbackBody(
  charge: {
    id: number;
    reference: string;
    amount: number;
    status: number;
    sandbox: boolean;
    account: number | null;
  },
  secret: string,
): Record<string, unknown> {
  return {
    IdTransaction: charge.id,
    IdMerchant: charge.account ?? 1,
    TransactionStatus: { Id: charge.status, Code: String(charge.status) },
    Amount: charge.amount / 100,
    Reference: charge.reference,
    SecretKey: secret,
  };
}
