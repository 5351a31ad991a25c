import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { type TransactionCommand, transaction } from '../../../aggregates/transaction.ts';
import { policyOf } from '../../../aggregates/transaction-policies/index.ts';
import { requireTenantInTree } from '../../../http/admin-scope.ts';
import { apiKeyPrincipal, idempotencyKeyOf, requireScopes, sessionPrincipal } from '../../../http/auth.ts';
import type { AppContext } from '../../../http/context.ts';
import { dueDateBody, refundBody, simulateBody } from '../../../http/contract/transactions.ts';
import { ApiError } from '../../../http/errors.ts';
import { eventMetadata } from '../../../http/request-metadata.ts';
import { dataEnvelope, errorResponses, IDEMPOTENCY_REPLAYED, idParams } from '../../../http/schemas.ts';
import type { HttpServer } from '../../../http/server.ts';
import {
  findTransactionRow,
  readableTransaction,
  type TransactionView,
  toTransactionView,
  transactionView,
} from '../../../http/transaction-dto.ts';
import { simulatorEnabled } from '../../../routing/simulator.ts';
import { type CommandDeps, handleCommand } from '../../command-handler.ts';
import { foldStream } from '../../fold-stream.ts';
import { transactionStream } from '../create/handler.ts';
import {
  type ChangeContext,
  type ChangeOutcome,
  changeBoletoDueDate,
  refundTransaction,
} from '../shared/idempotent-change.ts';
import { refreshAtProvider } from './handler.ts';

type Row = NonNullable<Awaited<ReturnType<typeof findTransactionRow>>>;

/**
 * Transaction actions (SPEC 3.1, 4.6, 4.7, 5.3, 5.4; docs/decisions.md "Charges"):
 *
 * - `POST /v1/transactions/{id}/simulate` and the panel's `POST /admin/transactions/{id}/simulate`: the
 *   decider's `simulate_paid` / `simulate_expired` (409 simulation_not_allowed unless a pending simulated
 *   charge). A live key is refused with 409 simulation_not_allowed before the transaction is read ("Test key
 *   only"); ENABLE_SIMULATOR off is 422 simulator_disabled.
 * - `POST /v1/transactions/{id}/refresh`: on the simulator, a Pix past `expires_at` becomes `expired`
 *   (`refresh_expired` with source `deadline`, conditioned on the status read); anything else is answered
 *   unchanged. A charge of the external provider is queried through the port (./handler.ts); a failed or diverging query is 502 provider_refresh_failed with
 *   `error.transaction_id` and its diagnostics, state kept. Never creates a charge.
 *
 * Public routes: `transactions:read` (route config) plus the method's write scope, checked once the
 * transaction is loaded; developer keys are refused (SPEC 5.4); another tree or mode is 404; every one of
 * them writes, so a descendant's charge is 403 forbidden (SPEC 5.5).
 */
export function registerTransactionActionRoutes(app: HttpServer, ctx: AppContext): void {
  const deps = (): CommandDeps => ({ store: ctx.store, registry: ctx.events, now: () => ctx.now() });

  const decide = async (request: FastifyRequest, row: Row, command: TransactionCommand) => {
    await handleCommand(deps(), transaction, transactionStream(row.id), command, {
      metadata: eventMetadata(request),
      // Nothing outside the stream was consulted; refresh results carry `observedStatus`, so a re-decision
      // after a concurrent append drops a stale result instead of overwriting a newer state.
      retryOnConflict: true,
    });
  };

  const currentView = async (id: string): Promise<TransactionView> => {
    const row = await findTransactionRow(ctx, id);
    if (!row) throw new Error(`transaction ${id} missing from its stream`);
    return toTransactionView(ctx, row);
  };

  const requireMethodScope = (request: FastifyRequest, row: Row) => {
    const principal = apiKeyPrincipal(request);
    // A stored method without a policy yet (credit_card rows) keeps its own scope.
    const policy = row.method === 'credit_card' ? null : policyOf(row.method);
    requireScopes(principal, [policy?.writeScope ?? 'credit_card:write']);
  };

  const simulate = async (request: FastifyRequest, row: Row, status: 'paid' | 'expired') => {
    if (!simulatorEnabled(ctx.config)) throw new ApiError('simulator_disabled');
    await decide(request, row, { kind: status === 'paid' ? 'simulate_paid' : 'simulate_expired' });
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
        'SPEC 4.7. Test key only (a live key: 409 simulation_not_allowed). Scopes transactions:read plus the method write scope. Only a pending simulated transaction (else 409 simulation_not_allowed); ENABLE_SIMULATOR off: 422 simulator_disabled.',
      ),
    },
    async (request) => {
      const principal = apiKeyPrincipal(request);
      if (principal.livemode) {
        throw new ApiError('simulation_not_allowed', 'Only a test key can simulate (SPEC 4.7).');
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
        'SPEC 3.1, 4.7. super_admin (global) or tenant_admin (own tree); viewer 403 forbidden; outside the tree 404.',
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

  app.post(
    '/v1/transactions/:id/refresh',
    {
      config: { access: { auth: 'api_key', scopes: ['transactions:read'], notForDeveloperKeys: true } },
      schema: {
        operationId: 'refreshTransaction',
        summary: 'Refresh a transaction from its provider',
        description:
          'SPEC 3.1, 4.6. No body. Scopes transactions:read plus the method write scope. Simulator: a Pix past its deadline becomes expired, otherwise 200 unchanged; final states never reopen; `unknown` without provider_reference: 409 reconciliation_required. External provider: queried by its external id (a boleto and its Pix are one provider transaction: one read checks both; a slow boleto Pix is filled by a later read, never emitted again; a boleto paid by both is paid_with boleto with duplicate_payment_at, and its Pix is refunded automatically, once); id, exact amount and internal reference must match, else 502 provider_refresh_failed with error.transaction_id and the diagnostics of that query, state kept. `unknown` without provider_reference: the provider is asked by reference; exactly one charge of the same amount gives its id and status (200, also when only the id could be applied: the read is retried in the background); none, several or no answer: 409 reconciliation_required, state kept. Concurrent refreshes never overwrite a newer confirmation. Production needs the production control (403, 503). Never creates a charge.',
        params: idParams,
        response: {
          200: dataEnvelope(transactionView),
          ...errorResponses(401, 403, 404, 409, 429, 502, 503),
        },
      },
    },
    async (request) => {
      // SPEC 5.5: a refresh persists state, so a descendant's charge is 403 like refund.
      const { row } = await ownTransaction(request);
      requireMethodScope(request, row);
      const noExternalId = () =>
        new ApiError(
          'reconciliation_required',
          'The charge has no external id to query; reconcile it before refreshing.',
          { transaction_id: row.id },
        );
      if (!row.simulated) {
        const state = await foldStream(deps(), transaction, transactionStream(row.id));
        if (state.status === 'none') throw noExternalId();
        // SPEC 3.1, 4.6: by external id, or for `unknown` without it by the provider's query by reference.
        const outcome = await refreshAtProvider(
          { deps: deps(), config: ctx.config },
          state,
          eventMetadata(request),
        );
        if (outcome.kind === 'reconciliation_required') throw noExternalId();
        if (outcome.kind === 'failed') {
          // SPEC 4.6, 7: this query's diagnostics, direct in `error`; stored state and diagnostics kept.
          throw new ApiError(
            'provider_refresh_failed',
            'The provider query failed or diverged; local state kept.',
            { transaction_id: row.id, ...outcome.diagnostics },
          );
        }
        // `partial`: the id found by reference applied, its read failed; SPEC 3.1 answers 200 with what
        // applied, and the reconciler retries the read in the background.
        return { data: await currentView(row.id) };
      }
      if (row.status === 'unknown' && row.provider_reference === null) throw noExternalId();
      const open = row.status === 'pending' || row.status === 'unknown';
      const deadline = row.expires_at === null ? null : new Date(row.expires_at).getTime();
      const expires = row.method !== 'credit_card' && policyOf(row.method).deadlineExpires;
      if (open && expires && deadline !== null && ctx.now().getTime() > deadline) {
        await decide(request, row, {
          kind: 'refresh_expired',
          source: 'deadline',
          providerReference: row.provider_reference,
          observedStatus: row.status,
        });
      }
      return { data: await currentView(row.id) };
    },
  );

  const changeContext = (): ChangeContext => ({ deps: deps(), config: ctx.config, adapters: ctx });

  /**
   * SPEC 4.8 answers of a change sent to the provider: confirmed 200, uncertain 202 (refund.status
   * `pending`, or a date change awaiting confirmation; ask again or wait for the reconciler), refused 502
   * provider_rejected with `error.transaction_id` and that answer's diagnostics, the charge's state kept.
   */
  const changeAnswer = async (id: string, outcome: ChangeOutcome, reply: FastifyReply) => {
    if (outcome.result.kind === 'refused') {
      throw new ApiError('provider_rejected', 'The provider refused the operation; local state kept.', {
        transaction_id: id,
        ...outcome.result.diagnostics,
      });
    }
    if (outcome.replayed) reply.header(IDEMPOTENCY_REPLAYED, 'true');
    if (outcome.result.kind === 'pending') reply.code(202);
    return { data: await currentView(id) };
  };

  /** SPEC 5.5: a key reads its descendants' charges but writes only for its own tenant. */
  const ownTransaction = async (request: FastifyRequest) => {
    const principal = apiKeyPrincipal(request);
    const row = await readableTransaction(ctx, principal, (request.params as { id: string }).id);
    if (row.tenant_id !== principal.tenantId) {
      throw new ApiError(
        'forbidden',
        "The transaction belongs to a descendant tenant; use that tenant's key.",
      );
    }
    return { principal, row };
  };

  app.post(
    '/v1/transactions/:id/refund',
    {
      config: { access: { auth: 'api_key', scopes: ['transactions:read'], idempotencyKey: true } },
      schema: {
        operationId: 'refundTransaction',
        summary: 'Refund a paid transaction in full',
        description:
          "SPEC 3.1, 4.8. Requires Idempotency-Key (tenant scope, like creations). Scopes transactions:read plus the method write scope. Integral refund of a paid charge through its provider: 200 `refunded` with `refund.status` `succeeded`. A boleto paid by boleto needs `bank_account` (passed to the provider, never stored); anything else is refunded by Pix (sending `bank_account` is 422). The provider refuses: 502 provider_rejected with error.transaction_id and that answer's diagnostics, the charge stays paid with `refund.status` `failed`. The answer is uncertain: 202, still paid, `refund.status` `pending`; asking again (any key) or the reconciler reads the provider first and never refunds twice. An unpaid charge is 409 conflict; a refunded one answers 200 unchanged. Replays: 200 with `Idempotency-Replayed: true`. A descendant tenant's charge: 403 forbidden.",
        params: idParams,
        body: refundBody,
        response: {
          200: dataEnvelope(transactionView),
          202: dataEnvelope(transactionView),
          ...errorResponses(400, 401, 403, 404, 409, 422, 429, 502),
        },
      },
    },
    async (request, reply) => {
      const { principal, row } = await ownTransaction(request);
      requireMethodScope(request, row);
      const bank = request.body?.bank_account;
      const outcome = await refundTransaction(
        changeContext(),
        {
          scope: principal.tenantId,
          livemode: principal.livemode,
          key: idempotencyKeyOf(request),
          route: '/v1/transactions/{id}/refund',
          transactionId: row.id,
          body: bank ? { bank_account: bank } : {},
          bankAccount: bank ?? null,
        },
        eventMetadata(request),
      );
      return changeAnswer(row.id, outcome, reply);
    },
  );

  app.patch(
    '/v1/transactions/:id/boleto',
    {
      config: {
        access: { auth: 'api_key', scopes: ['transactions:read', 'boleto:write'], idempotencyKey: true },
      },
      schema: {
        operationId: 'updateBoletoDueDate',
        summary: 'Change the due date of an open boleto',
        description:
          "SPEC 4.8. Requires Idempotency-Key. Scopes transactions:read plus boleto:write. Only a pending boleto (else 409 conflict); the date must be today to today+365 in America/Sao_Paulo (422 validation_error); the same date answers 200 unchanged. No new charge. Sent with the provider's change command: 200 with the new `boleto_due_date`, line, barcode and `boleto_pix_expires_at`; a simulated boleto with `cancel_after_due` gets its new `expires_at`. The provider refuses: 502 provider_rejected with error.transaction_id and diagnostics, date kept. The answer is uncertain: 202 with the date unchanged; asking again with the same date (any key) or the reconciler reads the provider first and never changes it twice; another date meanwhile is 409 conflict. Replays: 200 with `Idempotency-Replayed: true`.",
        params: idParams,
        body: dueDateBody,
        response: {
          200: dataEnvelope(transactionView),
          202: dataEnvelope(transactionView),
          ...errorResponses(400, 401, 403, 404, 409, 422, 429, 502),
        },
      },
    },
    async (request, reply) => {
      const { principal, row } = await ownTransaction(request);
      const outcome = await changeBoletoDueDate(
        changeContext(),
        {
          scope: principal.tenantId,
          livemode: principal.livemode,
          key: idempotencyKeyOf(request),
          route: '/v1/transactions/{id}/boleto',
          transactionId: row.id,
          body: { due_date: request.body.due_date },
          dueDate: request.body.due_date,
        },
        eventMetadata(request),
      );
      return changeAnswer(row.id, outcome, reply);
    },
  );
}
