import { z } from 'zod';
import { defineEvent, type EventOf } from '../events/event-registry.ts';
import { addMonthsClamped } from './subscription-calendar.ts';

/**
 * One debit per due date per authorization (SPEC 4.11, 7 `409 automatic_charge_exists`; DESIGN.md
 * "Uniqueness uses reservation streams"): the stream `pixauto_debit-<authorization>-<due_date>` is appended
 * with `no_stream` in the same SQL transaction as the debit's idempotency claim and its transaction's
 * Reserved, so of any number of concurrent requests for one authorization and date (whatever their keys)
 * exactly one reserves a transaction and calls the provider. It names the transaction it guards.
 */
export const debitReservationStream = (authorizationId: string, dueDate: string): string =>
  `pixauto_debit-${authorizationId}-${dueDate}`;

const debitReservedData = z.strictObject({
  authorization_id: z.string().startsWith('pxa_'),
  due_date: z.iso.date(),
  transaction_id: z.string().startsWith('txn_'),
  tenant_id: z.string().startsWith('ten_'),
  livemode: z.boolean(),
});

export const debitReservationEvents = [
  defineEvent({
    type: 'PixAutomaticDebit.Reserved',
    audit: {
      action: 'pix_automatic_debit.reserved',
      when: 'a due date of a Pix Automatic authorization was taken by a debit (SPEC 4.11: one debit per due date)',
    },
    schema: debitReservedData,
  }),
];

export type DebitReservationEvent = EventOf<(typeof debitReservationEvents)[number]>;

/**
 * Whether `dueDate` is a due date of the authorized calendar (SPEC 4.11): `firstDueDate` plus a whole number
 * of `intervalMonths`, the day clamped to a short month's last day and the original day returning after it
 * (src/aggregates/subscription-calendar.ts, the subscriptions' own calendar).
 */
export function inAuthorizedCalendar(firstDueDate: string, intervalMonths: number, dueDate: string): boolean {
  if (dueDate < firstDueDate) return false;
  const [fy, fm] = firstDueDate.split('-').map(Number) as [number, number];
  const [dy, dm] = dueDate.split('-').map(Number) as [number, number];
  const months = (dy - fy) * 12 + (dm - fm);
  if (months % intervalMonths !== 0) return false;
  return addMonthsClamped(firstDueDate, months) === dueDate;
}
