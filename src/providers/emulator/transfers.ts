import { randomBytes } from 'node:crypto';
import { wireCentavos, wireDate, wireReais } from './amounts.ts';
import { boletoNumbers } from './boleto.ts';
import { BANK } from './charges.ts';
import { EMULATOR_CODES, type Environment, error, ok, type Route, type WireRequest } from './wire.ts';

/**
 * The provider's transfer API as the emulator speaks it (issue 22 item 4.2; wire doc wave 2b §5.2, §7.7):
 * `POST /v2/Transfer` creates a lot of registers (TEDs), `GET /v2/Transfer/Get?Id=` reads one register,
 * `GET /v2/Transfer/List?PageNumber&RowsPerPage` lists them. Paths match case-insensitively, as the real hosts
 * do. Like the provider it has no idempotency: two creations with the same `Identification` are two lots.
 *
 * Every state change happens inside a route's synchronous `run()`, checked and changed with no await in
 * between; the server runs a write on arrival, before a latency fault's delay, and a read (`reads: true`)
 * when the delay ends, so no two calls act on one stale read.
 * The bank account is kept and answered masked (bank, branch and account type, the account's last two digits),
 * and the call log gets the same masked copy (`maskedForCallLog`).
 */

/** A register as a request asks for it, validated (`validRegister`). */
interface RegisterInput {
  readonly receiverName: string;
  readonly identity: string;
  readonly amount: number;
  readonly identification: string;
  readonly compensationDate: string;
  /** `BankData` with the account masked: the emulator never holds the whole account. */
  readonly bankData: Readonly<Record<string, unknown>>;
}

export interface EmulatedRegister extends RegisterInput {
  readonly id: number;
  readonly lotId: number;
  readonly sandbox: boolean;
  readonly createdOn: string;
  transferred: boolean;
  returned: boolean;
  hashConfirmation: string | null;
  returnReason: { readonly code: string; readonly description: string | null } | null;
}

export interface EmulatedLot {
  /** The id of its first register: a lot of one register and its register share the id (emulator convention). */
  readonly id: number;
  readonly sandbox: boolean;
  readonly useCheckingAccount: boolean;
  /** Funded: at once from the balance; a boleto-funded lot only after the `released` move (its boleto paid). */
  released: boolean;
  readonly amount: number;
  readonly createdOn: string;
  readonly registerIds: readonly number[];
  readonly boleto: {
    readonly url: string;
    readonly digitableLine: string;
    readonly barcode: string;
    readonly number: string;
    readonly dueDate: string;
  } | null;
}

/** The last two digits stay, so a test or an operator can tell accounts apart; the rest never enters. */
function maskDigits(value: unknown): string {
  const text = typeof value === 'string' || typeof value === 'number' ? String(value) : '';
  return text.length <= 2 ? '*'.repeat(text.length) : `${'*'.repeat(text.length - 2)}${text.slice(-2)}`;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** `BankData` without the account number and its digit. */
function maskedBankData(bankData: unknown): unknown {
  if (!isRecord(bankData)) return bankData;
  const masked: Record<string, unknown> = { ...bankData };
  if ('BankAccount' in masked) masked.BankAccount = maskDigits(masked.BankAccount);
  if ('BankAccountDigit' in masked) masked.BankAccountDigit = maskDigits(masked.BankAccountDigit);
  return masked;
}

/**
 * What `/_emulator/calls` keeps of a request body: a transfer body's registers with their accounts masked
 * (whatever route, key or validity the call had); any other body as it came.
 */
export function maskedForCallLog(body: unknown): unknown {
  if (!isRecord(body) || !Array.isArray(body.TransferRegisters)) return body;
  return {
    ...body,
    TransferRegisters: body.TransferRegisters.map((r) =>
      isRecord(r) ? { ...r, BankData: maskedBankData(r.BankData) } : r,
    ),
  };
}

export class TransferStore {
  #lots = new Map<number, EmulatedLot>();
  #registers = new Map<number, EmulatedRegister>();
  #next = 5_000_001;
  readonly #publicBase: string;

  constructor(publicBase: string) {
    this.#publicBase = publicBase;
  }

  /** One lot and its registers, in one synchronous step. */
  create(input: {
    sandbox: boolean;
    useCheckingAccount: boolean;
    registers: readonly RegisterInput[];
    today: string;
  }): EmulatedLot {
    const id = this.#next;
    this.#next += input.registers.length;
    const amount = input.registers.reduce((sum, r) => sum + r.amount, 0);
    let boleto: EmulatedLot['boleto'] = null;
    if (!input.useCheckingAccount) {
      // Wire doc §5.2: without `IsUseCheckingAccount` the lot is funded by a boleto the merchant pays.
      const freeField = `4411${String(id).padStart(10, '0')}${input.today.replaceAll('-', '')}`.padEnd(
        25,
        '0',
      );
      const numbers = boletoNumbers(BANK, amount, input.today, freeField.slice(0, 25));
      boleto = {
        url: `${this.#publicBase}/transfer/${id}.pdf`,
        digitableLine: numbers.digitableLine,
        barcode: numbers.barcode,
        number: String(id).padStart(10, '0'),
        dueDate: input.today,
      };
    }
    const lot: EmulatedLot = {
      id,
      sandbox: input.sandbox,
      useCheckingAccount: input.useCheckingAccount,
      released: input.useCheckingAccount,
      amount,
      createdOn: input.today,
      registerIds: input.registers.map((_, i) => id + i),
      boleto,
    };
    this.#lots.set(id, lot);
    input.registers.forEach((r, i) => {
      this.#registers.set(id + i, {
        ...r,
        id: id + i,
        lotId: id,
        sandbox: input.sandbox,
        createdOn: input.today,
        transferred: false,
        returned: false,
        hashConfirmation: null,
        returnReason: null,
      });
    });
    return lot;
  }

  register(id: number): EmulatedRegister | undefined {
    return this.#registers.get(id);
  }

  lot(id: number): EmulatedLot | undefined {
    return this.#lots.get(id);
  }

  /** Oldest first. */
  registers(): EmulatedRegister[] {
    return [...this.#registers.values()];
  }

  clear(): void {
    this.#lots.clear();
    this.#registers.clear();
  }
}

function brDate(date: string): string {
  const [y, m, d] = date.split('-');
  return `${d}/${m}/${y}`;
}

/** A register as `Transfer/Get` and `Transfer/List` answer it (OFF-NET `TransferResponse`, register fields). */
export function registerDetail(r: EmulatedRegister, lot: EmulatedLot | undefined): Record<string, unknown> {
  return {
    Id: r.id,
    IdTransferRegisterLot: r.lotId,
    ReceiverName: r.receiverName,
    Identity: r.identity,
    Amount: wireReais(r.amount),
    Identification: r.identification,
    CallbackUrl: null,
    BankData: r.bankData,
    IsTransferred: r.transferred,
    IsReleaseTransfer: lot?.released ?? false,
    IsNotified: false,
    IsReturned: r.returned,
    HashScheduling: `AGD${r.id}`,
    HashConfirmation: r.hashConfirmation,
    CompensationDate: r.compensationDate,
    CreatedDate: r.createdOn,
    Validation: null,
    ValidationSimplify: null,
    // Its shape is UNKNOWN on the wire (wire doc §5.2); emulator convention: a list of `{Code, Description}`.
    BankingTransferOccurrenceReason: r.returnReason
      ? [{ Code: r.returnReason.code, Description: r.returnReason.description }]
      : null,
  };
}

/** `ResponseDetail` of `POST /v2/Transfer`: the lot, its registers, and its funding boleto when it has one. */
function lotDetail(lot: EmulatedLot, store: TransferStore): Record<string, unknown> {
  const registers = lot.registerIds.map((id) => store.register(id)).filter((r) => r !== undefined);
  return {
    Id: lot.id,
    AmountLot: wireReais(lot.amount),
    AmountTax: 0,
    IsRelease: lot.released,
    IsUseCheckingAccount: lot.useCheckingAccount,
    IsProcessed: false,
    Message: lot.released ? 'Lote liberado' : 'Aguardando pagamento do boleto',
    Description: '',
    CreatedDate: lot.createdOn,
    TransferRegisters: registers.map((r) => registerDetail(r, lot)),
    ...(lot.boleto
      ? {
          BankSlipUrl: lot.boleto.url,
          DigitableLine: lot.boleto.digitableLine,
          Barcode: lot.boleto.barcode,
          BankSlipNumber: lot.boleto.number,
          DueDate: brDate(lot.boleto.dueDate),
        }
      : {}),
  };
}

const text = (v: unknown, max: number) => typeof v === 'string' && v.trim().length >= 1 && v.length <= max;

/** One register as the SDK models build it (wire doc §5.2); the error text, or the register. */
function validRegister(r: unknown, today: string): RegisterInput | string {
  if (!isRecord(r)) return 'TransferRegisters must be objects';
  if (!text(r.ReceiverName, 200)) return 'ReceiverName must have 1 to 200 characters';
  if (!/^[0-9A-Z]{11}$|^[0-9A-Z]{14}$/.test(String(r.Identity))) return 'Identity must be a CPF or CNPJ';
  const amount = wireCentavos(r.Amount);
  if (amount === null || amount < 1) return 'Amount must be a positive amount with at most two decimals';
  if (r.Identification !== undefined && r.Identification !== null && !text(r.Identification, 100)) {
    return 'Identification must have at most 100 characters';
  }
  const compensationDate = wireDate(r.CompensationDate);
  if (!compensationDate || compensationDate < today) return 'CompensationDate must be today or later';
  const b = r.BankData;
  if (!isRecord(b)) return 'BankData is required';
  const code = (o: unknown) => (isRecord(o) ? String(o.Code ?? '') : '');
  if (!/^[0-9]{3}$/.test(code(b.Bank))) return 'BankData.Bank.Code must have 3 digits';
  if (code(b.AccountType) !== 'CC' && code(b.AccountType) !== 'PP')
    return 'BankData.AccountType.Code must be CC or PP';
  if (!/^[0-9]{1,5}$/.test(String(b.BankAgency))) return 'BankData.BankAgency must have 1 to 5 digits';
  if (!/^[0-9]{1,19}$/.test(String(b.BankAccount))) return 'BankData.BankAccount must have 1 to 19 digits';
  for (const digit of [b.BankAgencyDigit, b.BankAccountDigit]) {
    if (digit !== undefined && digit !== null && digit !== '' && !/^[0-9Xx]$/.test(String(digit))) {
      return 'check digits must be one digit or X';
    }
  }
  return {
    receiverName: String(r.ReceiverName),
    identity: String(r.Identity),
    amount,
    identification: typeof r.Identification === 'string' ? r.Identification : '',
    compensationDate,
    bankData: maskedBankData(b) as Record<string, unknown>,
  };
}

/** A query parameter by name, case-insensitively (ASP.NET binds query names that way). */
function param(query: URLSearchParams, name: string): string | null {
  for (const [k, v] of query) if (k.toLowerCase() === name.toLowerCase()) return v;
  return null;
}

function positive(value: string | null, fallback: number, max: number): number {
  const n = value !== null && /^[0-9]{1,6}$/.test(value) ? Number(value) : fallback;
  return Math.min(Math.max(n, 1), max);
}

/** The transfer endpoints; null when the request is not one of them. */
export function routeTransfer(req: WireRequest, store: TransferStore): Route | null {
  const path = req.path.toLowerCase();
  const env: Environment = req.environment;
  const visible = (r: EmulatedRegister | undefined) =>
    r && r.sandbox === (env === 'sandbox') ? r : undefined;
  const onApi = req.host === 'any' || req.host === 'api';

  // The sources disagree on the host of creation (OFF-NET, OFF-PHP: payment; OFF-JAVA: api): both answer.
  if (req.method === 'POST' && path === '/v2/transfer') {
    const body = isRecord(req.body) ? req.body : {};
    const first = Array.isArray(body.TransferRegisters) ? body.TransferRegisters[0] : undefined;
    return {
      operation: 'transfer_create',
      reference: isRecord(first) && typeof first.Identification === 'string' ? first.Identification : null,
      chargeId: null,
      run() {
        const list = body.TransferRegisters;
        if (!Array.isArray(list) || list.length === 0) {
          return error(EMULATOR_CODES.invalidBody, 'TransferRegisters is required');
        }
        const use = body.IsUseCheckingAccount;
        if (use !== undefined && use !== null && typeof use !== 'boolean') {
          return error(EMULATOR_CODES.invalidBody, 'IsUseCheckingAccount must be a boolean');
        }
        const registers: RegisterInput[] = [];
        for (const r of list) {
          const valid = validRegister(r, req.today);
          if (typeof valid === 'string') return error(EMULATOR_CODES.invalidBody, valid);
          registers.push(valid);
        }
        const lot = store.create({
          sandbox: env === 'sandbox',
          useCheckingAccount: use === true,
          registers,
          today: req.today,
        });
        return ok(lotDetail(lot, store));
      },
    };
  }

  if (req.method === 'GET' && path === '/v2/transfer/get' && onApi) {
    const raw = param(req.query, 'Id');
    const id = raw !== null && /^[0-9]{1,15}$/.test(raw) ? Number(raw) : null;
    return {
      operation: 'transfer_get',
      reads: true,
      reference: visible(id === null ? undefined : store.register(id))?.identification ?? null,
      chargeId: null,
      run() {
        // Read when the answer is made, never from a lookup done before a fault's delay.
        const register = visible(id === null ? undefined : store.register(id));
        if (!register) return error(EMULATOR_CODES.notFound, 'Transferência não encontrada.');
        return ok(registerDetail(register, store.lot(register.lotId)));
      },
    };
  }

  if (req.method === 'GET' && path === '/v2/transfer/list' && onApi) {
    const page = positive(param(req.query, 'PageNumber'), 1, 1_000_000);
    const rows = positive(param(req.query, 'RowsPerPage'), 10, 100);
    const lotFilter = param(req.query, 'Object.IdTransferRegisterLot');
    return {
      operation: 'transfer_list',
      reads: true,
      reference: null,
      chargeId: null,
      run() {
        const all = store
          .registers()
          .filter((r) => visible(r) && (lotFilter === null || String(r.lotId) === lotFilter));
        const slice = all.slice((page - 1) * rows, page * rows);
        return ok({
          TotalItems: all.length,
          Objects: slice.map((r) => registerDetail(r, store.lot(r.lotId))),
        });
      },
    };
  }
  return null;
}

export const TRANSFER_MOVES = ['released', 'transferred', 'returned'] as const;

/**
 * The control API of transfers (docs/provider-emulator.md "Transfers"): `GET /transfers[?identification=]`,
 * `GET /transfers/{id}`, `POST /transfers/{id}/move {to, hash?, reason?, description?}`. Null: not a
 * transfer control path.
 */
export function transferControl(
  store: TransferStore,
  method: string,
  path: string,
  query: URLSearchParams,
  body: Record<string, unknown>,
): { status: number; json: unknown } | null {
  const view = (r: EmulatedRegister) => ({
    ...r,
    lot: store.lot(r.lotId),
    wire: registerDetail(r, store.lot(r.lotId)),
  });
  if (method === 'GET' && path === '/transfers') {
    const identification = query.get('identification');
    const list = store
      .registers()
      .filter((r) => identification === null || r.identification === identification);
    return { status: 200, json: { transfers: list.map(view) } };
  }
  const one = /^\/transfers\/([0-9]+)(\/move)?$/.exec(path);
  if (!one) return null;
  const register = store.register(Number(one[1]));
  if (!register) return { status: 404, json: { error: 'no such transfer' } };
  if (method === 'GET' && !one[2]) return { status: 200, json: { transfer: view(register) } };
  if (method !== 'POST' || !one[2]) return null;
  const lot = store.lot(register.lotId);
  const problem = (error: string) => ({ status: 409, json: { error } });
  switch (body.to) {
    case 'released':
      // The merchant paid the lot's funding boleto.
      if (lot) lot.released = true;
      break;
    case 'transferred':
      if (!lot?.released) return problem('the lot is not funded (its boleto is unpaid)');
      if (register.returned) return problem('a returned transfer cannot be confirmed');
      register.transferred = true;
      register.hashConfirmation =
        typeof body.hash === 'string' && body.hash !== '' ? body.hash : randomBytes(16).toString('hex');
      break;
    case 'returned':
      if (!lot?.released) return problem('the lot is not funded (its boleto is unpaid)');
      register.returned = true;
      register.returnReason =
        typeof body.reason === 'string' && body.reason !== ''
          ? { code: body.reason, description: typeof body.description === 'string' ? body.description : null }
          : null;
      break;
    default:
      return { status: 400, json: { error: `to must be one of ${TRANSFER_MOVES.join(', ')}` } };
  }
  return { status: 200, json: { transfer: view(register) } };
}
