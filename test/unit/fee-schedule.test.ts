import assert from 'node:assert/strict';
import fc from 'fast-check';
import { describe, test } from 'vitest';
import { DomainError, fold } from '../../src/aggregates/decider.ts';
import {
  type AddFeeVersion,
  type FeeScheduleEvent,
  type FeeVersion,
  feeSchedule,
  versionInForce,
} from '../../src/aggregates/fee-schedule.ts';
import { scenario } from '../support/given-when-then.ts';

/** Issue 28 item 4: a tenant's fee schedule for one method; docs/decisions.md "Fees and split". */

const TODAY = '2026-11-27';
const version: FeeVersion = {
  fee_id: 'fee_1',
  tenant_id: 'ten_1',
  method: 'pix',
  percent_bps: 150,
  fixed_amount: 30,
  starts_on: '2026-12-01',
};
const add = (v: Partial<FeeVersion> = {}, extra: Partial<AddFeeVersion> = {}): AddFeeVersion => ({
  kind: 'add_version',
  version: { ...version, ...v },
  tenantExists: true,
  today: TODAY,
  ...extra,
});
const added = (v: Partial<FeeVersion> = {}): FeeScheduleEvent => ({
  type: 'FeeSchedule.VersionAdded',
  data: { ...version, ...v },
});

describe('fee schedule decider (issue 28 item 4)', () => {
  test('given no schedule, when a version is added, then it is recorded', () => {
    const state = scenario(feeSchedule).given([]).when(add()).thenEmits([added()]);
    assert.deepEqual(state, { status: 'scheduled', versions: [version] });
  });

  test('a version may start today (Brasilia date) but never before', () => {
    scenario(feeSchedule)
      .given([])
      .when(add({ starts_on: TODAY }))
      .thenEmits([added({ starts_on: TODAY })]);
    scenario(feeSchedule)
      .given([])
      .when(add({ starts_on: '2026-11-26' }))
      .thenFails('validation_error');
  });

  test('missing tenant is 404; rates out of range and impossible dates are 422 validation_error', () => {
    scenario(feeSchedule)
      .given([])
      .when(add({}, { tenantExists: false }))
      .thenFails('not_found');
    for (const bad of [
      { percent_bps: -1 },
      { percent_bps: 10_001 },
      { percent_bps: 1.5 },
      { fixed_amount: -1 },
      { fixed_amount: 100_000_001 },
      { starts_on: '2026-02-30' },
      { starts_on: '01/12/2026' },
    ]) {
      scenario(feeSchedule).given([]).when(add(bad)).thenFails('validation_error');
    }
    // 0% and 100% are the bounds.
    scenario(feeSchedule)
      .given([])
      .when(add({ percent_bps: 0, fixed_amount: 0 }))
      .thenEmits([added({ percent_bps: 0, fixed_amount: 0 })]);
    scenario(feeSchedule)
      .given([])
      .when(add({ percent_bps: 10_000 }))
      .thenEmits([added({ percent_bps: 10_000 })]);
  });

  test('a later version supersedes from its date; versions are immutable: same date + same rates no-op, else 409', () => {
    scenario(feeSchedule)
      .given([added()])
      .when(add({ fee_id: 'fee_2', starts_on: '2027-01-01', percent_bps: 99 }))
      .thenEmits([added({ fee_id: 'fee_2', starts_on: '2027-01-01', percent_bps: 99 })]);
    scenario(feeSchedule)
      .given([added()])
      .when(add({ fee_id: 'fee_2' }))
      .thenEmits([]);
    scenario(feeSchedule)
      .given([added()])
      .when(add({ fee_id: 'fee_2', fixed_amount: 31 }))
      .thenFails('conflict');
  });

  test('versionInForce: none before the first start; the latest started on or before the date', () => {
    const vs = [version, { ...version, fee_id: 'fee_2', starts_on: '2027-01-01' }];
    assert.equal(versionInForce(vs, '2026-11-30'), undefined);
    assert.equal(versionInForce(vs, '2026-12-01')?.fee_id, 'fee_1');
    assert.equal(versionInForce(vs, '2026-12-31')?.fee_id, 'fee_1');
    assert.equal(versionInForce(vs, '2027-01-01')?.fee_id, 'fee_2');
  });

  test('property: any sequence of additions keeps one version per date, and what was in force on a past date never changes', () => {
    const day = fc.integer({ min: 0, max: 60 }).map((n) => {
      const d = new Date(`${TODAY}T00:00:00Z`);
      d.setUTCDate(d.getUTCDate() + n);
      return d.toISOString().slice(0, 10);
    });
    const step = fc.record({
      starts_on: day,
      percent_bps: fc.integer({ min: 0, max: 300 }),
      fixed_amount: fc.integer({ min: 0, max: 100 }),
      advance: fc.integer({ min: 0, max: 5 }),
    });
    fc.assert(
      fc.property(fc.array(step, { maxLength: 30 }), (steps) => {
        const history: FeeScheduleEvent[] = [];
        let today = TODAY;
        for (const [i, s] of steps.entries()) {
          const d = new Date(`${today}T00:00:00Z`);
          d.setUTCDate(d.getUTCDate() + s.advance);
          today = d.toISOString().slice(0, 10);
          const before = fold(feeSchedule, history);
          const pastInForce =
            before.status === 'none' ? undefined : versionInForce(before.versions, addDay(today, -1));
          const decision = feeSchedule.decide(
            add(
              {
                fee_id: `fee_${i}`,
                starts_on: s.starts_on,
                percent_bps: s.percent_bps,
                fixed_amount: s.fixed_amount,
              },
              { today },
            ),
            before,
            { now: new Date() },
          );
          if (decision instanceof DomainError) {
            assert.ok(['validation_error', 'conflict'].includes(decision.code));
            if (decision.code === 'validation_error') assert.ok(s.starts_on < today);
            continue;
          }
          history.push(...decision);
          const after = fold(feeSchedule, history);
          if (after.status === 'none') continue;
          const dates = after.versions.map((v) => v.starts_on);
          assert.equal(new Set(dates).size, dates.length, 'one version per date');
          assert.deepEqual(
            versionInForce(after.versions, addDay(today, -1)),
            pastInForce,
            'the past is fixed',
          );
        }
      }),
    );
  });
});

function addDay(date: string, n: number): string {
  const d = new Date(`${date}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + n);
  return d.toISOString().slice(0, 10);
}
