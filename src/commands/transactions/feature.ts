import { transactionEvents } from '../../aggregates/transaction.ts';
import { refundVaultProjection } from '../../projections/refund-vault.ts';
import { transactionsProjection } from '../../projections/transactions.ts';
import { webhookOutboxProjection } from '../../projections/webhook-outbox.ts';
import type { Feature } from '../feature.ts';
import { changeDueDateRoutes } from './change-due-date/route.ts';
import { createRoutes } from './create/route.ts';
import { eventsRoutes } from './events/route.ts';
import { getRoutes } from './get/route.ts';
import { transactionJobs } from './jobs.ts';
import { listRoutes } from './list/route.ts';
import { refreshRoutes } from './refresh/route.ts';
import { refundRoutes } from './refund/route.ts';
import { refundQueueRoutes } from './refund-queue/route.ts';
import { simulateRoutes } from './simulate/route.ts';

/**
 * Charges (issue 13 item 9; DESIGN.md "Feature modules"): one folder per use case, each with its route and,
 * where something is decided, its handler. The routes are listed here, in the order of `/openapi.json`, so
 * a new use case (card, checkout, subscriptions) is a new folder and one line. The panel's refund queue
 * follows the charge's own routes. The reconciler and the pending-change settler have no route: they are
 * jobs (./jobs.ts).
 */
export const transactionsFeature: Feature = {
  name: 'transactions',
  tag: 'Transactions',
  events: transactionEvents,
  projections: {
    // The webhook outbox fans each status out to the tenant's endpoints (the webhook-endpoints feature comes
    // first in FEATURES): inline it reads the row the transactions projection writes in the same statement,
    // so it comes right after it. A refund that ends destroys its bank account's key in the same transaction.
    inline: [transactionsProjection, webhookOutboxProjection, refundVaultProjection],
  },
  routes: [
    ...createRoutes,
    ...getRoutes,
    ...eventsRoutes,
    ...simulateRoutes,
    ...refreshRoutes,
    ...refundRoutes,
    ...changeDueDateRoutes,
    ...listRoutes,
    ...refundQueueRoutes,
  ],
  jobs: transactionJobs,
};
