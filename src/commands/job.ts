import type { Kysely } from 'kysely';
import type { Config } from '../config.ts';
import type { Database } from '../db/schema.ts';
import type { EventRegistry } from '../events/event-registry.ts';
import type { EventStore } from '../events/event-store.ts';
import type { Logger } from '../logger.ts';
import type { ProviderRegistry } from '../providers/registry.ts';

/** What a job may use: the application context (src/commands/context.ts) satisfies it; its clock is not here. */
export interface JobDeps {
  readonly config: Config;
  readonly logger: Pick<Logger, 'info' | 'warn' | 'error'>;
  readonly db: Kysely<Database>;
  readonly store: EventStore;
  readonly events: EventRegistry;
  /** Where provider adapters come from (the deps are the `adapters` of a provider call). */
  readonly providers: ProviderRegistry;
}

/** One run of a job: the time it runs at (from the runner's Clock) and its lease's signal. */
export interface JobTick {
  readonly now: Date;
  /**
   * Aborted with `LeaseLostError` once the lease of the run is lost (src/workers/lease.ts); the job checks it
   * between units of work. None when it runs without a lease (PGlite, a test calling `run`).
   */
  readonly signal?: AbortSignal | undefined;
}

export interface JobOutcome {
  /** More work is already due: the runner runs the job again without waiting its interval. */
  readonly more: boolean;
}

/** How long a lease outlives its holder's last sign of life (the lease's `idle_in_transaction_session_timeout`). */
export const DEFAULT_LEASE_TTL_MS = 300_000;

/**
 * A named unit of clock-driven work of a feature (DESIGN.md "Feature modules"), run by
 * src/workers/job-runner.ts every `intervalMs` under the lease named `name`, so that with several worker
 * processes one run happens at a time. Its time comes only from `tick.now`.
 */
export interface Job<R extends JobOutcome = JobOutcome> {
  /** The lease's name (its advisory-lock key) and the loop's name in the log. */
  readonly name: string;
  /** The pause between runs when no more work is due. */
  intervalMs(config: Config): number;
  readonly leaseTtlMs: number;
  run(deps: JobDeps, tick: JobTick): Promise<R>;
}
