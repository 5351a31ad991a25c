import type { JobDeps } from '../src/commands/job.ts';
import { runDueSubscriptions } from '../src/commands/subscriptions/schedule/run-due.ts';
import type { SeedContext } from '../test/support/fixtures.ts';
import { seedSubscription } from '../test/support/subscriptions.ts';

/** The scheduler benches' shared steps (bench/scheduler-concurrency.ts, bench/scheduler-scale.ts). */

/** `count` test-mode boleto subscriptions of `tenantId` whose first cycle falls due on `due`, 16 at a time. */
export async function seedDueSubscriptions(
  ctx: SeedContext,
  tenantId: string,
  count: number,
  due: string,
): Promise<void> {
  const queue = Array.from({ length: count }, (_, i) => i);
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      for (let i = queue.shift(); i !== undefined; i = queue.shift()) {
        await seedSubscription(ctx, tenantId, { first_due_date: due, amount: 1000 + (i % 1000) });
      }
    }),
  );
}

/** One scheduler run as the job makes it (batch 500), at `concurrency`. */
export function schedulerRun(deps: JobDeps, concurrency: number) {
  return runDueSubscriptions(deps, {
    now: new Date(),
    testClockId: null,
    batchSize: 500,
    concurrency,
    holdMs: 60_000,
    metadata: { actor: 'system:bench' },
  });
}

/** Runs the scheduler until a run claims less than a full batch; answers the cycles it issued. */
export async function drainDue(deps: JobDeps, concurrency: number): Promise<number> {
  let issued = 0;
  for (;;) {
    const r = await schedulerRun(deps, concurrency);
    issued += r.advanced.reduce((n, a) => n + a.steps.length, 0);
    if (r.claimed < 500) return issued;
  }
}
