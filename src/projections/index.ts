import type { Projection } from '../events/projection.ts';
import { apiKeysProjection } from './api-keys.ts';
import { auditProjection } from './audit.ts';
import { costCentersProjection } from './cost-centers.ts';
import { providersProjection } from './providers.ts';
import { refundVaultProjection } from './refund-vault.ts';
import { routingRulesProjection } from './routing-rules.ts';
import { sessionsProjection } from './sessions.ts';
import { streamCatalog } from './stream-catalog.ts';
import { summaryProjection } from './summary.ts';
import { tenantsProjection } from './tenants.ts';
import { transactionsProjection } from './transactions.ts';
import { usersProjection } from './users.ts';
import { webhookEndpointsProjection } from './webhook-endpoints.ts';
import { webhookOutboxProjection } from './webhook-outbox.ts';

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
