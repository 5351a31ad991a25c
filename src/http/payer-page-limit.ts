import { Redis } from 'ioredis';
import {
  type RateLimiterAbstract,
  RateLimiterMemory,
  RateLimiterRedis,
  RateLimiterRes,
} from 'rate-limiter-flexible';
import type { Config } from '../config.ts';
import { withTimeout } from '../timeouts.ts';
import { ApiError } from './errors.ts';
import { REDIS_TIMEOUTS } from './rate-limit.ts';

/**
 * Issue 23 item 2.5: the payer pages (the charge page and the boleto PDF, SPEC 2.2 `document_url` and
 * `boleto_url`) need no credential, so they are limited per client address: 120 requests per minute, the
 * figure SPEC 8 gives an API key. A payer opens a page a few times; one client hammering a link gets
 * `429 rate_limit_exceeded` (SPEC 7), which costs no database read and no render. The address is
 * `request.ip`: the connection's, or the client's as TRUST_PROXY's proxies report it (issue 23 item 2.2).
 *
 * Same store as the other limits (src/http/rate-limit.ts): Redis when REDIS_URL is set, so every process
 * counts one minute per address, in-process otherwise; a store failure fails closed (503
 * `rate_limiter_unavailable`, SPEC 7) like every limit of the gateway.
 */
export const PAYER_PAGE_LIMIT = { points: 120, duration: 60 } as const;

export interface PayerPageLimiter {
  /** Counts one request of `address`; throws 429 past the limit, 503 when the store fails. */
  consume(address: string): Promise<void>;
  close(): Promise<void>;
}

function limiterOver(limiter: RateLimiterAbstract, close: () => Promise<void>): PayerPageLimiter {
  return {
    async consume(address) {
      try {
        await withTimeout(limiter.consume(address), REDIS_TIMEOUTS.commandMs * 2, 'rate-limit store');
      } catch (error) {
        if (error instanceof RateLimiterRes) throw new ApiError('rate_limit_exceeded');
        throw new ApiError('rate_limiter_unavailable');
      }
    },
    close,
  };
}

export function createPayerPageLimiter(
  config: Pick<Config, 'REDIS_URL' | 'REDIS_KEY_PREFIX'>,
): PayerPageLimiter {
  if (!config.REDIS_URL) {
    return limiterOver(
      new RateLimiterMemory({ keyPrefix: 'payer_page', ...PAYER_PAGE_LIMIT }),
      async () => {},
    );
  }
  // Its own connection, with the shared limiter's settings: no offline queue, bounded commands.
  const client = new Redis(config.REDIS_URL, {
    enableOfflineQueue: false,
    connectTimeout: REDIS_TIMEOUTS.connectMs,
    commandTimeout: REDIS_TIMEOUTS.commandMs,
    maxRetriesPerRequest: 0,
    retryStrategy: (attempt) => Math.min(attempt * 100, REDIS_TIMEOUTS.maxReconnectDelayMs),
    connectionName: 'calebe-payer-page-limit',
  });
  // Outages are logged by the shared limiter's connection; this one only fails closed meanwhile.
  client.on('error', () => {});
  const limiter = new RateLimiterRedis({
    storeClient: client,
    keyPrefix: `${config.REDIS_KEY_PREFIX}:payer_page`,
    ...PAYER_PAGE_LIMIT,
    rejectIfRedisNotReady: true,
  });
  return limiterOver(limiter, async () => {
    try {
      await withTimeout(client.quit(), REDIS_TIMEOUTS.commandMs, 'rate-limit store');
    } catch {
      client.disconnect();
    }
  });
}
