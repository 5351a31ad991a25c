import { ApiError } from '../../../aggregates/errors.ts';
import { policyFor, type TransactionCommand, transaction } from '../../../aggregates/transaction.ts';
import { Answer, type Call, replayed } from '../../bind.ts';
import { type CommandDeps, handleCommand } from '../../command-handler.ts';
import type { AppContext } from '../../context.ts';
import { requireScopes } from '../../principal.ts';
import { requireOwnTenant } from '../../tenancy.ts';
import { findTransactionRow, readableTransaction, type TransactionView, toTransactionView } from '../view.ts';
import type { ChangeContext, ChangeOutcome } from './idempotent-change.ts';
import { transactionStream } from './stream.ts';

export type TransactionRow = NonNullable<Awaited<ReturnType<typeof findTransactionRow>>>;
type Row = TransactionRow;
/** A call on one charge: its operation's path names it (`:id`). */
type ChargeCall = Call & { readonly params: { readonly id: string } };

/**
 * What the routes of the transaction actions share (simulate, refresh, refund, change due date; issue 13
 * item 9: small helpers a route calls, not copies): the command dependencies, a decision on the charge's
 * stream, the answer folded by the read model, the method's write scope (from its policy) and the
 * own-tenant rule for writes (SPEC 5.5).
 */
export function transactionRouteHelpers(ctx: AppContext) {
  const deps = (): CommandDeps => ({ store: ctx.store, registry: ctx.events, now: () => ctx.now() });

  const decide = async (call: Call, row: Row, command: TransactionCommand) => {
    await handleCommand(deps(), transaction, transactionStream(row.id), command, {
      metadata: call.metadata(),
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

  const requireMethodScope = (call: Call, row: Row) => {
    const principal = call.apiKey();
    // A stored method without a policy yet (credit_card rows) keeps its own scope.
    const policy = policyFor(row.method);
    requireScopes(principal, [policy?.writeScope ?? 'credit_card:write']);
  };

  /** SPEC 5.5: a key reads its descendants' charges but writes only for its own tenant. */
  const ownTransaction = async (call: ChargeCall) => {
    const principal = call.apiKey();
    const row = await readableTransaction(ctx, principal, call.params.id);
    requireOwnTenant(
      principal.tenantId,
      row.tenant_id,
      "The transaction belongs to a descendant tenant; use that tenant's key.",
    );
    return { principal, row };
  };

  return { deps, decide, currentView, requireMethodScope, ownTransaction };
}

/** The idempotent changes (refund, due date): their context and the SPEC 4.8 answer of an outcome. */
export function changeRouteHelpers(ctx: AppContext) {
  const { deps, currentView } = transactionRouteHelpers(ctx);
  const changeContext = (): ChangeContext => ({
    deps: deps(),
    config: ctx.config,
    adapters: ctx,
    vault: { db: ctx.db, config: ctx.config },
  });

  /**
   * SPEC 4.8 answers of a change sent to the provider: confirmed 200, uncertain 202 (refund.status
   * `pending`, or a date change awaiting confirmation; ask again or wait for the reconciler), refused 502
   * provider_rejected with `error.transaction_id` and that answer's diagnostics, the charge's state kept.
   */
  const changeAnswer = async (id: string, outcome: ChangeOutcome): Promise<Answer> => {
    if (outcome.result.kind === 'refused') {
      throw new ApiError('provider_rejected', 'The provider refused the operation; local state kept.', {
        transaction_id: id,
        ...outcome.result.diagnostics,
      });
    }
    const status = outcome.result.kind === 'pending' ? 202 : 200;
    const body = { data: await currentView(id) };
    return outcome.replayed ? replayed(status, body) : new Answer(status, body);
  };

  return { changeContext, changeAnswer };
}
