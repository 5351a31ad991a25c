import { DomainError, isDomainError } from '../../../aggregates/decider.ts';
import {
  type BoletoChangeArtifacts,
  chargeKindOf,
  type Diagnostics,
  policyOf,
  type RequestDueDateChange,
  type RequestRefund,
  type TransactionArtifacts,
  type TransactionCommand,
  type TransactionFacts,
} from '../../../aggregates/transaction.ts';
import type { Outcome, RemoteCharge, Uncertain } from '../../../providers/port.ts';
import { endOfDueDayUtc } from '../../../providers/safe2pay/dates.ts';
import { diagnosticsFor } from '../../../providers/safe2pay/diagnostics.ts';
import type { CommandDeps } from '../../command-handler.ts';
import type { LivePaymentsConfig } from '../../payment-settings/effective-setting.ts';
import {
  type AdapterContext as BaseAdapterContext,
  type ResolvedAdapter,
  reservedRecord,
  resolveAdapter,
} from '../../provider-adapter.ts';
import { callProvider } from '../../provider-call.ts';
import { authorizeLiveRefresh } from './live-payments.ts';

/** The adapter's context plus the production controls every call to a production provider passes. */
export type AdapterContext = BaseAdapterContext & {
  config: BaseAdapterContext['config'] & LivePaymentsConfig;
  /** The clock of the reads' "a day after the reservation" rule. */
  deps: BaseAdapterContext['deps'] & Pick<CommandDeps, 'now'>;
};

/**
 * Refund and due-date change through the charge's provider adapter (SPEC 4.8; issue 13 item 8; issue 22), as
 * one {@link Attempt} each: what to append, and whether the provider confirmed it. Used by the HTTP commands
 * (idempotent-change.ts) and by the reconciler (../settle-pending-changes/job.ts).
 *
 * Reserve -> call -> record, as for a creation (SPEC 3.1): before the provider is called a reservation
 * (`request_refund`, `request_due_date_change`) is appended with the version the request read, so of several
 * concurrent requests for one charge exactly one reaches the provider; the others get the decider's `409
 * refund_in_progress` / `409 change_in_progress` and send nothing. The answer is then recorded:
 *
 *   confirmed -> `refund` (refunded) / `change_due_date` (new date, line, barcode and boleto Pix)
 *   refused   -> `refund_refused` / `due_date_refused`: state kept, 502 provider_rejected with the diagnostics
 *   uncertain -> `refund_unconfirmed` / `due_date_unconfirmed`: refund.status `pending` / a pending date
 *
 * An uncertain change is never sent again: a later request (any key) and the reconciler only read the
 * charge at its provider. A refund the provider shows (status 6 Devolvido) or a due date it has is recorded
 * from the read; a read that still shows the old state a day after the reservation closes the change as not
 * applied (`not_applied`), and only then may a new request send it (issue 22: "never a second call").
 *
 * Simulated charges skip the read: the gateway's record is the simulator's truth and the simulator never
 * answers uncertain (SPEC 1 simulator row); a simulated reservation interrupted by a crash is closed by the
 * reconciler as `interrupted` (nothing was returned).
 *
 * A production charge asks the production control first, as a refresh does (SPEC 5.8: `403
 * live_payments_disabled`, `503 payment_settings_unavailable`, a scope limits the providers reached): a
 * refund moves real money, and the control off means no call to a production provider.
 */

export type Attempt =
  | { readonly kind: 'confirmed'; readonly command: TransactionCommand }
  | { readonly kind: 'pending'; readonly command: TransactionCommand | null }
  | { readonly kind: 'refused'; readonly command: TransactionCommand; readonly diagnostics: Diagnostics };

/** Adapters never throw for an answer; a throw (or no external id to ask about) leaves the fate unknown. */
function unknownFate(): Uncertain {
  return {
    kind: 'uncertain',
    reason: 'connection',
    providerReference: null,
    providerStatus: null,
    diagnostics: diagnosticsFor('connection', null, null),
  };
}

/** A call about a charge: a throw is {@link unknownFate}, its diagnostics naming the lost connection. */
export function guarded<T>(call: () => Promise<Outcome<T>>): Promise<Outcome<T>> {
  return callProvider(call, unknownFate);
}

/**
 * The charge's adapter; a record that can no longer send is a local block (SPEC 7 rules): nothing sent.
 * A charge issued through a marketplace subaccount uses that subaccount's token (issue 28 item 3); when it
 * is gone, `subaccountError` holds the `422 subaccount_credentials_missing` a new request answers
 * ({@link refuseBlockedSubaccount}) before anything is reserved.
 */
export async function adapterOf(
  ctx: AdapterContext,
  state: TransactionFacts,
): Promise<
  ResolvedAdapter | { readonly blocked: Diagnostics; readonly subaccountError?: DomainError | undefined }
> {
  const r = state.reserved;
  if (!r.simulated && r.environment === 'production' && r.provider_id !== null) {
    await authorizeLiveRefresh(ctx, { providerId: r.provider_id });
  }
  try {
    return await resolveAdapter(ctx, reservedRecord(r));
  } catch (error) {
    if (!isDomainError(error)) throw error;
    return {
      blocked: diagnosticsFor('credentials_missing', null, null),
      ...(error.code.startsWith('subaccount_') ? { subaccountError: error } : {}),
    };
  }
}

/** A new refund or due-date request on a charge whose subaccount token is gone: 422, nothing stored or sent. */
export function refuseBlockedSubaccount(resolved: Awaited<ReturnType<typeof adapterOf>>): void {
  if ('blocked' in resolved && resolved.subaccountError) throw resolved.subaccountError;
}

/** Reads the charge at its provider by its external id, without requiring the stored due date. */
async function readBack(
  resolved: ResolvedAdapter,
  state: TransactionFacts,
): Promise<Outcome<{ readonly charge: RemoteCharge }>> {
  const reference = state.artifacts.provider_reference;
  if (reference === null) return unknownFate();
  return guarded(() =>
    resolved.adapter.charges.query(
      {
        transactionId: state.reserved.transaction_id,
        method: state.reserved.method,
        amount: state.reserved.amount,
        providerReference: reference,
        boletoDueDate: null,
      },
      resolved.context(),
    ),
  );
}

/**
 * Appends a reservation before the provider is called and answers the charge as it left it. `null`: the
 * decider found nothing to do any more (the charge was refunded, or the date changed, by the request that
 * won the race): nothing may be sent.
 */
export type Reserve = (command: RequestRefund | RequestDueDateChange) => Promise<TransactionFacts | null>;

/** A change left uncertain that reads still show undone this long after its reservation did not happen. */
export const UNAPPLIED_AFTER_MS = 24 * 3_600_000;

const stillUndone = (requestedAt: string | null, now: Date) =>
  requestedAt !== null && now.getTime() - Date.parse(requestedAt) >= UNAPPLIED_AFTER_MS;

/** Nothing to record yet: the change stays pending (202) until a read settles it. */
export const stillPending: Attempt = { kind: 'pending', command: null };
const refunded: Attempt = { kind: 'confirmed', command: { kind: 'refund', refundStatus: 'succeeded' } };

export function refusedAs(command: TransactionCommand & { diagnostics: Diagnostics }): Attempt {
  return { kind: 'refused', command, diagnostics: command.diagnostics };
}

/** The integral refund of a paid charge (SPEC 3.1 `paid` -> `refunded`, 4.8). */
export async function refundAttempt(
  ctx: AdapterContext,
  state: TransactionFacts,
  reserve: Reserve,
): Promise<Attempt> {
  // Refunded already (a no-op) or not paid (409 conflict): the decider answers.
  if (state.status !== 'paid') return refunded;
  // Left uncertain by an earlier request: only read, never sent again.
  if (state.refundStatus === 'pending' && !state.refundInFlight) return readRefund(ctx, state);
  if (!policyOf(chargeKindOf(state.reserved)).refundable) {
    // A Pix Automatic debit: refused as an operation the provider API does not offer (the answer of every
    // unsupported refund: 502 provider_rejected, refund.status failed, the charge paid); nothing is sent.
    if ((await reserve({ kind: 'request_refund' })) === null) return refunded;
    return refusedAs({ kind: 'refund_refused', diagnostics: diagnosticsFor('not_supported', null, null) });
  }
  const resolved = await adapterOf(ctx, state);
  refuseBlockedSubaccount(resolved);
  if ((await reserve({ kind: 'request_refund' })) === null) return refunded;
  const reference = state.artifacts.provider_reference;
  if ('blocked' in resolved || reference === null) {
    const diagnostics = 'blocked' in resolved ? resolved.blocked : diagnosticsFor('incomplete', null, null);
    return refusedAs({ kind: 'refund_refused', diagnostics });
  }
  const outcome = await guarded(() =>
    resolved.adapter.charges.refund(
      {
        transactionId: state.reserved.transaction_id,
        method: state.reserved.method,
        providerReference: reference,
        paidWith: state.paidWith,
        // A boleto paid by boleto goes back by a payout (../refund/payout.ts), never through refund().
        bankAccount: null,
      },
      resolved.context(),
    ),
  );
  switch (outcome.kind) {
    case 'issued':
      return refunded;
    case 'refused':
      return refusedAs({ kind: 'refund_refused', diagnostics: outcome.diagnostics });
    case 'uncertain':
      return { kind: 'pending', command: { kind: 'refund_unconfirmed', diagnostics: outcome.diagnostics } };
  }
}

/**
 * A refund left uncertain, read at the provider (issue 13 item 8): refunded there -> recorded; still paid a
 * day after the reservation -> not applied (refund.status `failed`, a new request may send it); otherwise
 * still pending. Nothing is ever sent from here.
 */
export async function readRefund(ctx: AdapterContext, state: TransactionFacts): Promise<Attempt> {
  // A refund to the payer's account is read at its transfer, not at the charge (../refund/payout.ts).
  if (state.reserved.simulated || state.refundRoute !== 'provider') return stillPending;
  const resolved = await adapterOf(ctx, state);
  if ('blocked' in resolved) return stillPending;
  const read = await readBack(resolved, state);
  if (read.kind !== 'issued') return stillPending;
  if (read.charge.status === 'refunded') return refunded;
  if (read.charge.status === 'paid' && stillUndone(state.refundRequestedAt, ctx.deps.now())) {
    return refusedAs({ kind: 'refund_refused', diagnostics: diagnosticsFor('not_applied', null, null) });
  }
  return stillPending;
}

/**
 * SPEC 2.2 for the new date: the provider's line and barcode, and the boleto's Pix (the answer's, else the
 * one held) valid until the end of the new due day in Brasilia.
 */
function boletoChange(
  answer: TransactionArtifacts | null,
  state: TransactionFacts,
  dueDate: string,
): BoletoChangeArtifacts {
  const held = state.artifacts;
  const pix = answer?.boleto_pix_copy_paste ?? held.boleto_pix_copy_paste;
  return {
    boleto_digitable_line: answer?.boleto_digitable_line ?? held.boleto_digitable_line,
    boleto_barcode: answer?.boleto_barcode ?? held.boleto_barcode,
    boleto_pix_copy_paste: pix,
    boleto_pix_expires_at: pix === null ? null : endOfDueDayUtc(dueDate),
    // The change answer's FEBRABAN fields (wire doc 2.7: a boleto response); a read carries none: unchanged.
    ...(answer?.boleto_details === undefined ? {} : { boleto_details: answer.boleto_details }),
  };
}

/**
 * A due-date change the provider shows applied (its read carries the new date): what the settler records,
 * also used by a refresh that reads it first (../refresh/handler.ts).
 */
export function dueDateChangeRead(
  state: TransactionFacts,
  dueDate: string,
  read: RemoteCharge,
): TransactionCommand {
  return {
    kind: 'change_due_date',
    dueDate,
    expiresAt: state.artifacts.expires_at,
    artifacts: boletoChange(read.artifacts, state, dueDate),
  };
}

/** A new due date for an open boleto with the provider's command (SPEC 4.8; wire doc 2.7 Command 1). */
export async function dueDateAttempt(
  ctx: AdapterContext,
  state: TransactionFacts,
  dueDate: string,
  reserve: Reserve,
): Promise<Attempt> {
  const options = state.reserved.boleto;
  const same = state.boletoDueDate === dueDate && state.pendingDueDate === null;
  // Not an open boleto (409 conflict) or the same date (a no-op): the decider answers, nothing is sent.
  const nothingToSend: Attempt = {
    kind: 'confirmed',
    command: { kind: 'change_due_date', dueDate, expiresAt: state.artifacts.expires_at },
  };
  if (state.status !== 'pending' || options === null || same) return nothingToSend;
  // Left uncertain by an earlier request: the same date is only read, another waits for it.
  if (state.pendingDueDate !== null && !state.dueDateInFlight) {
    if (state.pendingDueDate === dueDate) return readDueDate(ctx, state);
    throw new DomainError(
      'change_in_progress',
      `A change of the due date to ${state.pendingDueDate} awaits the provider's confirmation.`,
      { transaction_id: state.reserved.transaction_id },
    );
  }
  const resolved = await adapterOf(ctx, state);
  refuseBlockedSubaccount(resolved);
  if ((await reserve({ kind: 'request_due_date_change', dueDate })) === null) return nothingToSend;
  const reference = state.artifacts.provider_reference;
  if ('blocked' in resolved || reference === null) {
    const diagnostics = 'blocked' in resolved ? resolved.blocked : diagnosticsFor('incomplete', null, null);
    return refusedAs({ kind: 'due_date_refused', dueDate, diagnostics });
  }
  const outcome = await guarded(() =>
    resolved.adapter.charges.changeDueDate(
      {
        transactionId: state.reserved.transaction_id,
        amount: state.reserved.amount,
        providerReference: reference,
        dueDate,
        boleto: options,
      },
      resolved.context(),
    ),
  );
  switch (outcome.kind) {
    case 'issued':
      return {
        kind: 'confirmed',
        command: {
          kind: 'change_due_date',
          dueDate,
          expiresAt: outcome.artifacts.expires_at,
          artifacts: boletoChange(outcome.artifacts, state, dueDate),
        },
      };
    case 'refused':
      return refusedAs({ kind: 'due_date_refused', dueDate, diagnostics: outcome.diagnostics });
    case 'uncertain':
      return {
        kind: 'pending',
        command: { kind: 'due_date_unconfirmed', dueDate, diagnostics: outcome.diagnostics },
      };
  }
}

/**
 * A due-date change left uncertain, read at the provider: the new date there -> recorded from the read; the
 * old date a day after the reservation -> not applied; a third date (changed elsewhere) stays pending for a
 * person. Nothing is ever sent from here.
 */
export async function readDueDate(ctx: AdapterContext, state: TransactionFacts): Promise<Attempt> {
  const dueDate = state.pendingDueDate;
  if (dueDate === null || state.reserved.simulated) return stillPending;
  const resolved = await adapterOf(ctx, state);
  if ('blocked' in resolved) return stillPending;
  const read = await readBack(resolved, state);
  if (read.kind !== 'issued') return stillPending;
  const remote = read.charge.boletoDueDate;
  if (remote === dueDate)
    return { kind: 'confirmed', command: dueDateChangeRead(state, dueDate, read.charge) };
  if (remote === state.boletoDueDate && stillUndone(state.dueDateRequestedAt, ctx.deps.now())) {
    const diagnostics = diagnosticsFor('not_applied', null, null);
    return refusedAs({ kind: 'due_date_refused', dueDate, diagnostics });
  }
  return stillPending;
}
