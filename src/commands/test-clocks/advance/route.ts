import { advanceTestClock as advanceTestClockOperation } from '../../../contract/operations/test-clocks.ts';
import { bind } from '../../bind.ts';
import { testClockViewOf } from '../record.ts';
import { advanceTestClock } from './handler.ts';

/** The clock once moved and its subscriptions run (200). */
export const advanceRoute = bind(advanceTestClockOperation, async (call, ctx) => {
  const folded = await advanceTestClock(
    ctx,
    call.apiKey(),
    { testClockId: call.params.id, frozenTime: call.body.frozen_time },
    call.metadata(),
  );
  return { data: testClockViewOf(folded) };
});
