import { shredExpired } from '../../../crypto/vault.ts';
import { DEFAULT_LEASE_TTL_MS, type Job, type JobOutcome } from '../../job.ts';

export interface VaultExpiryOptions {
  /** Pause between ticks when nothing more is due (default one minute: a day's precision is what matters). */
  intervalMs?: number;
  /** At most this many records per tick (default 500). */
  batchSize?: number;
}

export interface VaultExpiryResult extends JobOutcome {
  /** The ids shredded by this run. */
  shredded: string[];
}

/**
 * Issue 22 item 4.4: personal data is kept no longer than its retention (90 days for a refund's bank
 * account). Each tick destroys the data keys of vault records past `expires_at` (src/crypto/vault.ts
 * `shredExpired`), as `system:vault-expiry`; another tick follows at once while a full batch came back.
 * Run with the worker role, like the reconciler. Safe to run twice (a shredded row is skipped); the lease
 * `vault-expiry` only keeps two workers from scanning the same rows. Logs a count, never data.
 */
export function vaultExpiryJob(opts: VaultExpiryOptions = {}): Job<VaultExpiryResult> {
  const batchSize = opts.batchSize ?? 500;
  return {
    name: 'vault-expiry',
    intervalMs: () => opts.intervalMs ?? 60_000,
    leaseTtlMs: DEFAULT_LEASE_TTL_MS,
    async run(app, { now }) {
      const shredded = await shredExpired(app.db, now, batchSize);
      if (shredded.length > 0)
        app.logger.info({ count: shredded.length }, 'vault records shredded on expiry');
      return { more: shredded.length === batchSize, shredded };
    },
  };
}
