import type { Job } from '../job.ts';
import { reconcileJob } from './reconcile/job.ts';
import { settlePendingChangesJob } from './settle-pending-changes/job.ts';
import { vaultExpiryJob } from './vault-expiry/job.ts';

/** The clock-driven work of the transactions feature, run by src/workers/job-runner.ts. */
export const transactionJobs: readonly Job[] = [
  reconcileJob(),
  settlePendingChangesJob(),
  // A refund's bank account is kept no longer than its retention (issue 22 item 4.4).
  vaultExpiryJob(),
];
