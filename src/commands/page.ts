/** A list answer (SPEC 2.1, 4.3): one page of records, and `meta.count` is the size of the page, not a total. */
export function page<T>(data: T[], query: { readonly limit: number; readonly offset: number }) {
  return { data, meta: { limit: query.limit, offset: query.offset, count: data.length } };
}
