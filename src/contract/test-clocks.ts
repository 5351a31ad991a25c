import { z } from 'zod';
import { pageQuery } from './envelopes.ts';
import { utf8Text } from './text.ts';

/**
 * The HTTP contract of test clocks (issue 26 item 6; docs/decisions.md "Subscriptions (issue 26)" → "Test
 * clocks"; Stripe's test clocks as the model): the view and the request schemas. Pure (zod only): the SDK
 * bundles it.
 */

/** The earliest and latest time a clock can show: a sanity range, not a business rule. */
const EARLIEST = Date.parse('2000-01-01T00:00:00Z');
const LATEST = Date.parse('2100-01-01T00:00:00Z');

const frozenTime = z.iso
  .datetime({ offset: true })
  .refine((t) => Date.parse(t) >= EARLIEST && Date.parse(t) < LATEST, {
    message: 'between 2000-01-01 and 2099-12-31',
  })
  .meta({
    description:
      'An ISO 8601 instant (with Z or an offset), years 2000 to 2099; kept to the millisecond. The time the subscriptions attached to the clock live in.',
  });

export const testClockView = z
  .object({
    id: z.string(),
    tenant_id: z.string(),
    livemode: z.literal(false),
    name: z.string().nullable(),
    frozen_time: z.iso.datetime(),
    status: z.enum(['ready', 'advancing']).meta({
      description:
        '`advancing` while the subscriptions attached to it run up to its new time; `ready` once they did.',
    }),
    created_at: z.iso.datetime(),
    updated_at: z.iso.datetime(),
  })
  .meta({
    id: 'TestClock',
    description:
      'A clock of test mode: test-mode subscriptions attached to it live in its frozen time, which moves only when advanced.',
  });
export type TestClockView = z.infer<typeof testClockView>;

export const createTestClockBody = z.strictObject({
  frozen_time: frozenTime,
  name: utf8Text(1, 100)
    .optional()
    .meta({ description: 'A label for you, 1 to 100 bytes of UTF-8 after trim; not unique.' }),
});
export type CreateTestClockBody = z.infer<typeof createTestClockBody>;

export const advanceTestClockBody = z.strictObject({
  frozen_time: frozenTime.meta({
    description:
      'The new time: not before the current one, at most 731 days after it. The current time again is a no-op that runs the attached subscriptions once more.',
  }),
});

export const testClockListQuery = pageQuery;
