import type { Kysely } from 'kysely';
import type { Config } from '../config.ts';
import type { Database } from '../db/schema.ts';
import type { EventRegistry } from '../events/event-registry.ts';
import type { EventStore } from '../events/event-store.ts';
import type { Logger } from '../logger.ts';
import type { ProviderRegistry } from '../providers/registry.ts';

/** Counts requests per actor; the store is Redis when REDIS_URL is set, in-process otherwise. */
export interface RateLimiter {
  /** Throws `429 rate_limit_exceeded` past the limit, `503 rate_limiter_unavailable` when the store fails. */
  consume(bucket: 'api' | 'login' | 'auth_failure' | 'password', actor: string): Promise<void>;
  /**
   * `consume('api', actor)` in one store round trip (issue 14): an authenticated request's whole rate-limit
   * work. Failures counted against its address are not consulted (issue 23 item 2.2): 429 only when the
   * actor is past its own minute; 503 when the store fails.
   */
  admit(actor: string): Promise<void>;
  /** Readiness probe of the store; rejects when it does not answer. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

/** What request handlers may use. Built once per process by src/app.ts. */
export interface AppContext {
  config: Config;
  logger: Logger;
  db: Kysely<Database>;
  store: EventStore;
  events: EventRegistry;
  now: () => Date;
  rateLimiter: RateLimiter;
  /** The provider adapters by record kind (src/providers/registry.ts); tests put a wrapped one here. */
  providers: ProviderRegistry;
  /**
   * Waits until the reference read models (tenants, api_keys, users, sessions, providers, routing_rules)
   * have applied every event committed before the call. Only with async projections (PROJECTIONS=async,
   * EventStoreDB), where authentication, login and routing would otherwise miss a key issued, revoked or
   * suspended, or a rule changed, a moment ago (docs/decisions.md "Hardening (issue 12)"); inline
   * projections are already there.
   */
  referenceReadsCaughtUp?: (() => Promise<void>) | undefined;
  /**
   * Waits until the named read models have applied every event committed before the call. Only with async
   * projections; a test clock's advance reads the cycles and debits it has just made (test mode only).
   */
  readModelsCaughtUp?: ((names: readonly string[]) => Promise<void>) | undefined;
}
