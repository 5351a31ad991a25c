import { mountOperations } from '../../http/mount.ts';
import type { HttpServer } from '../../http/server.ts';
import type { AppContext } from '../context.ts';
import { registerChangeDueDateRoute } from './change-due-date/route.ts';
import { registerCreateRoutes } from './create/route.ts';
import { registerTransactionEventRoutes } from './events/route.ts';
import { getRoutes } from './get/route.ts';
import { registerTransactionListRoutes } from './list/route.ts';
import { registerRefreshRoute } from './refresh/route.ts';
import { registerRefundRoute } from './refund/route.ts';
import { registerSimulateRoutes } from './simulate/route.ts';

/** One use case of a transaction: its folder under src/commands/transactions and the routes it registers. */
export interface TransactionSlice {
  readonly useCase: string;
  readonly register: (app: HttpServer, ctx: AppContext) => void;
}

/**
 * The transaction use cases (issue 13 item 9; DESIGN.md "Slices: one folder per use case"). Each folder
 * holds its handler and its route; this list is the only place that names them, so a new use case (card,
 * checkout, subscriptions) is a new folder and one line here. The order is the order of the routes in
 * `/openapi.json`. The reconciler's per-charge handling (./reconcile) has no route: src/workers drives it.
 */
export const TRANSACTION_SLICES: readonly TransactionSlice[] = [
  { useCase: 'create', register: registerCreateRoutes },
  { useCase: 'get', register: (app, ctx) => mountOperations(app, getRoutes, ctx) },
  { useCase: 'events', register: registerTransactionEventRoutes },
  { useCase: 'simulate', register: registerSimulateRoutes },
  { useCase: 'refresh', register: registerRefreshRoute },
  { useCase: 'refund', register: registerRefundRoute },
  { useCase: 'change-due-date', register: registerChangeDueDateRoute },
  { useCase: 'list', register: registerTransactionListRoutes },
];

export function registerTransactionRoutes(app: HttpServer, ctx: AppContext): void {
  for (const slice of TRANSACTION_SLICES) slice.register(app, ctx);
}
