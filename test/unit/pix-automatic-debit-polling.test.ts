import assert from 'node:assert/strict';
import fc from 'fast-check';
import { describe, test } from 'vitest';
import { firstPollAt, nextPollAt } from '../../src/aggregates/pix-automatic-debit-polling.ts';

/**
 * The pure confirmation schedule of a Pix Automatic debit (SPEC 4.11, 8: "after a debit's due date, the
 * service confirms payment with the provider every 5 minutes for 3 days, then hourly up to 30 days").
 * Expected instants are written from the SPEC's words: minutes and hours after the start of the due date in
 * America/Sao_Paulo (UTC-3), never read back from the code.
 */

const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;
const DUE = '2026-12-10';
/** 2026-12-10 00:00 in America/Sao_Paulo. */
const ANCHOR = Date.parse('2026-12-10T03:00:00.000Z');
const at = (ms: number) => new Date(ANCHOR + ms);
const next = (ms: number) => nextPollAt(DUE, at(ms))?.getTime() ?? null;

describe('Pix Automatic debit polling schedule (SPEC 4.11, 8)', () => {
  test('given a debit due on a date, its first poll is the start of that day in Brasilia time', () => {
    assert.equal(firstPollAt(DUE).toISOString(), '2026-12-10T03:00:00.000Z');
  });

  test('given a time before the due date, when asked for the next poll, then it is the due date start', () => {
    assert.equal(next(-5 * DAY), ANCHOR);
    assert.equal(next(-1), ANCHOR);
  });

  test('given a time within the first 3 days, then the next poll is on the 5-minute grid, strictly after', () => {
    assert.equal(next(0), ANCHOR + 5 * MIN);
    assert.equal(next(1), ANCHOR + 5 * MIN);
    assert.equal(next(5 * MIN), ANCHOR + 10 * MIN);
    assert.equal(next(2 * DAY + 7 * MIN), ANCHOR + 2 * DAY + 10 * MIN);
    assert.equal(next(3 * DAY - 5 * MIN), ANCHOR + 3 * DAY);
    assert.equal(next(3 * DAY - 1), ANCHOR + 3 * DAY);
  });

  test('given a time from 3 days on, then the next poll is hourly until 30 days after the due date start', () => {
    assert.equal(next(3 * DAY), ANCHOR + 3 * DAY + HOUR);
    assert.equal(next(3 * DAY + 1), ANCHOR + 3 * DAY + HOUR);
    assert.equal(next(10 * DAY + 30 * MIN), ANCHOR + 10 * DAY + HOUR);
    assert.equal(next(30 * DAY - HOUR), ANCHOR + 30 * DAY);
    assert.equal(next(30 * DAY - 1), ANCHOR + 30 * DAY);
  });

  test('given the last poll (30 days) is reached or behind, then polling stops', () => {
    assert.equal(next(30 * DAY), null);
    assert.equal(next(45 * DAY), null);
  });

  test('a poller that runs exactly when due polls 864 times in 3 days, then 648 hourly to 30 days, then stops', () => {
    let t: number | null = firstPollAt(DUE).getTime();
    const polls: number[] = [];
    while (t !== null) {
      polls.push(t - ANCHOR);
      t = nextPollAt(DUE, new Date(t))?.getTime() ?? null;
    }
    const frequent = polls.filter((p) => p < 3 * DAY);
    const hourly = polls.filter((p) => p >= 3 * DAY);
    // 0, 5, ..., 3 days − 5 minutes: 3 × 24 × 12 polls; then 3 days, 3 days + 1 h, ..., 30 days.
    assert.equal(frequent.length, 3 * 24 * 12);
    assert.equal(hourly.length, 27 * 24 + 1);
    assert.equal(polls.at(-1), 30 * DAY);
    const steps = (xs: number[]) => xs.slice(1).map((x, i) => x - (xs[i] ?? Number.NaN));
    assert.ok(steps(frequent).every((d) => d === 5 * MIN));
    assert.ok(steps(hourly).every((d) => d === HOUR));
  });

  test('property: over 30 days of random poll times, the next poll is after now, within one step, on the grid', () => {
    fc.assert(
      fc.property(
        fc.date({
          min: new Date('2026-01-01T00:00:00Z'),
          max: new Date('2030-12-31T00:00:00Z'),
          noInvalidDate: true,
        }),
        fc.integer({ min: -2 * DAY, max: 32 * DAY }),
        (day, offset) => {
          const due = day.toISOString().slice(0, 10);
          const anchor = Date.parse(`${due}T03:00:00.000Z`);
          const now = anchor + offset;
          const r = nextPollAt(due, new Date(now));
          if (offset >= 30 * DAY) return r === null;
          assert.ok(r !== null);
          const n = r.getTime();
          assert.ok(n > now || (offset < 0 && n === anchor));
          if (offset < 0) return n === anchor;
          const step = offset < 3 * DAY ? 5 * MIN : HOUR;
          assert.ok(n - now <= step, `${n - now} > ${step}`);
          assert.equal((n - anchor) % step, 0);
          assert.ok(n - anchor <= 30 * DAY);
          return true;
        },
      ),
      { numRuns: 2000 },
    );
  });
});
