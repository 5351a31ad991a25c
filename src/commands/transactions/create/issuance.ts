import { DomainError, isDomainError } from '../../../aggregates/decider.ts';
import {
  type RecordCaptured,
  type RecordIssued,
  type RecordRefused,
  type RecordUncertain,
  type ReserveTransaction,
  type TransactionState,
  transaction,
} from '../../../aggregates/transaction.ts';
import type { EventMetadata } from '../../../events/event-store.ts';
import {
  type IssuedCharge,
  NO_DIAGNOSTICS,
  type Outcome,
  type PortCharge,
  type Refused,
  type Uncertain,
} from '../../../providers/port.ts';
import { diagnosticsFor } from '../../../providers/safe2pay/diagnostics.ts';
import { type CommandDeps, handleCommand } from '../../command-handler.ts';
import { type AdapterContext, type ResolvedAdapter, resolveAdapter } from '../../provider-adapter.ts';
import { transactionStream } from '../shared/stream.ts';

/**
 * Creation at the charge's provider (SPEC 3.1, 4.1, 4.2; issue 13), after the reservation is committed:
 * the adapter resolved from the reservation's provider record (the simulator for simulated charges) sends
 * exactly the reservation's `provider_request` (SPEC 2.3; null for the simulator) with the port's `create`,
 * and the three outcomes become the command that records them:
 *
 *   issued    -> record_issued    (pending, 201, with the provider's artifacts)
 *   refused   -> record_refused   (failed, 502 provider_rejected, sanitized diagnostics)
 *   uncertain -> record_uncertain (unknown, 202); so is anything the adapter throws
 *
 * A provider record that can no longer send (credentials removed since routing) is a local block after
 * reservation: refused with the static "nothing was sent" guidance and a null HTTP status (SPEC 7 rules).
 */

export type CreationRecord = RecordIssued | RecordRefused | RecordUncertain;

/** SPEC 7 `provider_rejected`: the failure code of a confirmed refusal at creation. */
export const CREATION_REFUSED = 'provider_rejected';

type CreateOutcome = Outcome<IssuedCharge & { readonly providerReference: string }>;

export function creationRecord(outcome: CreateOutcome): CreationRecord {
  // A status other than pending at creation (boleto status 2, say) is left to refresh: the charge is
  // recorded as issued and never reported paid from a creation answer (docs/decisions.md, issue 13).
  if (outcome.kind === 'issued') return { kind: 'record_issued', artifacts: outcome.artifacts };
  return unissuedRecord(outcome);
}

/** A creation the provider did not issue (a charge's or a scheduled debit's), as the command recording it. */
export function unissuedRecord(outcome: Refused | Uncertain): RecordRefused | RecordUncertain {
  if (outcome.kind === 'refused') {
    return {
      kind: 'record_refused',
      failureCode: CREATION_REFUSED,
      providerReference: outcome.providerReference,
      diagnostics: outcome.diagnostics,
    };
  }
  return {
    kind: 'record_uncertain',
    providerReference: outcome.providerReference,
    diagnostics: outcome.diagnostics,
  };
}

/**
 * The adapter of a reservation's provider; null when its record can no longer send (a domain error of the
 * resolution): nothing was sent, and the creation records {@link blockedAfterReservation}.
 */
export async function reservationAdapter(
  ctx: AdapterContext,
  reserve: ReserveTransaction,
): Promise<ResolvedAdapter | null> {
  try {
    return await resolveAdapter(ctx, {
      providerId: reserve.providerId,
      simulated: reserve.simulated,
      subaccountId: reserve.subaccountId,
    });
  } catch (error) {
    if (!isDomainError(error)) throw error;
    return null;
  }
}

/** A local block after reservation: refused with the static "nothing was sent" guidance (SPEC 7 rules). */
export function blockedAfterReservation(): RecordRefused {
  return {
    kind: 'record_refused',
    failureCode: CREATION_REFUSED,
    providerReference: null,
    diagnostics: diagnosticsFor('credentials_missing', null, null),
  };
}

/**
 * Appends a creation's outcome (the charge's or the debit's), decided from the state just appended instead
 * of reading it back (a concurrent append is a conflict). SPEC 7: reserved, but a result that cannot be
 * persisted is `503 reconciliation_required`; never reprocessed.
 */
export async function recordCreation(
  deps: CommandDeps,
  reserved: { state: TransactionState; version: number },
  command: CreationRecord | RecordCaptured,
  metadata: EventMetadata,
  what: { transactionId: string; noun: 'charge' | 'debit' },
) {
  try {
    return await handleCommand(deps, transaction, transactionStream(what.transactionId), command, {
      metadata,
      retryOnConflict: true,
      from: { state: reserved.state, version: reserved.version },
    });
  } catch (error) {
    throw new DomainError(
      'reconciliation_required',
      `The ${what.noun} was reserved but its result was not saved.`,
      {
        transaction_id: what.transactionId,
        status: 503,
        cause: error instanceof Error ? error.message : 'unknown',
      },
    );
  }
}

export async function issueAtProvider(
  ctx: AdapterContext,
  reserve: ReserveTransaction,
  charge: PortCharge,
  now: () => Date,
): Promise<CreationRecord> {
  const body = reserve.providerRequest;
  if (!reserve.simulated && (reserve.providerId === null || body === null)) {
    throw new Error('an external charge was reserved without its provider or provider_request');
  }
  const resolved = await reservationAdapter(ctx, reserve);
  if (resolved === null) return blockedAfterReservation();
  try {
    // Exactly the stored body (SPEC 2.3): a copy, so nothing the transport does can touch the reservation.
    const sent = body === null ? null : (JSON.parse(JSON.stringify(body)) as Record<string, unknown>);
    return creationRecord(await resolved.adapter.charges.create(charge, sent, resolved.context(), now()));
  } catch {
    // The adapter never throws for an answer; a throw here means the call's fate is unknown.
    return { kind: 'record_uncertain', providerReference: null, diagnostics: NO_DIAGNOSTICS };
  }
}
