import { z } from 'zod';
import { defineEvent, type EventOf } from '../events/event-registry.ts';
import { type Decider, DomainError } from './decider.ts';
import { isValidRegistryName } from './registry-name.ts';
import { CHARGE_METHODS } from './transaction/vocabulary.ts';
import type { TransitionTable } from './transition-table.ts';

/**
 * A payment provider (SPEC 1 providers table, 2.7; stream `provider-<id>`). Kind and environment are fixed
 * at creation; name, enablement, `enabled_methods` and credentials change. Credentials arrive here already
 * sealed (src/crypto/credentials.ts): events and state hold only the ciphertext.
 */

/** The methods a provider can enable: the charge methods, one list (src/aggregates/transaction/vocabulary.ts). */
export const PAYMENT_METHODS = CHARGE_METHODS;
export type PaymentMethod = (typeof PAYMENT_METHODS)[number];
export const PROVIDER_KINDS = ['simulator', 'external'] as const;
export const PROVIDER_ENVIRONMENTS = ['sandbox', 'production'] as const;

const providerId = z.string().startsWith('prv_');
const methods = z.array(z.enum(PAYMENT_METHODS));
/** An external provider's base URL; absent or null means the adapter's default (the real host). */
const host = z.string().nullable().optional();

/**
 * Settings added after the first events, so optional in every event that carries them (defaults on read:
 * providerFacts). Issue 13: the Safe2Pay hosts of an external provider. Issue 22 item 4.2: a boleto paid by
 * boleto may be refunded by a payout.
 */
const laterSettings = {
  payment_host: host,
  api_host: host,
  boleto_refund_payout: z.boolean().optional(),
};

const createdData = z.strictObject({
  provider_id: providerId,
  name: z.string(),
  kind: z.enum(PROVIDER_KINDS),
  environment: z.enum(PROVIDER_ENVIRONMENTS),
  enabled_methods: methods,
  is_marketplace: z.boolean(),
  /** AES-256-GCM ciphertext bound to provider_id, or null. */
  credentials_ciphertext: z.string().nullable(),
  ...laterSettings,
});
/** What an update may change besides the credentials and the later settings. */
const changeable = {
  name: z.string().optional(),
  enabled: z.boolean().optional(),
  enabled_methods: methods.optional(),
};
/**
 * Issue 23 item 2.3: the values the changed fields had before (the audit's `before`), never a secret: for
 * credentials only whether there were some. Absent in events written before it.
 */
const previousData = z.strictObject({
  ...changeable,
  had_credentials: z.boolean().optional(),
  ...laterSettings,
});
/** Only the fields that changed. */
const updatedData = z.strictObject({
  provider_id: providerId,
  ...changeable,
  credentials_ciphertext: z.string().nullable().optional(),
  ...laterSettings,
  previous: previousData.optional(),
});

export const providerEvents = [
  defineEvent({
    type: 'Provider.Created',
    audit: { action: 'provider.created', when: 'a provider was registered' },
    schema: createdData,
  }),
  defineEvent({
    type: 'Provider.Updated',
    audit: { action: 'provider.updated', when: 'a provider was changed (credentials never)' },
    schema: updatedData,
  }),
];

export type ProviderCreatedData = z.infer<typeof createdData>;
export type ProviderUpdatedData = z.infer<typeof updatedData>;

/** A provider's creation facts with the later settings an older event lacks at their defaults. */
export type ProviderFacts = {
  readonly [K in keyof ProviderCreatedData]-?: Exclude<ProviderCreatedData[K], undefined>;
};

/** `Provider.Created` as read: an absent host is the adapter's default (null), refund by payout off. */
export function providerFacts(d: ProviderCreatedData): ProviderFacts {
  return {
    ...d,
    payment_host: d.payment_host ?? null,
    api_host: d.api_host ?? null,
    boleto_refund_payout: d.boleto_refund_payout ?? false,
  };
}
export type ProviderEvent = EventOf<(typeof providerEvents)[number]>;

/** What a provider is registered with: the create command's facts, which its state keeps. */
interface ProviderRegistration {
  readonly providerId: string;
  readonly name: string;
  readonly environment: ProviderCreatedData['environment'];
  readonly enabledMethods: readonly PaymentMethod[];
  readonly isMarketplace: boolean;
  readonly credentialsCiphertext: string | null;
}

export type ProviderState =
  | { readonly status: 'none' }
  | (ProviderRegistration & {
      readonly status: 'active';
      readonly kind: ProviderCreatedData['kind'];
      readonly enabled: boolean;
      /** null: the adapter's default host. */
      readonly paymentHost: string | null;
      readonly apiHost: string | null;
      /** Issue 22 item 4.2: boleto refunds by payout (`v2/Transfer`) allowed; false by default. */
      readonly boletoRefundPayout: boolean;
    });

export interface CreateProvider extends ProviderRegistration {
  readonly kind: 'create';
  readonly providerKind: ProviderCreatedData['kind'];
  readonly paymentHost?: string | null | undefined;
  readonly apiHost?: string | null | undefined;
  readonly boletoRefundPayout?: boolean | undefined;
}
export interface UpdateProvider {
  readonly kind: 'update';
  readonly name?: string | undefined;
  readonly enabled?: boolean | undefined;
  readonly enabledMethods?: readonly PaymentMethod[] | undefined;
  /** A new sealed secret; absent keeps the stored one. */
  readonly credentialsCiphertext?: string | undefined;
  /**
   * The hosts `[payment_host, api_host]` the new secret was sealed for (src/crypto/credentials.ts v2): they
   * must be the record's hosts after this update, else a concurrent host change raced the sealing.
   */
  readonly credentialsBinding?: readonly (string | null)[] | undefined;
  /** A new host; null returns to the default; absent keeps the stored one. */
  readonly paymentHost?: string | null | undefined;
  readonly apiHost?: string | null | undefined;
  readonly boletoRefundPayout?: boolean | undefined;
}
export type ProviderCommand = CreateProvider | UpdateProvider;

/**
 *   state   | create                          | update
 *   --------+---------------------------------+-------------------------------------------------
 *   none    | Provider.Created -> active (*)  | 404 not_found
 *   active  | same facts: no-op; else 409     | Provider.Updated -> active (changed fields only,
 *           |                                 | with their previous values; nothing changed: no
 *           |                                 | event) (**)
 *
 * (*) refused with 422 validation_error for an invalid name, a duplicated method (SPEC 2.7), a simulator
 * outside the sandbox (SPEC 1) or a simulator given provider hosts (create and update).
 * (**) issue 23 item 2.3: a host change of a record holding credentials, without new credentials, is 422
 * validation_error on `credentials` (the stored secret is sealed for the old hosts and never follows them);
 * new credentials sealed for other hosts than the result (a concurrent host change) are 409 conflict.
 */
export const providerTransitions: TransitionTable<'active', ProviderCommand['kind'], ProviderEvent['type']> =
  {
    none: { create: { emits: 'Provider.Created', to: 'active' }, update: { refuse: 'not_found' } },
    active: {
      create: { repeat: 'same_facts_or_conflict' },
      update: { emits: 'Provider.Updated', to: 'active' },
    },
  };

function checkMethods(list: readonly PaymentMethod[] | undefined): DomainError | undefined {
  if (list && new Set(list).size !== list.length) {
    return new DomainError('validation_error', 'enabled_methods must not repeat a method.', {
      param: 'enabled_methods',
    });
  }
  return undefined;
}

function checkName(name: string | undefined): DomainError | undefined {
  if (name !== undefined && !isValidRegistryName(name)) {
    return new DomainError('validation_error', 'The name must have 2 to 120 bytes.', { param: 'name' });
  }
  return undefined;
}

/** Hosts belong to the external provider only (the simulator makes no call). */
function checkHosts(
  kind: ProviderCreatedData['kind'],
  command: { paymentHost?: string | null | undefined; apiHost?: string | null | undefined },
): DomainError | undefined {
  const given = [command.paymentHost, command.apiHost].some((h) => h !== undefined && h !== null);
  if (kind === 'simulator' && given) {
    return new DomainError('validation_error', 'The simulator has no provider hosts.', {
      param: command.paymentHost ? 'payment_host' : 'api_host',
    });
  }
  return undefined;
}

const sameList = (a: readonly string[], b: readonly string[]) =>
  a.length === b.length && a.every((v, i) => v === b[i]);

type Decision = readonly ProviderEvent[] | DomainError;

function update(command: UpdateProvider, state: Extract<ProviderState, { status: 'active' }>): Decision {
  const refused = checkName(command.name) ?? checkMethods(command.enabledMethods);
  if (refused) return refused;
  const data: ProviderUpdatedData = { provider_id: state.providerId };
  if (command.name !== undefined && command.name !== state.name) data.name = command.name;
  if (command.enabled !== undefined && command.enabled !== state.enabled) data.enabled = command.enabled;
  if (command.enabledMethods && !sameList(command.enabledMethods, state.enabledMethods)) {
    data.enabled_methods = [...command.enabledMethods];
  }
  if (command.credentialsCiphertext !== undefined)
    data.credentials_ciphertext = command.credentialsCiphertext;
  const hosts = checkHosts(state.kind, command);
  if (hosts) return hosts;
  if (command.paymentHost !== undefined && command.paymentHost !== state.paymentHost) {
    data.payment_host = command.paymentHost;
  }
  if (command.apiHost !== undefined && command.apiHost !== state.apiHost) data.api_host = command.apiHost;
  if (command.boletoRefundPayout !== undefined && command.boletoRefundPayout !== state.boletoRefundPayout) {
    data.boleto_refund_payout = command.boletoRefundPayout;
  }
  const hostChanged = data.payment_host !== undefined || data.api_host !== undefined;
  if (hostChanged && state.credentialsCiphertext !== null && command.credentialsCiphertext === undefined) {
    return new DomainError(
      'validation_error',
      "Changing a provider's host needs its credentials again: send credentials with the new host (the stored ones are never sent to another host).",
      { param: 'credentials' },
    );
  }
  if (command.credentialsCiphertext !== undefined && command.credentialsBinding !== undefined) {
    const result = [
      data.payment_host !== undefined ? data.payment_host : state.paymentHost,
      data.api_host !== undefined ? data.api_host : state.apiHost,
    ];
    if (!sameList(result.map(String), command.credentialsBinding.map(String))) {
      return new DomainError('conflict', "The provider's hosts changed meanwhile; send the change again.");
    }
  }
  if (Object.keys(data).length === 1) return [];
  return [{ type: 'Provider.Updated', data: { ...data, previous: previousOf(data, state) } }];
}

/** What the changed fields were (issue 23 item 2.3: the audit's `before`); credentials only as a flag. */
function previousOf(
  data: ProviderUpdatedData,
  state: Extract<ProviderState, { status: 'active' }>,
): NonNullable<ProviderUpdatedData['previous']> {
  return {
    ...(data.name !== undefined ? { name: state.name } : {}),
    ...(data.enabled !== undefined ? { enabled: state.enabled } : {}),
    ...(data.enabled_methods !== undefined ? { enabled_methods: [...state.enabledMethods] } : {}),
    ...(data.credentials_ciphertext !== undefined
      ? { had_credentials: state.credentialsCiphertext !== null }
      : {}),
    ...(data.payment_host !== undefined ? { payment_host: state.paymentHost } : {}),
    ...(data.api_host !== undefined ? { api_host: state.apiHost } : {}),
    ...(data.boleto_refund_payout !== undefined ? { boleto_refund_payout: state.boletoRefundPayout } : {}),
  };
}

export const provider: Decider<ProviderCommand, ProviderEvent, ProviderState> = {
  initialState: { status: 'none' },

  evolve(state, event) {
    switch (event.type) {
      case 'Provider.Created': {
        const d = providerFacts(event.data);
        return {
          status: 'active',
          providerId: d.provider_id,
          name: d.name,
          kind: d.kind,
          environment: d.environment,
          enabledMethods: d.enabled_methods,
          isMarketplace: d.is_marketplace,
          enabled: true,
          credentialsCiphertext: d.credentials_ciphertext,
          paymentHost: d.payment_host,
          apiHost: d.api_host,
          boletoRefundPayout: d.boleto_refund_payout,
        };
      }
      case 'Provider.Updated': {
        if (state.status === 'none') return state;
        const d = event.data;
        return {
          ...state,
          name: d.name ?? state.name,
          enabled: d.enabled ?? state.enabled,
          enabledMethods: d.enabled_methods ?? state.enabledMethods,
          credentialsCiphertext:
            d.credentials_ciphertext !== undefined ? d.credentials_ciphertext : state.credentialsCiphertext,
          paymentHost: d.payment_host !== undefined ? d.payment_host : state.paymentHost,
          apiHost: d.api_host !== undefined ? d.api_host : state.apiHost,
          boletoRefundPayout: d.boleto_refund_payout ?? state.boletoRefundPayout,
        };
      }
    }
  },

  decide(command, state) {
    const move = providerTransitions[state.status][command.kind];
    if ('refuse' in move) return new DomainError(move.refuse, 'The provider does not exist.');
    if ('noop' in move) return [];
    if ('repeat' in move) {
      // Ciphertexts differ per sealing (random IV), so a retry compares whether there are credentials.
      const same =
        state.status === 'active' &&
        command.kind === 'create' &&
        state.name === command.name &&
        state.kind === command.providerKind &&
        state.environment === command.environment &&
        state.isMarketplace === command.isMarketplace &&
        sameList(state.enabledMethods, command.enabledMethods) &&
        state.paymentHost === (command.paymentHost ?? null) &&
        state.apiHost === (command.apiHost ?? null) &&
        state.boletoRefundPayout === (command.boletoRefundPayout ?? false) &&
        (state.credentialsCiphertext === null) === (command.credentialsCiphertext === null);
      return same ? [] : new DomainError('conflict', 'This provider already exists with other values.');
    }
    if (command.kind === 'create') {
      const refused =
        checkName(command.name) ??
        checkMethods(command.enabledMethods) ??
        checkHosts(command.providerKind, command);
      if (refused) return refused;
      // SPEC 1: the simulator exists only as `simulator / sandbox`; it never moves money.
      if (command.providerKind === 'simulator' && command.environment !== 'sandbox') {
        return new DomainError('validation_error', 'A simulator provider must use the sandbox environment.', {
          param: 'environment',
        });
      }
      return [
        {
          type: 'Provider.Created',
          data: {
            provider_id: command.providerId,
            name: command.name,
            kind: command.providerKind,
            environment: command.environment,
            enabled_methods: [...command.enabledMethods],
            is_marketplace: command.isMarketplace,
            credentials_ciphertext: command.credentialsCiphertext,
            // Written only when set, so a provider without hosts keeps the event shape it always had.
            ...(command.paymentHost ? { payment_host: command.paymentHost } : {}),
            ...(command.apiHost ? { api_host: command.apiHost } : {}),
            ...(command.boletoRefundPayout ? { boleto_refund_payout: true } : {}),
          },
        },
      ];
    }
    if (state.status === 'none') throw new Error('provider state table: update reached a missing provider');
    return update(command, state);
  },
};
