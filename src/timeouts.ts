export class TimeoutError extends Error {
  override readonly name = 'TimeoutError';
}

/**
 * Rejects with TimeoutError when `promise` has not settled within `ms`. The work itself is not cancelled;
 * this bounds how long a caller waits for it (readiness probes, rate-limit store calls).
 */
export function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new TimeoutError(`${what} did not answer within ${ms} ms`)), ms);
    // A pending probe must never keep the process alive on its own.
    timer.unref();
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
