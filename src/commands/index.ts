import { EventRegistry } from '../events/event-registry.ts';
import type { Projection } from '../events/projection.ts';
import { createAuditProjection } from '../projections/audit.ts';
import { streamCatalog } from '../projections/stream-catalog.ts';
import { apiKeysFeature } from './api-keys/feature.ts';
import { auditFeature } from './audit/feature.ts';
import { checkoutsFeature } from './checkouts/feature.ts';
import { costCentersFeature } from './cost-centers/feature.ts';
import { creditCardFeature } from './credit-card/feature.ts';
import type { Feature, MountedOperation } from './feature.ts';
import { feeSchedulesFeature } from './fee-schedules/feature.ts';
import type { Job } from './job.ts';
import { notificationsFeature } from './notifications/feature.ts';
import { paymentSettingsFeature } from './payment-settings/feature.ts';
import { pixAutomaticFeature } from './pix-automatic/feature.ts';
import { providersFeature } from './providers/feature.ts';
import { routingRulesFeature } from './routing-rules/feature.ts';
import { sessionsFeature } from './sessions/feature.ts';
import { subaccountsFeature } from './subaccounts/feature.ts';
import { subscriptionsFeature } from './subscriptions/feature.ts';
import { subtenantsFeature } from './subtenants/feature.ts';
import { summaryFeature } from './summary/feature.ts';
import { tenantsFeature } from './tenants/feature.ts';
import { testClocksFeature } from './test-clocks/feature.ts';
import { transactionsFeature } from './transactions/feature.ts';
import { usersFeature } from './users/feature.ts';
import { webhookDeliveriesFeature } from './webhook-deliveries/feature.ts';
import { webhookEndpointsFeature } from './webhook-endpoints/feature.ts';

/**
 * Every feature of the gateway, the only list (DESIGN.md "Feature modules"): the event registry, the
 * projection lists, the mounted routes (their order is /openapi.json's), the audit action names and the
 * job runner's jobs all come from it. A new feature is its own folders plus one line here (and a
 * migration). Explicit and ordered, never discovered from the file system. Order matters twice: routes are
 * documented in this order, and inline projections run in it (the webhook endpoints before the
 * transactions' outbox, which sends a charge's messages to the endpoints registered before its event).
 */
export const FEATURES: readonly Feature[] = [
  sessionsFeature,
  providersFeature,
  routingRulesFeature,
  feeSchedulesFeature,
  paymentSettingsFeature,
  auditFeature,
  summaryFeature,
  notificationsFeature,
  apiKeysFeature,
  tenantsFeature,
  usersFeature,
  costCentersFeature,
  subtenantsFeature,
  webhookEndpointsFeature,
  webhookDeliveriesFeature,
  transactionsFeature,
  creditCardFeature,
  checkoutsFeature,
  subscriptionsFeature,
  pixAutomaticFeature,
  testClocksFeature,
  subaccountsFeature,
];

/** Every domain event type the gateway writes, with its schema, upcasters and audit action name. */
export const domainEvents = FEATURES.flatMap((f) => f.events);

export function createEventRegistry(): EventRegistry {
  return new EventRegistry(domainEvents);
}

/**
 * The audit log reads every feature's events and names each entry's action as its event's definition
 * does (docs/audit-actions.md): made here, from the whole list, rather than in the audit feature.
 */
export const auditProjection = createAuditProjection((type) => createEventRegistry().auditAction(type));

/**
 * Read models that API reads must see at once: applied inside the append's transaction (PostgreSQL store).
 * Under EventStoreDB they run async like the rest.
 */
export const inlineProjections: readonly Projection[] = FEATURES.flatMap((f) => f.projections.inline ?? []);

/** Read models that may trail the log: the stream catalog and the audit log (every event), summaries. */
export const asyncProjections: readonly Projection[] = [
  streamCatalog,
  auditProjection,
  ...FEATURES.flatMap((f) => f.projections.async ?? []),
];

export const allProjections: readonly Projection[] = [...inlineProjections, ...asyncProjections];

/**
 * Reference data requests read before they decide: authentication and login (tenants and their suspension,
 * keys, users, sessions) and charge routing (providers, rules). With async projections every request
 * first waits for these to reach the log's head (src/app.ts `referenceReadsCaughtUp`).
 */
export const referenceProjections: readonly Projection[] = FEATURES.flatMap(
  (f) => f.projections.reference ?? [],
);

/** Every bound operation, in FEATURES order, under its own tag or its feature's: what src/http mounts. */
export const routes: readonly MountedOperation[] = FEATURES.flatMap((f) =>
  f.routes.map((route) => ({ ...route, tag: route.operation.tag ?? f.tag })),
);

/** Every feature's clock-driven work: what the job runner runs. */
export const jobs: readonly Job[] = FEATURES.flatMap((f) => f.jobs ?? []);
