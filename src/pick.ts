/**
 * The named fields of `source`, in the order named: a view that shows fields under their stored names says
 * which ones, instead of a line per field (the order is the JSON's key order).
 */
export function pick<T extends object, K extends keyof T>(source: T, ...keys: readonly K[]): Pick<T, K> {
  const picked = {} as Pick<T, K>;
  for (const key of keys) picked[key] = source[key];
  return picked;
}
