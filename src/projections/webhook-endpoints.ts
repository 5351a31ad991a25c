import { type WebhookEndpointEvent, webhookEndpointEvents } from '../aggregates/webhook-endpoint.ts';
import { decodedProjection } from './decoded-projection.ts';
import { type RowChanges, updateInOrder } from './update-in-order.ts';

type Changes = RowChanges<'webhook_endpoints'>;

/** The columns an event other than the registration sets. */
function changesOf(
  event: Exclude<WebhookEndpointEvent, { type: 'WebhookEndpoint.Registered' }>,
  at: Date,
): Changes {
  switch (event.type) {
    case 'WebhookEndpoint.Updated': {
      const d = event.data;
      return {
        ...(d.url !== undefined ? { url: d.url } : {}),
        ...(d.enabled !== undefined
          ? { enabled: d.enabled, disabled_reason: d.enabled ? null : 'panel' }
          : {}),
      };
    }
    case 'WebhookEndpoint.SecretRotated':
      return {
        secret_sealed: event.data.secret_sealed,
        previous_secret_sealed: event.data.previous_secret_sealed,
        previous_expires_at: event.data.previous_expires_at,
      };
    case 'WebhookEndpoint.Disabled':
      return { enabled: false, disabled_reason: event.data.reason };
    case 'WebhookEndpoint.Deleted':
      // A tombstone: the row stays (its `sequence` keeps replays idempotent) without its secrets.
      return { enabled: false, secret_sealed: null, previous_secret_sealed: null, deleted_at: at };
  }
}

/**
 * The `webhook_endpoints` read model (SPEC 6): panel lists, and the enabled endpoints of a tenant and mode
 * for the delivery fan-out. Inline, so a registered or disabled endpoint is seen at once. `sequence` is the
 * stream version of the last applied event; updates are conditioned on it (`sequence < version`), so
 * replaying an event changes nothing. Times come from the events (`created_at` in the registration, the
 * recorded time of the last event as `updated_at`), so a rebuild reproduces them.
 */
export const webhookEndpointsProjection = decodedProjection({
  name: 'webhook_endpoints',
  definitions: webhookEndpointEvents,
  tables: ['webhook_endpoints'],

  async apply(event, at, trx, recorded) {
    if (event.type === 'WebhookEndpoint.Registered') {
      const d = event.data;
      await trx
        .insertInto('webhook_endpoints')
        .values({
          id: d.endpoint_id,
          tenant_id: d.tenant_id,
          url: d.url,
          mode: d.mode,
          enabled: d.enabled,
          disabled_reason: d.enabled ? null : 'panel',
          secret_sealed: d.secret_sealed,
          previous_secret_sealed: null,
          previous_expires_at: null,
          sequence: recorded.version,
          // The decided instant, as GET by id shows it.
          created_at: d.created_at,
          updated_at: at,
          deleted_at: null,
        })
        .onConflict((oc) => oc.column('id').doNothing())
        .execute();
      return;
    }
    await updateInOrder(trx, 'webhook_endpoints', recorded, event.data.endpoint_id, changesOf(event, at));
  },
});
