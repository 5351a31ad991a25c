import * as apiKeys from './api-keys.ts';
import * as audit from './audit.ts';
import * as checkouts from './checkouts.ts';
import * as costCenters from './cost-centers.ts';
import * as creditCard from './credit-card.ts';
import * as feeSchedules from './fee-schedules.ts';
import * as notifications from './notifications.ts';
import * as paymentSettings from './payment-settings.ts';
import * as pixAutomatic from './pix-automatic.ts';
import * as providers from './providers.ts';
import * as routingRules from './routing-rules.ts';
import * as sessions from './sessions.ts';
import * as subaccounts from './subaccounts.ts';
import * as subscriptions from './subscriptions.ts';
import * as subtenants from './subtenants.ts';
import * as summary from './summary.ts';
import * as tenants from './tenants.ts';
import * as testClocks from './test-clocks.ts';
import * as transactions from './transactions.ts';
import * as users from './users.ts';
import * as webhookDeliveries from './webhook-deliveries.ts';
import * as webhookEndpoints from './webhook-endpoints.ts';

/**
 * Every module of contract operations, in FEATURES order (src/commands/index.ts): a list of modules, not of
 * operations, so an operation a module adds needs no line here. The SDK derives its methods from the
 * operations they export (sdk/src/operations.ts); the server mounts the same objects through FEATURES.
 */
export const OPERATION_MODULES = [
  sessions,
  providers,
  routingRules,
  feeSchedules,
  paymentSettings,
  audit,
  summary,
  notifications,
  apiKeys,
  tenants,
  users,
  costCenters,
  subtenants,
  webhookEndpoints,
  webhookDeliveries,
  transactions,
  creditCard,
  checkouts,
  subscriptions,
  pixAutomatic,
  testClocks,
  subaccounts,
] as const;
