import { ApiError } from '../../aggregates/errors.ts';
import {
  type WebhookEndpointFacts,
  type WebhookMode,
  webhookEndpoint,
} from '../../aggregates/webhook-endpoint.ts';
import type { Config } from '../../config.ts';
import { pick } from '../../pick.ts';
import type { CommandDeps } from '../command-handler.ts';
import type { AppContext } from '../context.ts';
import { foldExisting } from '../fold-stream.ts';
import type { SessionPrincipal } from '../principal.ts';
import { isInTree } from '../tenancy.ts';
import { previousSecretValid } from './secrets.ts';

/**
 * Webhook endpoints registered in the panel (SPEC 6; docs/decisions.md "Webhooks"): the endpoint as its
 * stream folds, and as the panel sees it. Roles are checked by the operations' access, the tenant tree here.
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
  const folded = await foldExisting(
    deps.store,
    (r) => deps.registry.decode(r),
    webhookEndpoint,
    webhookEndpointStream(endpointId),
  );
  if (folded?.state.status !== 'active') return undefined;
  const { status: _s, ...facts } = folded.state;
  return { facts, updatedAt: folded.updatedAt };
}

/** The endpoint if it exists and its tenant lies in the caller's tree; else 404 (ids are not confirmed). */
export async function loadWebhookEndpointInTree(
  ctx: AppContext,
  principal: SessionPrincipal,
  id: string,
): Promise<LoadedWebhookEndpoint> {
  const loaded = await loadWebhookEndpoint(webhookEndpointDeps(ctx), id);
  if (!loaded || !(await isInTree(ctx.db, principal, loaded.facts.tenantId))) {
    throw new ApiError('not_found', 'The webhook endpoint does not exist.');
  }
  return loaded;
}

export function webhookEndpointView(loaded: LoadedWebhookEndpoint, now: Date): WebhookEndpointView {
  const f = loaded.facts;
  return {
    id: f.endpointId,
    tenant_id: f.tenantId,
    ...pick(f, 'url', 'mode', 'enabled'),
    disabled_reason: f.disabledReason,
    previous_secret_expires_at:
      f.previousSecretSealed !== null && previousSecretValid(f.previousExpiresAt, now)
        ? f.previousExpiresAt
        : null,
    created_at: f.createdAt,
    updated_at: loaded.updatedAt.toISOString(),
  };
}

/** The view of an endpoint a command just wrote (it must exist: the command succeeded). */
export async function mustLoad(deps: WebhookEndpointDeps, endpointId: string): Promise<WebhookEndpointView> {
  const loaded = await loadWebhookEndpoint(deps, endpointId);
  if (!loaded) throw new Error(`webhook endpoint ${endpointId} missing after a command`);
  return webhookEndpointView(loaded, deps.now());
}
