import { pino } from 'pino';

/** Paths that may carry secrets anywhere in a log line; pino replaces them before serialization. */
export const REDACT_PATHS = [
  'req.headers["x-api-key"]',
  'req.headers.authorization',
  'req.headers.cookie',
  '*.password',
  '*.token',
  '*.secret',
  '*.credentials',
  'DATABASE_URL',
  'REDIS_URL',
  'EVENTSTORE_URL',
];

export function createLogger(level: string) {
  return pino({ level, redact: { paths: REDACT_PATHS, censor: '[redacted]' } });
}

export type Logger = ReturnType<typeof createLogger>;
