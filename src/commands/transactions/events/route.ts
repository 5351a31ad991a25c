import { ApiError } from '../../../aggregates/errors.ts';
import type { TransactionEvent } from '../../../aggregates/transaction.ts';
import {
  getPanelTransactionRequest,
  listPanelTransactionEvents,
} from '../../../contract/operations/transactions.ts';
import { bind } from '../../bind.ts';
import { requireTenantInTree } from '../../tenancy.ts';
import { foldTransaction, transactionEventDataFor, transactionRequestDataFor } from '../view.ts';

/**
 * `GET /admin/transactions/{id}/events` (issue 5 item 10): the auditor's history of one charge, read from
 * its stream (the record), not from a read model, in stream order. Every panel role may read it for a
 * transaction of its tree (SPEC 5.7 "Read transactions"); outside the tree, or unknown: 404. Issue 23 item
 * 2.10: each role sees the fields its transaction reads show (seesPayerData): a viewer's history and
 * snapshot carry no payer personal data.
 */
export const eventsRoutes = [
  bind(listPanelTransactionEvents, async (call, ctx) => {
    const principal = call.session();
    const recorded = await ctx.store.read(`transaction-${call.params.id}`);
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
  }),
  bind(getPanelTransactionRequest, async (call, ctx) => {
    const folded = await foldTransaction(ctx, call.params.id);
    if (!folded) throw new ApiError('not_found', 'The transaction does not exist.');
    const principal = call.session();
    await requireTenantInTree(ctx.db, principal, folded.row.tenant_id);
    return { data: transactionRequestDataFor(folded, principal.role) };
  }),
];

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
