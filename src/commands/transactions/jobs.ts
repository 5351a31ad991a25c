import type { Job } from '../job.ts';
import { reconcileJob } from './reconcile/job.ts';
import { settlePendingChangesJob } from './settle-pending-changes/job.ts';

/** The clock-driven work of the transactions feature, run by src/workers/job-runner.ts. */
export const transactionJobs: readonly Job[] = [reconcileJob(), settlePendingChangesJob()];
