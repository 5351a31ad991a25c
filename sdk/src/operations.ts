import { z } from 'zod';
import { chargePageParams } from '../../src/contract/charge-page.ts';
import { newBoletoBody, newPixBody, panelBoletoBody } from '../../src/contract/charges.ts';
import { newCreditCardBody } from '../../src/contract/credit-card.ts';
import { healthBody, readyBody } from '../../src/contract/health.ts';
import type { Operation as ContractOperation } from '../../src/contract/operation.ts';
import { OPERATION_MODULES } from '../../src/contract/operations/index.ts';
import { newPasswordBody, newUserBody } from '../../src/contract/users.ts';

/**
 * Every operation of the gateway (SPEC 9: one SDK method per operation), keyed by the operationId of
 * /openapi.json. The bound operations are read from the contract objects the server mounts
 * (src/contract/operations), so a request the SDK lets through is one the route's schema accepts;
 * test/drift.test.ts fails when the served document has an operation missing here, or one whose method,
 * path, credential or Idempotency-Key differs.
 */
export interface Operation {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  /** OpenAPI path template; `{name}` segments are the method's leading string arguments, in order. */
  path: string;
  /** `api_key`: `X-API-Key` (public API); `session`: `Authorization: Bearer` (panel API); `none`. */
  auth: 'api_key' | 'session' | 'none';
  /** SPEC 4 common rules: creations require the Idempotency-Key header; the SDK never makes one up. */
  idempotency?: 'required' | 'optional';
  params?: z.ZodType;
  query?: z.ZodType;
  body?: z.ZodType;
  /** The body may be left out (refund without a bank account). */
  bodyOptional?: true;
  /** The 2xx answer: a JSON schema (for the result type only; answers are not re-validated), or raw. */
  response: z.ZodType | 'text' | 'bytes' | 'empty';
}

/** fastify's `/v1/transactions/:id` as OpenAPI's `/v1/transactions/{id}`. */
type OpenApiPath<P extends string> = P extends `${infer Head}:${infer Name}/${infer Rest}`
  ? `${Head}{${Name}}/${OpenApiPath<Rest>}`
  : P extends `${infer Head}:${infer Name}`
    ? `${Head}{${Name}}`
    : P;

type Auth<A> = A extends { auth: infer T extends 'api_key' | 'session' } ? T : 'none';

type Idempotency<A> = A extends { idempotencyKey: true }
  ? { idempotency: 'required' }
  : A extends { idempotencyKey: 'optional' }
    ? { idempotency: 'optional' }
    : unknown;

/** A schema member present on the contract, under the SDK's name; absent stays absent. */
type Member<S, From extends string, To extends string> = S extends { [K in From]: infer V extends z.ZodType }
  ? { [K in To]: V }
  : unknown;

type BodyOptional<S> = S extends { body: infer B extends z.ZodType }
  ? undefined extends z.input<B>
    ? { bodyOptional: true }
    : unknown
  : unknown;

/** The statuses written out in the contract (`errorResponses` adds a number index, never a 2xx). */
type Declared<R> = { [K in keyof R as number extends K ? never : K]: R[K] };

/** The answer the client types: the creation's 201, else the 200 (replays and 202s share its shape), 204 empty. */
type Success<R> = 201 extends keyof Declared<R>
  ? Declared<R>[201]
  : 200 extends keyof Declared<R>
    ? Declared<R>[200]
    : 'empty';

type FromContract<O extends ContractOperation> = {
  method: O['method'];
  path: OpenApiPath<O['path']>;
  auth: Auth<O['access']>;
  response: Success<O['schema']['response']>;
} & Idempotency<O['access']> &
  Member<O['schema'], 'params', 'params'> &
  Member<O['schema'], 'querystring', 'query'> &
  Member<O['schema'], 'body', 'body'> &
  BodyOptional<O['schema']>;

/** Each module's exports (distributed over the modules: their shared keys are none). */
type Exports<Module> = Module extends object ? Module[keyof Module] : never;

type ExportedOperations<M extends readonly object[]> = Extract<Exports<M[number]>, ContractOperation>;

type ByOperationId<M extends readonly object[]> = {
  [O in ExportedOperations<M> as O['schema']['operationId']]: FromContract<O>;
};

function isContractOperation(value: unknown): value is ContractOperation {
  return typeof value === 'object' && value !== null && 'method' in value && 'schema' in value;
}

function fromContract(o: ContractOperation): Operation {
  const { params, querystring, body, response } = o.schema;
  const success = response[201] ?? response[200];
  return {
    method: o.method as Operation['method'],
    path: o.path.replace(/:([^/]+)/g, '{$1}'),
    auth: o.access.auth ?? 'none',
    ...(o.access.idempotencyKey === true ? { idempotency: 'required' } : {}),
    ...(o.access.idempotencyKey === 'optional' ? { idempotency: 'optional' } : {}),
    ...(params ? { params } : {}),
    ...(querystring ? { query: querystring } : {}),
    ...(body ? { body } : {}),
    ...(body?.safeParse(undefined).success ? { bodyOptional: true } : {}),
    response: success ?? 'empty',
  };
}

/** The operations the contract modules export, keyed by operationId (the literal keys the client's methods need). */
function byOperationId<const M extends readonly object[]>(modules: M): ByOperationId<M> {
  const operations: Record<string, Operation> = {};
  for (const module of modules) {
    for (const value of Object.values(module)) {
      if (isContractOperation(value)) operations[value.schema.operationId] = fromContract(value);
    }
  }
  return operations as ByOperationId<M>;
}

const contract = byOperationId(OPERATION_MODULES);

const op = <const O extends Operation>(o: O) => o;

/*
 * The password rule (12 to 72 bytes) lives with the identity commands, which load bcrypt: the SDK checks the
 * rest of these bodies and leaves that one rule to the server (src/contract/password.ts).
 */
const userBody = newUserBody(z.string());
const passwordBody = newPasswordBody(z.string());

export const OPERATIONS = {
  // Infrastructure (SPEC 4.14): raw routes, not contract operations
  getHealth: op({ method: 'GET', path: '/health', auth: 'none', response: healthBody }),
  getReadiness: op({ method: 'GET', path: '/ready', auth: 'none', response: readyBody }),

  ...contract,

  // The strict creation bodies (SPEC 9 "createPix is strict"): phone and address required, as for any new
  // charge; the server's own bodies also take a legacy replay, which the SDK leaves to `request`.
  createPix: { ...contract.createPix, body: newPixBody },
  createBoleto: { ...contract.createBoleto, body: newBoletoBody },
  createCreditCard: { ...contract.createCreditCard, body: newCreditCardBody },
  createPanelBoleto: {
    ...contract.createPanelBoleto,
    body: newBoletoBody.extend({ tenant_id: panelBoletoBody.shape.tenant_id }),
  },
  createUser: { ...contract.createUser, body: userBody },
  setUserPassword: { ...contract.setUserPassword, body: passwordBody },

  // Payer pages (SPEC 2.2 `document_url`, `boleto_url`), raw routes: the signed URL is the access
  getChargePage: op({
    method: 'GET',
    path: '/cobranca/{id}/{signature}',
    auth: 'none',
    params: chargePageParams,
    response: 'text',
  }),
  getBoletoPdf: op({
    method: 'GET',
    path: '/cobranca/{id}/{signature}/boleto.pdf',
    auth: 'none',
    params: chargePageParams,
    response: 'bytes',
  }),
  // The hosted checkout's page (a Checkout's `url`, issue 25), a raw route like the charge page.
  getCheckoutPage: op({
    method: 'GET',
    path: '/checkout/{id}/{signature}',
    auth: 'none',
    params: chargePageParams,
    response: 'text',
  }),
} as const satisfies Record<string, Operation>;

export type Operations = typeof OPERATIONS;
export type OperationId = keyof Operations;
