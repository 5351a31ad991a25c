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

/**
 * Issue 12: a charge page URL (`/cobranca/<id>/<signature>`, SPEC 2.2) is a capability; the log keeps the
 * id and drops the signature, whatever follows it (`/boleto.pdf`, a query string).
 */
export function redactUrl(url: string): string {
  return url.replace(/^(\/cobranca\/[^/?#]*\/)[^/?#]+/, '$1[redacted]');
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
