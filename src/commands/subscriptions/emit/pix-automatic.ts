import { isDomainError } from '../../../aggregates/decider.ts';
import { ApiError } from '../../../aggregates/errors.ts';
import type { SkipCode } from '../../../aggregates/subscription-cycle.ts';
import type { EventMetadata } from '../../../events/event-store.ts';
import { type LoadedAuthorization, loadAuthorization } from '../../pix-automatic/authorizations/load.ts';
import { refreshAuthorization } from '../../pix-automatic/authorizations/refresh/handler.ts';
import { createDebit } from '../../pix-automatic/charges/create/handler.ts';
import { cycleChargeBody, cycleIdempotencyKey, type EmitContext } from './context.ts';
import { type CycleIssuer, issuedFromOutcome } from './outcome.ts';

/** SPEC 2.5: the debit refusals that end the cycle unissued (not retried: the cycle cannot be charged). */
const SKIPPED_BY: Readonly<Partial<Record<string, SkipCode>>> = {
  automatic_charge_exists: 'automatic_charge_exists',
  automatic_schedule_window: 'automatic_schedule_window',
};

/**
 * A Pix Automatic cycle (SPEC 4.10, 4.11, 2.5): one debit of the subscription's authorization, scheduled the
 * way `POST /v1/pix-automatic/charges` schedules it (`createDebit`: the calendar, the 2-to-10-day window,
 * the contract, routing, the due date's reservation stream) under the cycle's key, so a second worker or a
 * replay finds the same debit.
 *  - authorization cancelled or refused: skipped `automatic_authorization_cancelled`; expired:
 *    `automatic_authorization_expired` (SPEC 2.5);
 *  - not approved yet: `automatic_not_approved` is the subscription's `last_error`, tried again every 15
 *    minutes (sooner once a refresh finds the approval) while at least 2 days remain;
 *  - a debit already scheduled for the date by another request: skipped `automatic_charge_exists`; the
 *    window closed: skipped `automatic_schedule_window`;
 *  - any other refusal before the reservation (routing changed, production not released) is `last_error`.
 */
export const issuePixAutomaticCycle: CycleIssuer = async (ctx, c, metadata) => {
  const s = c.subscription.created;
  const stored = s.authorization_id ? await loadAuthorization(ctx, s.authorization_id) : null;
  const loaded = stored === null ? null : await checkedAtProvider(ctx, stored, metadata);
  const status = loaded?.state.status;
  if (status === 'cancelled' || status === 'failed' || loaded === null) {
    return { kind: 'skipped', code: 'automatic_authorization_cancelled' };
  }
  if (status === 'expired') return { kind: 'skipped', code: 'automatic_authorization_expired' };
  const { callback_url: _, ...body } = cycleChargeBody(c);
  let outcome: Awaited<ReturnType<typeof createDebit>>;
  try {
    outcome = await createDebit(
      ctx,
      {
        tenantId: s.tenant_id,
        livemode: s.livemode,
        idempotencyKey: cycleIdempotencyKey(s.subscription_id, c.dueDate),
        inheritedCostCenter: true,
        body: {
          ...body,
          ...(s.callback_url !== null ? { callback_url: s.callback_url } : {}),
          authorization_id: loaded.state.id,
          due_date: c.dueDate,
        },
      },
      metadata,
    );
  } catch (error) {
    const skipped = isDomainError(error) ? SKIPPED_BY[error.code] : undefined;
    if (skipped) return { kind: 'skipped', code: skipped };
    throw error;
  }
  return issuedFromOutcome(ctx, outcome);
};

/**
 * SPEC 4.11: "the service checks the authorization every 15 minutes and schedules the first debit once
 * approved" — no webhook reports an approval (SPEC 6), so a provider's authorization still `pending` is
 * refreshed here (the refresh endpoint's own handler: the provider's query, then the 24-hour deadline) before
 * the cycle is decided. A simulated one is the gateway's own record (nothing to ask; simulate approves it).
 * A failed or refused check keeps the stored state: the debit then waits for the next attempt.
 */
async function checkedAtProvider(
  ctx: EmitContext,
  loaded: LoadedAuthorization,
  metadata: EventMetadata,
): Promise<LoadedAuthorization> {
  if (loaded.state.status !== 'pending' || loaded.state.simulated) return loaded;
  try {
    return await refreshAuthorization(ctx, loaded, metadata);
  } catch (error) {
    if (isDomainError(error) || error instanceof ApiError) return loaded;
    throw error;
  }
}
