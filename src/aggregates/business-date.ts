import { z } from 'zod';

/**
 * Business dates (DESIGN.md "Conventions": due dates and summary days are computed in America/Sao_Paulo).
 * Pure: the instant comes from the caller (a decider's `ctx.now`).
 */
const SAO_PAULO_OFFSET_MS = -3 * 3600 * 1000; // America/Sao_Paulo has had no DST since 2019.

/** The business date (YYYY-MM-DD) of an instant in America/Sao_Paulo. */
export function saoPauloDate(at: Date): string {
  return new Date(at.getTime() + SAO_PAULO_OFFSET_MS).toISOString().slice(0, 10);
}

export function addDays(date: string, days: number): string {
  const d = new Date(`${date}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + days);
  return d.toISOString().slice(0, 10);
}

const isoDate = z.iso.date();

/** A YYYY-MM-DD that names a day of the calendar (not 2026-02-30). */
export function isRealDate(date: string): boolean {
  return isoDate.safeParse(date).success && new Date(`${date}T00:00:00Z`).toISOString().startsWith(date);
}
