import { Redis } from 'ioredis';
import {
  type RateLimiterAbstract,
  RateLimiterMemory,
  RateLimiterRedis,
  RateLimiterRes,
} from 'rate-limiter-flexible';
import type { RateLimiter } from '../commands/context.ts';
import type { Config } from '../config.ts';
import type { Logger } from '../logger.ts';
import { withTimeout } from '../timeouts.ts';
import { ApiError } from './errors.ts';

/**
 * SPEC 8: 120 requests per minute per actor (key or user); 10 login attempts per minute per address.
 * Issue 12 (OWASP API4): 20 failed authentications (401) per minute per client address,
 * AUTH_FAILURES_PER_MINUTE; past it only that address's failing attempts are refused (issue 23 item 2.2).
 */
export const LIMITS = {
  api: { points: 120, duration: 60 },
  login: { points: 10, duration: 60 },
  auth_failure: { points: 20, duration: 60 },
  /**
   * Issue 23 item 2.4: current-password checks of a self password change, per user: SPEC 8's login rate,
   * so a stolen session cannot guess its owner's password faster than a login could.
   */
  password: { points: 10, duration: 60 },
} as const;

type Bucket = keyof typeof LIMITS;

/**
 * How long a request may wait on Redis. Commands are answered in well under a millisecond when Redis is
 * healthy, so these only bound an outage: a request then fails closed in about a second at worst, and at
 * once while the client is disconnected (no offline queue).
 */
export const REDIS_TIMEOUTS = { connectMs: 2_000, commandMs: 1_000, maxReconnectDelayMs: 1_000 } as const;

/**
 * One authenticated request's rate-limit work in one Redis round trip (issue 14): count one in the actor's
 * `api` bucket exactly as rate-limiter-flexible's own increment script does (same key, same fixed window),
 * so both paths share the counts. Since issue 23 item 2.2 the address's failures are not read here: a valid
 * credential is never refused for failures counted against its address. KEYS: the actor's api key; ARGV:
 * the api window (s). Returns the actor's count in this window. Exported for the benchmarks' floor server
 * (bench/floor-server.ts).
 */
export const ADMIT_LUA = `
redis.call('set', KEYS[1], 0, 'EX', ARGV[1], 'NX')
local consumed = redis.call('incrby', KEYS[1], 1)
if redis.call('pttl', KEYS[1]) == -1 then redis.call('expire', KEYS[1], ARGV[1]) end
return consumed
`;

/** Maps the store's answer to SPEC 7: over the limit is 429; any store failure fails closed with 503. */
function limiterOver(
  limiters: Record<Bucket, RateLimiterAbstract>,
  store: Pick<RateLimiter, 'ping' | 'close'>,
  guardMs?: number,
  /** The Redis form of `admit`: the actor's count (see ADMIT_LUA). */
  admitScript?: (actor: string) => Promise<number>,
): RateLimiter {
  const guarded = <T>(p: Promise<T>) =>
    guardMs === undefined ? p : withTimeout(p, guardMs, 'rate-limit store');
  const limiter: RateLimiter = {
    async consume(bucket, actor) {
      try {
        await guarded(limiters[bucket].consume(actor));
      } catch (error) {
        if (error instanceof RateLimiterRes) throw new ApiError('rate_limit_exceeded');
        throw new ApiError('rate_limiter_unavailable');
      }
    },
    async admit(actor) {
      if (!admitScript) return limiter.consume('api', actor);
      let count: number;
      try {
        count = await guarded(admitScript(actor));
      } catch {
        throw new ApiError('rate_limiter_unavailable');
      }
      if (count > limiters.api.points) throw new ApiError('rate_limit_exceeded');
    },
    ...store,
  };
  return limiter;
}

/** In-process store: one instance only. REDIS_URL selects the shared store. */
export function createMemoryRateLimiter(
  apiPerMinute: number = LIMITS.api.points,
  authFailuresPerMinute: number = LIMITS.auth_failure.points,
): RateLimiter {
  return limiterOver(
    {
      api: new RateLimiterMemory({ keyPrefix: 'api', ...LIMITS.api, points: apiPerMinute }),
      login: new RateLimiterMemory({ keyPrefix: 'login', ...LIMITS.login }),
      password: new RateLimiterMemory({ keyPrefix: 'password', ...LIMITS.password }),
      auth_failure: new RateLimiterMemory({
        keyPrefix: 'auth_failure',
        ...LIMITS.auth_failure,
        points: authFailuresPerMinute,
      }),
    },
    { async ping() {}, async close() {} },
  );
}

export interface RedisRateLimiterOptions {
  url: string;
  /** Namespace of every key this gateway writes (`<prefix>:api:<actor>`); actors are ids, never secrets. */
  keyPrefix: string;
  logger?: Logger;
  /** Requests per minute per actor; SPEC 8's 120 unless RATE_LIMIT_PER_MINUTE says otherwise. */
  apiPerMinute?: number;
  /** Failed authentications per minute per address (AUTH_FAILURES_PER_MINUTE). */
  authFailuresPerMinute?: number;
}

/**
 * Shared store for several instances (DESIGN.md "Runtime and configuration"). The client never queues a
 * command while disconnected and every command has a timeout, so an outage answers
 * `503 rate_limiter_unavailable` quickly instead of holding requests; it keeps reconnecting in the
 * background (capped backoff) and the limiter works again as soon as Redis is back.
 */
export function createRedisRateLimiter({
  url,
  keyPrefix,
  logger,
  apiPerMinute = LIMITS.api.points,
  authFailuresPerMinute = LIMITS.auth_failure.points,
}: RedisRateLimiterOptions): RateLimiter {
  const client = new Redis(url, {
    enableOfflineQueue: false,
    connectTimeout: REDIS_TIMEOUTS.connectMs,
    commandTimeout: REDIS_TIMEOUTS.commandMs,
    // A command in flight when the connection drops fails at the first reconnect attempt, not the 20th.
    maxRetriesPerRequest: 0,
    retryStrategy: (attempt) => Math.min(attempt * 100, REDIS_TIMEOUTS.maxReconnectDelayMs),
    // Makes the gateway's connections easy to spot in CLIENT LIST.
    connectionName: 'calebe-rate-limit',
  });
  // One log line per outage and one per recovery, not one per reconnect attempt.
  let down = false;
  client.on('error', (err: Error) => {
    if (down) return;
    down = true;
    logger?.error({ err: { message: err.message } }, 'rate-limit store unavailable; access fails closed');
  });
  client.on('ready', () => {
    if (!down) return;
    down = false;
    logger?.info('rate-limit store available again');
  });

  const limiter = (bucket: Bucket) =>
    new RateLimiterRedis({
      storeClient: client,
      keyPrefix: `${keyPrefix}:${bucket}`,
      ...LIMITS[bucket],
      ...(bucket === 'api' ? { points: apiPerMinute } : {}),
      ...(bucket === 'auth_failure' ? { points: authFailuresPerMinute } : {}),
      // Refuse at once while (re)connecting instead of sending into a socket that is not ready.
      rejectIfRedisNotReady: true,
    });

  const limiters = {
    api: limiter('api'),
    login: limiter('login'),
    auth_failure: limiter('auth_failure'),
    password: limiter('password'),
  };
  client.defineCommand('calebeAdmit', { numberOfKeys: 1, lua: ADMIT_LUA });
  const admit = client as unknown as { calebeAdmit(apiKey: string, apiSeconds: number): Promise<number> };
  return limiterOver(
    limiters,
    {
      async ping() {
        const answer = await withTimeout(client.ping(), REDIS_TIMEOUTS.commandMs, 'rate-limit store');
        if (answer !== 'PONG') throw new Error('unexpected PING answer from the rate-limit store');
      },
      async close() {
        try {
          // QUIT waits for pending replies; it fails at once when not connected (no offline queue).
          await withTimeout(client.quit(), REDIS_TIMEOUTS.commandMs, 'rate-limit store');
        } catch {
          client.disconnect();
        }
      },
    },
    // ioredis bounds each command; this also bounds the script-loading round trip that can precede one.
    REDIS_TIMEOUTS.commandMs * 2,
    async (actor) => {
      // Like rate-limiter-flexible: refuse at once while (re)connecting.
      if (client.status !== 'ready') throw new Error('Redis connection is not ready');
      return admit.calebeAdmit(limiters.api.getKey(actor), limiters.api.duration);
    },
  );
}

/** The store the configuration names: Redis when REDIS_URL is set, in-process otherwise. */
export function createRateLimiter(
  config: Pick<
    Config,
    'REDIS_URL' | 'REDIS_KEY_PREFIX' | 'RATE_LIMIT_PER_MINUTE' | 'AUTH_FAILURES_PER_MINUTE'
  >,
  logger?: Logger,
): RateLimiter {
  const apiPerMinute = config.RATE_LIMIT_PER_MINUTE;
  const authFailuresPerMinute = config.AUTH_FAILURES_PER_MINUTE;
  if (!config.REDIS_URL) return createMemoryRateLimiter(apiPerMinute, authFailuresPerMinute);
  return createRedisRateLimiter({
    url: config.REDIS_URL,
    keyPrefix: config.REDIS_KEY_PREFIX,
    logger,
    apiPerMinute,
    authFailuresPerMinute,
  });
}
