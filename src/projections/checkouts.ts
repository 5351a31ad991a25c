import { type ColumnType, sql } from 'kysely';
import {
  type CheckoutCreatedData,
  type CheckoutEvent,
  type CheckoutStatus,
  checkoutEvents,
} from '../aggregates/checkout.ts';
import { EventRegistry } from '../events/event-registry.ts';
import type { Projection } from '../events/projection.ts';

/** The `checkouts` read model (migrations/0023_checkouts.ts), declared by the feature that writes it. */
export interface CheckoutsTable {
  id: string;
  tenant_id: string;
  livemode: boolean;
  status: CheckoutStatus;
  reference: string;
  /** The creation's facts without the payer's phone and address (never listed: SPEC 2.2 rule 4). */
  created: ColumnType<CheckoutCreatedData, string, string>;
  transaction_ids: ColumnType<string[], string[] | undefined, string[]>;
  /** Charges of the checkout not yet paid or ended: `processing` while any is left. */
  pending_ids: ColumnType<string[], string[] | undefined, string[]>;
  paid_transaction_id: string | null;
  late_payments: ColumnType<string[], string[] | undefined, string[]>;
  cost_center_id: string | null;
  expires_at: ColumnType<Date, Date | string, Date | string>;
  /**
   * When the follower (src/commands/checkouts/follow/job.ts) looks at it next: the deadline while open, soon
   * while a charge is pending (whatever the status: a late payment is never lost), null when nothing is left.
   */
  next_check_at: ColumnType<Date | null, Date | string | null, Date | string | null>;
  created_at: ColumnType<Date, Date | string, Date | string>;
  updated_at: ColumnType<Date, Date | string, Date | string>;
}

declare module '../db/schema.ts' {
  interface Database {
    checkouts: CheckoutsTable;
  }
}

const registry = new EventRegistry(checkoutEvents);

/**
 * Hosted checkouts as lists read them (SPEC 4.9) and as the follower claims them. Inline, so a created
 * checkout is listed at once. Times are the events' recorded times, so a rebuild reproduces them.
 */
export const checkoutsProjection: Projection = {
  name: 'checkouts',
  eventTypes: checkoutEvents.map((e) => e.type),

  async handle(recorded, trx) {
    const at = recorded.recordedAt;
    const event = registry.decode(recorded) as CheckoutEvent;
    const id = event.data.checkout_id;
    switch (event.type) {
      case 'Checkout.Created': {
        const d = event.data;
        const customer = d.customer
          ? {
              ...(d.customer.name !== undefined ? { name: d.customer.name } : {}),
              ...(d.customer.document !== undefined ? { document: d.customer.document } : {}),
              ...(d.customer.email !== undefined ? { email: d.customer.email } : {}),
            }
          : null;
        await trx
          .insertInto('checkouts')
          .values({
            id,
            tenant_id: d.tenant_id,
            livemode: d.livemode,
            status: 'open',
            reference: d.reference,
            created: JSON.stringify({ ...d, customer }),
            cost_center_id: d.cost_center_id,
            expires_at: d.expires_at,
            next_check_at: d.expires_at,
            created_at: at,
            updated_at: at,
          })
          .execute();
        return;
      }
      case 'Checkout.PaymentStarted':
        await trx
          .updateTable('checkouts')
          .set({
            transaction_ids: sql`array_append(transaction_ids, ${event.data.transaction_id})`,
            pending_ids: sql`array_append(pending_ids, ${event.data.transaction_id})`,
            status: sql`case when status = 'open' then 'processing' else status end`,
            next_check_at: at,
            updated_at: at,
          })
          .where('id', '=', id)
          .execute();
        return;
      case 'Checkout.PaymentFailed':
        await trx
          .updateTable('checkouts')
          .set({
            pending_ids: sql`array_remove(pending_ids, ${event.data.transaction_id})`,
            status: sql`case when status = 'processing'
              and cardinality(array_remove(pending_ids, ${event.data.transaction_id})) = 0 then 'open' else status end`,
            next_check_at: sql`case
              when cardinality(array_remove(pending_ids, ${event.data.transaction_id})) > 0 then next_check_at
              when status in ('open', 'processing') then expires_at else null end`,
            updated_at: at,
          })
          .where('id', '=', id)
          .execute();
        return;
      case 'Checkout.Completed':
        await trx
          .updateTable('checkouts')
          .set({
            status: 'completed',
            paid_transaction_id: event.data.transaction_id,
            pending_ids: sql`array_remove(pending_ids, ${event.data.transaction_id})`,
            // Other charges still pending are followed: paid later, they are late payments (never lost).
            next_check_at: sql`case when cardinality(array_remove(pending_ids, ${event.data.transaction_id})) > 0
              then ${at}::timestamptz else null end`,
            updated_at: at,
          })
          .where('id', '=', id)
          .execute();
        return;
      case 'Checkout.LatePaymentRecorded':
        await trx
          .updateTable('checkouts')
          .set({
            late_payments: sql`array_append(late_payments, ${event.data.transaction_id})`,
            pending_ids: sql`array_remove(pending_ids, ${event.data.transaction_id})`,
            next_check_at: sql`case when cardinality(array_remove(pending_ids, ${event.data.transaction_id})) > 0
              then next_check_at else null end`,
            updated_at: at,
          })
          .where('id', '=', id)
          .execute();
        return;
      case 'Checkout.Expired':
      case 'Checkout.Failed':
        await trx
          .updateTable('checkouts')
          .set({
            status: event.type === 'Checkout.Expired' ? 'expired' : 'failed',
            next_check_at: sql`case when cardinality(pending_ids) > 0 then next_check_at else null end`,
            updated_at: at,
          })
          .where('id', '=', id)
          .execute();
        return;
    }
  },

  async reset(trx) {
    await sql`truncate checkouts`.execute(trx);
  },
};
