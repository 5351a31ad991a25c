import type { FastifyRequest } from 'fastify';
import { ApiError } from '../../../aggregates/errors.ts';
import { dataEnvelope, errorResponses, idParams } from '../../../contract/envelopes.ts';
import { simulateBody } from '../../../contract/transactions.ts';
import { apiKeyPrincipal, sessionPrincipal } from '../../../http/auth.ts';
import { eventMetadata } from '../../../http/request-metadata.ts';
import type { HttpServer } from '../../../http/server.ts';
import type { AppContext } from '../../context.ts';
import { simulatorEnabled } from '../../providers/bootstrap-simulator.ts';
import { requireTenantInTree } from '../../tenancy.ts';
import { type TransactionRow, transactionRouteHelpers } from '../shared/route-helpers.ts';
import { findTransactionRow, transactionView } from '../view.ts';
import { simulateTransaction } from './handler.ts';

/**
 * `POST /v1/transactions/{id}/simulate` and the panel's `POST /admin/transactions/{id}/simulate` (SPEC 3.1,
 * 4.7): the decider's `simulate_paid` / `simulate_expired` (409 simulation_not_allowed unless a pending
 * simulated charge). A live key is refused with 409 simulation_not_allowed before the transaction is read
 * ("Test key only"); ENABLE_SIMULATOR off is 422 simulator_disabled. The public route needs
 * `transactions:read` plus the method's write scope; a descendant's charge is 403 forbidden (SPEC 5.5).
 */
export function registerSimulateRoutes(app: HttpServer, ctx: AppContext): void {
  const { deps, currentView, requireMethodScope, ownTransaction } = transactionRouteHelpers(ctx);

  const simulate = async (request: FastifyRequest, row: TransactionRow, status: 'paid' | 'expired') => {
    if (!simulatorEnabled(ctx.config)) throw new ApiError('simulator_disabled');
    await simulateTransaction(deps(), row.id, status, eventMetadata(request));
    return { data: await currentView(row.id) };
  };

  const simulateSchema = (operationId: string, summary: string, description: string) => ({
    operationId,
    summary,
    description,
    params: idParams,
    body: simulateBody,
    response: { 200: dataEnvelope(transactionView), ...errorResponses(400, 401, 403, 404, 409, 422, 429) },
  });

  app.post(
    '/v1/transactions/:id/simulate',
    {
      config: { access: { auth: 'api_key', scopes: ['transactions:read'], notForDeveloperKeys: true } },
      schema: simulateSchema(
        'simulateTransaction',
        'Simulate the outcome of a test transaction',
        'Test key only (a live key: 409 simulation_not_allowed). Scopes transactions:read plus the method write scope. Only a pending simulated transaction (else 409 simulation_not_allowed); ENABLE_SIMULATOR off: 422 simulator_disabled.',
      ),
    },
    async (request) => {
      const principal = apiKeyPrincipal(request);
      if (principal.livemode) {
        throw new ApiError(
          'simulation_not_allowed',
          'Only a test key can simulate a payment; a production charge is paid by its payer.',
        );
      }
      // SPEC 5.5: simulating changes stored state, so a descendant's charge is 403 like refund.
      const { row } = await ownTransaction(request);
      requireMethodScope(request, row);
      return simulate(request, row, request.body.status);
    },
  );

  app.post(
    '/admin/transactions/:id/simulate',
    {
      config: { access: { auth: 'session', roles: ['super_admin', 'tenant_admin'] } },
      schema: simulateSchema(
        'simulatePanelTransaction',
        'Simulate the outcome of a simulated transaction (panel)',
        'Marks a pending simulated charge paid or expired, as a test key can. super_admin (global) or tenant_admin (own tree); viewer 403 forbidden; outside the tree 404.',
      ),
    },
    async (request) => {
      const principal = sessionPrincipal(request);
      const row = await findTransactionRow(ctx, request.params.id);
      if (!row) throw new ApiError('not_found', 'The transaction does not exist.');
      await requireTenantInTree(ctx.db, principal, row.tenant_id);
      return simulate(request, row, request.body.status);
    },
  );
}
