import type { z } from 'zod';
import { IDEMPOTENCY_KEY, IDEMPOTENCY_REPLAYED } from '../../src/contract/envelopes.ts';
import { classifyValidation, entriesOf, type ValidationContext } from '../../src/contract/validation.ts';
import { livemodeOfKey } from '../../src/crypto/secrets.ts';
import { ERRORS, type ErrorCode } from '../../src/http/errors.ts';
import { CalebeConnectionError, CalebeError, CalebeRedirectError, type ErrorBody } from './errors.ts';
import { OPERATIONS, type Operation, type OperationId, type Operations } from './operations.ts';
import { verifyWebhook, type WebhookEvent, type WebhookHeaders } from './webhooks.ts';

export interface CalebeOptions {
  /** The gateway's address, e.g. `https://pay.example.com` (self-hosted: there is no default). */
  baseUrl: string;
  /** `clb_test_…` (test mode) or `clb_live_…` (production) for the public API (`/v1`). */
  apiKey?: string;
  /** A panel session token (`cls_…`, from `createSession`) for the panel API (`/admin`). */
  sessionToken?: string;
  /** Abort a request after this long (default 60 s); the outcome is then unknown, never retried. */
  timeoutMs?: number;
  /** Another fetch implementation (tests, proxies). */
  fetch?: typeof fetch;
}

export interface RequestOptions {
  signal?: AbortSignal;
  /** Overrides the client's `timeoutMs` for this request. */
  timeoutMs?: number;
}

/** SPEC 4 common rules: the key of an idempotent creation; keep it to repeat the request safely. */
export interface IdempotentOptions extends RequestOptions {
  idempotencyKey: string;
}

/** What every method resolves to. For `{ data }` and `{ data, meta }` answers those are also top-level. */
export interface CalebeResponse<B> {
  /** 201 created; 200 replayed or read; 202 outcome unknown or still processing (read `data.status`). */
  status: number;
  /** `X-Request-ID`: quote it when asking about a request. */
  request_id: string;
  /** `Idempotency-Replayed: true`: the answer of an earlier request with the same key and body. */
  replayed: boolean;
  /** The parsed JSON answer (the text of `getChargePage`, the bytes of `getBoletoPdf`). */
  body: B;
}

type Enveloped<B> = CalebeResponse<B> &
  (B extends { data: infer D } ? { data: D } : unknown) &
  (B extends { meta: infer M } ? { meta: M } : unknown);

type PathArgs<P extends string> = P extends `${string}{${string}}${infer Rest}`
  ? [string, ...PathArgs<Rest>]
  : [];

/** Query values as the caller writes them: booleans and numbers are sent as `true`/`false` and digits. */
export type QueryInput<Q extends z.ZodType> = {
  [K in keyof z.output<Q>]?: z.output<Q>[K] extends boolean ? boolean : z.output<Q>[K];
};

type InputArgs<O> = O extends { body: infer B extends z.ZodType }
  ? O extends { bodyOptional: true }
    ? [body: z.input<B> | undefined]
    : [body: z.input<B>]
  : O extends { query: infer Q extends z.ZodType }
    ? [query?: QueryInput<Q>]
    : [];

type OptionArgs<O> = O extends { idempotency: 'required' }
  ? [options: IdempotentOptions]
  : O extends { idempotency: 'optional' }
    ? [options?: RequestOptions & { idempotencyKey?: string }]
    : [options?: RequestOptions];

type Args<O extends Operation> = [...PathArgs<O['path']>, ...InputArgs<O>, ...OptionArgs<O>];

type Result<O extends Operation> = O['response'] extends z.ZodType
  ? Enveloped<z.output<O['response']>>
  : O['response'] extends 'text'
    ? CalebeResponse<string>
    : O['response'] extends 'bytes'
      ? CalebeResponse<Uint8Array>
      : CalebeResponse<undefined>;

/** One method per operation of /openapi.json, named by its operationId (SPEC 9). */
export type OperationMethods = {
  [K in OperationId]: (...args: Args<Operations[K]>) => Promise<Result<Operations[K]>>;
};

/** The low-level request: no local validation, the body sent as given (a string byte for byte). */
export interface RawRequest extends RequestOptions {
  method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
  /** Path under the base URL, e.g. `/v1/pix`. */
  path: string;
  query?: Record<string, string | number | boolean | undefined>;
  /** A string is sent exactly as it is (a saved original body); anything else as JSON. */
  body?: unknown;
  idempotencyKey?: string;
  /** Which credential to send; by default `/v1` takes the API key and `/admin` the session token. */
  auth?: 'api_key' | 'session' | 'none';
}

const DEFAULT_TIMEOUT_MS = 60_000;
const SDK_VERSION = '0.1.0';

function localError(code: ErrorCode, message: string, param?: string): CalebeError {
  return new CalebeError({ code, message, request_id: '', ...(param === undefined ? {} : { param }) }, true);
}

/** The server's own schema, and its own mapping of a failure to a SPEC 7 code (src/http/contract). */
function check(schema: z.ZodType, context: ValidationContext, value: unknown): void {
  const result = schema.safeParse(value);
  if (result.success) return;
  const { code, message, param } = classifyValidation(context, value, entriesOf(result.error.issues));
  throw localError(code, message, param);
}

/** Query values are strings on the wire; the route's schema reads them as such, and so does the check. */
function queryStrings(query: Record<string, unknown> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(query ?? {})) {
    if (value !== undefined && value !== null) out[name] = String(value);
  }
  return out;
}

/**
 * The Calebe client. Validates every request with the server's schemas before the network, never retries,
 * never converts reais to centavos (an `amount` that is not an integer is refused locally), and answers
 * every failure as a {@link CalebeError} with the SPEC 7 code.
 */
// The methods of OperationMethods are installed on the prototype (the static block below), one per operation.
export interface Calebe extends OperationMethods {}

// biome-ignore lint/suspicious/noUnsafeDeclarationMerging: see the interface above.
export class Calebe {
  /** From the API key's prefix (SPEC 5.2): false for `clb_test_`, true for `clb_live_` and `clb_`; undefined without a key. */
  readonly livemode: boolean | undefined;
  readonly baseUrl: string;
  readonly #apiKey: string | undefined;
  readonly #sessionToken: string | undefined;
  readonly #timeoutMs: number;
  readonly #fetch: typeof fetch;

  constructor(options: CalebeOptions) {
    if (!options || typeof options.baseUrl !== 'string' || !URL.canParse(options.baseUrl)) {
      throw new TypeError('Calebe: baseUrl must be the absolute address of the gateway');
    }
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    if (options.apiKey !== undefined) {
      this.livemode = livemodeOfKey(options.apiKey);
      if (this.livemode === undefined) {
        throw new TypeError('Calebe: apiKey is not a Calebe API key (clb_test_… or clb_live_…)');
      }
    }
    this.#apiKey = options.apiKey;
    this.#sessionToken = options.sessionToken;
    this.#timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.#fetch = options.fetch ?? globalThis.fetch;
  }

  /**
   * The low-level request, for what the methods deliberately refuse: above all the replay of a legacy charge
   * with its original saved body (SPEC 4.1 "Legacy replay", SPEC 9), which may lack the phone and address a
   * new charge needs. Nothing is validated or changed locally; errors are still typed.
   */
  async request<B = Record<string, unknown>>(request: RawRequest): Promise<Enveloped<B>> {
    const auth =
      request.auth ??
      (request.path.startsWith('/v1/') ? 'api_key' : request.path.startsWith('/admin/') ? 'session' : 'none');
    const body =
      request.body === undefined
        ? undefined
        : typeof request.body === 'string'
          ? request.body
          : JSON.stringify(request.body);
    return (await this.#send({
      method: request.method,
      path: request.path,
      query: queryStrings(request.query),
      body,
      idempotencyKey: request.idempotencyKey,
      auth,
      response: 'json',
      options: request,
    })) as Enveloped<B>;
  }

  /** {@link verifyWebhook}: checks a delivery's Standard Webhooks signature and returns its event. */
  verifyWebhook(rawBody: string | Uint8Array, headers: WebhookHeaders, secret: string): WebhookEvent {
    return verifyWebhook(rawBody, headers, secret);
  }

  /** One operation: the local checks in the order the server makes them, then one request. */
  async #invoke(id: OperationId, args: unknown[]): Promise<CalebeResponse<unknown>> {
    const op: Operation = OPERATIONS[id];
    const names = [...op.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1] as string);
    const pathValues = args.slice(0, names.length);
    const rest = args.slice(names.length);
    const input = op.body || op.query ? rest[0] : undefined;
    const options = ((op.body || op.query ? rest[1] : rest[0]) ?? {}) as RequestOptions & {
      idempotencyKey?: string;
    };

    this.#credential(op.auth);
    // The server reads the header only on idempotent routes: it is checked there, and only there.
    if (op.idempotency === 'required' || (op.idempotency && options.idempotencyKey !== undefined)) {
      const key = options.idempotencyKey;
      if (typeof key !== 'string' || !IDEMPOTENCY_KEY.test(key)) {
        throw localError('idempotency_key_required', ERRORS.idempotency_key_required[1]);
      }
    }

    const params = Object.fromEntries(names.map((n, i) => [n, pathValues[i]]));
    if (op.params) check(op.params, 'params', params);
    const path = op.path.replace(/\{([^}]+)\}/g, (_, n: string) => encodeURIComponent(String(params[n])));

    const query = op.query ? queryStrings(input as Record<string, unknown> | undefined) : {};
    if (op.query) check(op.query, 'querystring', query);

    let body: string | undefined;
    if (op.body && !(op.bodyOptional && (input === undefined || input === null))) {
      // What the server will parse: the JSON text of the input (undefined members dropped, NaN as null).
      let wire: unknown;
      try {
        body = JSON.stringify(input);
        wire = body === undefined ? undefined : JSON.parse(body);
      } catch {
        throw localError('invalid_json', 'The body cannot be written as JSON.');
      }
      if (wire === null || typeof wire !== 'object' || Array.isArray(wire)) {
        throw localError('invalid_json', 'The body must be one JSON object.');
      }
      check(op.body, 'body', wire);
    }

    return this.#send({
      method: op.method,
      path,
      query,
      body,
      idempotencyKey: options.idempotencyKey,
      auth: op.auth,
      response: typeof op.response === 'string' ? op.response : 'json',
      options,
    });
  }

  static {
    for (const id of Object.keys(OPERATIONS) as OperationId[]) {
      Object.defineProperty(Calebe.prototype, id, {
        value(this: Calebe, ...args: unknown[]) {
          return this.#invoke(id, args);
        },
        writable: true,
        configurable: true,
      });
    }
  }

  #credential(auth: 'api_key' | 'session' | 'none'): Record<string, string> {
    if (auth === 'api_key') {
      if (!this.#apiKey) throw localError('unauthorized', 'This operation needs an API key (apiKey).');
      return { 'x-api-key': this.#apiKey };
    }
    if (auth === 'session') {
      if (!this.#sessionToken) {
        throw localError('unauthorized', 'This panel operation needs a session token (sessionToken).');
      }
      return { authorization: `Bearer ${this.#sessionToken}` };
    }
    return {};
  }

  async #send(req: {
    method: string;
    path: string;
    query: Record<string, string>;
    body: string | undefined;
    idempotencyKey: string | undefined;
    auth: 'api_key' | 'session' | 'none';
    response: 'json' | 'text' | 'bytes' | 'empty';
    options: RequestOptions;
  }): Promise<CalebeResponse<unknown>> {
    const headers: Record<string, string> = {
      accept: 'application/json',
      'user-agent': `calebe-sdk/${SDK_VERSION} node/${process.versions.node}`,
      ...this.#credential(req.auth),
    };
    if (req.body !== undefined) headers['content-type'] = 'application/json';
    if (req.idempotencyKey !== undefined) headers['idempotency-key'] = req.idempotencyKey;
    const search = new URLSearchParams(req.query).toString();
    const url = `${this.baseUrl}${req.path}${search ? `?${search}` : ''}`;
    const timeout = AbortSignal.timeout(req.options.timeoutMs ?? this.#timeoutMs);
    const signal = req.options.signal ? AbortSignal.any([req.options.signal, timeout]) : timeout;

    let res: Response;
    let bytes: Uint8Array;
    try {
      // No redirect is followed (issue 23 item 2.6): fetch drops Authorization on a cross-origin redirect but
      // not X-API-Key, so following one would hand the key to whatever host the Location names.
      res = await this.#fetch(url, {
        method: req.method,
        headers,
        body: req.body,
        signal,
        redirect: 'manual',
      });
      bytes = new Uint8Array(await res.arrayBuffer());
    } catch (cause) {
      throw new CalebeConnectionError(
        `${req.method} ${req.path}: no answer from the gateway (${(cause as Error)?.name ?? 'error'}); the outcome is unknown. Repeat with the same Idempotency-Key, or read the resource, to find out.`,
        { cause },
      );
    }
    // The gateway never redirects: a 3xx comes from a wrong baseUrl (http for https, a moved host) or from
    // something between, and the request went no further (an opaque redirect is a browser fetch's form).
    if ((res.status >= 300 && res.status < 400) || res.type === 'opaqueredirect') {
      throw new CalebeRedirectError(req.method, req.path, res.status, res.headers.get('location'));
    }
    const text = new TextDecoder().decode(bytes);
    const requestId = res.headers.get('x-request-id') ?? '';
    const replayed = res.headers.get(IDEMPOTENCY_REPLAYED) === 'true';

    if (!res.ok) {
      const error = parseJson(text) as { error?: ErrorBody } | undefined;
      if (error?.error && typeof error.error.code === 'string') {
        throw new CalebeError({ ...error.error, status: res.status });
      }
      throw new CalebeConnectionError(
        `${req.method} ${req.path}: HTTP ${res.status} without the Calebe error envelope (a proxy or a wrong address?).`,
        { status: res.status },
      );
    }
    const meta = { status: res.status, request_id: requestId, replayed };
    if (req.response === 'empty') return { ...meta, body: undefined };
    if (req.response === 'text') return { ...meta, body: text };
    if (req.response === 'bytes') return { ...meta, body: bytes };
    if (res.status === 204 || text === '') return { ...meta, body: undefined };
    const body = parseJson(text);
    if (body === undefined) {
      throw new CalebeConnectionError(
        `${req.method} ${req.path}: HTTP ${res.status} with a body that is not JSON.`,
        {
          status: res.status,
        },
      );
    }
    const envelope = body as { data?: unknown; meta?: unknown };
    return {
      ...meta,
      body,
      ...('data' in envelope ? { data: envelope.data } : {}),
      ...('meta' in envelope ? { meta: envelope.meta } : {}),
    } as CalebeResponse<unknown>;
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
