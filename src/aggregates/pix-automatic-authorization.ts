import { z } from 'zod';
import { defineEvent, type EventOf } from '../events/event-registry.ts';
import { type Decider, DomainError } from './decider.ts';
import type { ErrorCode } from './errors.ts';
import { subscriptionCustomer } from './subscription.ts';
import type { TransitionTable } from './transition-table.ts';

/**
 * A Pix Automatic authorization (SPEC 2.6, 3.2, 4.11; stream `pix-automatic-authorization-<id>`;
 * docs/decisions.md "Pix Automatic (issue 27): authorizations"): the payer's consent to recurring debits of a
 * fixed amount on a calendar in months, created at the provider (a recurrence) under reserve -> call ->
 * record. `Reserved` is the reservation (status `processing`), written with the idempotency claim before the
 * provider is called; the provider's answer is recorded as `Created` (`pending`), `Refused` (`failed`) or
 * `Uncertain` (`unknown`). A revoke (SPEC 4.11 `DELETE`) is reserved too (`RevokeReserved`): one revoke is in
 * flight at a time, and its answer is recorded (`Cancelled`, `RevokeRefused`, `RevokeUncertain`).
 */

export const AUTHORIZATION_STATUSES = [
  'processing',
  'pending',
  'approved',
  'expired',
  'cancelled',
  'failed',
  'unknown',
] as const;
export type AuthorizationStatus = (typeof AUTHORIZATION_STATUSES)[number];
/** SPEC 3.2 final states: nothing moves them. */
export const FINAL_AUTHORIZATION_STATUSES: readonly AuthorizationStatus[] = [
  'expired',
  'cancelled',
  'failed',
];
export const INTERVAL_MONTHS = [1, 3, 6, 12] as const;
export type AuthorizationInterval = (typeof INTERVAL_MONTHS)[number];

/** SPEC 4.11 / 8: the payer has 24 hours to approve. */
export const APPROVAL_WINDOW_MS = 24 * 60 * 60 * 1000;
/**
 * A revoke reserved this long ago with no answer recorded is taken as interrupted (a crash between the call
 * and the record): a new revoke may be reserved. Longer than any provider call (src/timeouts.ts); a second
 * revoke is harmless (the provider answers "already cancelled" as a confirmation).
 */
export const REVOKE_STALE_MS = 2 * 60 * 1000;

const authorizationId = z.string().startsWith('pxa_');
const isoDate = z.iso.date();
const digits = (min: number, max: number) => z.string().regex(new RegExp(`^[0-9]{${min},${max}}$`));
/** SPEC 2.2 rules 2-3, SPEC 8 "Diagnostics": sanitized, value-or-null, never raw provider text. */
const diagnostics = z.strictObject({
  provider_error_code: digits(1, 10).nullable(),
  provider_error_message: z.string().max(400).nullable(),
  provider_http_status: z.number().int().min(100).max(599).nullable(),
});
export type AuthorizationDiagnostics = z.infer<typeof diagnostics>;

const reservedData = z.strictObject({
  authorization_id: authorizationId,
  tenant_id: z.string().startsWith('ten_'),
  livemode: z.boolean(),
  /** True for the simulator (every test key, SPEC 1): the gateway's own record is the truth. */
  simulated: z.boolean(),
  environment: z.enum(['sandbox', 'production']),
  /** The provider record (receiving account) the authorization is created through; null for a test key. */
  provider_id: z.string().startsWith('prv_').nullable(),
  name: z.string(),
  description: z.string(),
  amount: z.number().int().min(1).max(100_000_000),
  first_due_date: isoDate,
  interval_months: z.literal(INTERVAL_MONTHS),
  /** The payer as the integrator sent it (original spelling; SPEC 4.10 "complete, as in subscriptions"). */
  customer: subscriptionCustomer,
  created_at: z.iso.datetime(),
});
export type AuthorizationReservedData = z.infer<typeof reservedData>;

const idOnly = z.strictObject({ authorization_id: authorizationId });
const createdData = z.strictObject({
  authorization_id: authorizationId,
  provider_reference: z.string().min(1),
  copy_paste: z.string().min(1),
});
const answerData = z.strictObject({
  authorization_id: authorizationId,
  /** Why (src/providers/port.ts OutcomeReason): a closed set, never provider text. */
  reason: z.string(),
  provider_reference: z.string().nullable(),
  diagnostics,
});
const remoteData = z.strictObject({
  authorization_id: authorizationId,
  /** The provider's status word as read (e.g. `APROVADA`), for the record. */
  provider_status: z.string(),
});
const approvedData = z.strictObject({
  authorization_id: authorizationId,
  approved_at: z.iso.datetime(),
  source: z.enum(['provider', 'simulation']),
});
const expiredData = z.strictObject({
  authorization_id: authorizationId,
  /** `deadline`: 24 hours without approval; `provider`: the provider reports it ended; `simulation`. */
  source: z.enum(['deadline', 'provider', 'simulation']),
});
const cancelledData = z.strictObject({
  authorization_id: authorizationId,
  /** `revoke`: the provider confirmed a DELETE; `provider`: the payer cancelled in the bank app. */
  source: z.enum(['revoke', 'provider', 'simulation']),
});
const revokeReservedData = z.strictObject({
  authorization_id: authorizationId,
  reserved_at: z.iso.datetime(),
});
const revokeAnswerData = z.strictObject({
  authorization_id: authorizationId,
  reason: z.string(),
  diagnostics,
});

const P = 'PixAutomaticAuthorization';
export const authorizationEvents = [
  defineEvent({
    type: `${P}.Reserved` as const,
    audit: {
      action: 'pix_automatic_authorization.reserved',
      when: 'a Pix Automatic authorization was reserved, before the provider was called',
    },
    schema: reservedData,
  }),
  defineEvent({
    type: `${P}.Created` as const,
    audit: {
      action: 'pix_automatic_authorization.created',
      when: 'the provider created the authorization; it awaits the payer (pending)',
    },
    schema: createdData,
  }),
  defineEvent({
    type: `${P}.Refused` as const,
    audit: {
      action: 'pix_automatic_authorization.refused',
      when: 'the provider refused to create the authorization (failed)',
    },
    schema: answerData,
  }),
  defineEvent({
    type: `${P}.Uncertain` as const,
    audit: {
      action: 'pix_automatic_authorization.uncertain',
      when: "the provider's answer to the creation was not confirmed (unknown)",
    },
    schema: answerData,
  }),
  defineEvent({
    type: `${P}.Confirmed` as const,
    audit: {
      action: 'pix_automatic_authorization.confirmed',
      when: 'a refresh found an unconfirmed authorization awaiting the payer at the provider (pending)',
    },
    schema: remoteData,
  }),
  defineEvent({
    type: `${P}.Approved` as const,
    audit: { action: 'pix_automatic_authorization.approved', when: 'the payer approved the authorization' },
    schema: approvedData,
  }),
  defineEvent({
    type: `${P}.Expired` as const,
    audit: {
      action: 'pix_automatic_authorization.expired',
      when: 'the authorization expired: not approved within 24 hours, or its contract ended (final)',
    },
    schema: expiredData,
  }),
  defineEvent({
    type: `${P}.Cancelled` as const,
    audit: {
      action: 'pix_automatic_authorization.cancelled',
      when: 'the authorization was revoked or the payer cancelled it (final)',
    },
    schema: cancelledData,
  }),
  defineEvent({
    type: `${P}.Failed` as const,
    audit: {
      action: 'pix_automatic_authorization.failed',
      when: 'the provider reports the payer refused the authorization (REJEITADA; final)',
    },
    schema: remoteData,
  }),
  defineEvent({
    type: `${P}.RevokeReserved` as const,
    audit: {
      action: 'pix_automatic_authorization.revoke_reserved',
      when: 'a revoke was reserved, before the provider was called',
    },
    schema: revokeReservedData,
  }),
  defineEvent({
    type: `${P}.RevokeRefused` as const,
    audit: {
      action: 'pix_automatic_authorization.revoke_refused',
      when: 'the provider refused a revoke; the authorization is unchanged',
    },
    schema: revokeAnswerData,
  }),
  defineEvent({
    type: `${P}.RevokeUncertain` as const,
    audit: {
      action: 'pix_automatic_authorization.revoke_uncertain',
      when: 'a revoke was not confirmed by the provider; the authorization is unchanged',
    },
    schema: revokeAnswerData,
  }),
  defineEvent({
    type: `${P}.Revoked` as const,
    audit: {
      action: 'pix_automatic_authorization.revoked',
      when: 'the provider confirmed it closed an authorization that had expired locally',
    },
    schema: idOnly,
  }),
];

export type AuthorizationEvent = EventOf<(typeof authorizationEvents)[number]>;

export interface AuthorizationState {
  readonly id: string;
  readonly tenant_id: string;
  /** The mode of the key that created it (SPEC 5.2; the vocabulary of transactions and subscriptions). */
  readonly livemode: boolean;
  readonly simulated: boolean;
  readonly environment: 'sandbox' | 'production';
  readonly status: AuthorizationStatus;
  readonly name: string;
  readonly description: string;
  readonly amount: number;
  readonly first_due_date: string;
  readonly interval_months: AuthorizationInterval;
  /** As the integrator sent it (original spelling); normalize copies for a provider. */
  readonly customer: AuthorizationReservedData['customer'];
  /** The provider record (receiving account) it was created through; null for a test key (the simulator). */
  readonly provider_id: string | null;
  /** The provider's id of the recurrence (`idRec`). */
  readonly provider_reference: string | null;
  readonly copy_paste: string | null;
  readonly created_at: string;
  readonly approved_at: string | null;
  /** created_at + 24 hours (SPEC 4.11). */
  readonly approval_deadline: string;
  /** A revoke reserved and not yet answered. */
  readonly revoke_in_flight: boolean;
  readonly revoke_reserved_at: string | null;
  /** Diagnostics of the creation's refusal or uncertainty (SPEC 7), else all null. */
  readonly diagnostics: AuthorizationDiagnostics;
  /** The reason of the creation's refusal or uncertainty (port OutcomeReason), else null. */
  readonly failure_reason: string | null;
  /** An expired one closed at the provider (the expiry's revoke was confirmed); true when none was needed. */
  readonly provider_closed: boolean;
  /** The last revoke's refusal or uncertainty, cleared by the next reservation. */
  readonly last_revoke_error: string | null;
}

export type AuthorizationAggregateState = { readonly status: 'none' } | AuthorizationState;

/** The remote statuses a refresh reports (port RemoteAuthorizationStatus), each its own command kind. */
export type RemoteKind =
  | 'remote_pending'
  | 'remote_approved'
  | 'remote_expired'
  | 'remote_cancelled'
  | 'remote_failed';

export type AuthorizationCommand =
  | { readonly kind: 'create'; readonly data: AuthorizationReservedData }
  | { readonly kind: 'issued'; readonly providerReference: string; readonly copyPaste: string }
  | {
      readonly kind: 'refused' | 'uncertain';
      readonly reason: string;
      readonly providerReference: string | null;
      readonly diagnostics: AuthorizationDiagnostics;
    }
  | { readonly kind: RemoteKind; readonly providerStatus: string }
  | { readonly kind: 'simulate_approved' | 'simulate_cancelled' | 'simulate_expired' }
  /** The 24-hour deadline (the expiry job, a refresh): before it, nothing happens. */
  | { readonly kind: 'expire' }
  /** SPEC 4.11 `DELETE`: reserve the revoke before calling the provider. */
  | { readonly kind: 'revoke' }
  /** The expiry job closes an expired, non-simulated authorization at the provider. */
  | { readonly kind: 'revoke_expired' }
  | { readonly kind: 'revoke_confirmed' }
  | {
      readonly kind: 'revoke_refused' | 'revoke_uncertain';
      readonly reason: string;
      readonly diagnostics: AuthorizationDiagnostics;
    };
export type AuthorizationCommandKind = AuthorizationCommand['kind'];

type Row = TransitionTable<AuthorizationStatus, AuthorizationCommandKind, AuthorizationEvent['type']>['none'];

/**
 * State table (SPEC 3.2; the cells SPEC leaves open are ours: docs/decisions.md "Pix Automatic (issue 27):
 * authorizations"). `=` no-op; psc = 409 provider_status_conflict; sna = 409 simulation_not_allowed;
 * rr = 409 reconciliation_required; ana = 409 automatic_not_available; 404 = not_found.
 *
 *  state     |create  |issued  |refused |uncertain|remote_pending|remote_approved|remote_expired|remote_cancelled|remote_failed
 *  ----------+--------+--------+--------+---------+--------------+---------------+--------------+----------------+-------------
 *  none      |Reserved|404     |404     |404      |404           |404            |404           |404             |404
 *  processing|repeat  |Created |Refused |Uncertain|rr            |rr             |rr            |rr              |rr
 *  pending   |repeat  |=       |=       |=        |=             |Approved       |Expired       |Cancelled       |Failed
 *  approved  |repeat  |=       |=       |=        |psc           |=              |Expired       |Cancelled       |psc
 *  unknown   |repeat  |=       |=       |=        |Confirmed     |Approved       |Expired       |Cancelled       |Failed
 *  expired   |repeat  |=       |=       |=        |psc           |psc            |=             |= (a)           |psc
 *  cancelled |repeat  |=       |=       |=        |psc           |psc            |psc           |=               |psc
 *  failed    |repeat  |=       |=       |=        |psc           |psc            |psc           |psc             |=
 *
 *  state     |sim_approved|sim_cancelled|sim_expired|expire     |revoke          |revoke_expired|revoke_confirmed|revoke_refused|revoke_uncertain
 *  ----------+------------+-------------+-----------+-----------+----------------+--------------+----------------+--------------+----------------
 *  none      |404         |404          |404        |404        |404             |404           |404             |404           |404
 *  processing|sna         |sna          |sna        |=          |rr              |=             |=               |=             |=
 *  pending   |Approved    |Cancelled    |Expired    |(d) Expired|(r) RevokeRes.  |=             |(f) Cancelled   |(f) RevokeRef.|(f) RevokeUnc.
 *  approved  |sna         |Cancelled    |sna        |=          |(r) RevokeRes.  |=             |(f) Cancelled   |(f) RevokeRef.|(f) RevokeUnc.
 *  unknown   |sna         |sna          |sna        |=          |rr              |=             |=               |=             |=
 *  expired   |sna         |sna          |sna        |=          |ana             |(x) RevokeRes.|(f) Revoked     |(f) RevokeRef.|(f) RevokeUnc.
 *  cancelled |sna         |sna          |sna        |=          |=               |=             |=               |=             |=
 *  failed    |sna         |sna          |sna        |=          |ana             |=             |=               |=             |=
 *
 *  - A remote report that would move a final record (or an approved one back) is refused with
 *    provider_status_conflict, the record kept (SPEC 3.1 "never reopened; regressing update refused").
 *    (a) an expired one reported cancelled is not a conflict: the expiry revokes it at the provider.
 *  - simulate_*: only a simulated record (else sna), SPEC 4.7 / 4.11.
 *  - (d) only at or after the approval deadline (created_at + 24 h); before it a no-op.
 *  - (r) a revoke in flight (reserved less than REVOKE_STALE_MS ago) refuses a second one with
 *    502 provider_cancel_unconfirmed: exactly one provider call; an older one is taken as interrupted.
 *  - (x) only a non-simulated one with a provider reference not yet closed at the provider, no revoke in
 *    flight; else a no-op.
 *  - (f) the answer of the revoke in flight; without one in flight a no-op.
 */
const PSC = { refuse: 'provider_status_conflict' } as const;
const SNA = { refuse: 'simulation_not_allowed' } as const;
const RR = { refuse: 'reconciliation_required' } as const;
const ANA = { refuse: 'automatic_not_available' } as const;
const NOOP = { noop: true } as const;
const REPEAT = { repeat: 'same_facts_or_conflict' } as const;
const e = (type: string, to: AuthorizationStatus) =>
  ({ emits: `${P}.${type}` as AuthorizationEvent['type'], to }) as const;

const NONE: Row = {
  create: e('Reserved', 'processing'),
  issued: { refuse: 'not_found' },
  refused: { refuse: 'not_found' },
  uncertain: { refuse: 'not_found' },
  remote_pending: { refuse: 'not_found' },
  remote_approved: { refuse: 'not_found' },
  remote_expired: { refuse: 'not_found' },
  remote_cancelled: { refuse: 'not_found' },
  remote_failed: { refuse: 'not_found' },
  simulate_approved: { refuse: 'not_found' },
  simulate_cancelled: { refuse: 'not_found' },
  simulate_expired: { refuse: 'not_found' },
  expire: { refuse: 'not_found' },
  revoke: { refuse: 'not_found' },
  revoke_expired: { refuse: 'not_found' },
  revoke_confirmed: { refuse: 'not_found' },
  revoke_refused: { refuse: 'not_found' },
  revoke_uncertain: { refuse: 'not_found' },
};
/** The columns every created record shares: creation answers only apply while processing. */
const ANSWERED = { create: REPEAT, issued: NOOP, refused: NOOP, uncertain: NOOP } as const;
const NO_SIMULATION = { simulate_approved: SNA, simulate_cancelled: SNA, simulate_expired: SNA } as const;
const NO_REVOKE_ANSWER = { revoke_confirmed: NOOP, revoke_refused: NOOP, revoke_uncertain: NOOP } as const;
/** The answers of a revoke in flight: confirmed ends it (`to`), refused and uncertain leave it in `stay`. */
const REVOKE_ANSWERS = (confirmed: string, to: AuthorizationStatus, stay: AuthorizationStatus) =>
  ({
    revoke_confirmed: e(confirmed, to),
    revoke_refused: e('RevokeRefused', stay),
    revoke_uncertain: e('RevokeUncertain', stay),
  }) as const;

export const authorizationTransitions: TransitionTable<
  AuthorizationStatus,
  AuthorizationCommandKind,
  AuthorizationEvent['type']
> = {
  none: NONE,
  processing: {
    create: REPEAT,
    issued: e('Created', 'pending'),
    refused: e('Refused', 'failed'),
    uncertain: e('Uncertain', 'unknown'),
    remote_pending: RR,
    remote_approved: RR,
    remote_expired: RR,
    remote_cancelled: RR,
    remote_failed: RR,
    ...NO_SIMULATION,
    expire: NOOP,
    revoke: RR,
    revoke_expired: NOOP,
    ...NO_REVOKE_ANSWER,
  },
  pending: {
    ...ANSWERED,
    remote_pending: NOOP,
    remote_approved: e('Approved', 'approved'),
    remote_expired: e('Expired', 'expired'),
    remote_cancelled: e('Cancelled', 'cancelled'),
    remote_failed: e('Failed', 'failed'),
    simulate_approved: e('Approved', 'approved'),
    simulate_cancelled: e('Cancelled', 'cancelled'),
    simulate_expired: e('Expired', 'expired'),
    expire: e('Expired', 'expired'),
    revoke: e('RevokeReserved', 'pending'),
    revoke_expired: NOOP,
    ...REVOKE_ANSWERS('Cancelled', 'cancelled', 'pending'),
  },
  approved: {
    ...ANSWERED,
    remote_pending: PSC,
    remote_approved: NOOP,
    remote_expired: e('Expired', 'expired'),
    remote_cancelled: e('Cancelled', 'cancelled'),
    remote_failed: PSC,
    ...NO_SIMULATION,
    simulate_cancelled: e('Cancelled', 'cancelled'),
    expire: NOOP,
    revoke: e('RevokeReserved', 'approved'),
    revoke_expired: NOOP,
    ...REVOKE_ANSWERS('Cancelled', 'cancelled', 'approved'),
  },
  unknown: {
    ...ANSWERED,
    remote_pending: e('Confirmed', 'pending'),
    remote_approved: e('Approved', 'approved'),
    remote_expired: e('Expired', 'expired'),
    remote_cancelled: e('Cancelled', 'cancelled'),
    remote_failed: e('Failed', 'failed'),
    ...NO_SIMULATION,
    expire: NOOP,
    revoke: RR,
    revoke_expired: NOOP,
    ...NO_REVOKE_ANSWER,
  },
  expired: {
    ...ANSWERED,
    remote_pending: PSC,
    remote_approved: PSC,
    remote_expired: NOOP,
    remote_cancelled: NOOP,
    remote_failed: PSC,
    ...NO_SIMULATION,
    expire: NOOP,
    revoke: ANA,
    revoke_expired: e('RevokeReserved', 'expired'),
    ...REVOKE_ANSWERS('Revoked', 'expired', 'expired'),
  },
  cancelled: {
    ...ANSWERED,
    remote_pending: PSC,
    remote_approved: PSC,
    remote_expired: PSC,
    remote_cancelled: NOOP,
    remote_failed: PSC,
    ...NO_SIMULATION,
    expire: NOOP,
    revoke: NOOP,
    revoke_expired: NOOP,
    ...NO_REVOKE_ANSWER,
  },
  failed: {
    ...ANSWERED,
    remote_pending: PSC,
    remote_approved: PSC,
    remote_expired: PSC,
    remote_cancelled: PSC,
    remote_failed: NOOP,
    ...NO_SIMULATION,
    expire: NOOP,
    revoke: ANA,
    revoke_expired: NOOP,
    ...NO_REVOKE_ANSWER,
  },
};

const MESSAGES: Partial<Record<ErrorCode, string>> = {
  not_found: 'The authorization does not exist.',
  provider_status_conflict: 'The provider reports a status that would change a final authorization; kept.',
  simulation_not_allowed: 'Only a simulated authorization in a state that allows it can be simulated.',
  reconciliation_required: 'The creation of this authorization is unconfirmed; refresh it first.',
  automatic_not_available: 'The authorization has ended; it cannot be revoked.',
  provider_cancel_unconfirmed: 'A revoke of this authorization is in progress; read it or try again later.',
};

function refuse(code: ErrorCode): DomainError {
  return new DomainError(code, MESSAGES[code] ?? 'Refused.');
}

export function approvalDeadline(createdAt: string): string {
  return new Date(new Date(createdAt).getTime() + APPROVAL_WINDOW_MS).toISOString();
}

export function isFinalAuthorization(status: AuthorizationStatus): boolean {
  return FINAL_AUTHORIZATION_STATUSES.includes(status);
}

/** A revoke reserved and answered by nobody for REVOKE_STALE_MS: taken as interrupted. */
export function revokeInFlight(state: AuthorizationState, now: Date): boolean {
  if (!state.revoke_in_flight || state.revoke_reserved_at === null) return false;
  return now.getTime() - new Date(state.revoke_reserved_at).getTime() < REVOKE_STALE_MS;
}

/** An expired authorization the provider must still be told to close (the expiry job's revoke). */
export function needsProviderClose(state: AuthorizationState): boolean {
  return state.status === 'expired' && !state.provider_closed;
}

const NO_DIAGNOSTICS: AuthorizationDiagnostics = {
  provider_error_code: null,
  provider_error_message: null,
  provider_http_status: null,
};

export const pixAutomaticAuthorization: Decider<
  AuthorizationCommand,
  AuthorizationEvent,
  AuthorizationAggregateState
> = {
  initialState: { status: 'none' },

  evolve(state, event) {
    if (event.type === `${P}.Reserved`) {
      // The state keeps the reservation's facts under their own names; only the id is renamed.
      const { authorization_id, ...facts } = event.data;
      return {
        ...facts,
        id: authorization_id,
        status: 'processing',
        provider_reference: null,
        copy_paste: null,
        approved_at: null,
        approval_deadline: approvalDeadline(facts.created_at),
        revoke_in_flight: false,
        revoke_reserved_at: null,
        diagnostics: NO_DIAGNOSTICS,
        failure_reason: null,
        provider_closed: true,
        last_revoke_error: null,
      };
    }
    if (state.status === 'none') return state;
    const endRevoke = { revoke_in_flight: false, revoke_reserved_at: null };
    switch (event.type) {
      case `${P}.Created`:
        return {
          ...state,
          status: 'pending',
          provider_reference: event.data.provider_reference,
          copy_paste: event.data.copy_paste,
        };
      case `${P}.Refused`:
      case `${P}.Uncertain`:
        return {
          ...state,
          status: event.type === `${P}.Refused` ? 'failed' : 'unknown',
          provider_reference: event.data.provider_reference,
          diagnostics: event.data.diagnostics,
          failure_reason: event.data.reason,
        };
      case `${P}.Confirmed`:
        return { ...state, status: 'pending' };
      case `${P}.Approved`:
        return { ...state, status: 'approved', approved_at: event.data.approved_at };
      case `${P}.Expired`:
        // A non-simulated one that was awaiting the payer at the provider is closed there too (the expiry's
        // revoke); one the provider itself reported ended needs nothing.
        return {
          ...state,
          status: 'expired',
          provider_closed:
            state.simulated || state.provider_reference === null || event.data.source === 'provider',
        };
      case `${P}.Cancelled`:
        return { ...state, status: 'cancelled', ...endRevoke };
      case `${P}.Failed`:
        return { ...state, status: 'failed' };
      case `${P}.RevokeReserved`:
        return {
          ...state,
          revoke_in_flight: true,
          revoke_reserved_at: event.data.reserved_at,
          last_revoke_error: null,
        };
      case `${P}.RevokeRefused`:
      case `${P}.RevokeUncertain`:
        return {
          ...state,
          ...endRevoke,
          last_revoke_error: event.type === `${P}.RevokeRefused` ? 'refused' : 'uncertain',
          // A refused close of an expired one is not retried: the provider will not do it.
          provider_closed: state.provider_closed || event.type === `${P}.RevokeRefused`,
        };
      case `${P}.Revoked`:
        return { ...state, ...endRevoke, provider_closed: true };
    }
  },

  decide(command, state, ctx) {
    const move = authorizationTransitions[state.status][command.kind];
    if ('refuse' in move) return refuse(move.refuse);
    if ('noop' in move) return [];
    if (state.status === 'none') {
      if (command.kind !== 'create') return refuse('not_found');
      const parsed = reservedData.safeParse(command.data);
      if (!parsed.success) return new DomainError('validation_error', 'Invalid authorization.');
      return [{ type: `${P}.Reserved`, data: command.data }];
    }
    const id = state.id;
    if ('repeat' in move) {
      const same =
        command.kind === 'create' &&
        command.data.authorization_id === id &&
        JSON.stringify(reservedOf(state)) === JSON.stringify(command.data);
      return same ? [] : new DomainError('conflict', 'This authorization already exists with other values.');
    }
    const now = ctx.now.toISOString();
    switch (command.kind) {
      case 'create':
        return refuse('conflict');
      case 'issued':
        return [
          {
            type: `${P}.Created`,
            data: {
              authorization_id: id,
              provider_reference: command.providerReference,
              copy_paste: command.copyPaste,
            },
          },
        ];
      case 'refused':
      case 'uncertain':
        return [
          {
            type: command.kind === 'refused' ? `${P}.Refused` : `${P}.Uncertain`,
            data: {
              authorization_id: id,
              reason: command.reason,
              provider_reference: command.providerReference,
              diagnostics: command.diagnostics,
            },
          },
        ];
      case 'remote_pending':
        return [
          { type: `${P}.Confirmed`, data: { authorization_id: id, provider_status: command.providerStatus } },
        ];
      case 'remote_approved':
        return [
          { type: `${P}.Approved`, data: { authorization_id: id, approved_at: now, source: 'provider' } },
        ];
      case 'remote_expired':
        return [{ type: `${P}.Expired`, data: { authorization_id: id, source: 'provider' } }];
      case 'remote_cancelled':
        return [{ type: `${P}.Cancelled`, data: { authorization_id: id, source: 'provider' } }];
      case 'remote_failed':
        return [
          { type: `${P}.Failed`, data: { authorization_id: id, provider_status: command.providerStatus } },
        ];
      case 'simulate_approved':
      case 'simulate_cancelled':
      case 'simulate_expired': {
        if (!state.simulated) return refuse('simulation_not_allowed');
        if (command.kind === 'simulate_approved') {
          return [
            { type: `${P}.Approved`, data: { authorization_id: id, approved_at: now, source: 'simulation' } },
          ];
        }
        if (command.kind === 'simulate_cancelled') {
          return [{ type: `${P}.Cancelled`, data: { authorization_id: id, source: 'simulation' } }];
        }
        return [{ type: `${P}.Expired`, data: { authorization_id: id, source: 'simulation' } }];
      }
      case 'expire':
        if (ctx.now.getTime() < new Date(state.approval_deadline).getTime()) return [];
        return [{ type: `${P}.Expired`, data: { authorization_id: id, source: 'deadline' } }];
      case 'revoke':
        if (revokeInFlight(state, ctx.now)) return refuse('provider_cancel_unconfirmed');
        return [{ type: `${P}.RevokeReserved`, data: { authorization_id: id, reserved_at: now } }];
      case 'revoke_expired':
        if (state.provider_closed || revokeInFlight(state, ctx.now)) return [];
        return [{ type: `${P}.RevokeReserved`, data: { authorization_id: id, reserved_at: now } }];
      case 'revoke_confirmed':
        if (!state.revoke_in_flight) return [];
        if (state.status === 'expired') return [{ type: `${P}.Revoked`, data: { authorization_id: id } }];
        return [{ type: `${P}.Cancelled`, data: { authorization_id: id, source: 'revoke' } }];
      case 'revoke_refused':
      case 'revoke_uncertain':
        if (!state.revoke_in_flight) return [];
        return [
          {
            type: command.kind === 'revoke_refused' ? `${P}.RevokeRefused` : `${P}.RevokeUncertain`,
            data: { authorization_id: id, reason: command.reason, diagnostics: command.diagnostics },
          },
        ];
    }
  },
};

/** The reservation's facts as stored, for comparing a repeated creation. */
export function reservedOf(state: AuthorizationState): AuthorizationReservedData {
  return {
    authorization_id: state.id,
    tenant_id: state.tenant_id,
    livemode: state.livemode,
    simulated: state.simulated,
    environment: state.environment,
    provider_id: state.provider_id,
    name: state.name,
    description: state.description,
    amount: state.amount,
    first_due_date: state.first_due_date,
    interval_months: state.interval_months,
    customer: state.customer,
    created_at: state.created_at,
  };
}
