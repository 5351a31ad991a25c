import { createTestClock as createTestClockOperation } from '../../../contract/operations/test-clocks.ts';
import { bind, createdOrReplayed } from '../../bind.ts';
import { testClockViewOf } from '../record.ts';
import { createTestClock } from './handler.ts';

/** A test clock of the key's tenant, created (201) or replayed (200, `Idempotency-Replayed`). */
export const createRoute = bind(createTestClockOperation, async (call, ctx) => {
  const { folded, created } = await createTestClock(
    ctx,
    call.apiKey(),
    { body: call.body, idempotencyKey: call.idempotencyKey(), route: createTestClockOperation.path },
    call.metadata(),
  );
  return createdOrReplayed(created, { data: testClockViewOf(folded) });
});
