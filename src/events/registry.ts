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
import { EventRegistry } from './event-registry.ts';

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
