import { ApiError } from '../../aggregates/errors.ts';
import { type OpenedTestClock, testClock } from '../../aggregates/test-clock.ts';
import type { TestClockView } from '../../contract/test-clocks.ts';
import type { AppContext } from '../context.ts';
import { type FoldedStream, foldExisting } from '../fold-stream.ts';

/** Test clocks (issue 26 item 6): stream, fold, the public view, and who may see one. */

export const testClockStream = (testClockId: string) => `test_clock-${testClockId}`;

export type FoldedTestClock = FoldedStream<OpenedTestClock>;

/** A clock folded from its stream; a deleted one, or an id not `clock_…`, is undefined. */
export async function foldTestClock(
  ctx: Pick<AppContext, 'store' | 'events'>,
  testClockId: string,
): Promise<FoldedTestClock | undefined> {
  if (!/^clock_[a-z0-9]{1,60}$/.test(testClockId)) return undefined;
  const folded = await foldExisting(
    ctx.store,
    (r) => ctx.events.decodeStored(r),
    testClock,
    testClockStream(testClockId),
  );
  if (!folded) return undefined;
  const { state } = folded;
  return state.status === 'deleted' ? undefined : { ...folded, state };
}

export function testClockViewOf(folded: FoldedTestClock): TestClockView {
  const c = folded.state.created;
  return {
    id: c.test_clock_id,
    tenant_id: c.tenant_id,
    livemode: false,
    name: c.name,
    frozen_time: new Date(folded.state.frozenTime).toISOString(),
    status: folded.state.status,
    created_at: folded.createdAt.toISOString(),
    updated_at: folded.updatedAt.toISOString(),
  };
}

/**
 * The key's own clock: test mode and the key's tenant exactly (a clock is not shared down or up the tree);
 * anything else, a live key or a deleted clock included, is `404 not_found` (SPEC 4.10: other-mode ids).
 */
export async function ownTestClock(
  ctx: Pick<AppContext, 'store' | 'events'>,
  principal: { tenantId: string; livemode: boolean },
  testClockId: string,
): Promise<FoldedTestClock> {
  const folded = principal.livemode ? undefined : await foldTestClock(ctx, testClockId);
  if (!folded || folded.state.created.tenant_id !== principal.tenantId) {
    throw new ApiError('not_found', 'The test clock does not exist.');
  }
  return folded;
}
