import { monotonicFactory } from 'ulid';

const ulid = monotonicFactory();

/** DESIGN.md "Ids": prefix + sortable random id, opaque to clients (e.g. `txn_01JD…`). */
export type IdPrefix =
  | 'txn'
  | 'sub'
  | 'scy'
  | 'pxa'
  | 'chk'
  | 'cc'
  | 'ten'
  | 'key'
  | 'usr'
  | 'prv'
  | 'rul'
  | 'sac'
  | 'req'
  | 'ses'
  | 'tty'
  | 'whe';

export function newId(prefix: IdPrefix): string {
  return `${prefix}_${ulid().toLowerCase()}`;
}
