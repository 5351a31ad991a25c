import { getTestClock } from '../../../contract/operations/test-clocks.ts';
import { bind } from '../../bind.ts';
import { ownTestClock, testClockViewOf } from '../record.ts';

/** One clock of the key's tenant, folded from its stream. */
export const getRoute = bind(getTestClock, async (call, ctx) => {
  const folded = await ownTestClock(ctx, call.apiKey(), call.params.id);
  return { data: testClockViewOf(folded) };
});
