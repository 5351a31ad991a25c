/**
 * Webhook retry schedule (SPEC 6 leaves it open; docs/decisions.md "Webhooks"). Quick retries absorb a
 * receiver's deploy or blip, then roughly doubling waits spread the rest so the last attempt lands about
 * three days after the first: long enough to outlive a weekend outage, short enough that a dead endpoint
 * stops costing work. Each entry is the wait after the attempt of the same ordinal (index 0: after the
 * first attempt). Sum: 258 155 s, about 2.99 days; 13 attempts in all.
 */
export const RETRY_DELAYS_SECONDS: readonly number[] = Object.freeze([
  5,
  30,
  2 * 60,
  10 * 60,
  30 * 60,
  60 * 60,
  2 * 3600,
  4 * 3600,
  8 * 3600,
  12 * 3600,
  20 * 3600,
  24 * 3600,
]);

/** The first attempt plus one retry per delay. */
export const MAX_ATTEMPTS = RETRY_DELAYS_SECONDS.length + 1;

/** ±20%: spreads the retries of many endpoints that failed together (an outage) instead of a thundering herd. */
export const JITTER = 0.2;

/** A receiver's Retry-After is honoured up to this; beyond it a hostile or buggy value could park deliveries. */
export const MAX_RETRY_AFTER_SECONDS = 24 * 3600;

/**
 * When to try again after `attemptsMade` attempts (the last one ending at `now`), or null to give up.
 * `random` returns [0, 1) (Math.random in production, fixed in tests). A Retry-After is a lower bound,
 * capped at 24 h; it never adds attempts beyond MAX_ATTEMPTS. 0 attempts made means send now.
 */
export function nextAttemptAt(
  attemptsMade: number,
  now: Date,
  random: () => number,
  retryAfterSeconds: number | null,
): Date | null {
  if (!Number.isInteger(attemptsMade) || attemptsMade < 0) {
    throw new RangeError(`attemptsMade must be a non-negative integer, got ${attemptsMade}`);
  }
  if (attemptsMade === 0) return new Date(now.getTime());
  const base = RETRY_DELAYS_SECONDS[attemptsMade - 1];
  if (base === undefined) return null;
  const r = Math.min(Math.max(random(), 0), 1);
  let delayMs = base * 1000 * (1 - JITTER + 2 * JITTER * r);
  if (retryAfterSeconds !== null && Number.isFinite(retryAfterSeconds) && retryAfterSeconds > 0) {
    delayMs = Math.max(delayMs, Math.min(retryAfterSeconds, MAX_RETRY_AFTER_SECONDS) * 1000);
  }
  return new Date(now.getTime() + Math.round(delayMs));
}
