import { testClock } from '../../../aggregates/test-clock.ts';
import { deleteTestClock } from '../../../contract/operations/test-clocks.ts';
import { Answer, bind } from '../../bind.ts';
import { handleCommand } from '../../command-handler.ts';
import { requireClockWriteScope } from '../access.ts';
import { ownTestClock, testClockStream } from '../record.ts';

/** Deletes a clock of the key's tenant: 204, and 404 afterwards. */
export const deleteRoute = bind(deleteTestClock, async (call, ctx) => {
  const principal = call.apiKey();
  requireClockWriteScope(principal);
  const clock = await ownTestClock(ctx, principal, call.params.id);
  await handleCommand(
    { store: ctx.store, registry: ctx.events, now: () => ctx.now() },
    testClock,
    testClockStream(call.params.id),
    { kind: 'delete' },
    {
      metadata: call.metadata(),
      from: { state: clock.state, version: clock.version },
      retryOnConflict: true,
    },
  );
  return new Answer(204, null);
});
