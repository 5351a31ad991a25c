/**
 * Route handlers still running. fastify's `close()` waits for open connections only: a handler whose client
 * went away keeps running (a charge between its reservation and the provider's answer) after the server
 * has closed, and would find the database pool closed under it. The gateway waits for these before it
 * closes its pools.
 */
export class InFlight {
  private running = 0;
  private idle: (() => void)[] = [];

  get size(): number {
    return this.running;
  }

  track<T>(work: Promise<T>): Promise<T> {
    this.running++;
    return work.finally(() => {
      this.running--;
      if (this.running === 0) for (const wake of this.idle.splice(0)) wake();
    });
  }

  /** Resolves true once nothing runs, or false after `timeoutMs` with handlers still running. */
  drained(timeoutMs: number): Promise<boolean> {
    if (this.running === 0) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(false), timeoutMs);
      this.idle.push(() => {
        clearTimeout(timer);
        resolve(true);
      });
    });
  }
}
