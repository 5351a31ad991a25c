import { z } from 'zod';
import { defineEvent, type EventOf } from '../events/event-registry.ts';
import { type Decider, DomainError } from './decider.ts';
import type { TransitionTable } from './transition-table.ts';

/**
 * A local marketplace subaccount link (SPEC 2.7, 3.6, 4.14; stream `subaccount-<id>`): one tenant's account
 * under an `is_marketplace` provider. Reserve -> call -> record (money-once): `Reserved` is appended BEFORE
 * the provider's creation call, so concurrent requests make one call; the call's answer moves it to
 * `active` (remote id and sealed tokens), `failed` (sanitized error, no remote id: a new attempt needs a new
 * Idempotency-Key) or `unknown` (it may exist: only a consult by document resolves it, SPEC 3.6). Disabling
 * and enabling a link are local (SPEC 4.14). Tokens are only ever here sealed (AES-256-GCM, bound to the
 * subaccount and provider ids); bank data never enters an event.
 */

const subaccountId = z.string().startsWith('sac_');
const digits = z.string().regex(/^\d{11}$|^\d{14}$/);

const reservedData = z.strictObject({
  subaccount_id: subaccountId,
  provider_id: z.string().startsWith('prv_'),
  tenant_id: z.string().startsWith('ten_'),
  name: z.string(),
  document: digits,
  email: z.string(),
});
const createdData = z.strictObject({
  subaccount_id: subaccountId,
  provider_reference: z.string().min(1),
  /** Sealed `{ production_token?, sandbox_token?, ... }`; null when the provider handed out none. */
  tokens_ciphertext: z.string().nullable(),
  /** `consult`: an uncertain creation found again (SPEC 3.6); `link`: an administrator's verified link. */
  via: z.enum(['creation', 'consult', 'link']),
});
const failedData = z.strictObject({
  subaccount_id: subaccountId,
  /** A closed set (src/providers/port.ts OutcomeReason, or `not_found_at_provider`): never provider text. */
  last_error_code: z.string().regex(/^[a-z_]{1,40}$/),
  last_provider_error_code: z
    .string()
    .regex(/^\d{1,10}$/)
    .nullable(),
  last_error_message: z.string(),
});
const uncertainData = z.strictObject({
  subaccount_id: subaccountId,
  last_error_code: z.string().regex(/^[a-z_]{1,40}$/),
  provider_reference: z.string().min(1).nullable(),
});
const linkData = z.strictObject({ subaccount_id: subaccountId });
const tokenReplacedData = z.strictObject({
  subaccount_id: subaccountId,
  /** The provider's environment: only that token was replaced (SPEC 4.14). */
  environment: z.enum(['production', 'sandbox']),
  /** The whole token set, sealed again with the new token. */
  tokens_ciphertext: z.string(),
});

export const subaccountEvents = [
  defineEvent({
    type: 'Subaccount.Reserved',
    audit: {
      action: 'subaccount.reserved',
      when: 'a subaccount creation was reserved before the provider call',
    },
    schema: reservedData,
  }),
  defineEvent({
    type: 'Subaccount.Created',
    audit: {
      action: 'subaccount.created',
      when: 'the provider created the subaccount (or a consult found it)',
    },
    schema: createdData,
  }),
  defineEvent({
    type: 'Subaccount.Failed',
    audit: {
      action: 'subaccount.failed',
      when: 'the provider refused the subaccount, or a consult did not find it',
    },
    schema: failedData,
  }),
  defineEvent({
    type: 'Subaccount.Uncertain',
    audit: { action: 'subaccount.uncertain', when: 'the creation call ended without a usable answer' },
    schema: uncertainData,
  }),
  defineEvent({
    type: 'Subaccount.TokenReplaced',
    audit: {
      action: 'subaccount.token_replaced',
      when: "an administrator replaced the token of the provider's environment (no provider call)",
    },
    schema: tokenReplacedData,
  }),
  defineEvent({
    type: 'Subaccount.Disabled',
    audit: { action: 'subaccount.disabled', when: 'a subaccount link was disabled (locally)' },
    schema: linkData,
  }),
  defineEvent({
    type: 'Subaccount.Enabled',
    audit: { action: 'subaccount.enabled', when: 'a subaccount link was enabled again' },
    schema: linkData,
  }),
];

export type SubaccountEvent = EventOf<(typeof subaccountEvents)[number]>;
export type SubaccountReservedData = z.infer<typeof reservedData>;

export type SubaccountStatus = 'creating' | 'unknown' | 'failed' | 'active' | 'disabled';

export interface SubaccountRecordState {
  readonly status: SubaccountStatus;
  readonly id: string;
  readonly providerId: string;
  readonly tenantId: string;
  readonly name: string;
  readonly document: string;
  readonly email: string;
  readonly providerReference: string | null;
  readonly tokensCiphertext: string | null;
  readonly lastErrorCode: string | null;
  readonly lastProviderErrorCode: string | null;
  readonly lastErrorMessage: string | null;
}

export type SubaccountState = { readonly status: 'none' } | SubaccountRecordState;

export type SubaccountCommand =
  | { readonly kind: 'reserve'; readonly data: SubaccountReservedData }
  /** The provider answered the account (creation, or a consult of an uncertain one). */
  | {
      readonly kind: 'record_created';
      readonly providerReference: string;
      readonly tokensCiphertext: string | null;
      readonly via: 'creation' | 'consult' | 'link';
    }
  | {
      readonly kind: 'record_failed';
      readonly errorCode: string;
      readonly providerErrorCode: string | null;
      readonly message: string;
    }
  | {
      readonly kind: 'record_uncertain';
      readonly errorCode: string;
      readonly providerReference: string | null;
    }
  /** SPEC 4.14 `PATCH /credentials`: the token of the provider's environment, already sealed into the set. */
  | {
      readonly kind: 'replace_token';
      readonly environment: 'production' | 'sandbox';
      readonly tokensCiphertext: string;
    }
  | { readonly kind: 'disable' }
  | { readonly kind: 'enable' };

/**
 * State table (SPEC 3.6, 4.14). `creating` and `unknown` take the provider's answers; `failed` is final (a new
 * attempt is a new record under a new key); `active`/`disabled` only toggle, locally. An answer arriving for
 * a record already answered is a no-op (a late or repeated consult never overwrites the first truth).
 * `replace_token` (SPEC 4.14 credentials, local): only on an existing account (`active`/`disabled`, status kept),
 * else 409 conflict; 404 on `none`.
 *
 *   state    | reserve        | record_created | record_failed  | record_uncertain | disable        | enable
 *   ---------+----------------+----------------+----------------+------------------+----------------+---------------
 *   none     | Reserved ->    | 404            | 404            | 404              | 404            | 404
 *            |   creating     |                |                |                  |                |
 *   creating | same/409       | Created ->     | Failed ->      | Uncertain ->     | 409 conflict   | 409 conflict
 *            |                |   active       |   failed       |   unknown        |                |
 *   unknown  | same/409       | Created ->     | Failed ->      | no-op            | 409 conflict   | 409 conflict
 *            |                |   active       |   failed       |                  |                |
 *   failed   | same/409       | no-op          | no-op          | no-op            | 409 conflict   | 409 conflict
 *   active   | same/409       | no-op          | no-op          | no-op            | Disabled ->    | no-op
 *            |                |                |                |                  |   disabled     |
 *   disabled | same/409       | no-op          | no-op          | no-op            | no-op          | Enabled ->
 *            |                |                |                |                  |                |   active
 */
export const subaccountTransitions: TransitionTable<
  SubaccountStatus,
  SubaccountCommand['kind'],
  SubaccountEvent['type']
> = {
  none: {
    reserve: { emits: 'Subaccount.Reserved', to: 'creating' },
    record_created: { refuse: 'not_found' },
    record_failed: { refuse: 'not_found' },
    record_uncertain: { refuse: 'not_found' },
    replace_token: { refuse: 'not_found' },
    disable: { refuse: 'not_found' },
    enable: { refuse: 'not_found' },
  },
  creating: {
    reserve: { repeat: 'same_facts_or_conflict' },
    record_created: { emits: 'Subaccount.Created', to: 'active' },
    record_failed: { emits: 'Subaccount.Failed', to: 'failed' },
    record_uncertain: { emits: 'Subaccount.Uncertain', to: 'unknown' },
    replace_token: { refuse: 'conflict' },
    disable: { refuse: 'conflict' },
    enable: { refuse: 'conflict' },
  },
  unknown: {
    reserve: { repeat: 'same_facts_or_conflict' },
    record_created: { emits: 'Subaccount.Created', to: 'active' },
    record_failed: { emits: 'Subaccount.Failed', to: 'failed' },
    record_uncertain: { noop: true },
    replace_token: { refuse: 'conflict' },
    disable: { refuse: 'conflict' },
    enable: { refuse: 'conflict' },
  },
  failed: {
    reserve: { repeat: 'same_facts_or_conflict' },
    record_created: { noop: true },
    record_failed: { noop: true },
    record_uncertain: { noop: true },
    replace_token: { refuse: 'conflict' },
    disable: { refuse: 'conflict' },
    enable: { refuse: 'conflict' },
  },
  active: {
    reserve: { repeat: 'same_facts_or_conflict' },
    record_created: { noop: true },
    record_failed: { noop: true },
    record_uncertain: { noop: true },
    replace_token: { emits: 'Subaccount.TokenReplaced', to: 'active' },
    disable: { emits: 'Subaccount.Disabled', to: 'disabled' },
    enable: { noop: true },
  },
  disabled: {
    reserve: { repeat: 'same_facts_or_conflict' },
    record_created: { noop: true },
    record_failed: { noop: true },
    record_uncertain: { noop: true },
    replace_token: { emits: 'Subaccount.TokenReplaced', to: 'disabled' },
    disable: { noop: true },
    enable: { emits: 'Subaccount.Enabled', to: 'active' },
  },
};

function sameReservation(state: SubaccountRecordState, d: SubaccountReservedData): boolean {
  return (
    state.id === d.subaccount_id &&
    state.providerId === d.provider_id &&
    state.tenantId === d.tenant_id &&
    state.name === d.name &&
    state.document === d.document &&
    state.email === d.email
  );
}

export const subaccount: Decider<SubaccountCommand, SubaccountEvent, SubaccountState> = {
  initialState: { status: 'none' },

  evolve(state, event) {
    if (event.type === 'Subaccount.Reserved') {
      const d = event.data;
      return {
        status: 'creating',
        id: d.subaccount_id,
        providerId: d.provider_id,
        tenantId: d.tenant_id,
        name: d.name,
        document: d.document,
        email: d.email,
        providerReference: null,
        tokensCiphertext: null,
        lastErrorCode: null,
        lastProviderErrorCode: null,
        lastErrorMessage: null,
      };
    }
    if (state.status === 'none') return state;
    switch (event.type) {
      case 'Subaccount.Created':
        return {
          ...state,
          status: 'active',
          providerReference: event.data.provider_reference,
          tokensCiphertext: event.data.tokens_ciphertext,
          lastErrorCode: null,
          lastProviderErrorCode: null,
          lastErrorMessage: null,
        };
      case 'Subaccount.Failed':
        return {
          ...state,
          status: 'failed',
          lastErrorCode: event.data.last_error_code,
          lastProviderErrorCode: event.data.last_provider_error_code,
          lastErrorMessage: event.data.last_error_message,
        };
      case 'Subaccount.Uncertain':
        return {
          ...state,
          status: 'unknown',
          providerReference: event.data.provider_reference,
          lastErrorCode: event.data.last_error_code,
        };
      case 'Subaccount.TokenReplaced':
        return { ...state, tokensCiphertext: event.data.tokens_ciphertext };
      case 'Subaccount.Disabled':
        return { ...state, status: 'disabled' };
      case 'Subaccount.Enabled':
        return { ...state, status: 'active' };
    }
  },

  decide(command, state) {
    const move = subaccountTransitions[state.status][command.kind];
    if ('refuse' in move) {
      return move.refuse === 'not_found'
        ? new DomainError('not_found', 'The subaccount does not exist.')
        : new DomainError(move.refuse, `A ${state.status} subaccount link cannot be ${command.kind}d.`);
    }
    if ('noop' in move) return [];
    if ('repeat' in move) {
      const same =
        state.status !== 'none' && command.kind === 'reserve' && sameReservation(state, command.data);
      return same ? [] : new DomainError('conflict', 'This subaccount already exists with other values.');
    }
    if (command.kind === 'reserve') return [{ type: 'Subaccount.Reserved', data: command.data }];
    if (state.status === 'none')
      throw new Error(`subaccount state table: ${command.kind} of a missing record`);
    const subaccount_id = state.id;
    switch (command.kind) {
      case 'record_created':
        return [
          {
            type: 'Subaccount.Created',
            data: {
              subaccount_id,
              provider_reference: command.providerReference,
              tokens_ciphertext: command.tokensCiphertext,
              via: command.via,
            },
          },
        ];
      case 'record_failed':
        return [
          {
            type: 'Subaccount.Failed',
            data: {
              subaccount_id,
              last_error_code: command.errorCode,
              // SPEC 2.7: 1 to 10 digits or null, never anything else the provider wrote.
              last_provider_error_code: /^\d{1,10}$/.test(command.providerErrorCode ?? '')
                ? command.providerErrorCode
                : null,
              last_error_message: command.message,
            },
          },
        ];
      case 'record_uncertain':
        return [
          {
            type: 'Subaccount.Uncertain',
            data: {
              subaccount_id,
              last_error_code: command.errorCode,
              // An earlier answer's id is kept when this one has none.
              provider_reference: command.providerReference ?? state.providerReference,
            },
          },
        ];
      case 'replace_token':
        return [
          {
            type: 'Subaccount.TokenReplaced',
            data: {
              subaccount_id,
              environment: command.environment,
              tokens_ciphertext: command.tokensCiphertext,
            },
          },
        ];
      case 'disable':
        return [{ type: 'Subaccount.Disabled', data: { subaccount_id } }];
      case 'enable':
        return [{ type: 'Subaccount.Enabled', data: { subaccount_id } }];
    }
  },
};
