import { wireCentavos, wireDate } from './amounts.ts';
import { type ChargeStore, creationDetail, type EmulatedCharge, readDetail } from './charges.ts';
import type { Operation } from './faults.ts';

/**
 * The Safe2Pay v2 endpoints the emulator answers (wire doc 2.3-2.11), as plain functions from a parsed
 * request to an envelope. Error codes 9001-9005 are the emulator's own (Safe2Pay publishes no code table,
 * wire doc section 3); 301 is SPEC 2.8's "matrix sandbox key" refusal.
 */

export type Environment = 'sandbox' | 'production';

export interface WireRequest {
  readonly method: string;
  readonly host: 'payment' | 'api' | 'any';
  readonly path: string;
  readonly query: URLSearchParams;
  readonly body: unknown;
  readonly environment: Environment;
  readonly matrixSandboxKey: boolean;
  /** Issue 28: the key is this subaccount's token (subaccounts.ts); null or absent for an account key. */
  readonly subaccountId?: number | null;
  readonly today: string;
}

export interface WireAnswer {
  readonly status: number;
  /** The envelope, or null for a router 404 with no body. */
  readonly json: Record<string, unknown> | null;
  /** Send nothing and keep the socket open (the card sandbox's timeout card, cards.ts): the client gives up. */
  readonly hang?: boolean;
}

/** A matched route: what it is (for faults and the call log) and how to run it. */
export interface Route {
  readonly operation: Operation;
  readonly reference: string | null;
  readonly chargeId: number | null;
  /**
   * True for a route that only reads. Every other route changes state, and the server runs it on arrival in
   * one synchronous step (check and change), before any fault's delay: the emulator is atomic per charge.
   */
  readonly reads?: boolean;
  run(): WireAnswer;
}

/**
 * One endpoint of the wire: a table entry, so another endpoint is one more entry. `path` is matched against
 * the whole path case-insensitively, as the provider's router does (the official Node SDK asks
 * `/v2/transaction/Get`); `open` reads the request (its id, reference) and answers the route to run.
 */
export interface Endpoint {
  readonly method: string;
  readonly host: 'payment' | 'api';
  readonly path: RegExp;
  open(req: WireRequest, store: ChargeStore, match: RegExpExecArray): Route;
}

/** A case-insensitive whole-path pattern, e.g. `wirePath('/v2/Pix/Cancel/([0-9]{1,15})')`. */
export function wirePath(pattern: string): RegExp {
  return new RegExp(`^${pattern}$`, 'i');
}

/** A query parameter by name, whatever its case (the provider binds them case-insensitively). */
export function queryParam(query: URLSearchParams, name: string): string | null {
  const wanted = name.toLowerCase();
  for (const [key, value] of query) if (key.toLowerCase() === wanted) return value;
  return null;
}

/** The first endpoint of `endpoints` matching the request; null means the router's 404 (no envelope). */
export function routeIn(endpoints: readonly Endpoint[], req: WireRequest, store: ChargeStore): Route | null {
  for (const endpoint of endpoints) {
    if (endpoint.method !== req.method.toUpperCase()) continue;
    if (req.host !== 'any' && req.host !== endpoint.host) continue;
    const match = endpoint.path.exec(req.path);
    if (match) return endpoint.open(req, store, match);
  }
  return null;
}

export const EMULATOR_CODES = {
  sandboxMismatch: '9001',
  invalidBody: '9002',
  notFound: '9003',
  notAllowed: '9004',
  unsupported: '9005',
  matrixSandboxKey: '301',
} as const;

export function ok(detail: unknown): WireAnswer {
  return { status: 200, json: { HasError: false, ErrorCode: '0', Error: '', ResponseDetail: detail } };
}

export function error(code: string, message: string, status = 200): WireAnswer {
  return { status, json: { HasError: true, ErrorCode: code, Error: message, ResponseDetail: null } };
}

export function isRecord(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/**
 * What every creation body needs whatever its method (wire doc 2.4): reference, `IsSandbox`, the payer and the
 * products; answers the amount in centavos (their sum).
 */
export function validateCreationBasics(body: Record<string, unknown>): { amount: number } | string {
  if (typeof body.Reference !== 'string' || body.Reference.length < 1 || body.Reference.length > 60) {
    return 'Reference must have 1 to 60 characters';
  }
  if (typeof body.IsSandbox !== 'boolean') return 'IsSandbox is required';
  const customer = body.Customer;
  if (
    !isRecord(customer) ||
    typeof customer.Name !== 'string' ||
    !/^[0-9A-Z]{11}$|^[0-9A-Z]{14}$/.test(String(customer.Identity))
  ) {
    return 'Customer.Name and Customer.Identity (CPF or CNPJ) are required';
  }
  if (!Array.isArray(body.Products) || body.Products.length === 0) return 'Products is required';
  let amount = 0;
  for (const product of body.Products) {
    if (!isRecord(product)) return 'Products must be objects';
    const unit = wireCentavos(product.UnitPrice);
    const quantity = product.Quantity;
    if (unit === null || unit < 1) return 'UnitPrice must be a positive amount with at most two decimals';
    if (typeof quantity !== 'number' || !Number.isInteger(quantity) || quantity < 1)
      return 'Quantity must be a positive integer';
    amount += unit * quantity;
  }
  return { amount };
}

/** Validates a creation body as the official SDK models build it; answers the amount in centavos. */
function validateCreation(
  body: Record<string, unknown>,
): { amount: number; dueDate: string | null } | string {
  const method = String(body.PaymentMethod ?? '');
  if (method !== '1' && method !== '6') return 'PaymentMethod must be "1" (boleto), "2" (card) or "6" (Pix)';
  const basics = validateCreationBasics(body);
  if (typeof basics === 'string') return basics;
  const { amount } = basics;
  const po = body.PaymentObject;
  if (!isRecord(po)) return 'PaymentObject is required';
  if (method === '6') {
    const expiration = po.Expiration;
    if (
      expiration !== undefined &&
      (typeof expiration !== 'number' || !Number.isInteger(expiration) || expiration < 1)
    ) {
      return 'PaymentObject.Expiration must be a positive number of seconds';
    }
    return { amount, dueDate: null };
  }
  const dueDate = wireDate(po.DueDate);
  if (!dueDate) return 'PaymentObject.DueDate must be dd/MM/yyyy or yyyy-MM-dd';
  return { amount, dueDate };
}

export function visible(charge: EmulatedCharge | undefined, env: Environment): EmulatedCharge | undefined {
  return charge && charge.sandbox === (env === 'sandbox') ? charge : undefined;
}

/** Reads the boleto's Pix as visible or not for this query (late Pix fault), counting the query. */
function countQuery(charge: EmulatedCharge): void {
  if (charge.boleto && charge.boleto.pixHiddenFor > 0) charge.boleto.pixHiddenFor -= 1;
}

export function idParam(value: string | null | undefined): number | null {
  return value && /^[0-9]{1,15}$/.test(value) ? Number(value) : null;
}

/** `POST /v2/Payment`: a creation, or with a real `Id` a change of an existing boleto (wire doc 2.5-2.7). */
function payment(req: WireRequest, store: ChargeStore): Route {
  const env = req.environment;
  const body = isRecord(req.body) ? req.body : {};
  // The official Node SDK's Transaction model sends `Id: 0` on every creation, so only a real id is a change.
  if (body.Id !== undefined && body.Id !== null && String(body.Id) !== '0') {
    // Wire doc 2.7: change an existing boleto.
    const id = idParam(String(body.Id));
    const charge = visible(id === null ? undefined : store.get(id), env);
    return {
      operation: 'change_due_date',
      reference: charge?.reference ?? null,
      chargeId: id,
      run() {
        if (!charge?.boleto) return error(EMULATOR_CODES.notFound, 'Transação não encontrada.');
        const po = isRecord(body.PaymentObject) ? body.PaymentObject : {};
        if (po.Command !== 1 && po.Command !== '1')
          return error(EMULATOR_CODES.unsupported, 'Comando não suportado pelo emulador.');
        const dueDate = wireDate(po.DueDate);
        if (!dueDate || dueDate < req.today)
          return error(EMULATOR_CODES.invalidBody, 'Data de vencimento inválida.');
        if (charge.status !== 1) return error(EMULATOR_CODES.notAllowed, 'Boleto não está pendente.');
        store.changeDueDate(charge, dueDate);
        return ok(creationDetail(charge));
      },
    };
  }
  return creationRoute(req, body, (reference) => {
    const valid = validateCreation(body);
    if (typeof valid === 'string') return error(EMULATOR_CODES.invalidBody, valid);
    if (body.IsSandbox !== (env === 'sandbox')) {
      return error(EMULATOR_CODES.sandboxMismatch, 'IsSandbox não corresponde ao token utilizado.');
    }
    const products = body.Products as Record<string, unknown>[];
    const charge = store.create({
      reference: reference ?? '',
      method: String(body.PaymentMethod) === '1' ? 'boleto' : 'pix',
      amount: valid.amount,
      sandbox: env === 'sandbox',
      description: String(products[0]?.Description ?? ''),
      dueDate: valid.dueDate,
      today: req.today,
      account: req.subaccountId ?? null,
    });
    return ok(creationDetail(charge));
  });
}

/**
 * A creation on `POST /v2/Payment` (Pix, boleto or card), known by its `Reference`: the matrix account's
 * sandbox key issues nothing, whatever the body says; otherwise `create` decides.
 */
export function creationRoute(
  req: WireRequest,
  body: Record<string, unknown>,
  create: (reference: string | null) => WireAnswer,
): Route {
  const reference = typeof body.Reference === 'string' ? body.Reference : null;
  return {
    operation: 'create',
    reference,
    chargeId: null,
    run: () =>
      req.matrixSandboxKey
        ? error(EMULATOR_CODES.matrixSandboxKey, 'A chave sandbox da conta matriz não emite cobranças.')
        : create(reference),
  };
}

/** Paid and not returned yet: what `Pix/Cancel` returns rather than cancels. */
export function isPaid(charge: EmulatedCharge): boolean {
  return charge.status === 3 || charge.status === 4;
}

/** The charge by the `idTransaction` query parameter, as the boleto and sandbox endpoints take it. */
function byIdTransaction(req: WireRequest, store: ChargeStore) {
  const id = idParam(queryParam(req.query, 'idTransaction'));
  return { id, charge: visible(id === null ? undefined : store.get(id), req.environment) };
}

/** A pending boleto's write-off (wire doc 2.11, status 12) or release (2.6, status 11). */
function pendingBoleto(to: 11 | 12) {
  return (req: WireRequest, store: ChargeStore): Route => {
    const { id, charge } = byIdTransaction(req, store);
    return {
      operation: to === 12 ? 'cancel' : 'release',
      reference: charge?.reference ?? null,
      chargeId: id,
      run() {
        if (!charge?.boleto) return error(EMULATOR_CODES.notFound, 'Transação não encontrada.');
        if (charge.status !== 1) return error(EMULATOR_CODES.notAllowed, 'Boleto não está pendente.');
        charge.status = to;
        return ok(true);
      },
    };
  };
}

/** The Safe2Pay v2 endpoints the emulator speaks (docs/provider-emulator.md "Wire endpoints"). */
export const WIRE_ENDPOINTS: readonly Endpoint[] = [
  { method: 'POST', host: 'payment', path: wirePath('/v2/Payment'), open: payment },
  {
    method: 'GET',
    host: 'api',
    path: wirePath('/v2/Transaction/Get'),
    open(req, store) {
      const id = idParam(queryParam(req.query, 'Id'));
      const charge = visible(id === null ? undefined : store.get(id), req.environment);
      return {
        operation: 'query',
        reference: charge?.reference ?? null,
        chargeId: id,
        reads: true,
        run() {
          if (!charge) return error(EMULATOR_CODES.notFound, 'Transação não encontrada.');
          countQuery(charge);
          return ok(readDetail(charge));
        },
      };
    },
  },
  {
    method: 'GET',
    host: 'api',
    path: wirePath('/v2/Transaction/Reference'),
    open(req, store) {
      const reference = queryParam(req.query, 'reference') ?? '';
      return {
        operation: 'query_by_reference',
        reference,
        chargeId: null,
        reads: true,
        run() {
          const found = store.byReference(reference).filter((c) => visible(c, req.environment));
          for (const c of found) countQuery(c);
          return ok({ TotalItems: found.length, Objects: found.map(readDetail) });
        },
      };
    },
  },
  {
    method: 'DELETE',
    host: 'api',
    path: wirePath('/v2/Pix/Cancel/([0-9]{1,15})'),
    open(req, store, match) {
      const id = Number(match[1]);
      const charge = visible(store.get(id), req.environment);
      return {
        // A return asked on a paid or already returned charge is a `refund` (for the fault rules and the call
        // log, so a second return of one charge counts as one); run() decides from the state itself.
        operation: charge !== undefined && (isPaid(charge) || charge.status === 6) ? 'refund' : 'cancel',
        reference: charge?.reference ?? null,
        chargeId: id,
        run() {
          if (!charge) return error(EMULATOR_CODES.notFound, 'Transação não encontrada.');
          const paid = isPaid(charge);
          // A paid Pix (or a boleto paid by its Pix) is returned: 6 Devolvido. An open Pix is cancelled: the
          // wire doc has no code for "Cancelado", so the emulator uses 12 "Em cancelamento".
          // A boleto paid by both: only its Pix payment is returned; the boleto stays paid (SPEC 2.2).
          if (paid && charge.duplicatePayment) {
            charge.duplicatePayment = false;
            return ok(true);
          }
          if (paid && (charge.method === 'pix' || charge.paidWith === 'pix')) {
            charge.status = 6;
            return ok(true);
          }
          if (!paid && charge.method === 'pix' && charge.status === 1) {
            charge.status = 12;
            return ok(true);
          }
          return error(EMULATOR_CODES.notAllowed, 'Transação não pode ser estornada via Pix.');
        },
      };
    },
  },
  { method: 'DELETE', host: 'api', path: wirePath('/v2/BankSlip/WriteOffBankSlip'), open: pendingBoleto(12) },
  { method: 'GET', host: 'api', path: wirePath('/v2/BankSlip/ReleaseBankSlip'), open: pendingBoleto(11) },
  {
    method: 'PUT',
    host: 'api',
    path: wirePath('/v2/Transaction/UpdateSandboxTransaction'),
    open(req, store) {
      const { id, charge } = byIdTransaction(req, store);
      const status = idParam(queryParam(req.query, 'idTransactionStatus'));
      return {
        operation: 'sandbox_status',
        reference: charge?.reference ?? null,
        chargeId: id,
        run() {
          if (req.environment !== 'sandbox')
            return error(EMULATOR_CODES.notAllowed, 'Disponível apenas em sandbox.');
          if (!charge || status === null) return error(EMULATOR_CODES.notFound, 'Transação não encontrada.');
          charge.status = status;
          if (status === 3 && charge.paidWith === null) {
            charge.paidWith = charge.method;
            charge.paymentDate = req.today;
          }
          return ok(true);
        },
      };
    },
  },
];

/** Finds the endpoint; null means the router's 404 (no envelope), as for an unknown path on the real hosts. */
export function route(req: WireRequest, store: ChargeStore): Route | null {
  return routeIn(WIRE_ENDPOINTS, req, store);
}
