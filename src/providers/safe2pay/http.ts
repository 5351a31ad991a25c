import { type Dispatcher, request } from 'undici';

/**
 * One Safe2Pay HTTP exchange over undici, reduced to what the adapter needs to decide an outcome. It never
 * throws: every transport failure becomes a closed reason, so no error text from the network or the
 * provider leaves this module.
 */

export type Exchange =
  | { readonly kind: 'answer'; readonly httpStatus: number; readonly json: unknown }
  | { readonly kind: 'not_json'; readonly httpStatus: number; readonly empty: boolean }
  | { readonly kind: 'failed'; readonly reason: 'timeout' | 'connection' | 'incomplete' };

export interface ExchangeRequest {
  readonly method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  readonly url: string;
  readonly apiKey: string;
  readonly body?: Record<string, unknown>;
  readonly signal: AbortSignal;
  readonly dispatcher?: Dispatcher;
}

export async function exchange(req: ExchangeRequest): Promise<Exchange> {
  let response: Dispatcher.ResponseData;
  try {
    response = await request(req.url, {
      method: req.method,
      headers: {
        // Wire doc 2.2: the token in X-API-KEY, JSON both ways.
        'X-API-KEY': req.apiKey,
        Accept: 'application/json',
        ...(req.body ? { 'Content-Type': 'application/json' } : {}),
      },
      ...(req.body ? { body: JSON.stringify(req.body) } : {}),
      signal: req.signal,
      ...(req.dispatcher ? { dispatcher: req.dispatcher } : {}),
    });
  } catch {
    return { kind: 'failed', reason: req.signal.aborted ? 'timeout' : 'connection' };
  }
  let text: string;
  try {
    text = await response.body.text();
  } catch {
    // The status line arrived, the body did not (reset mid-body, short Content-Length, abort while reading).
    return { kind: 'failed', reason: req.signal.aborted ? 'timeout' : 'incomplete' };
  }
  if (text.trim() === '') return { kind: 'not_json', httpStatus: response.statusCode, empty: true };
  try {
    return { kind: 'answer', httpStatus: response.statusCode, json: JSON.parse(text) };
  } catch {
    return { kind: 'not_json', httpStatus: response.statusCode, empty: false };
  }
}
