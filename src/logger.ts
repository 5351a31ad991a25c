import { type DestinationStream, pino } from 'pino';

/** Paths that may carry secrets anywhere in a log line; pino replaces them before serialization. */
export const REDACT_PATHS = [
  'req.headers["x-api-key"]',
  'req.headers.authorization',
  'req.headers.cookie',
  '*.password',
  '*.token',
  '*.password_hash',
  '*.token_sha256',
  '*.secret',
  '*.credentials',
  'DATABASE_URL',
  'BOOTSTRAP_ADMIN_PASSWORD',
  'REDIS_URL',
  'EVENTSTORE_URL',
  'DOCUMENT_SIGNING_SECRET',
  'CREDENTIALS_ENCRYPTION_KEY',
  '*.credentials_ciphertext',
];

/** A PostgreSQL error (pg's DatabaseError, PGlite's): a severity and a five-character SQLSTATE. */
function isDatabaseError(value: unknown): value is Record<string, unknown> & { code: string } {
  if (value === null || typeof value !== 'object') return false;
  const e = value as Record<string, unknown>;
  return typeof e.severity === 'string' && typeof e.code === 'string' && /^[0-9A-Z]{5}$/.test(e.code);
}

/**
 * Issue 12: a driver error's message, `detail`, `where` and `hint` quote the values of the statement
 * (`Key (email)=(maria@…) already exists`, `invalid input syntax for type integer: "…"`, `unnamed portal
 * parameter $3 = '…'`): payer data. Only the SQLSTATE and schema names are kept.
 */
function databaseErrorSummary(e: Record<string, unknown> & { code: string }) {
  const pick = (k: string) => (typeof e[k] === 'string' ? { [k]: e[k] } : {});
  return {
    type: 'DatabaseError',
    code: e.code,
    ...pick('severity'),
    ...pick('routine'),
    ...pick('table'),
    ...pick('column'),
    ...pick('constraint'),
  };
}

/** The database error anywhere in a `cause` chain, if any (bounded: causes can form a cycle). */
function databaseCause(err: unknown): (Record<string, unknown> & { code: string }) | undefined {
  let current: unknown = err;
  for (let depth = 0; depth < 8 && current !== null && typeof current === 'object'; depth++) {
    if (isDatabaseError(current)) return current;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/**
 * pino's error serializer, except for database errors, logged by code and name only; an error wrapping one
 * keeps its own type and message (pino would append the cause's message to it) and the summary as cause.
 */
export function serializeError(err: unknown): unknown {
  const db = databaseCause(err);
  if (db === undefined) return pino.stdSerializers.err(err as Error);
  if (db === err) return databaseErrorSummary(db);
  const wrapper = err as Error;
  return {
    type: wrapper.constructor?.name ?? 'Error',
    message: wrapper.message,
    cause: databaseErrorSummary(db),
  };
}

/** RFC 3986 2.3: percent-encoded unreserved characters mean the same as themselves; the router decodes them. */
function decodeUnreserved(path: string): string {
  return path.replace(/%([0-9A-Fa-f]{2})/g, (encoded, hex: string) => {
    const c = String.fromCharCode(Number.parseInt(hex, 16));
    return /[A-Za-z0-9._~-]/.test(c) ? c : encoded;
  });
}

/**
 * Issue 12, issue 23 item 2.8 (d): a charge page URL (`/cobranca/<id>/<signature>`, SPEC 2.2) is a
 * capability; the log keeps the id and drops the signature. The path is read as the router reads it first
 * (`/%63obranca/…` is the page too), and any spelling of that first segment (case, `;params`, empty
 * segments before it) counts. What follows a signature (`/boleto.pdf`) is kept; anything but an
 * id-shaped id, or a missing signature with more after it, is dropped whole.
 */
function redactPath(path: string): string {
  const decoded = decodeUnreserved(path);
  const m = /^(\/+)([^/]*)(\/.*)?$/.exec(decoded);
  const first = (m?.[2] ?? '').split(';')[0]?.toLowerCase();
  if (first !== 'cobranca' || m?.[3] === undefined) return decoded;
  const [, id = '', signature, ...rest] = m[3].split('/');
  const safeId = /^[A-Za-z0-9_-]*$/.test(id) ? id : '[redacted]';
  if (signature === undefined) return `/cobranca/${safeId}`;
  const tail = signature === '' ? '' : rest.map((segment) => `/${segment}`).join('');
  return `/cobranca/${safeId}/[redacted]${tail}`;
}

/**
 * Issue 23 item 2.8 (c): a query string can carry a secret whatever its name (`?token=`, `?api_key=`, a
 * webhook callback's `?secret=`), so the log keeps each parameter's name and never its value; a name that
 * is not a short identifier (a key pasted as `?clb_live_…`) is dropped too.
 */
function redactQuery(query: string): string {
  if (query === '') return '';
  const names = query.split('&').map((pair) => {
    const name = decodeUnreserved(pair.split('=')[0] ?? '');
    return /^[A-Za-z0-9_.[\]-]{0,32}$/.test(name) ? name : '[redacted]';
  });
  return `?${names.map((name) => `${name}=[redacted]`).join('&')}`;
}

/** A request URL as the log may show it: the path redacted as above, the query's names only, no fragment. */
export function redactUrl(url: string): string {
  const q = url.search(/[?#]/);
  if (q === -1) return redactPath(url);
  const query = url[q] === '?' ? (url.slice(q + 1).split('#')[0] ?? '') : '';
  return `${redactPath(url.slice(0, q))}${redactQuery(query)}`;
}

/** fastify's request serializer (lib/logger-pino.js), with the URL redacted. */
function serializeRequest(req: {
  method?: string;
  url?: string;
  headers?: Record<string, unknown>;
  host?: string;
  ip?: string;
  socket?: { remotePort?: number };
}) {
  return {
    method: req.method,
    url: typeof req.url === 'string' ? redactUrl(req.url) : req.url,
    version: req.headers?.['accept-version'],
    host: req.host,
    remoteAddress: req.ip,
    remotePort: req.socket?.remotePort,
  };
}

/** `destination` lets tests capture the lines the gateway writes. */
export function createLogger(level: string, destination?: DestinationStream) {
  const options = {
    level,
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    serializers: { err: serializeError, error: serializeError, req: serializeRequest },
  };
  return destination ? pino(options, destination) : pino(options);
}

export type Logger = ReturnType<typeof createLogger>;
