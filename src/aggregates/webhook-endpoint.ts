import { z } from 'zod';
import { defineEvent, type EventOf } from '../events/event-registry.ts';
import { type Decider, DomainError } from './decider.ts';
import type { TransitionTable } from './transition-table.ts';

/**
 * A webhook endpoint registered in the panel (SPEC 6; stream `webhook-endpoint-<id>`): a URL that receives
 * every event of one tenant in one mode. Tenant and mode are fixed at registration; the URL and `enabled`
 * change. The signing secret arrives here already sealed (src/crypto/credentials.ts, the endpoint id as
 * associated data): events and state hold only ciphertexts. A rotation keeps the previous secret valid for
 * 24 hours (deliveries are signed with both meanwhile). The delivery worker disables an endpoint whose
 * receiver answered 410 Gone. Deletion is final: every later command is `404 not_found`.
 */

export const WEBHOOK_MODES = ['live', 'test'] as const;
export type WebhookMode = (typeof WEBHOOK_MODES)[number];
/** Why an endpoint was disabled by the gateway itself (not by the panel). */
export const WEBHOOK_DISABLE_REASONS = ['gone'] as const;
export type WebhookDisableReason = (typeof WEBHOOK_DISABLE_REASONS)[number];

/** How long a rotated-out secret keeps signing deliveries. */
export const PREVIOUS_SECRET_TTL_MS = 24 * 60 * 60 * 1000;
/** docs/decisions.md "Webhooks": https only, at most 2048 characters. */
export const WEBHOOK_URL_MAX_LENGTH = 2048;

const endpointId = z.string().startsWith('whe_');
const instant = z.iso.datetime();

const registeredData = z.strictObject({
  endpoint_id: endpointId,
  tenant_id: z.string().startsWith('ten_'),
  url: z.string(),
  mode: z.enum(WEBHOOK_MODES),
  enabled: z.boolean(),
  /** AES-256-GCM ciphertext of the signing secret, bound to endpoint_id. */
  secret_sealed: z.string(),
  created_at: instant,
});
export type WebhookEndpointRegisteredData = z.infer<typeof registeredData>;
/** Only the fields that changed, each with its previous value. */
const updatedData = z.strictObject({
  endpoint_id: endpointId,
  url: z.string().optional(),
  previous_url: z.string().optional(),
  enabled: z.boolean().optional(),
  previous_enabled: z.boolean().optional(),
});
export type WebhookEndpointUpdatedData = z.infer<typeof updatedData>;
const secretRotatedData = z.strictObject({
  endpoint_id: endpointId,
  secret_sealed: z.string(),
  previous_secret_sealed: z.string(),
  /** Until when the previous secret still signs deliveries (rotation instant + 24 h). */
  previous_expires_at: instant,
});
const disabledData = z.strictObject({ endpoint_id: endpointId, reason: z.enum(WEBHOOK_DISABLE_REASONS) });
const deletedData = z.strictObject({ endpoint_id: endpointId });

export interface WebhookEndpointFacts {
  readonly endpointId: string;
  readonly tenantId: string;
  readonly url: string;
  readonly mode: WebhookMode;
  readonly enabled: boolean;
  /** `panel` when a PATCH disabled it, `gone` when the receiver answered 410; null while enabled. */
  readonly disabledReason: WebhookDisableReason | 'panel' | null;
  readonly secretSealed: string;
  readonly previousSecretSealed: string | null;
  readonly previousExpiresAt: string | null;
  readonly createdAt: string;
}

export type WebhookEndpointState =
  | { readonly status: 'none' }
  | ({ readonly status: 'active' } & WebhookEndpointFacts)
  | {
      readonly status: 'deleted';
      readonly endpointId: string;
      readonly tenantId: string;
      readonly mode: WebhookMode;
    };

export const webhookEndpointEvents = [
  defineEvent({
    type: 'WebhookEndpoint.Registered',
    audit: { action: 'webhook_endpoint.created', when: 'a webhook endpoint was registered' },
    schema: registeredData,
  }),
  defineEvent({
    type: 'WebhookEndpoint.Updated',
    audit: { action: 'webhook_endpoint.updated', when: 'a webhook endpoint was changed' },
    schema: updatedData,
  }),
  defineEvent({
    type: 'WebhookEndpoint.SecretRotated',
    audit: {
      action: 'webhook_endpoint.secret_rotated',
      when: 'a webhook signing secret was rotated (the secret never)',
    },
    schema: secretRotatedData,
  }),
  defineEvent({
    type: 'WebhookEndpoint.Disabled',
    audit: { action: 'webhook_endpoint.disabled', when: 'a webhook endpoint was disabled' },
    schema: disabledData,
  }),
  defineEvent({
    type: 'WebhookEndpoint.Deleted',
    audit: { action: 'webhook_endpoint.deleted', when: 'a webhook endpoint was deleted' },
    schema: deletedData,
  }),
];

export type WebhookEndpointEvent = EventOf<(typeof webhookEndpointEvents)[number]>;

export type WebhookEndpointCommand =
  | RegisterWebhookEndpoint
  | UpdateWebhookEndpoint
  | RotateWebhookSecret
  | DisableGoneWebhookEndpoint
  | { readonly kind: 'delete' };
export interface RegisterWebhookEndpoint {
  readonly kind: 'register';
  readonly endpointId: string;
  readonly tenantId: string;
  readonly url: string;
  readonly mode: WebhookMode;
  readonly enabled: boolean;
  /** Generated and sealed by the command layer (deciders hold no randomness). */
  readonly secretSealed: string;
}
export interface UpdateWebhookEndpoint {
  readonly kind: 'update';
  readonly url?: string | undefined;
  readonly enabled?: boolean | undefined;
}
export interface RotateWebhookSecret {
  readonly kind: 'rotate_secret';
  /** The new secret, sealed by the command layer. */
  readonly secretSealed: string;
}
/** The delivery worker's command: the receiver answered 410 Gone. */
export interface DisableGoneWebhookEndpoint {
  readonly kind: 'disable_gone';
}

/**
 * State table (SPEC 6 "registering endpoints, viewing the signing secret": panel only; docs/decisions.md
 * "Webhooks"). `active` covers enabled and disabled endpoints: enablement is a field, not a state.
 *
 *   state   | register                      | update                      | rotate_secret            | disable_gone               | delete
 *   --------+-------------------------------+-----------------------------+--------------------------+----------------------------+---------------------
 *   none    | Registered -> active (*)      | 404 not_found               | 404 not_found            | 404 not_found              | 404 not_found
 *   active  | same facts: no-op; else 409   | Updated -> active (changed  | SecretRotated -> active  | Disabled -> active         | Deleted -> deleted
 *           |                               |   fields only; none: no     |   (previous secret valid |   (already disabled: no    |
 *           |                               |   event) (*)                |   24 h from now)         |   event)                   |
 *   deleted | 404 not_found                 | 404 not_found               | 404 not_found            | 404 not_found              | 404 not_found
 *
 * (*) refused with 422 validation_error (param `url`) for a URL that is not absolute http(s) or longer than
 * 2048 characters; the HTTP layer adds the destination policy (see isValidWebhookUrl). An update never
 * changes the tenant or the mode.
 */
export const webhookEndpointTransitions: TransitionTable<
  'active' | 'deleted',
  WebhookEndpointCommand['kind'],
  WebhookEndpointEvent['type']
> = {
  none: {
    register: { emits: 'WebhookEndpoint.Registered', to: 'active' },
    update: { refuse: 'not_found' },
    rotate_secret: { refuse: 'not_found' },
    disable_gone: { refuse: 'not_found' },
    delete: { refuse: 'not_found' },
  },
  active: {
    register: { repeat: 'same_facts_or_conflict' },
    update: { emits: 'WebhookEndpoint.Updated', to: 'active' },
    rotate_secret: { emits: 'WebhookEndpoint.SecretRotated', to: 'active' },
    disable_gone: { emits: 'WebhookEndpoint.Disabled', to: 'active' },
    delete: { emits: 'WebhookEndpoint.Deleted', to: 'deleted' },
  },
  deleted: {
    register: { refuse: 'not_found' },
    update: { refuse: 'not_found' },
    rotate_secret: { refuse: 'not_found' },
    disable_gone: { refuse: 'not_found' },
    delete: { refuse: 'not_found' },
  },
};

/**
 * The part of the URL rule that needs no configuration: an absolute http(s) URL of at most 2048 characters.
 * The HTTP layer adds the destination policy (src/webhooks/ssrf-guard.ts): https only, no credentials, no
 * private, loopback or metadata address, except http and private hosts listed in
 * WEBHOOK_ALLOWED_PRIVATE_HOSTS (development).
 */
export function isValidWebhookUrl(url: string): boolean {
  if (url.length === 0 || url.length > WEBHOOK_URL_MAX_LENGTH) return false;
  if (!URL.canParse(url)) return false;
  const { protocol } = new URL(url);
  return protocol === 'https:' || protocol === 'http:';
}

function checkUrl(url: string | undefined): DomainError | undefined {
  if (url !== undefined && !isValidWebhookUrl(url)) {
    return new DomainError(
      'validation_error',
      `The url must be an https URL of at most ${WEBHOOK_URL_MAX_LENGTH} characters.`,
      { param: 'url' },
    );
  }
  return undefined;
}

type Active = Extract<WebhookEndpointState, { status: 'active' }>;
type Decision = readonly WebhookEndpointEvent[] | DomainError;

function update(command: UpdateWebhookEndpoint, state: Active): Decision {
  const refused = checkUrl(command.url);
  if (refused) return refused;
  const data: WebhookEndpointUpdatedData = { endpoint_id: state.endpointId };
  if (command.url !== undefined && command.url !== state.url) {
    data.url = command.url;
    data.previous_url = state.url;
  }
  if (command.enabled !== undefined && command.enabled !== state.enabled) {
    data.enabled = command.enabled;
    data.previous_enabled = state.enabled;
  }
  return Object.keys(data).length === 1 ? [] : [{ type: 'WebhookEndpoint.Updated', data }];
}

function activeOrThrow(state: WebhookEndpointState, kind: string): Active {
  if (state.status !== 'active')
    throw new Error(`webhook endpoint state table: ${kind} reached ${state.status}`);
  return state;
}

export const webhookEndpoint: Decider<WebhookEndpointCommand, WebhookEndpointEvent, WebhookEndpointState> = {
  initialState: { status: 'none' },

  evolve(state, event) {
    switch (event.type) {
      case 'WebhookEndpoint.Registered': {
        const d = event.data;
        return {
          status: 'active',
          endpointId: d.endpoint_id,
          tenantId: d.tenant_id,
          url: d.url,
          mode: d.mode,
          enabled: d.enabled,
          disabledReason: d.enabled ? null : 'panel',
          secretSealed: d.secret_sealed,
          previousSecretSealed: null,
          previousExpiresAt: null,
          createdAt: d.created_at,
        };
      }
      case 'WebhookEndpoint.Updated': {
        if (state.status !== 'active') return state;
        const d = event.data;
        const enabled = d.enabled ?? state.enabled;
        return {
          ...state,
          url: d.url ?? state.url,
          enabled,
          disabledReason: d.enabled === undefined ? state.disabledReason : enabled ? null : 'panel',
        };
      }
      case 'WebhookEndpoint.SecretRotated': {
        if (state.status !== 'active') return state;
        const d = event.data;
        return {
          ...state,
          secretSealed: d.secret_sealed,
          previousSecretSealed: d.previous_secret_sealed,
          previousExpiresAt: d.previous_expires_at,
        };
      }
      case 'WebhookEndpoint.Disabled':
        return state.status === 'active'
          ? { ...state, enabled: false, disabledReason: event.data.reason }
          : state;
      case 'WebhookEndpoint.Deleted':
        return state.status === 'active'
          ? { status: 'deleted', endpointId: state.endpointId, tenantId: state.tenantId, mode: state.mode }
          : state;
    }
  },

  decide(command, state, ctx) {
    const move = webhookEndpointTransitions[state.status][command.kind];
    if ('refuse' in move) return new DomainError(move.refuse, 'The webhook endpoint does not exist.');
    if ('noop' in move) return [];
    if ('repeat' in move) {
      // Sealed secrets differ per sealing (random IV and random secret): a retry compares the other facts.
      const same =
        state.status === 'active' &&
        command.kind === 'register' &&
        state.endpointId === command.endpointId &&
        state.tenantId === command.tenantId &&
        state.url === command.url &&
        state.mode === command.mode;
      return same
        ? []
        : new DomainError('conflict', 'This webhook endpoint already exists with other values.');
    }
    switch (command.kind) {
      case 'register': {
        const refused = checkUrl(command.url);
        if (refused) return refused;
        return [
          {
            type: 'WebhookEndpoint.Registered',
            data: {
              endpoint_id: command.endpointId,
              tenant_id: command.tenantId,
              url: command.url,
              mode: command.mode,
              enabled: command.enabled,
              secret_sealed: command.secretSealed,
              created_at: ctx.now.toISOString(),
            },
          },
        ];
      }
      case 'update':
        return update(command, activeOrThrow(state, command.kind));
      case 'rotate_secret': {
        const active = activeOrThrow(state, command.kind);
        return [
          {
            type: 'WebhookEndpoint.SecretRotated',
            data: {
              endpoint_id: active.endpointId,
              secret_sealed: command.secretSealed,
              previous_secret_sealed: active.secretSealed,
              previous_expires_at: new Date(ctx.now.getTime() + PREVIOUS_SECRET_TTL_MS).toISOString(),
            },
          },
        ];
      }
      case 'disable_gone': {
        const active = activeOrThrow(state, command.kind);
        if (!active.enabled) return [];
        return [
          { type: 'WebhookEndpoint.Disabled', data: { endpoint_id: active.endpointId, reason: 'gone' } },
        ];
      }
      case 'delete': {
        const active = activeOrThrow(state, command.kind);
        return [{ type: 'WebhookEndpoint.Deleted', data: { endpoint_id: active.endpointId } }];
      }
    }
  },
};
