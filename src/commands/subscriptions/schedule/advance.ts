import { isDomainError } from '../../../aggregates/decider.ts';
import { type OpenedSubscription, subscription } from '../../../aggregates/subscription.ts';
import {
  type CycleState,
  cycleStream,
  type SkipCode,
  subscriptionCycle,
} from '../../../aggregates/subscription-cycle.ts';
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
import { appendTogether, decideOn, type Known } from '../emit/append-together.ts';
import { type CycleToIssue, cycleIdempotencyKey, cycleIdentity, type EmitContext } from '../emit/context.ts';
import { type EmitStep, emitCycle } from '../emit/emit-cycle.ts';
import { foldSubscription, subscriptionStream } from '../record.ts';

/** What one look at a subscription did, and when it should be looked at again (null: never). */
export interface Advanced {
  readonly steps: readonly EmitStep[];
  readonly nextRunAt: Date | null;
  /**
   * The subscription's stream grew after this look first read it (by this look or another worker), so an
   * inline subscriptions projection has already written the row's `next_run_at` (run-due.ts).
   */
  readonly streamGrew: boolean;
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
  let firstVersion: number | undefined;
  let lastVersion = 0;
  const seen = (version: number) => {
    firstVersion ??= version;
    lastVersion = Math.max(lastVersion, version);
  };
  const done = (next: Date | null): Advanced => ({
    steps,
    nextRunAt: next,
    streamGrew: firstVersion !== undefined && lastVersion > firstVersion,
  });
  for (let i = 0; i < MAX_STEPS; i++) {
    const folded = known ?? (await foldSubscription(ctx, subscriptionId));
    known = undefined;
    if (!folded) return done(null);
    seen(folded.version);
    const state = folded.state;
    const action = i === 0 && opts.first ? firstAction(state, now) : nextAction(state, now);
    if (action.kind === 'idle' || action.kind === 'wait') {
      return done(nextRunAt(scheduleView(state)));
    }
    const s = state.created;
    const cycle = { subscription: state, cycle: action.cycle, dueDate: action.dueDate };
    const meta = { ...metadata, tenant_id: s.tenant_id, livemode: s.livemode };
    let emitted: Awaited<ReturnType<typeof emitCycle>> | undefined;
    if (action.kind === 'start') {
      const together = await startAndReserve(deps, cycle, folded, meta);
      if (together) {
        emitted = await emitCycle(ctx, { ...cycle, subscription: together.started.state }, meta, {
          known: together.started,
          reserved: together.reserved,
        });
      } else {
        const started = await startCycle(deps, subscriptionId, action, folded, meta);
        // Another worker moved the subscription first: look again from its stream.
        if (started === undefined) continue;
        emitted = await emitCycle(ctx, { ...cycle, subscription: started.state }, meta, {
          fresh: true,
          known: started,
        });
      }
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
    seen(emitted.subscription.version);
    // Another attempt is making this cycle's charge: it settles the cycle; look again a minute later.
    if (emitted.step.kind === 'in_progress') {
      return done(new Date(now.getTime() + IN_PROGRESS_RETRY_MS));
    }
    const after = emitted.subscription;
    if (after.state.status !== 'none' && after.state.status !== 'deleted') {
      known = { state: after.state, version: after.version };
    }
  }
  const last = await foldSubscription(ctx, subscriptionId);
  if (last) seen(last.version);
  return done(last ? nextRunAt(scheduleView(last.state)) : null);
}

/**
 * Subscription.CycleStarted and the cycle's Cycle.Reserved in one append (issue 26 item 8: one commit, not
 * two; the subscription at the version folded, the cycle's stream new), so the emission starts from both
 * states without a read. Undefined when the store cannot, the start is refused or a no-op, or either stream
 * moved (another worker): nothing was written, and the caller starts and reserves one stream at a time,
 * which re-reads and settles those cases as before.
 */
async function startAndReserve(
  deps: CommandDeps,
  c: CycleToIssue,
  from: { state: OpenedSubscription; version: number },
  metadata: EventMetadata,
): Promise<
  { started: { state: OpenedSubscription; version: number }; reserved: Known<CycleState> } | undefined
> {
  const id = c.subscription.created.subscription_id;
  const started = decideOn(
    deps,
    subscription,
    subscriptionStream(id),
    { kind: 'start_cycle', cycle: c.cycle, dueDate: c.dueDate },
    from,
  );
  const status = started?.after.state.status;
  if (!started || status === undefined || status === 'none' || status === 'deleted') return undefined;
  const reserved = decideOn(
    deps,
    subscriptionCycle,
    cycleStream(id, c.dueDate),
    { kind: 'reserve', identity: cycleIdentity(c) },
    { state: subscriptionCycle.initialState, version: 0 },
  );
  if (!reserved || !(await appendTogether(deps, metadata, [started, reserved]))) return undefined;
  return {
    started: { state: started.after.state as OpenedSubscription, version: started.after.version },
    reserved: reserved.after,
  };
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
