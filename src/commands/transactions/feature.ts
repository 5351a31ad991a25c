import { transactionEvents } from '../../aggregates/transaction.ts';
import { refundVaultProjection } from '../../projections/refund-vault.ts';
import { transactionsProjection } from '../../projections/transactions.ts';
import type { Feature } from '../feature.ts';
import { changeDueDateRoutes } from './change-due-date/route.ts';
import { createRoutes } from './create/route.ts';
import { eventsRoutes } from './events/route.ts';
import { getRoutes } from './get/route.ts';
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
  events: transactionEvents,
  projections: {
    inline: [transactionsProjection, refundVaultProjection],
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
};
