import { isDomainError } from '../../../aggregates/decider.ts';
import { type OpenedSubscription, subscription } from '../../../aggregates/subscription.ts';
import { cycleStream, type SkipCode, subscriptionCycle } from '../../../aggregates/subscription-cycle.ts';
import {
  firstAction,
  nextAction,
  nextRunAt,
  overdueCode,
  scheduleView,
} from '../../../aggregates/subscription-schedule.ts';
import { type EventMetadata, WrongExpectedVersionError } from '../../../events/event-store.ts';
import { type CommandDeps, handleCommand } from '../../command-handler.ts';
import { readClaim } from '../../idempotency.ts';
import { type CycleToIssue, cycleIdempotencyKey, cycleIdentity, type EmitContext } from '../emit/context.ts';
import { type EmitStep, emitCycle } from '../emit/emit-cycle.ts';
import { foldSubscription, subscriptionStream } from '../record.ts';

/** What one look at a subscription did, and when it should be looked at again (null: never). */
export interface Advanced {
  readonly steps: readonly EmitStep[];
  readonly nextRunAt: Date | null;
}

/** When a cycle whose charge another attempt is making is looked at again (the scheduler's own interval). */
const IN_PROGRESS_RETRY_MS = 60_000;

/** A year of monthly cycles overdue at once is still finished in one look; a bug never loops forever. */
const MAX_STEPS = 64;

/**
 * Moves one subscription along its calendar at `now` (SPEC 4.10, 3.3, 3.4, 8; DESIGN.md "Feature modules"):
 * asks the pure schedule (src/aggregates/subscription-schedule.ts) what to do and does it until the answer
 * is to wait or nothing:
 *  - start: Subscription.CycleStarted (the expected version: a second worker that started it first makes this
 *    a no-op or a conflict, after which the stream is folded again), then the emission;
 *  - continue: the cycle in progress is finished; if it is overdue and its charge was never claimed (so
 *    never reserved), it is skipped instead (`cycle_overdue`; a Pix Automatic debit `automatic_schedule_window`);
 *  - skip: the next cycle fell due while paused or unissued: Cycle.Skipped, then CycleSettled(skipped).
 * `ctx.now` is replaced by `now` (the system clock, or a test clock's frozen time). `first`: the look at
 * creation, which issues cycle 1 at once (`firstAction`).
 */
export async function advanceSubscription(
  base: EmitContext,
  subscriptionId: string,
  now: Date,
  metadata: EventMetadata,
  opts: { first?: boolean } = {},
): Promise<Advanced> {
  const ctx: EmitContext = { ...base, now: () => now };
  const deps: CommandDeps = { store: ctx.store, registry: ctx.events, now: () => now };
  const steps: EmitStep[] = [];
  // The subscription as the last append left it: the next look needs no read (a stale one is re-read).
  let known: { state: OpenedSubscription; version: number } | undefined;
  for (let i = 0; i < MAX_STEPS; i++) {
    const folded = known ?? (await foldSubscription(ctx, subscriptionId));
    known = undefined;
    if (!folded) return { steps, nextRunAt: null };
    const state = folded.state;
    const action = i === 0 && opts.first ? firstAction(state, now) : nextAction(state, now);
    if (action.kind === 'idle' || action.kind === 'wait') {
      return { steps, nextRunAt: nextRunAt(scheduleView(state)) };
    }
    const s = state.created;
    const cycle = { subscription: state, cycle: action.cycle, dueDate: action.dueDate };
    const meta = { ...metadata, tenant_id: s.tenant_id, livemode: s.livemode };
    let emitted: Awaited<ReturnType<typeof emitCycle>> | undefined;
    if (action.kind === 'start') {
      const started = await startCycle(deps, subscriptionId, action, folded, meta);
      // Another worker moved the subscription first: look again from its stream.
      if (started === undefined) continue;
      emitted = await emitCycle(ctx, { ...cycle, subscription: started.state }, meta, {
        fresh: true,
        known: started,
      });
    } else if (action.kind === 'continue') {
      const claim = await readClaim(
        deps,
        s.tenant_id,
        cycleIdempotencyKey(subscriptionId, action.dueDate),
        s.livemode,
      );
      if (!(action.overdue && claim === undefined)) {
        emitted = await emitCycle(ctx, cycle, meta, { claim, known: folded });
      }
    }
    if (emitted === undefined) {
      const code = action.kind === 'skip' ? action.code : overdueCode(s.method);
      steps.push(await skipOverdue(deps, cycle, code, meta));
      continue;
    }
    steps.push(emitted.step);
    // Another attempt is making this cycle's charge: it settles the cycle; look again a minute later.
    if (emitted.step.kind === 'in_progress') {
      return { steps, nextRunAt: new Date(now.getTime() + IN_PROGRESS_RETRY_MS) };
    }
    const after = emitted.subscription;
    if (after.state.status !== 'none' && after.state.status !== 'deleted') {
      known = { state: after.state, version: after.version };
    }
  }
  const last = await foldSubscription(ctx, subscriptionId);
  return { steps, nextRunAt: last ? nextRunAt(scheduleView(last.state)) : null };
}

/** Subscription.CycleStarted at the version folded; undefined when another worker changed the stream first. */
async function startCycle(
  deps: CommandDeps,
  subscriptionId: string,
  next: { cycle: number; dueDate: string },
  from: { state: OpenedSubscription; version: number },
  metadata: EventMetadata,
): Promise<{ state: OpenedSubscription; version: number } | undefined> {
  try {
    const r = await handleCommand(
      deps,
      subscription,
      subscriptionStream(subscriptionId),
      { kind: 'start_cycle', cycle: next.cycle, dueDate: next.dueDate },
      { metadata, from },
    );
    return r.state.status === 'none' || r.state.status === 'deleted'
      ? undefined
      : { state: r.state, version: r.version };
  } catch (error) {
    if (error instanceof WrongExpectedVersionError) return undefined;
    if (isDomainError(error) && error.code === 'conflict') return undefined;
    throw error;
  }
}

/** A cycle that can no longer be issued (SPEC 3.3, 3.4): skipped with `code`, no charge, then settled. */
async function skipOverdue(
  deps: CommandDeps,
  c: CycleToIssue,
  code: SkipCode,
  metadata: EventMetadata,
): Promise<EmitStep> {
  const s = c.subscription.created;
  const skipped = await handleCommand(
    deps,
    subscriptionCycle,
    cycleStream(s.subscription_id, c.dueDate),
    {
      kind: 'skip',
      errorCode: code,
      identity: cycleIdentity(c),
    },
    { metadata, retryOnConflict: true },
  );
  // A cycle another worker finished meanwhile keeps its own outcome.
  const status = skipped.state.status;
  const outcome = status === 'created' || status === 'attention' ? status : 'skipped';
  await handleCommand(
    deps,
    subscription,
    subscriptionStream(s.subscription_id),
    { kind: 'settle_cycle', cycle: c.cycle, dueDate: c.dueDate, outcome },
    { metadata, retryOnConflict: true },
  );
  return { kind: outcome, cycle: c.cycle, dueDate: c.dueDate };
}
