import type { Refused, Uncertain } from '../port.ts';
import type { Exchange } from './http.ts';
import { refused, uncertain } from './outcomes.ts';
import { isRecord } from './wire-values.ts';

/** A 2xx answer whose body is a JSON object: what the v2 (adapter.ts) or v3 (pix-automatic.ts) reader reads. */
export interface JsonAnswer {
  readonly json: Record<string, unknown>;
  readonly httpStatus: number;
}

/**
 * What the exchange and its HTTP status decide before either envelope is read (wire doc 2.3, wave 2b §7.3):
 * a transport failure is uncertain; 401/403 a refused credential; other 4xx a refusal (the request was not
 * processed); 5xx, 408, 429, 1xx/3xx uncertain; a 2xx body empty, unreadable or not an object uncertain.
 * `codeOf` reads the error code the wire's body carries (kept in the diagnostics).
 */
export function jsonAnswer(
  answer: Exchange,
  codeOf: (json: Record<string, unknown>) => unknown,
): JsonAnswer | Refused | Uncertain {
  if (answer.kind === 'failed') return uncertain(answer.reason, null);
  const status = answer.httpStatus;
  const json = answer.kind === 'answer' && isRecord(answer.json) ? answer.json : null;
  const code = json ? (codeOf(json) ?? null) : null;
  if (status === 401 || status === 403) return refused('credentials_refused', code, status);
  if (status >= 500) return uncertain('server_error', status, { code });
  if (status === 408 || status === 429) return uncertain('unexpected_http_status', status, { code });
  if (status >= 400) return refused('provider_error', code, status);
  if (status < 200 || status >= 300) return uncertain('unexpected_http_status', status, { code });
  if (answer.kind === 'not_json') return uncertain(answer.empty ? 'incomplete' : 'unparsable', status);
  if (!json) return uncertain('unparsable', status);
  return { json, httpStatus: status };
}
