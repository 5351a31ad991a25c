import { z } from 'zod';
import { defineEvent, type EventOf } from '../events/event-registry.ts';
import { type Decider, DomainError } from './decider.ts';
import { MAX_PERCENT_BPS } from './fees.ts';
import { PAYMENT_METHODS } from './provider.ts';
import { MAX_AMOUNT } from './transaction/vocabulary.ts';
import type { TransitionTable } from './transition-table.ts';

/**
 * The fee schedule of one tenant for one method (SPEC 2.2 `retained_amount`, `tenant_fee_id`,
 * `fee_starts_on`; issue 28 item 4; stream `fee_schedule-<tenant>-<method>`): a list of versions, each a
 * percentage part (basis points), a fixed part (centavos) and a start date (`starts_on`, a Brasilia
 * business date). A version supersedes the previous one from its start date. Versions are never edited or
 * removed (docs/decisions.md "Fees and split"): a new version may not start in the past, nor on the date
 * of another version, so what was in force on any past date never changes.
 */

export const feeMethods = PAYMENT_METHODS;
export type FeeMethod = (typeof feeMethods)[number];

const versionAdded = z.strictObject({
  fee_id: z.string().startsWith('fee_'),
  tenant_id: z.string().startsWith('ten_'),
  method: z.enum(feeMethods),
  percent_bps: z.number().int().min(0).max(MAX_PERCENT_BPS),
  fixed_amount: z.number().int().min(0).max(MAX_AMOUNT),
  starts_on: z.string().regex(/^\d{4}-\d{2}-\d{2}$/),
});

export const feeScheduleEvents = [
  defineEvent({
    type: 'FeeSchedule.VersionAdded',
    audit: { action: 'fee_schedule.version_added', when: "a fee version was added to a tenant's schedule" },
    schema: versionAdded,
  }),
];

export type FeeVersion = z.infer<typeof versionAdded>;
export type FeeScheduleEvent = EventOf<(typeof feeScheduleEvents)[number]>;

export type FeeScheduleState =
  | { readonly status: 'none' }
  | { readonly status: 'scheduled'; readonly versions: readonly FeeVersion[] };

export interface AddFeeVersion {
  readonly kind: 'add_version';
  readonly version: FeeVersion;
  /** Facts the command layer read: the tenant exists; today's Brasilia date (from the injected clock). */
  readonly tenantExists: boolean;
  readonly today: string;
}
export type FeeScheduleCommand = AddFeeVersion;

/**
 *   state     | add_version
 *   ----------+------------------------------------------------------------------------------------
 *   none      | FeeSchedule.VersionAdded -> scheduled (*)
 *   scheduled | FeeSchedule.VersionAdded -> scheduled (*); the same rates on an existing version's
 *             | date: no-op (a retry); other rates on that date: 409 conflict (versions are immutable)
 *
 * (*) refused with 404 not_found for a missing tenant, 422 validation_error for rates out of range, an
 * invalid date or a start date before today (America/Sao_Paulo).
 */
export const feeScheduleTransitions: TransitionTable<
  'scheduled',
  FeeScheduleCommand['kind'],
  FeeScheduleEvent['type']
> = {
  none: { add_version: { emits: 'FeeSchedule.VersionAdded', to: 'scheduled' } },
  scheduled: { add_version: { emits: 'FeeSchedule.VersionAdded', to: 'scheduled' } },
};

function isCalendarDate(date: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(date)) return false;
  const d = new Date(`${date}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === date;
}

function checkVersion(v: FeeVersion, today: string): DomainError | undefined {
  if (!Number.isInteger(v.percent_bps) || v.percent_bps < 0 || v.percent_bps > MAX_PERCENT_BPS) {
    return new DomainError('validation_error', `percent_bps must be 0 to ${MAX_PERCENT_BPS}.`, {
      param: 'percent_bps',
    });
  }
  if (!Number.isInteger(v.fixed_amount) || v.fixed_amount < 0 || v.fixed_amount > MAX_AMOUNT) {
    return new DomainError('validation_error', `fixed_amount must be 0 to ${MAX_AMOUNT} centavos.`, {
      param: 'fixed_amount',
    });
  }
  if (!isCalendarDate(v.starts_on)) {
    return new DomainError('validation_error', 'starts_on must be a date YYYY-MM-DD.', {
      param: 'starts_on',
    });
  }
  if (v.starts_on < today) {
    return new DomainError('validation_error', 'starts_on cannot be before today (America/Sao_Paulo).', {
      param: 'starts_on',
    });
  }
  return undefined;
}

export const feeSchedule: Decider<FeeScheduleCommand, FeeScheduleEvent, FeeScheduleState> = {
  initialState: { status: 'none' },

  evolve(state, event) {
    const versions = state.status === 'none' ? [] : state.versions;
    return { status: 'scheduled', versions: [...versions, event.data] };
  },

  decide(command, state) {
    const v = command.version;
    if (!command.tenantExists) {
      return new DomainError('not_found', 'The tenant does not exist.', { param: 'tenant_id' });
    }
    const refused = checkVersion(v, command.today);
    if (refused) return refused;
    const move = feeScheduleTransitions[state.status][command.kind];
    if (!('emits' in move)) return [];
    const sameDate =
      state.status === 'scheduled' ? state.versions.find((x) => x.starts_on === v.starts_on) : undefined;
    if (sameDate) {
      return sameDate.percent_bps === v.percent_bps && sameDate.fixed_amount === v.fixed_amount
        ? []
        : new DomainError('conflict', 'A version already starts on this date; versions cannot be changed.', {
            param: 'starts_on',
          });
    }
    return [{ type: move.emits, data: v }];
  },
};

/** The version in force on `date`: the latest one started on or before it; undefined before the first. */
export function versionInForce(versions: readonly FeeVersion[], date: string): FeeVersion | undefined {
  let best: FeeVersion | undefined;
  for (const v of versions) if (v.starts_on <= date && (!best || v.starts_on > best.starts_on)) best = v;
  return best;
}
