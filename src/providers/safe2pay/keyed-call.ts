import type { Dispatcher } from 'undici';
import type { ProviderContext, Refused, Uncertain } from '../port.ts';
import { type Exchange, type ExchangeRequest, exchange } from './http.ts';
import { refused, uncertain } from './outcomes.ts';

/**
 * One call with the context's key, read by `interpret` (the v2 envelope or the v3 one): refused without a key
 * (nothing sent), uncertain once the call's signal has fired (nothing sent either, but the caller gave up).
 */
export async function keyedCall<T>(
  key: string | null,
  ctx: Pick<ProviderContext, 'signal'>,
  req: Pick<ExchangeRequest, 'method' | 'url'> & { readonly body?: Record<string, unknown> | undefined },
  dispatcher: Dispatcher | undefined,
  interpret: (answer: Exchange) => T,
): Promise<T | Refused | Uncertain> {
  if (!key) return refused('credentials_missing', null, null);
  if (ctx.signal.aborted) return uncertain('timeout', null);
  const answer = await exchange({
    method: req.method,
    url: req.url,
    apiKey: key,
    signal: ctx.signal,
    ...(req.body ? { body: req.body } : {}),
    ...(dispatcher ? { dispatcher } : {}),
  });
  return interpret(answer);
}
