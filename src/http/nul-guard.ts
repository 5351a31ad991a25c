import type { FastifyRequest } from 'fastify';
import { ApiError } from './errors.ts';

/**
 * Issue 12 item 1: PostgreSQL cannot store U+0000 (text and jsonb refuse it), so a NUL that reached a
 * statement came back as a driver error, a 500 and the payer's data in the log. NUL is never legitimate in
 * this API, so it is refused once, here, before any schema or handler sees the request:
 * path parameter -> 404 not_found (no resource has such an id), query parameter and body field (value or
 * key, at any depth) -> 422 validation_error naming the field (a NUL in a JSON string is valid JSON, the
 * value is what is invalid: SPEC 7 "invalid field").
 */
export function refuseNulCharacters(request: FastifyRequest): void {
  const params = request.params as Record<string, unknown> | undefined;
  if (params && findNul(params) !== undefined) throw new ApiError('not_found', 'No such resource.');
  const inQuery = findNul(request.query);
  if (inQuery !== undefined) throw nulError(['query', ...inQuery]);
  const inBody = findNul(request.body);
  if (inBody !== undefined) throw nulError(inBody);
}

function nulError(path: string[]): ApiError {
  const param = path.join('.');
  return new ApiError('validation_error', `Invalid ${param || 'body'}: must not contain a NUL character.`, {
    param,
  });
}

/** Keys in a reported path are printable: the NUL itself is written as `\u0000`. */
const printable = (key: string) => key.replaceAll('\u0000', '\\u0000');

/**
 * The path of the first string (value or key) holding a NUL, or undefined. Depth is bounded by the strict
 * JSON parser (MAX_DEPTH) and the query-string parser, so recursion is safe.
 */
export function findNul(value: unknown, path: string[] = []): string[] | undefined {
  if (typeof value === 'string') return value.includes('\u0000') ? path : undefined;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = findNul(value[i], [...path, String(i)]);
      if (found) return found;
    }
    return undefined;
  }
  if (value !== null && typeof value === 'object') {
    for (const [key, child] of Object.entries(value)) {
      if (key.includes('\u0000')) return [...path, printable(key)];
      const found = findNul(child, [...path, key]);
      if (found) return found;
    }
  }
  return undefined;
}
