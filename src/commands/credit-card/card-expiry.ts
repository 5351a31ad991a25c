import { saoPauloDate } from '../../aggregates/business-date.ts';

/** SPEC 4.9: a card's expiry `MM/YYYY` is past when its month is before this month in America/Sao_Paulo. */
export function isCardExpired(expiration: string, now: Date): boolean {
  const [month, year] = expiration.split('/');
  return `${year}-${month}` < saoPauloDate(now).slice(0, 7);
}
