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

/** `destination` lets tests capture the lines the gateway writes. */
export function createLogger(level: string, destination?: DestinationStream) {
  const options = { level, redact: { paths: REDACT_PATHS, censor: '[redacted]' } };
  return destination ? pino(options, destination) : pino(options);
}

export type Logger = ReturnType<typeof createLogger>;
