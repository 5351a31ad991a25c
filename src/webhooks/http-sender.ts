import type { LookupAddress } from 'node:dns';
import { performance } from 'node:perf_hooks';
import { Agent, request } from 'undici';
import { type DestinationPolicy, type Lookup, resolveDestination, systemLookup } from './ssrf-guard.ts';

/**
 * One webhook delivery attempt (SPEC 6). The destination is resolved and checked first (ssrf-guard.ts) and
 * the connection is pinned to the checked address, so a second DNS answer cannot redirect it (rebinding);
 * the URL's name is still what goes in Host and TLS SNI, and the certificate is verified against it.
 */
export interface AttemptResult {
  /** delivered: 2xx; gone: 410 (the receiver asks us to stop); refused: destination not allowed, nothing sent. */
  outcome: 'delivered' | 'failed' | 'gone' | 'refused';
  statusCode: number | null;
  durationMs: number;
  retryAfterSeconds: number | null;
  /**
   * Short text (`timeout`, `HTTP 500`); never the response body. For `refused`, the guard's precise reason
   * (`host resolves to a loopback address`): the worker logs it and stores one generic text instead (issue 23
   * item 2.9), so a tenant cannot map internal names.
   */
  error: string | null;
}

export interface SendWebhookInput {
  url: string;
  headers: Readonly<Record<string, string>>;
  body: string;
  policy: DestinationPolicy;
  connectTimeoutMs: number;
  /** Total budget of the attempt: DNS, connect, request, response headers and the (capped) body. */
  timeoutMs: number;
  lookup?: Lookup;
}

/** At most this much of a response is read, then dropped: receivers only need to answer with a status. */
export const MAX_RESPONSE_BYTES = 64 * 1024;

export async function sendWebhook(input: SendWebhookInput): Promise<AttemptResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const signal = AbortSignal.timeout(input.timeoutMs);

  // dns.lookup cannot be cancelled; stop waiting for it when the attempt's budget runs out.
  const lookup = input.lookup ?? systemLookup;
  const destination = await resolveDestination(input.url, input.policy, (host) =>
    raceSignal(lookup(host), signal),
  );
  if (!destination.ok) {
    if (signal.aborted) return failed(elapsed(), null, 'timeout');
    return {
      outcome: 'refused',
      statusCode: null,
      durationMs: elapsed(),
      retryAfterSeconds: null,
      error: destination.reason,
    };
  }

  const agent = pinnedAgent(destination.url, destination.address, destination.family, input);
  try {
    const response = await request(destination.url, {
      dispatcher: agent,
      method: 'POST',
      headers: { ...input.headers },
      body: input.body,
      signal,
    });
    const statusCode = response.statusCode;
    const retryAfterSeconds = parseRetryAfter(response.headers['retry-after'], new Date());
    await drain(response.body);
    if (statusCode >= 200 && statusCode < 300) {
      return { outcome: 'delivered', statusCode, durationMs: elapsed(), retryAfterSeconds, error: null };
    }
    const outcome = statusCode === 410 ? 'gone' : 'failed';
    return { outcome, statusCode, durationMs: elapsed(), retryAfterSeconds, error: `HTTP ${statusCode}` };
  } catch (error) {
    return failed(elapsed(), null, signal.aborted ? 'timeout' : networkError(error));
  }
}

/** Keep-alive agents by destination and pinned address: a busy endpoint reuses its connections. */
const agents = new Map<string, Agent>();
const MAX_AGENTS = 256;

/**
 * The agent for one origin pinned to one checked address. The address is part of the key, so a new DNS
 * answer (checked again before every attempt) gets a new agent and never an old connection.
 */
function pinnedAgent(url: URL, address: string, family: 4 | 6, input: SendWebhookInput): Agent {
  const key = `${url.origin} ${address} ${input.connectTimeoutMs} ${input.timeoutMs}`;
  const known = agents.get(key);
  if (known) {
    // Most recently used last, so eviction takes the idlest.
    agents.delete(key);
    agents.set(key, known);
    return known;
  }
  const agent = new Agent({
    connect: {
      timeout: input.connectTimeoutMs,
      // Node asks with `all: true` when it may race address families (autoSelectFamily); answer both ways.
      lookup: (_hostname, options, callback) => {
        if ((options as { all?: boolean }).all) {
          (callback as (err: null, addresses: LookupAddress[]) => void)(null, [{ address, family }]);
        } else callback(null, address, family);
      },
    },
    headersTimeout: input.timeoutMs,
    bodyTimeout: input.timeoutMs,
    connections: 32,
  });
  agents.set(key, agent);
  if (agents.size > MAX_AGENTS) {
    const [oldestKey, oldest] = agents.entries().next().value as [string, Agent];
    agents.delete(oldestKey);
    void oldest.close().catch(() => undefined);
  }
  return agent;
}

function failed(durationMs: number, statusCode: number | null, error: string): AttemptResult {
  return { outcome: 'failed', statusCode, durationMs, retryAfterSeconds: null, error };
}

function raceSignal<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

/** Reads up to MAX_RESPONSE_BYTES and drops the rest (leaving the loop destroys the stream). */
async function drain(body: AsyncIterable<Uint8Array>): Promise<void> {
  let read = 0;
  try {
    for await (const chunk of body) {
      read += chunk.byteLength;
      if (read >= MAX_RESPONSE_BYTES) break;
    }
  } catch {
    // The status already arrived and is the answer; a body cut short changes nothing.
  }
}

/**
 * RFC 9110 10.2.3: delay-seconds or an HTTP-date, as whole seconds from `now` (a past date is 0). Anything
 * else is ignored rather than guessed at.
 */
export function parseRetryAfter(value: string | string[] | undefined, now: Date): number | null {
  const text = (Array.isArray(value) ? value[0] : value)?.trim();
  if (text === undefined || text === '') return null;
  if (/^\d+$/.test(text)) {
    const seconds = Number(text);
    return Number.isSafeInteger(seconds) ? seconds : null;
  }
  // Date.parse also reads non-HTTP formats: accept only the RFC 9110 forms (IMF-fixdate and RFC 850 end in
  // GMT; asctime has no zone, and means GMT, which Date.parse would not assume).
  let at: number;
  if (/^[A-Za-z]{3,9}, [\w -]+ \d{2}:\d{2}:\d{2} GMT$/.test(text)) at = Date.parse(text);
  else if (/^[A-Za-z]{3} [A-Za-z]{3} [ \d]\d \d{2}:\d{2}:\d{2} \d{4}$/.test(text))
    at = Date.parse(`${text} GMT`);
  else return null;
  if (Number.isNaN(at)) return null;
  return Math.max(0, Math.ceil((at - now.getTime()) / 1000));
}

const ERROR_TEXT: Record<string, string> = {
  UND_ERR_CONNECT_TIMEOUT: 'connect timeout',
  UND_ERR_HEADERS_TIMEOUT: 'timeout',
  UND_ERR_BODY_TIMEOUT: 'timeout',
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  EPIPE: 'connection reset',
  UND_ERR_SOCKET: 'connection closed',
  UND_ERR_CLOSED: 'connection closed',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ETIMEDOUT: 'connect timeout',
  UND_ERR_INFO: 'invalid response',
  HPE_INVALID_CONSTANT: 'invalid response',
  HPE_INVALID_STATUS: 'invalid response',
  HPE_INVALID_HEADER_TOKEN: 'invalid response',
  ERR_TLS_CERT_ALTNAME_INVALID: 'TLS certificate does not match the host',
  CERT_HAS_EXPIRED: 'TLS certificate expired',
  DEPTH_ZERO_SELF_SIGNED_CERT: 'TLS certificate not trusted',
  SELF_SIGNED_CERT_IN_CHAIN: 'TLS certificate not trusted',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'TLS certificate not trusted',
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: 'TLS certificate not trusted',
};

/** A fixed short text for a network error: error messages can carry addresses or peer data. */
function networkError(error: unknown): string {
  for (let e: unknown = error, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    if (e.name === 'TimeoutError' || e.name === 'AbortError') return 'timeout';
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') {
      const text = ERROR_TEXT[code];
      if (text !== undefined) return text;
      if (code.startsWith('ERR_SSL_') || code.startsWith('ERR_TLS_')) return 'TLS error';
      if (code.startsWith('HPE_')) return 'invalid response';
    }
  }
  return 'network error';
}
