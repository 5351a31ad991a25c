import assert from 'node:assert/strict';
import { describe, test } from 'vitest';
import { inAuthorizedCalendar } from '../../src/aggregates/pix-automatic-debit.ts';

/**
 * SPEC 4.11 "a due date of the authorized calendar" with SPEC 4.10's calendar words: each due date is the
 * first plus a whole number of intervals; in short months the last day applies and the original day returns.
 */
describe('the authorized calendar of a Pix Automatic debit (SPEC 4.10, 4.11)', () => {
  test('monthly from 31 January: 28 February (29 in a leap year), then 31 March again', () => {
    assert.equal(inAuthorizedCalendar('2027-01-31', 1, '2027-01-31'), true);
    assert.equal(inAuthorizedCalendar('2027-01-31', 1, '2027-02-28'), true);
    assert.equal(inAuthorizedCalendar('2028-01-31', 1, '2028-02-29'), true);
    assert.equal(inAuthorizedCalendar('2027-01-31', 1, '2027-03-31'), true);
    assert.equal(inAuthorizedCalendar('2027-01-31', 1, '2027-04-30'), true);
    assert.equal(inAuthorizedCalendar('2027-01-31', 1, '2027-03-28'), false);
    assert.equal(inAuthorizedCalendar('2027-01-31', 1, '2027-02-27'), false);
  });

  test('quarterly, half-yearly, yearly: only whole intervals; never before the first due date', () => {
    assert.equal(inAuthorizedCalendar('2027-01-15', 3, '2027-04-15'), true);
    assert.equal(inAuthorizedCalendar('2027-01-15', 3, '2027-02-15'), false);
    assert.equal(inAuthorizedCalendar('2027-01-15', 6, '2027-07-15'), true);
    assert.equal(inAuthorizedCalendar('2027-01-15', 12, '2028-01-15'), true);
    assert.equal(inAuthorizedCalendar('2027-01-15', 12, '2027-07-15'), false);
    assert.equal(inAuthorizedCalendar('2027-01-15', 1, '2026-12-15'), false);
    assert.equal(inAuthorizedCalendar('2027-08-31', 6, '2028-02-29'), true);
  });
});
