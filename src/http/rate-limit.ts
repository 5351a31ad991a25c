import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import type { RateLimiter } from './context.ts';
import { ApiError } from './errors.ts';

/** SPEC 8: 120 requests per minute per actor (key or user); 10 login attempts per minute per address. */
export const LIMITS = { api: { points: 120, duration: 60 }, login: { points: 10, duration: 60 } } as const;

/** In-process store: one instance only. REDIS_URL selects the shared store. */
export function createMemoryRateLimiter(): RateLimiter {
  const limiters = {
    api: new RateLimiterMemory({ keyPrefix: 'api', ...LIMITS.api }),
    login: new RateLimiterMemory({ keyPrefix: 'login', ...LIMITS.login }),
  };
  return {
    async consume(bucket, actor) {
      try {
        await limiters[bucket].consume(actor);
      } catch (error) {
        if (error instanceof RateLimiterRes) throw new ApiError('rate_limit_exceeded');
        throw new ApiError('rate_limiter_unavailable');
      }
    },
    async ping() {},
    async close() {},
  };
}
