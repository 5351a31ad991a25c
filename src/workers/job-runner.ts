import type { Clock } from '../commands/clock.ts';
import type { Job, JobDeps } from '../commands/job.ts';
import type { JobLease } from './lease.ts';
import { PollingLoop } from './polling-loop.ts';

export interface JobRunnerOptions {
  /** The time each run is given (`tick.now`), read when the run starts. */
  clock: Clock;
  /**
   * Several workers on one PostgreSQL: the lease each job's runs take (./lease.ts, issue 14), so that one
   * run of a job happens at a time across them. None with PGlite (one process per data directory).
   */
  lease?: (job: Job) => JobLease;
}

/**
 * Runs the clock-driven jobs of the features (DESIGN.md "Feature modules"), each in a loop of its own: a run
 * under the job's lease, then a pause of its interval unless the run said more work is due or `wake()` was
 * called. A run whose lease is taken elsewhere is skipped; a failed run (a `LeaseLostError` too) is logged
 * as `<job> tick failed` and the job runs again after its pause. `stop()` returns once the runs in flight
 * have finished.
 */
export class JobRunner {
  private readonly loops: readonly PollingLoop[];

  constructor(jobs: readonly Job[], deps: JobDeps, opts: JobRunnerOptions) {
    this.loops = jobs.map((job) => {
      const lease = opts.lease?.(job);
      const run = async (signal?: AbortSignal) =>
        (await job.run(deps, { now: opts.clock.now(), signal })).more;
      const tick = async () => {
        if (!lease) return run();
        const held = await lease.run(run);
        return held.ran && held.value;
      };
      return new PollingLoop(job.name, tick, job.intervalMs(deps.config), deps.logger);
    });
  }

  start(): void {
    for (const loop of this.loops) loop.start();
  }

  async stop(): Promise<void> {
    await Promise.all(this.loops.map((loop) => loop.stop()));
  }

  /** Every job runs now (or again right after its run in flight): new work is due, or the clock moved. */
  wake(): void {
    for (const loop of this.loops) loop.wake();
  }
}
