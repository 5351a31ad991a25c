import { DomainError, fold } from '../aggregates/decider.ts';
import {
  type WebhookEndpointEvent,
  type WebhookEndpointFacts,
  type WebhookMode,
  webhookEndpoint,
} from '../aggregates/webhook-endpoint.ts';
import type { Config } from '../config.ts';
import {
  type CredentialsKeyConfig,
  credentialsKey,
  decryptCredentials,
  encryptCredentials,
} from '../crypto/credentials.ts';
import type { EventMetadata } from '../events/event-store.ts';
import { newId } from '../ids.ts';
import { generateWebhookSecret } from '../webhooks/signing.ts';
import { type CommandDeps, handleCommand } from './command-handler.ts';

/**
 * Webhook endpoints registered in the panel (SPEC 6; docs/decisions.md "Webhooks"). Secrets are generated
 * here (deciders hold no randomness), sealed with the provider-credentials key (AES-256-GCM, the endpoint id
 * as associated data) and stored only sealed. Roles and the tenant tree are checked by HTTP.
 */

/** `<category>-<id>`, the category in snake case like every other stream (the audit log splits on `-`). */
export const webhookEndpointStream = (endpointId: string) => `webhook_endpoint-${endpointId}`;

export interface WebhookEndpointDeps extends CommandDeps {
  config: Pick<Config, 'CREDENTIALS_ENCRYPTION_KEY' | 'DATABASE_URL' | 'CALEBE_DATA_DIR'>;
}

export function webhookEndpointDeps(ctx: {
  store: CommandDeps['store'];
  events: CommandDeps['registry'];
  now: () => Date;
  config: WebhookEndpointDeps['config'];
}): WebhookEndpointDeps {
  // `now` is read at each call, so tests that replace ctx.now move the commands' clock too.
  return { store: ctx.store, registry: ctx.events, now: () => ctx.now(), config: ctx.config };
}

/** What the panel sees of an endpoint: never the secret (GET .../secret shows it). */
export interface WebhookEndpointView {
  id: string;
  tenant_id: string;
  url: string;
  mode: WebhookMode;
  enabled: boolean;
  disabled_reason: 'gone' | 'panel' | null;
  /** Until when the rotated-out secret still signs deliveries; null when none is valid. */
  previous_secret_expires_at: string | null;
  created_at: string;
  updated_at: string;
}

/** A live (not deleted) endpoint folded from its stream, with the recorded time of its last event. */
export interface LoadedWebhookEndpoint {
  facts: WebhookEndpointFacts;
  updatedAt: Date;
}

const ENDPOINT_ID = /^whe_[A-Za-z0-9]{1,60}$/;

/** The endpoint, or undefined when it never existed or was deleted. Ids that are not `whe_...` are never read. */
export async function loadWebhookEndpoint(
  deps: Pick<CommandDeps, 'store' | 'registry'>,
  endpointId: string,
): Promise<LoadedWebhookEndpoint | undefined> {
  if (!ENDPOINT_ID.test(endpointId)) return undefined;
  const recorded = await deps.store.read(webhookEndpointStream(endpointId));
  const last = recorded.at(-1);
  if (!last) return undefined;
  const state = fold(
    webhookEndpoint,
    recorded.map((r) => deps.registry.decode(r) as WebhookEndpointEvent),
  );
  if (state.status !== 'active') return undefined;
  const { status: _s, ...facts } = state;
  return { facts, updatedAt: last.recordedAt };
}

const previousValid = (expiresAt: Date | string | null, now: Date) =>
  expiresAt !== null && new Date(expiresAt).getTime() > now.getTime();

export function webhookEndpointView(loaded: LoadedWebhookEndpoint, now: Date): WebhookEndpointView {
  const f = loaded.facts;
  return {
    id: f.endpointId,
    tenant_id: f.tenantId,
    url: f.url,
    mode: f.mode,
    enabled: f.enabled,
    disabled_reason: f.disabledReason,
    previous_secret_expires_at:
      f.previousSecretSealed !== null && previousValid(f.previousExpiresAt, now) ? f.previousExpiresAt : null,
    created_at: f.createdAt,
    updated_at: loaded.updatedAt.toISOString(),
  };
}

/**
 * The key that seals endpoint secrets: the provider-credentials key (CREDENTIALS_ENCRYPTION_KEY, or the
 * generated `<CALEBE_DATA_DIR>/credentials.key` of the embedded database). Without one (DATABASE_URL and no
 * key) registering and rotating are refused with 422 validation_error before anything is written.
 */
export async function requireWebhookSecretsKey(config: CredentialsKeyConfig): Promise<Buffer> {
  const key = await credentialsKey(config);
  if (!key) {
    throw new DomainError(
      'validation_error',
      'Webhook endpoints need CREDENTIALS_ENCRYPTION_KEY on the server to store their signing secrets.',
    );
  }
  return key;
}

export function sealWebhookSecret(key: Buffer, endpointId: string, secret: string): string {
  return encryptCredentials(key, endpointId, { secret });
}

export function openWebhookSecret(key: Buffer, endpointId: string, sealed: string): string {
  const opened = decryptCredentials(key, endpointId, sealed);
  if (typeof opened.secret !== 'string') throw new Error(`webhook endpoint ${endpointId}: malformed secret`);
  return opened.secret;
}

export interface RegisterWebhookEndpointInput {
  /** Chosen by the server unless given (the idempotency claim, tests). */
  endpointId?: string;
  tenantId: string;
  url: string;
  mode: WebhookMode;
  enabled: boolean;
}

/**
 * Registers an endpoint with a fresh secret. A repeat with the same facts (a completed idempotency claim) is
 * a no-op and returns no secret; `secret` is present only when this call registered the endpoint.
 */
export async function registerWebhookEndpoint(
  deps: WebhookEndpointDeps,
  input: RegisterWebhookEndpointInput,
  metadata: EventMetadata,
): Promise<{ endpoint: WebhookEndpointView; secret?: string; created: boolean }> {
  const key = await requireWebhookSecretsKey(deps.config);
  const endpointId = input.endpointId ?? newId('whe');
  const secret = generateWebhookSecret();
  const r = await handleCommand(
    deps,
    webhookEndpoint,
    webhookEndpointStream(endpointId),
    {
      kind: 'register',
      endpointId,
      tenantId: input.tenantId,
      url: input.url,
      mode: input.mode,
      enabled: input.enabled,
      secretSealed: sealWebhookSecret(key, endpointId, secret),
    },
    // A concurrent completion of the same claim re-decides into a no-op.
    { metadata, retryOnConflict: true },
  );
  const endpoint = await mustLoad(deps, endpointId);
  return r.events.length > 0 ? { endpoint, secret, created: true } : { endpoint, created: false };
}

async function mustLoad(deps: WebhookEndpointDeps, endpointId: string): Promise<WebhookEndpointView> {
  const loaded = await loadWebhookEndpoint(deps, endpointId);
  if (!loaded) throw new Error(`webhook endpoint ${endpointId} missing after a command`);
  return webhookEndpointView(loaded, deps.now());
}

/** `PATCH`: url and/or enabled, in one event with the previous values. Nothing changed appends nothing. */
export async function updateWebhookEndpoint(
  deps: WebhookEndpointDeps,
  endpointId: string,
  input: { url?: string | undefined; enabled?: boolean | undefined },
  metadata: EventMetadata,
): Promise<WebhookEndpointView> {
  await handleCommand(
    deps,
    webhookEndpoint,
    webhookEndpointStream(endpointId),
    { kind: 'update', url: input.url, enabled: input.enabled },
    // The decision depends on the stream alone.
    { metadata, retryOnConflict: true },
  );
  return mustLoad(deps, endpointId);
}

/**
 * A new secret; the current one becomes the previous secret, valid 24 hours from now (a second rotation
 * within the window drops the older one). Not retried on a concurrent append: two rotations racing must not
 * both succeed silently with one secret lost.
 */
export async function rotateWebhookSecret(
  deps: WebhookEndpointDeps,
  endpointId: string,
  metadata: EventMetadata,
): Promise<{ endpoint: WebhookEndpointView; secret: string }> {
  const key = await requireWebhookSecretsKey(deps.config);
  const secret = generateWebhookSecret();
  await handleCommand(
    deps,
    webhookEndpoint,
    webhookEndpointStream(endpointId),
    { kind: 'rotate_secret', secretSealed: sealWebhookSecret(key, endpointId, secret) },
    { metadata },
  );
  return { endpoint: await mustLoad(deps, endpointId), secret };
}

/** `DELETE`: final; every later command on the endpoint is 404 not_found. */
export async function deleteWebhookEndpoint(
  deps: WebhookEndpointDeps,
  endpointId: string,
  metadata: EventMetadata,
): Promise<void> {
  await handleCommand(
    deps,
    webhookEndpoint,
    webhookEndpointStream(endpointId),
    { kind: 'delete' },
    { metadata, retryOnConflict: true },
  );
}

/**
 * For the delivery worker: the receiver answered 410 Gone, so the endpoint stops receiving deliveries
 * (`WebhookEndpoint.Disabled` with reason `gone`; the panel can enable it again with PATCH). Never throws
 * for a missing or deleted endpoint: it answers what happened instead.
 */
export async function disableGoneWebhookEndpoint(
  deps: Pick<CommandDeps, 'store' | 'registry' | 'now' | 'newEventId'>,
  endpointId: string,
  metadata: EventMetadata,
): Promise<'disabled' | 'already_disabled' | 'not_found'> {
  try {
    const r = await handleCommand(
      deps,
      webhookEndpoint,
      webhookEndpointStream(endpointId),
      { kind: 'disable_gone' },
      { metadata, retryOnConflict: true },
    );
    return r.events.length > 0 ? 'disabled' : 'already_disabled';
  } catch (error) {
    if (error instanceof DomainError && error.code === 'not_found') return 'not_found';
    throw error;
  }
}

/** `GET .../secret`: the current secret, and the previous one while it is still valid. */
export async function revealWebhookSecrets(
  config: CredentialsKeyConfig,
  facts: WebhookEndpointFacts,
  now: Date,
): Promise<{ secret: string; previous_secret: string | null; previous_expires_at: string | null }> {
  const key = await requireWebhookSecretsKey(config);
  const previous =
    facts.previousSecretSealed !== null && previousValid(facts.previousExpiresAt, now)
      ? openWebhookSecret(key, facts.endpointId, facts.previousSecretSealed)
      : null;
  return {
    secret: openWebhookSecret(key, facts.endpointId, facts.secretSealed),
    previous_secret: previous,
    previous_expires_at: previous === null ? null : facts.previousExpiresAt,
  };
}

/** The columns of a `webhook_endpoints` row that signing needs. */
export interface SigningSecretsRow {
  id: string;
  secret_sealed: string | null;
  previous_secret_sealed: string | null;
  previous_expires_at: Date | string | null;
}

/**
 * For the delivery worker: the secrets a delivery at `now` is signed with, `[current]` or, within 24 hours
 * of a rotation, `[current, previous]` (Standard Webhooks: one signature per secret). `[]` for a deleted
 * endpoint's row. Throws when the server has no key (it cannot sign) or a ciphertext does not open.
 */
export async function endpointSigningSecrets(
  ctx: { config: CredentialsKeyConfig },
  endpointRow: SigningSecretsRow,
  now: Date,
): Promise<string[]> {
  if (endpointRow.secret_sealed === null) return [];
  const key = await credentialsKey(ctx.config);
  if (!key) throw new Error('webhook signing needs CREDENTIALS_ENCRYPTION_KEY');
  const secrets = [openWebhookSecret(key, endpointRow.id, endpointRow.secret_sealed)];
  if (endpointRow.previous_secret_sealed !== null && previousValid(endpointRow.previous_expires_at, now)) {
    secrets.push(openWebhookSecret(key, endpointRow.id, endpointRow.previous_secret_sealed));
  }
  return secrets;
}
