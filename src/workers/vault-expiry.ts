import type { Kysely } from 'kysely';
import { shredExpired } from '../crypto/vault.ts';
import type { Database } from '../db/schema.ts';
import type { Logger } from '../logger.ts';
import type { JobLease } from './lease.ts';
import { PollingLoop } from './polling-loop.ts';

export interface VaultExpiryOptions {
  /** Pause between ticks when nothing more is due (default one minute: a day's precision is what matters). */
  intervalMs?: number;
  /** At most this many records per tick (default 500). */
  batchSize?: number;
  now?: () => Date;
  logger?: Pick<Logger, 'info' | 'error'>;
  /** Several workers on one PostgreSQL: each tick runs under this lease (src/workers/lease.ts). */
  lease?: JobLease;
}

/**
 * Issue 22 item 4.4: personal data is kept no longer than its retention (90 days for a refund's bank
 * account). Each tick destroys the data keys of vault records past `expires_at` (src/crypto/vault.ts
 * `shredExpired`), as `system:vault-expiry`; another tick follows at once while a full batch came back.
 * Started with the worker role, like the reconciler. Safe to run twice (a shredded row is skipped); the
 * lease only keeps two workers from scanning the same rows. Logs a count, never data.
 */
export class VaultExpiryWorker {
  private readonly batchSize: number;
  private readonly now: () => Date;
  private readonly loop: PollingLoop;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly opts: VaultExpiryOptions = {},
  ) {
    this.batchSize = opts.batchSize ?? 500;
    this.now = opts.now ?? (() => new Date());
    this.loop = new PollingLoop(
      'vault expiry',
      async () => {
        const tick = async () => (await this.runOnce()).length === this.batchSize;
        if (!opts.lease) return tick();
        const held = await opts.lease.run(tick);
        return held.ran && held.value;
      },
      opts.intervalMs ?? 60_000,
      opts.logger,
    );
  }

  /** One tick: the ids shredded at `now`. */
  async runOnce(now: Date = this.now()): Promise<string[]> {
    const shredded = await shredExpired(this.db, now, this.batchSize);
    if (shredded.length > 0)
      this.opts.logger?.info({ count: shredded.length }, 'vault records shredded on expiry');
    return shredded;
  }

  start(): void {
    this.loop.start();
  }

  stop(): Promise<void> {
    return this.loop.stop();
  }

  wake(): void {
    this.loop.wake();
  }
}
