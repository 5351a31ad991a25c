import assert from 'node:assert/strict';
import fc from 'fast-check';
import { describe, test } from 'vitest';
import {
  addMonthsClamped,
  cycleDueDate,
  endOfDay,
  issueAt,
  saoPauloDate,
  startOfDay,
} from '../../src/aggregates/subscription-calendar.ts';

/**
 * The subscription calendar (SPEC 4.10, 8): "the due day repeats each cycle; in short months the last day
 * applies and the original day returns when possible"; cycles issued from `next_due_date − advance_days` in
 * Brasilia time (UTC-3, no daylight saving time since 2019). Month lengths are written out here (with the
 * Gregorian leap rule) rather than computed as the code does.
 */

const isLeap = (y: number) => (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
const monthLength = (y: number, m: number) =>
  [31, isLeap(y) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][m - 1] as number;
const parts = (date: string) => date.split('-').map(Number) as [number, number, number];
const dueDates = (first: string, interval: number, count: number) =>
  Array.from({ length: count }, (_, i) => cycleDueDate(first, interval, i + 1));

describe('due dates (examples)', () => {
  test('Jan 31 monthly: Feb 28, then Mar 31 again (the original day returns)', () => {
    assert.deepEqual(dueDates('2026-01-31', 1, 5), [
      '2026-01-31',
      '2026-02-28',
      '2026-03-31',
      '2026-04-30',
      '2026-05-31',
    ]);
  });
  test('Jan 31 monthly in a leap year: Feb 29', () => {
    assert.deepEqual(dueDates('2028-01-31', 1, 3), ['2028-01-31', '2028-02-29', '2028-03-31']);
  });
  test('Aug 31 every 6 months: Feb 28 or 29, then Aug 31', () => {
    assert.deepEqual(dueDates('2026-08-31', 6, 6), [
      '2026-08-31',
      '2027-02-28',
      '2027-08-31',
      '2028-02-29',
      '2028-08-31',
      '2029-02-28',
    ]);
  });
  test('Feb 29 yearly: Feb 28 in common years, Feb 29 in leap years; 2100 is not leap', () => {
    assert.deepEqual(dueDates('2024-02-29', 12, 5), [
      '2024-02-29',
      '2025-02-28',
      '2026-02-28',
      '2027-02-28',
      '2028-02-29',
    ]);
    assert.equal(cycleDueDate('2096-02-29', 12, 5), '2100-02-28');
    assert.equal(cycleDueDate('2096-02-29', 12, 2), '2097-02-28');
    assert.equal(cycleDueDate('1996-02-29', 12, 5), '2000-02-29');
  });
  test('May 31 quarterly crosses the year: Aug 31, Nov 30, Feb 28, May 31', () => {
    assert.deepEqual(dueDates('2026-05-31', 3, 5), [
      '2026-05-31',
      '2026-08-31',
      '2026-11-30',
      '2027-02-28',
      '2027-05-31',
    ]);
  });
  test('the longest interval (120 months) and December to January', () => {
    assert.equal(cycleDueDate('2026-01-31', 120, 2), '2036-01-31');
    assert.equal(cycleDueDate('2026-12-15', 1, 2), '2027-01-15');
    assert.equal(addMonthsClamped('2026-12-31', 2), '2027-02-28');
    assert.equal(addMonthsClamped('2026-03-31', 0), '2026-03-31');
  });
});

describe('due dates (property over 20 years)', () => {
  const start = fc
    .record({
      year: fc.integer({ min: 2019, max: 2060 }),
      month: fc.integer({ min: 1, max: 12 }),
      day: fc.integer({ min: 1, max: 31 }),
    })
    .filter(({ year, month, day }) => day <= monthLength(year, month));

  test('each due date keeps the first day or its month last day, months advance by the interval, dates increase', () => {
    fc.assert(
      fc.property(start, fc.integer({ min: 1, max: 120 }), ({ year, month, day }, interval) => {
        const first = `${year}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
        const cycles = Math.floor((20 * 12) / interval) + 1;
        let previous = '';
        for (let n = 1; n <= cycles; n++) {
          const due = cycleDueDate(first, interval, n);
          assert.match(due, /^\d{4}-\d{2}-\d{2}$/);
          const [y, m, d] = parts(due);
          const monthIndex = year * 12 + (month - 1) + (n - 1) * interval;
          assert.equal(y, Math.floor(monthIndex / 12), `${first} +${interval} #${n}: ${due}`);
          assert.equal(m, (monthIndex % 12) + 1, `${first} +${interval} #${n}: ${due}`);
          assert.equal(d, Math.min(day, monthLength(y, m)), `${first} +${interval} #${n}: ${due}`);
          assert.ok(due > previous, `${due} after ${previous}`);
          previous = due;
        }
      }),
      { numRuns: 1000 },
    );
  });
});

describe('issue moments in Brasilia (UTC-3)', () => {
  test('a day starts at 03:00Z and ends at 02:59:59.999Z the next day', () => {
    assert.equal(startOfDay('2026-03-01').toISOString(), '2026-03-01T03:00:00.000Z');
    assert.equal(endOfDay('2026-03-01').toISOString(), '2026-03-02T02:59:59.999Z');
    assert.equal(endOfDay('2026-12-31').toISOString(), '2027-01-01T02:59:59.999Z');
    assert.equal(endOfDay('2028-02-28').toISOString(), '2028-02-29T02:59:59.999Z');
  });
  test('issueAt is the start of the day advance_days before the due date, across months and years', () => {
    assert.equal(issueAt('2026-03-31', 0).toISOString(), '2026-03-31T03:00:00.000Z');
    assert.equal(issueAt('2026-03-01', 2).toISOString(), '2026-02-27T03:00:00.000Z');
    assert.equal(issueAt('2028-03-01', 2).toISOString(), '2028-02-28T03:00:00.000Z');
    assert.equal(issueAt('2027-01-01', 3).toISOString(), '2026-12-29T03:00:00.000Z');
    assert.equal(issueAt('2026-04-10', 30).toISOString(), '2026-03-11T03:00:00.000Z');
  });
  test('property: startOfDay and endOfDay fall on the day in Brasilia, their neighbours on the days around it', () => {
    fc.assert(
      fc.property(
        fc.date({ min: new Date('2019-01-01T00:00:00Z'), max: new Date('2080-12-31T00:00:00Z') }),
        (t) => {
          fc.pre(!Number.isNaN(t.getTime()));
          const day = new Date(t.getTime() - 3 * 3_600_000).toISOString().slice(0, 10);
          assert.equal(saoPauloDate(t), day);
          const begin = startOfDay(day);
          const end = endOfDay(day);
          assert.equal(end.getTime() - begin.getTime(), 86_400_000 - 1);
          assert.ok(begin <= t && t <= end);
          assert.equal(saoPauloDate(begin), day);
          assert.equal(saoPauloDate(end), day);
          assert.ok(saoPauloDate(new Date(begin.getTime() - 1)) < day);
          assert.ok(saoPauloDate(new Date(end.getTime() + 1)) > day);
          assert.equal(issueAt(day, 0).getTime(), begin.getTime());
        },
      ),
      { numRuns: 500 },
    );
  });
});
