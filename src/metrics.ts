import { Counter, collectDefaultMetrics, Gauge, Registry } from 'prom-client';

/** One registry per process, served at GET /metrics. */
export const metrics = new Registry();
collectDefaultMetrics({ register: metrics, prefix: 'calebe_' });

/**
 * Age of the oldest event an async projection has not applied yet (0 when caught up). Cheap to compute
 * from the batch being read, unlike an exact count of pending events.
 */
export const projectionLagSeconds = new Gauge({
  name: 'calebe_projection_lag_seconds',
  help: 'Seconds between now and the oldest event not yet applied by the projection (0 when caught up)',
  labelNames: ['projection'] as const,
  registers: [metrics],
});

export const projectionPosition = new Gauge({
  name: 'calebe_projection_position',
  help: 'Global position of the last event applied by the projection',
  labelNames: ['projection'] as const,
  registers: [metrics],
});

/** Charges the reconciler turned from `processing` into `unknown` (src/commands/transactions/reconcile/job.ts). */
export const reconcilerMarkedUnknown = new Counter({
  name: 'calebe_reconciler_marked_unknown_total',
  help: 'Charges left processing past RECONCILE_AFTER_SECONDS that the reconciler marked unknown',
  registers: [metrics],
});

/** Webhook delivery attempts by outcome (src/workers/webhook-delivery.ts). */
export const webhookAttempts = new Counter({
  name: 'calebe_webhook_attempts_total',
  help: 'Webhook delivery attempts by outcome: delivered, failed, gone (410) or refused (SSRF guard)',
  labelNames: ['outcome'] as const,
  registers: [metrics],
});
