import { randomFillSync } from 'node:crypto';

/** DESIGN.md "Ids": prefix + sortable random id, opaque to clients (e.g. `txn_01JD…`). */
export type IdPrefix =
  | 'txn'
  | 'fee'
  | 'sub'
  | 'scy'
  | 'pxa'
  | 'chk'
  | 'cc'
  | 'ntf'
  | 'ten'
  | 'key'
  | 'usr'
  | 'prv'
  | 'rul'
  | 'sac'
  | 'req'
  | 'ses'
  | 'tty'
  | 'whe'
  | 'vlt'
  | 'card'
  | 'clock';

/** Crockford base32, lower case (ids have always been lower-cased ULIDs). */
const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';
const TIME_LEN = 10;
const RANDOM_LEN = 16;
/** Random bytes fetched per refill: one `randomFillSync` call serves 256 ids. */
const POOL_BYTES = 4096;

/**
 * A monotonic ULID generator (the `ulid` package's `monotonicFactory` semantics): 48 bits of milliseconds,
 * then 80 random bits; within one millisecond, or when the clock steps back, the previous random part plus
 * one, so ids from one process always sort in creation order. Issue 14: the randomness comes from a pool
 * refilled 4 KiB at a time (one CSPRNG call per 256 ids) instead of one `getRandomValues` per character.
 * Each random character takes one pool byte modulo 32 (256 is a multiple of 32: uniform).
 */
export function ulidFactory(now: () => number = Date.now): () => string {
  const pool = Buffer.allocUnsafe(POOL_BYTES);
  let offset = POOL_BYTES;
  let lastTime = -1;
  const digits = new Uint8Array(RANDOM_LEN);
  return () => {
    let time = now();
    if (time <= lastTime) {
      time = lastTime;
      // Same millisecond (or a clock step back): increment the random part.
      let i = RANDOM_LEN - 1;
      while (i >= 0 && digits[i] === 31) digits[i--] = 0;
      if (i < 0) throw new Error('ulid random part overflow within one millisecond');
      (digits[i] as number)++;
    } else {
      lastTime = time;
      if (offset + RANDOM_LEN > POOL_BYTES) {
        randomFillSync(pool);
        offset = 0;
      }
      for (let i = 0; i < RANDOM_LEN; i++) digits[i] = (pool[offset + i] as number) & 31;
      offset += RANDOM_LEN;
    }
    let out = '';
    let t = time;
    for (let i = 0; i < TIME_LEN; i++) {
      out = ALPHABET[t % 32] + out;
      t = Math.floor(t / 32);
    }
    for (let i = 0; i < RANDOM_LEN; i++) out += ALPHABET[digits[i] as number];
    return out;
  };
}

const ulid = ulidFactory();

export function newId(prefix: IdPrefix): string {
  return `${prefix}_${ulid()}`;
}
