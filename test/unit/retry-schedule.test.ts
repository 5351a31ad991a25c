import assert from 'node:assert/strict';
import fc from 'fast-check';
import { test } from 'vitest';
import {
  JITTER,
  MAX_ATTEMPTS,
  MAX_RETRY_AFTER_SECONDS,
  nextAttemptAt,
  RETRY_DELAYS_SECONDS,
} from '../../src/webhooks/retry-schedule.ts';

const NOW = new Date('2026-03-01T12:00:00Z');
const DAY = 86_400;
const mid = () => 0.5;

function delaySeconds(attemptsMade: number, random: () => number, retryAfter: number | null = null) {
  const at = nextAttemptAt(attemptsMade, NOW, random, retryAfter);
  return at === null ? null : (at.getTime() - NOW.getTime()) / 1000;
}

test('the schedule spans about three days and grows monotonically', () => {
  const total = RETRY_DELAYS_SECONDS.reduce((a, b) => a + b, 0);
  assert.ok(total > 2.5 * DAY && total <= 3 * DAY, `total ${total / DAY} days`);
  assert.equal(RETRY_DELAYS_SECONDS[0], 5, 'the first retry is quick');
  for (let i = 1; i < RETRY_DELAYS_SECONDS.length; i++) {
    assert.ok((RETRY_DELAYS_SECONDS[i] ?? 0) > (RETRY_DELAYS_SECONDS[i - 1] ?? 0), `index ${i}`);
  }
  assert.equal(MAX_ATTEMPTS, RETRY_DELAYS_SECONDS.length + 1);
  assert.ok(Object.isFrozen(RETRY_DELAYS_SECONDS));
});

test('with no jitter (random 0.5) the delays are the base schedule; 0 attempts means now', () => {
  assert.equal(delaySeconds(0, mid), 0);
  RETRY_DELAYS_SECONDS.forEach((base, i) => {
    assert.equal(delaySeconds(i + 1, mid), base);
  });
});

test('gives up after MAX_ATTEMPTS, even with a Retry-After', () => {
  assert.notEqual(nextAttemptAt(MAX_ATTEMPTS - 1, NOW, mid, null), null);
  assert.equal(nextAttemptAt(MAX_ATTEMPTS, NOW, mid, null), null);
  assert.equal(nextAttemptAt(MAX_ATTEMPTS, NOW, mid, 60), null);
  assert.equal(nextAttemptAt(MAX_ATTEMPTS + 5, NOW, mid, null), null);
});

test('invalid attempt counts are programming errors', () => {
  for (const n of [-1, 1.5, Number.NaN]) assert.throws(() => nextAttemptAt(n, NOW, mid, null), RangeError);
});

test('property: jitter stays within ±20% of the base delay', () => {
  fc.assert(
    fc.property(
      fc.integer({ min: 1, max: MAX_ATTEMPTS - 1 }),
      fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
      (attempts, r) => {
        const base = RETRY_DELAYS_SECONDS[attempts - 1] ?? 0;
        const delay = delaySeconds(attempts, () => r) ?? -1;
        assert.ok(delay >= base * (1 - JITTER) - 0.001 && delay <= base * (1 + JITTER) + 0.001, `${delay}`);
      },
    ),
  );
  assert.equal(
    delaySeconds(3, () => 0),
    120 * 0.8,
  );
  assert.equal(
    delaySeconds(3, () => 0.999999),
    120 * 1.2,
    'rounded to whole milliseconds',
  );
});

test('the whole run, with any jitter, ends between 80% and 120% of three days', () => {
  for (const r of [0, 0.5, 0.999999]) {
    let now = NOW;
    let attempts = 1;
    for (;;) {
      const next = nextAttemptAt(attempts, now, () => r, null);
      if (next === null) break;
      now = next;
      attempts++;
    }
    assert.equal(attempts, MAX_ATTEMPTS);
    const days = (now.getTime() - NOW.getTime()) / 1000 / DAY;
    assert.ok(days >= 0.8 * 2.9 && days <= 1.2 * 3, `${days}`);
  }
});

test('Retry-After is a lower bound, capped at 24 h', () => {
  assert.equal(delaySeconds(1, mid, 120), 120, 'longer than 5 s: wins');
  assert.equal(delaySeconds(6, mid, 120), 3600, 'shorter than the schedule: ignored');
  assert.equal(delaySeconds(1, mid, 10 * DAY), MAX_RETRY_AFTER_SECONDS, 'capped');
  assert.equal(delaySeconds(1, mid, 0), 5);
  assert.equal(delaySeconds(1, mid, -30), 5);
  assert.equal(delaySeconds(1, mid, Number.POSITIVE_INFINITY), 5, 'non-finite values are ignored');
  fc.assert(
    fc.property(
      fc.integer({ min: 1, max: MAX_ATTEMPTS - 1 }),
      fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
      fc.integer({ min: 0, max: 10 * DAY }),
      (attempts, r, retryAfter) => {
        const delay = delaySeconds(attempts, () => r, retryAfter) ?? -1;
        assert.ok(delay >= Math.min(retryAfter, MAX_RETRY_AFTER_SECONDS));
        assert.ok(delay >= (delaySeconds(attempts, () => r) ?? 0));
      },
    ),
  );
});
