import { startOfDay } from './subscription-calendar.ts';

/**
 * When a scheduled Pix Automatic debit is asked about next (SPEC 4.11, 8; issue 27 item 3): "after a debit's
 * due date, the service confirms payment with the provider every 5 minutes for 3 days, then hourly up to 30
 * days". Pure: the instant comes from the caller.
 *
 * The polls sit on a fixed grid anchored at the start of the due date in America/Sao_Paulo (00:00 there,
 * the moment the payer's bank may debit): every 5 minutes from the anchor until 3 days after it, then every
 * hour from 3 days to 30 days after it, the last poll exactly 30 days after the anchor. The next poll is
 * the first grid instant strictly after `now` (before the anchor: the anchor itself), so a late or repeated
 * run never drifts the grid nor polls twice for one instant; null once the last poll is behind `now`:
 * polling stops (the charge stays as it was, `pending` when nothing final was read; a refresh still works).
 */

export const FREQUENT_POLL_MS = 5 * 60_000;
export const HOURLY_POLL_MS = 3_600_000;
/** How long after the anchor the 5-minute polls last. */
export const FREQUENT_POLLING_MS = 3 * 86_400_000;
/** How long after the anchor the last poll happens. */
export const POLLING_MS = 30 * 86_400_000;

/** The first poll of a debit: the start of its due date in America/Sao_Paulo. */
export function firstPollAt(dueDate: string): Date {
  return startOfDay(dueDate);
}

/** The last poll of a debit: 30 days after {@link firstPollAt}. */
export function lastPollAt(dueDate: string): Date {
  return new Date(firstPollAt(dueDate).getTime() + POLLING_MS);
}

/** The next grid instant strictly after `now`, or null once the last poll is behind it. */
export function nextPollAt(dueDate: string, now: Date): Date | null {
  const anchor = firstPollAt(dueDate).getTime();
  const t = now.getTime();
  if (t < anchor) return new Date(anchor);
  const elapsed = t - anchor;
  if (elapsed < FREQUENT_POLLING_MS) {
    // The 5-minute grid ends where the hourly one starts (3 days is a whole number of both steps).
    return new Date(anchor + (Math.floor(elapsed / FREQUENT_POLL_MS) + 1) * FREQUENT_POLL_MS);
  }
  if (elapsed >= POLLING_MS) return null;
  return new Date(anchor + (Math.floor(elapsed / HOURLY_POLL_MS) + 1) * HOURLY_POLL_MS);
}
