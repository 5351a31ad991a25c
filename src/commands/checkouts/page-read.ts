import { type CheckoutEvent, checkout } from '../../aggregates/checkout.ts';
import { fold } from '../../aggregates/decider.ts';
import { constantQuery } from '../../db/constant-query.ts';
import { type EventRow, toRecorded } from '../../events/postgres-event-store.ts';
import type { AppContext } from '../context.ts';
import { checkoutStream, type FoldedCheckout, foldCheckout } from './record.ts';

interface Row extends EventRow {
  /** Only on the stream's first event: the tenant its `checkout_created` names, when its row exists. */
  tenant_id: string | null;
  tenant_name: string | null;
}

/**
 * Issue 25 "Performance": the checkout's stream and its tenant's current name in one round trip, as constant
 * SQL text (src/db/constant-query.ts). The same rows as the event store's stream read (its column list and
 * order), plus the `tenants` row of the tenant the first event names, joined on that row only. One statement,
 * so one snapshot: the name is as current as the separate read it replaces (src/http/routes/charge-page.ts
 * `merchantName`).
 */
const READ_CHECKOUT_WITH_TENANT = constantQuery<Row>(
  'select e.global_position, e.transaction_id::text as transaction_id, e.stream_id, e.version, e.event_id, ' +
    'e.type, e.schema_version, e.data, e.metadata, e.recorded_at, t.id as tenant_id, t.name as tenant_name ' +
    "from events e left join tenants t on e.version = 1 and t.id = e.data->>'tenant_id' " +
    'where e.stream_id = $1 and e.version >= 1 order by e.version',
);

export interface CheckoutPageRead {
  folded: FoldedCheckout | undefined;
  /**
   * The tenant's current name from its read model, null when its row does not exist; undefined when it was
   * not read with the stream (the caller reads it as before).
   */
  merchantName?: string | null | undefined;
}

/**
 * The checkout folded from its stream (as foldCheckout: always consistent, ids not `chk_…` never read) and,
 * on the PostgreSQL event store, its tenant's name in the same statement. The name is given only when the
 * joined tenant is the one the folded checkout names (an upcast payload that moved `tenant_id` falls back to
 * the separate read); on another event store the stream is read by the store and the name is left to the
 * caller.
 */
export async function readCheckoutForPage(
  ctx: Pick<AppContext, 'store' | 'events' | 'db'>,
  checkoutId: string,
): Promise<CheckoutPageRead> {
  if (ctx.store.kind !== 'postgres') return { folded: await foldCheckout(ctx, checkoutId) };
  if (!/^chk_[a-z0-9]{1,60}$/.test(checkoutId)) return { folded: undefined };
  const { rows } = await READ_CHECKOUT_WITH_TENANT(ctx.db, [checkoutStream(checkoutId)]);
  const first = rows[0];
  const last = rows.at(-1);
  if (!first || !last) return { folded: undefined };
  // The same fold as foldCheckout (src/commands/checkouts/record.ts), over the same rows.
  const state = fold(
    checkout,
    rows.map((r) => ctx.events.decodeStored(toRecorded(r)) as CheckoutEvent),
  );
  if (state.status === 'none') return { folded: undefined };
  const folded: FoldedCheckout = {
    state,
    version: Number(last.version),
    createdAt: toRecorded(first).recordedAt,
    updatedAt: toRecorded(last).recordedAt,
  };
  const tenantId = state.created.tenant_id;
  if (first.tenant_id === tenantId) return { folded, merchantName: first.tenant_name };
  // No joined row: either the tenant has no row (null, as the separate read would say) or the payload names
  // it elsewhere; only the first is certain without asking.
  if (first.tenant_id === null && (first.data as { tenant_id?: unknown } | null)?.tenant_id === tenantId) {
    return { folded, merchantName: null };
  }
  return { folded };
}
