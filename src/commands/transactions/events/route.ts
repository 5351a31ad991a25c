import { z } from 'zod';
import { ApiError } from '../../../aggregates/errors.ts';
import type { TransactionEvent } from '../../../aggregates/transaction.ts';
import { dataEnvelope, errorResponses, idParams } from '../../../contract/envelopes.ts';
import { transactionEvent } from '../../../contract/transactions.ts';
import { sessionPrincipal } from '../../../http/auth.ts';
import type { HttpServer } from '../../../http/server.ts';
import type { AppContext } from '../../context.ts';
import { requireTenantInTree } from '../../tenancy.ts';
import {
  foldTransaction,
  transactionEventDataFor,
  transactionRequestDataFor,
  transactionRequestView,
} from '../view.ts';

/**
 * `GET /admin/transactions/{id}/events` (issue 5 item 10): the auditor's history of one charge, read from
 * its stream (the record), not from a read model, in stream order. Every panel role may read it for a
 * transaction of its tree (SPEC 5.7 "Read transactions"); outside the tree, or unknown: 404. Issue 23 item
 * 2.10: each role sees the fields its transaction reads show (seesPayerData): a viewer's history and
 * snapshot carry no payer personal data.
 */
export function registerTransactionEventRoutes(app: HttpServer, ctx: AppContext): void {
  app.get(
    '/admin/transactions/:id/events',
    {
      config: { access: { auth: 'session', roles: ['super_admin', 'tenant_admin', 'viewer'] } },
      schema: {
        operationId: 'listPanelTransactionEvents',
        summary: "Read a transaction's events",
        description:
          "Every event of the charge in stream order, with its type, payload, actor, request id and time. super_admin any transaction; tenant_admin and viewer their own tree. A viewer sees the fields its transaction reads show: Transaction.Reserved without the payer's personal data (`request.customer` and `provider_request` null) and refund requests without the bank account's reference.",
        params: idParams,
        response: {
          200: dataEnvelope(z.array(transactionEvent)),
          ...errorResponses(401, 403, 404, 422, 429),
        },
      },
    },
    async (request) => {
      const principal = sessionPrincipal(request);
      const recorded = await ctx.store.read(`transaction-${request.params.id}`);
      const first = recorded[0];
      if (!first) throw new ApiError('not_found');
      const reserved = ctx.events.decode(first) as TransactionEvent;
      if (reserved.type !== 'Transaction.Reserved') throw new ApiError('not_found');
      await requireTenantInTree(ctx.db, principal, reserved.data.tenant_id);
      return {
        data: recorded.map((e) => ({
          id: e.id,
          position: e.position,
          version: e.version,
          type: e.type,
          schema_version: e.schemaVersion,
          data: transactionEventDataFor(e.type, isRecord(e.data) ? e.data : {}, principal.role),
          metadata: {
            actor: e.metadata.actor,
            request_id: e.metadata.request_id ?? null,
            tenant_id: e.metadata.tenant_id ?? null,
            livemode: e.metadata.livemode ?? null,
            correlation_id: e.metadata.correlation_id ?? null,
            causation_id: e.metadata.causation_id ?? null,
          },
          recorded_at: e.recordedAt.toISOString(),
        })),
      };
    },
  );

  app.get(
    '/admin/transactions/:id/request',
    {
      config: { access: { auth: 'session', roles: ['super_admin', 'tenant_admin', 'viewer'] } },
      schema: {
        operationId: 'getPanelTransactionRequest',
        summary: 'The creation snapshot of a transaction (panel alias of GET /v1/transactions/{id}/request)',
        description:
          "The same answer as the public read for super_admin (any transaction) and tenant_admin (its own tree), with the payer's personal data. A viewer (its own tree) gets it without the payer: `request.customer` and `provider_request` null. Outside the tree or unknown: 404.",
        params: idParams,
        response: {
          200: dataEnvelope(transactionRequestView),
          ...errorResponses(401, 403, 404, 422, 429),
        },
      },
    },
    async (request) => {
      const folded = await foldTransaction(ctx, request.params.id);
      if (!folded) throw new ApiError('not_found', 'The transaction does not exist.');
      const principal = sessionPrincipal(request);
      await requireTenantInTree(ctx.db, principal, folded.row.tenant_id);
      return { data: transactionRequestDataFor(folded, principal.role) };
    },
  );
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
