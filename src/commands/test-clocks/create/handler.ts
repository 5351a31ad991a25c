import { ApiError } from '../../../aggregates/errors.ts';
import type { TestClockCreatedData } from '../../../aggregates/test-clock.ts';
import { testClock } from '../../../aggregates/test-clock.ts';
import type { CreateTestClockBody } from '../../../contract/test-clocks.ts';
import type { EventMetadata } from '../../../events/event-store.ts';
import { newId } from '../../../ids.ts';
import { handleCommand } from '../../command-handler.ts';
import type { AppContext } from '../../context.ts';
import { claimIdempotencyKey, type JsonValue } from '../../idempotency.ts';
import type { ApiKeyPrincipal } from '../../principal.ts';
import { requireClockWriteScope } from '../access.ts';
import { type FoldedTestClock, foldTestClock, testClockStream } from '../record.ts';

/**
 * `POST /v1/test_clocks` (issue 26 item 6). Test keys only (a live key: 403 forbidden, nothing read), one of
 * the subscription write scopes; then claims the key (scope tenant + key, test mode; the hash covers the
 * normalized body) and appends `TestClock.Created`. A replay answers the clock as it is now (advanced since,
 * or 404 once deleted); a claim whose clock was never created (a crash between the appends) is completed
 * from the claim.
 */
export async function createTestClock(
  ctx: Pick<AppContext, 'store' | 'events' | 'now'>,
  principal: ApiKeyPrincipal,
  input: { body: CreateTestClockBody; idempotencyKey: string; route: string },
  metadata: EventMetadata,
): Promise<{ folded: FoldedTestClock; created: boolean }> {
  if (principal.livemode) {
    throw new ApiError('forbidden', 'Test clocks exist in test mode only: use a test key.');
  }
  requireClockWriteScope(principal);
  const normalized = {
    tenant_id: principal.tenantId,
    name: input.body.name?.trim() ?? null,
    frozen_time: new Date(input.body.frozen_time).toISOString(),
  };
  const data: TestClockCreatedData = { test_clock_id: newId('clock'), ...normalized };
  const deps = { store: ctx.store, registry: ctx.events, now: () => ctx.now() };
  const { first, claim } = await claimIdempotencyKey(
    deps,
    {
      scope: principal.tenantId,
      livemode: false,
      key: input.idempotencyKey,
      method: 'POST',
      route: input.route,
      body: normalized,
      resourceId: data.test_clock_id,
      payload: { test_clock: JSON.parse(JSON.stringify(data)) as JsonValue },
    },
    metadata,
  );
  const id = claim.resource_id;
  if (!first) {
    const existing = await foldTestClock(ctx, id);
    if (existing) return { folded: existing, created: false };
    const stream = await ctx.store.read(testClockStream(id));
    if (stream.length > 0) throw new ApiError('not_found', 'The test clock this key created was deleted.');
  }
  const claimed = claim.payload.test_clock as unknown as TestClockCreatedData;
  const r = await handleCommand(
    deps,
    testClock,
    testClockStream(id),
    { kind: 'create', data: claimed },
    { metadata, retryOnConflict: true },
  );
  const folded = await foldTestClock(ctx, id);
  if (!folded) throw new Error(`test clock ${id} missing after its creation`);
  return { folded, created: first && r.events.length > 0 };
}
