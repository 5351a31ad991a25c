import { apiKeyEvents } from '../aggregates/api-key.ts';
import { costCenterEvents } from '../aggregates/cost-center.ts';
import { paymentSettingsEvents } from '../aggregates/payment-settings.ts';
import { providerEvents } from '../aggregates/provider.ts';
import { routingRuleEvents } from '../aggregates/routing-rule.ts';
import { sessionEvents } from '../aggregates/session.ts';
import { tenantEvents } from '../aggregates/tenant.ts';
import { tenantTypeEvents } from '../aggregates/tenant-type.ts';
import { transactionEvents } from '../aggregates/transaction.ts';
import { userEvents } from '../aggregates/user.ts';
import { webhookEndpointEvents } from '../aggregates/webhook-endpoint.ts';
import { EventRegistry } from '../events/event-registry.ts';
import type { Projection } from '../events/projection.ts';
import { apiKeysProjection } from '../projections/api-keys.ts';
import { createAuditProjection } from '../projections/audit.ts';
import { costCentersProjection } from '../projections/cost-centers.ts';
import { providersProjection } from '../projections/providers.ts';
import { refundVaultProjection } from '../projections/refund-vault.ts';
import { routingRulesProjection } from '../projections/routing-rules.ts';
import { sessionsProjection } from '../projections/sessions.ts';
import { streamCatalog } from '../projections/stream-catalog.ts';
import { summaryProjection } from '../projections/summary.ts';
import { tenantsProjection } from '../projections/tenants.ts';
import { transactionsProjection } from '../projections/transactions.ts';
import { usersProjection } from '../projections/users.ts';
import { webhookEndpointsProjection } from '../projections/webhook-endpoints.ts';
import { webhookOutboxProjection } from '../projections/webhook-outbox.ts';

/** Every domain event type the gateway writes, with its schema and upcasters. */
export const domainEvents = [
  ...userEvents,
  ...sessionEvents,
  ...tenantTypeEvents,
  ...tenantEvents,
  ...apiKeyEvents,
  ...providerEvents,
  ...routingRuleEvents,
  ...paymentSettingsEvents,
  ...transactionEvents,
  ...costCenterEvents,
  ...webhookEndpointEvents,
];

export function createEventRegistry(): EventRegistry {
  return new EventRegistry(domainEvents);
}

/** The audit log names each entry's action as its event's definition does (docs/audit-actions.md). */
export const auditProjection = createAuditProjection((type) => createEventRegistry().auditAction(type));

/**
 * Read models that API reads must see at once: applied inside the append's transaction (PostgreSQL store).
 * Under EventStoreDB they run async like the rest.
 */
export const inlineProjections: readonly Projection[] = [
  tenantsProjection,
  apiKeysProjection,
  usersProjection,
  sessionsProjection,
  providersProjection,
  routingRulesProjection,
  transactionsProjection,
  costCentersProjection,
  webhookEndpointsProjection,
  // After the endpoints: a charge's deliveries go to the endpoints registered before its event.
  webhookOutboxProjection,
  // A refund that ends destroys its bank account's key in the same transaction (issue 22 item 4.4).
  refundVaultProjection,
];

/** Read models that may trail the log: summaries, catalogs, fan-out. */
export const asyncProjections: readonly Projection[] = [streamCatalog, auditProjection, summaryProjection];

export const allProjections: readonly Projection[] = [...inlineProjections, ...asyncProjections];

/**
 * Reference data requests read before they decide: authentication and login (tenants and their suspension,
 * keys, users, sessions) and charge routing (providers, rules). With async projections every request
 * first waits for these to reach the log's head (src/app.ts `referenceReadsCaughtUp`).
 */
export const referenceProjections: readonly Projection[] = [
  tenantsProjection,
  apiKeysProjection,
  usersProjection,
  sessionsProjection,
  providersProjection,
  routingRulesProjection,
];
