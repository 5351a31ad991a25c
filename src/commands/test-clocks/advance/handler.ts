import { testClock } from '../../../aggregates/test-clock.ts';
import type { EventMetadata } from '../../../events/event-store.ts';
import { handleCommand } from '../../command-handler.ts';
import type { AppContext } from '../../context.ts';
import type { ApiKeyPrincipal } from '../../principal.ts';
import { catchUpTestClock } from '../../subscriptions/schedule/catch-up.ts';
import { requireClockWriteScope } from '../access.ts';
import { type FoldedTestClock, ownTestClock, testClockStream } from '../record.ts';

/**
 * `POST /v1/test_clocks/{id}/advance` (issue 26 item 6): one of the subscription write scopes, the key's own
 * clock (else 404), then three steps. (1) `TestClock.Advanced` to the target (the decider refuses a time
 * before the clock's or more than 731 days after it with 422, and answers a no-op for the clock's own time: a
 * retry); (2) the clock's subscriptions run up to that time; (3) `TestClock.AdvanceCompleted`, the clock is
 * `ready` again. A crash after (1) leaves the clock `advancing`; the same advance, repeated, does (2) and (3).
 */
export async function advanceTestClock(
  ctx: AppContext,
  principal: ApiKeyPrincipal,
  input: { testClockId: string; frozenTime: string },
  metadata: EventMetadata,
): Promise<FoldedTestClock> {
  requireClockWriteScope(principal);
  const clock = await ownTestClock(ctx, principal, input.testClockId);
  const deps = { store: ctx.store, registry: ctx.events, now: () => ctx.now() };
  const stream = testClockStream(input.testClockId);
  const target = new Date(input.frozenTime).toISOString();
  const advanced = await handleCommand(
    deps,
    testClock,
    stream,
    { kind: 'advance', frozenTime: target },
    { metadata, from: { state: clock.state, version: clock.version }, retryOnConflict: true },
  );
  // (2) the clock's subscriptions, through the skipped time by the scheduler's own code; `advancingFrom` is
  // kept by the clock, so an advance repeated after a crash starts where the first one did.
  if (advanced.state.status === 'advancing') {
    await catchUpTestClock(ctx, {
      testClockId: input.testClockId,
      from: new Date(advanced.state.advancingFrom ?? advanced.state.frozenTime),
      to: new Date(target),
      metadata,
      readModelsCaughtUp: ctx.readModelsCaughtUp,
    });
  }
  await handleCommand(
    deps,
    testClock,
    stream,
    { kind: 'complete', frozenTime: target },
    { metadata, from: { state: advanced.state, version: advanced.version }, retryOnConflict: true },
  );
  return ownTestClock(ctx, principal, input.testClockId);
}
