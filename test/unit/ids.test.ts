import { decodeTime, isValid } from 'ulid';
import { describe, expect, it } from 'vitest';
import { newId, ulidFactory } from '../../src/ids.ts';

// DESIGN.md "Ids": prefix + a sortable random id (a lower-cased ULID). Issue 14: pooled randomness must keep
// the ULID format, uniqueness and the monotonic order within one process.
describe('ids', () => {
  it('are a prefix and a lower-case ULID that the ulid package reads back with the current time', () => {
    const before = Date.now();
    const id = newId('txn');
    const after = Date.now();
    expect(id).toMatch(/^txn_[0-9a-hjkmnp-tv-z]{26}$/);
    const body = id.slice(4).toUpperCase();
    expect(isValid(body)).toBe(true);
    expect(decodeTime(body)).toBeGreaterThanOrEqual(before);
    expect(decodeTime(body)).toBeLessThanOrEqual(after);
  });

  it('sort in creation order and never repeat, over many pool refills', () => {
    const ids = Array.from({ length: 50_000 }, () => newId('req'));
    expect(new Set(ids).size).toBe(ids.length);
    for (let i = 1; i < ids.length; i++) expect((ids[i] as string) > (ids[i - 1] as string)).toBe(true);
  });

  it('within one millisecond, and when the clock steps back, increment the previous random part', () => {
    let clock = 1_700_000_000_000;
    const next = ulidFactory(() => clock);
    const a = next();
    const b = next();
    clock -= 5_000;
    const c = next();
    expect(b > a && c > b).toBe(true);
    // Same time part; the random part is the previous one plus one.
    expect(b.slice(0, 10)).toBe(a.slice(0, 10));
    expect(c.slice(0, 10)).toBe(a.slice(0, 10));
    expect(decodeTime(a.toUpperCase())).toBe(1_700_000_000_000);
    clock += 10_000;
    const d = next();
    expect(decodeTime(d.toUpperCase())).toBe(1_700_000_005_000);
    expect(d > c).toBe(true);
  });

  it('increment the random part as one base32 number (carrying across characters)', () => {
    const clock = () => 1_700_000_000_000;
    const next = ulidFactory(clock);
    const first = next();
    const random = first.slice(10);
    const bumped = next().slice(10);
    // Compare as base32 numbers: exactly one more.
    const value = (s: string) =>
      [...s].reduce((n, ch) => n * 32n + BigInt('0123456789abcdefghjkmnpqrstvwxyz'.indexOf(ch)), 0n);
    expect(value(bumped) - value(random)).toBe(1n);
  });
});
