import { addDays, saoPauloDate } from './business-date.ts';

/**
 * The calendar of a subscription (SPEC 4.10, 8): pure date arithmetic in America/Sao_Paulo business dates.
 * Every cycle's due date is computed from the first one, never from the previous cycle, so a short month
 * (the 31st becoming the 30th or the 28th) never drags the following ones: the original day returns.
 */

const SAO_PAULO_OFFSET_HOURS = 3; // America/Sao_Paulo is UTC-3 (no DST since 2019; business-date.ts).

function lastDayOfMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
}

/** `date` plus `months` months, keeping its day or, in a shorter month, that month's last day. */
export function addMonthsClamped(date: string, months: number): string {
  const [y, m, d] = date.split('-').map(Number) as [number, number, number];
  const index = y * 12 + (m - 1) + months;
  const year = Math.floor(index / 12);
  const month = index % 12;
  const day = Math.min(d, lastDayOfMonth(year, month));
  return `${String(year).padStart(4, '0')}-${String(month + 1).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
}

/** The due date of cycle `n` (n ≥ 1): cycle 1 falls on `firstDueDate`, each next one `intervalMonths` later. */
export function cycleDueDate(firstDueDate: string, intervalMonths: number, n: number): string {
  return addMonthsClamped(firstDueDate, (n - 1) * intervalMonths);
}

/** The instant a business date starts in America/Sao_Paulo (00:00 there). */
export function startOfDay(date: string): Date {
  return new Date(`${date}T0${SAO_PAULO_OFFSET_HOURS}:00:00.000Z`);
}

/** The last instant of a business date in America/Sao_Paulo (23:59:59.999 there), as SPEC 2.2 ends a due day. */
export function endOfDay(date: string): Date {
  return new Date(startOfDay(addDays(date, 1)).getTime() - 1);
}

/** When a cycle is issued (SPEC 4.10): `advanceDays` before its due date, from the start of that day. */
export function issueAt(dueDate: string, advanceDays: number): Date {
  return startOfDay(addDays(dueDate, -advanceDays));
}

export { addDays, saoPauloDate };
