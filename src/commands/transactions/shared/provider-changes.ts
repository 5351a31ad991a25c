import { DomainError, isDomainError } from '../../../aggregates/decider.ts';
import type {
  BoletoChangeArtifacts,
  Diagnostics,
  TransactionArtifacts,
  TransactionCommand,
  TransactionFacts,
} from '../../../aggregates/transaction.ts';
import type { Outcome, RemoteCharge, Uncertain } from '../../../providers/port.ts';
import { endOfDueDayUtc } from '../../../providers/safe2pay/dates.ts';
import { diagnosticsFor } from '../../../providers/safe2pay/diagnostics.ts';
import { authorizeLiveRefresh } from '../../live-payments.ts';
import type { LivePaymentsConfig } from '../../payment-settings.ts';
import {
  type AdapterContext as BaseAdapterContext,
  type ResolvedAdapter,
  resolveAdapter,
} from '../../provider-adapter.ts';

/** The adapter's context plus the production controls every call to a production provider passes. */
export type AdapterContext = BaseAdapterContext & {
  config: BaseAdapterContext['config'] & LivePaymentsConfig;
};

/**
 * Refund and due-date change through the charge's provider adapter (SPEC 4.8; issue 13 item 8), as one
 * {@link Attempt} each: what to append, and whether the provider confirmed it. Used by the HTTP commands
 * (idempotent-change.ts) and by the reconciler (src/workers/settle-pending-changes.ts).
 *
 *   confirmed -> `refund` (refunded) / `change_due_date` (new date, line, barcode and boleto Pix)
 *   refused   -> `refund_refused` / `due_date_refused`: state kept, 502 provider_rejected with the diagnostics
 *   uncertain -> `refund_unconfirmed` / `due_date_unconfirmed`: refund.status `pending` / a pending date
 *
 * Never a second money movement, never two changes: while a refund or a change is pending (or when the same
 * key asks again, `queryFirst`), the charge is read at the provider first. A refund the provider already
 * shows (status 6 Devolvido) or a due date it already has is recorded without sending anything; the request
 * is sent again only when the read shows it did not happen (still paid, still the old date). A read that
 * fails sends nothing and leaves the change pending. The provider's own state keeps a refund from happening
 * twice too: an integral refund is accepted only for a paid charge (wire doc 2.11).
 *
 * Simulated charges skip the read: the gateway's record is the simulator's truth and the simulator never
 * answers uncertain (SPEC 1 simulator row).
 *
 * A production charge asks the production control first, as a refresh does (SPEC 5.8: `403
 * live_payments_disabled`, `503 payment_settings_unavailable`, a scope limits the providers reached): a
 * refund moves real money, and the control off means no call to a production provider.
 */

export type Attempt =
  | { readonly kind: 'confirmed'; readonly command: TransactionCommand }
  | { readonly kind: 'pending'; readonly command: TransactionCommand | null }
  | { readonly kind: 'refused'; readonly command: TransactionCommand; readonly diagnostics: Diagnostics };

/** SPEC 4.8 bank account of the payer, needed only to refund a boleto paid by boleto; never stored. */
export type BankAccount = Readonly<Record<string, string>>;

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

async function guarded<T>(call: () => Promise<Outcome<T>>): Promise<Outcome<T>> {
  try {
    return await call();
  } catch {
    return unknownFate();
  }
}

/** The charge's adapter; a record that can no longer send is a local block (SPEC 7 rules): nothing sent. */
async function adapterOf(
  ctx: AdapterContext,
  state: TransactionFacts,
): Promise<ResolvedAdapter | { readonly blocked: Diagnostics }> {
  const r = state.reserved;
  if (!r.simulated && r.environment === 'production' && r.provider_id !== null) {
    await authorizeLiveRefresh(ctx, { providerId: r.provider_id });
  }
  try {
    return await resolveAdapter(ctx, {
      providerId: state.reserved.provider_id,
      simulated: state.reserved.simulated,
    });
  } catch (error) {
    if (!isDomainError(error)) throw error;
    return { blocked: diagnosticsFor('credentials_missing', null, null) };
  }
}

/** Reads the charge at its provider by its external id, without requiring the stored due date. */
async function readBack(
  resolved: ResolvedAdapter,
  state: TransactionFacts,
): Promise<Outcome<{ readonly charge: RemoteCharge }>> {
  const reference = state.artifacts.provider_reference;
  if (reference === null) return unknownFate();
  return guarded(() =>
    resolved.adapter.query(
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

const refundPending = (diagnostics: Diagnostics): Attempt => ({
  kind: 'pending',
  command: { kind: 'refund_unconfirmed', diagnostics },
});
const refunded: Attempt = { kind: 'confirmed', command: { kind: 'refund', refundStatus: 'succeeded' } };

/** The integral refund of a paid charge (SPEC 3.1 `paid` -> `refunded`, 4.8). */
export async function refundAttempt(
  ctx: AdapterContext,
  state: TransactionFacts,
  bankAccount: BankAccount | null,
  opts: { queryFirst: boolean },
): Promise<Attempt> {
  // Refunded already (a no-op) or not paid (409 conflict): the decider answers.
  if (state.status !== 'paid') return refunded;
  const reference = state.artifacts.provider_reference;
  const resolved = await adapterOf(ctx, state);
  if ('blocked' in resolved || reference === null) {
    const diagnostics = 'blocked' in resolved ? resolved.blocked : diagnosticsFor('incomplete', null, null);
    return { kind: 'refused', command: { kind: 'refund_refused', diagnostics }, diagnostics };
  }
  const external = !state.reserved.simulated;
  if (external && (opts.queryFirst || state.refundStatus === 'pending')) {
    const read = await readBack(resolved, state);
    if (read.kind !== 'issued') return refundPending(read.diagnostics);
    if (read.charge.status === 'refunded') return refunded;
    // Anything but "still paid" (a dispute, an unknown code) is not a state to refund from blindly.
    if (read.charge.status !== 'paid') return refundPending(diagnosticsFor('unknown_status', null, null));
  }
  const outcome = await guarded(() =>
    resolved.adapter.refund(
      {
        transactionId: state.reserved.transaction_id,
        method: state.reserved.method,
        providerReference: reference,
        paidWith: state.paidWith,
        bankAccount,
      },
      resolved.context(),
    ),
  );
  switch (outcome.kind) {
    case 'issued':
      return refunded;
    case 'refused':
      return {
        kind: 'refused',
        command: { kind: 'refund_refused', diagnostics: outcome.diagnostics },
        diagnostics: outcome.diagnostics,
      };
    case 'uncertain':
      return refundPending(outcome.diagnostics);
  }
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

const dueDatePending = (dueDate: string, diagnostics: Diagnostics): Attempt => ({
  kind: 'pending',
  command: { kind: 'due_date_unconfirmed', dueDate, diagnostics },
});

/** A new due date for an open boleto with the provider's command (SPEC 4.8; wire doc 2.7 Command 1). */
export async function dueDateAttempt(
  ctx: AdapterContext,
  state: TransactionFacts,
  dueDate: string,
  opts: { queryFirst: boolean },
): Promise<Attempt> {
  const options = state.reserved.boleto;
  const same = state.boletoDueDate === dueDate && state.pendingDueDate === null;
  // Not an open boleto (409 conflict) or the same date (a no-op): the decider answers, nothing is sent.
  const nothingToSend = { kind: 'change_due_date', dueDate, expiresAt: state.artifacts.expires_at } as const;
  if (state.status !== 'pending' || options === null || same) {
    return { kind: 'confirmed', command: nothingToSend };
  }
  if (state.pendingDueDate !== null && state.pendingDueDate !== dueDate) {
    throw new DomainError(
      'conflict',
      `A change to ${state.pendingDueDate} awaits the provider's confirmation; repeat it or wait.`,
      { transaction_id: state.reserved.transaction_id },
    );
  }
  const reference = state.artifacts.provider_reference;
  const resolved = await adapterOf(ctx, state);
  if ('blocked' in resolved || reference === null) {
    const diagnostics = 'blocked' in resolved ? resolved.blocked : diagnosticsFor('incomplete', null, null);
    return { kind: 'refused', command: { kind: 'due_date_refused', dueDate, diagnostics }, diagnostics };
  }
  if (!state.reserved.simulated && (opts.queryFirst || state.pendingDueDate !== null)) {
    const read = await readBack(resolved, state);
    if (read.kind !== 'issued') return dueDatePending(dueDate, read.diagnostics);
    const remote = read.charge.boletoDueDate;
    if (remote === dueDate) {
      // Already moved: recorded from the read, nothing sent again.
      return { kind: 'confirmed', command: dueDateChangeRead(state, dueDate, read.charge) };
    }
    // A third date (changed elsewhere) is not ours to overwrite blindly: left pending for a person.
    if (remote !== state.boletoDueDate)
      return dueDatePending(dueDate, diagnosticsFor('mismatch', null, null));
  }
  const outcome = await guarded(() =>
    resolved.adapter.changeDueDate(
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
      return {
        kind: 'refused',
        command: { kind: 'due_date_refused', dueDate, diagnostics: outcome.diagnostics },
        diagnostics: outcome.diagnostics,
      };
    case 'uncertain':
      return dueDatePending(dueDate, outcome.diagnostics);
  }
}
