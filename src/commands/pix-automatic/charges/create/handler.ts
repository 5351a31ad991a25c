import { randomUUID } from 'node:crypto';
import { DomainError, isDomainError } from '../../../../aggregates/decider.ts';
import { ApiError } from '../../../../aggregates/errors.ts';
import type { AuthorizationState } from '../../../../aggregates/pix-automatic-authorization.ts';
import {
  type DebitReservationEvent,
  debitReservationStream,
  inAuthorizedCalendar,
} from '../../../../aggregates/pix-automatic-debit.ts';
import { addDays, saoPauloDate } from '../../../../aggregates/subscription-calendar.ts';
import {
  NO_ARTIFACTS,
  type RecordIssued,
  type RecordRefused,
  type RecordUncertain,
  type ReserveTransaction,
  type TransactionEvent,
  type TransactionRequestSnapshot,
  type TransactionState,
  transaction,
} from '../../../../aggregates/transaction.ts';
import type { PixAutomaticChargeBody } from '../../../../contract/pix-automatic-charges.ts';
import { sha256Hex } from '../../../../crypto/secrets.ts';
import {
  type EventMetadata,
  type NewEvent,
  WrongExpectedVersionError,
} from '../../../../events/event-store.ts';
import { newId } from '../../../../ids.ts';
import { type AuthorizationTarget, type PortDebit, withCapability } from '../../../../providers/port.ts';
import { diagnosticsFor } from '../../../../providers/safe2pay/diagnostics.ts';
import { resolveProviderFor } from '../../../../routing/resolve-provider.ts';
import { checkDestinationSyntax, destinationPolicy } from '../../../../webhooks/ssrf-guard.ts';
import { type CommandDeps, handleCommand } from '../../../command-handler.ts';
import { resolveCostCenter } from '../../../cost-centers/resolve.ts';
import { resolveFees } from '../../../fee-schedules/resolve.ts';
import { foldStream } from '../../../fold-stream.ts';
import {
  claimIdempotencyKey,
  claimIdempotencyKeyWith,
  type IdempotencyClaim,
  type JsonValue,
  requestHash,
} from '../../../idempotency.ts';
import { refuseBodyTenant } from '../../../principal.ts';
import { resolveAdapter } from '../../../provider-adapter.ts';
import { simulatorEnabled } from '../../../providers/bootstrap-simulator.ts';
import { isTenantInTree, requireOwnTenant } from '../../../tenancy.ts';
import {
  chargeClaimInput,
  heldChargeClaim,
  knownChargeClaim,
} from '../../../transactions/create/charge-claim.ts';
import {
  type ChargeContext,
  type ChargeOutcome,
  customerSnapshot,
} from '../../../transactions/create/handler.ts';
import {
  blockedAfterReservation,
  CREATION_REFUSED,
  recordCreation,
  reservationAdapter,
  unissuedRecord,
} from '../../../transactions/create/issuance.ts';
import { authorizeLiveIssuance } from '../../../transactions/shared/live-payments.ts';
import { guarded } from '../../../transactions/shared/provider-changes.ts';
import { transactionStream } from '../../../transactions/shared/stream.ts';
import { loadAuthorization } from '../../authorizations/load.ts';

/**
 * `POST /v1/pix-automatic/charges` (SPEC 3.1, 4 common rules, 4.11, 7; issue 27 item 2): one debit of an
 * approved authorization, made the way every charge is made, reserve -> call -> record:
 *
 * 1. A replay (same tenant, mode, key and body) answers the stored transaction, never re-validated; another
 *    body under the key is `409 idempotency_conflict`.
 * 2. A new request is validated fully before anything is stored, in the order a caller fixes it: the
 *    authorization (missing, other tree or mode 404; a descendant's 403; not approved 422), its calendar,
 *    the 2-to-10-day window in Brasilia time, the contract's amount and payer document, the callback and
 *    cost center, then the routing: a test key's debit is the simulator's; a live one goes to the
 *    authorization's own provider record, which the tenant's Pix rule must still resolve to
 *    (`automatic_routing_changed`) and which must be a production account (`automatic_provider_unavailable`),
 *    behind the production controls of POST /v1/pix.
 * 3. The idempotency claim, the transaction's Reserved and the due date's reservation stream
 *    (`pixauto_debit-<authorization>-<due_date>`, no_stream) commit in ONE SQL transaction: of concurrent
 *    requests for one authorization and date, whatever their keys, one reserves and calls the provider,
 *    the others get `409 automatic_charge_exists` and nothing of theirs is stored.
 * 4. `scheduleDebit`: issued -> pending (201: scheduled); refused -> failed (502 provider_rejected with
 *    error.transaction_id); uncertain -> `findDebits` by the transaction id: exactly one of the same amount
 *    -> pending with its provider reference (201), none or a failed read -> unknown (202). Never a second
 *    schedule.
 *
 * Under EventStoreDB (no multi-stream transaction) the claim comes first and carries the whole reservation;
 * the due date's stream then names the transaction it guards, so a replay after a crash completes the same
 * transaction and a request of another key finds the date taken (docs/decisions.md "Pix Automatic (issue
 * 27): debits and polling").
 */

export const DEBIT_ROUTE = '/v1/pix-automatic/charges';

export interface CreateDebitInput {
  readonly tenantId: string;
  readonly livemode: boolean;
  readonly idempotencyKey: string;
  readonly body: PixAutomaticChargeBody;
  /** The cost center is a subscription's: it may have been deactivated since (SPEC 4.10: continuity kept). */
  readonly inheritedCostCenter?: boolean | undefined;
}

function deps(ctx: ChargeContext): CommandDeps {
  return { store: ctx.store, registry: ctx.events, now: () => ctx.now() };
}

function invalid(param: string, message: string): DomainError {
  return new DomainError('validation_error', message, { param });
}

const normalizedDocument = (document: string | undefined) => (document ?? '').trim().toUpperCase();

/** SPEC 2.3 `request`: the original values, tenant resolved, the debit's authorization and due date. */
function requestSnapshot(input: CreateDebitInput): TransactionRequestSnapshot {
  const b = input.body;
  return {
    tenant_id: input.tenantId,
    method: 'pix',
    amount: b.amount,
    reference: b.reference,
    description: b.description,
    customer: customerSnapshot(b.customer),
    authorization_id: b.authorization_id,
    due_date: b.due_date,
    ...(b.cost_center_id !== undefined ? { cost_center_id: b.cost_center_id } : {}),
    ...(b.callback_url !== undefined ? { callback_url: b.callback_url } : {}),
  };
}

/** The claim's payload: the reservation and the authorization as the port names it. */
interface DebitClaim {
  readonly reserve: ReserveTransaction;
  readonly authorization: AuthorizationTarget;
}

function claimOf(payload: IdempotencyClaim['payload']): DebitClaim {
  const reserve = payload.reserve as unknown as ReserveTransaction | undefined;
  const authorization = payload.authorization as unknown as AuthorizationTarget | undefined;
  if (reserve?.kind !== 'reserve' || !reserve.pixAutomatic || !authorization) {
    throw new Error('debit claim without its reservation');
  }
  // The decider re-validates every fact (reservedData.safeParse) before the Reserved event is appended.
  return { reserve, authorization };
}

/** Schedules one debit (SPEC 4.11). */
export async function createDebit(
  ctx: ChargeContext,
  input: CreateDebitInput,
  metadata: EventMetadata,
): Promise<ChargeOutcome> {
  refuseBodyTenant(input.body.tenant_id);
  const snapshot = requestSnapshot(input);
  const hash = requestHash('POST', DEBIT_ROUTE, snapshot);
  const replay = (held: IdempotencyClaim): Promise<ChargeOutcome> => {
    if (held.request_hash !== hash) {
      throw new DomainError('idempotency_conflict', 'This Idempotency-Key was used with another body.');
    }
    return completeClaim(ctx, claimOf(held.payload), metadata);
  };
  const known = knownChargeClaim(ctx, input);
  if (known) return replay(known);
  let valid: { claim: DebitClaim; events: readonly TransactionEvent[] };
  try {
    valid = await validDebit(ctx, input, snapshot);
  } catch (error) {
    // A replay of a debit that would not pass today (its window passed) answers as stored.
    return replay(await heldChargeClaim(error, ctx, input));
  }
  const { reserve } = valid.claim;
  const claimInput = chargeClaimInput(
    input,
    DEBIT_ROUTE,
    snapshot,
    hash,
    reserve.transactionId,
    JSON.parse(JSON.stringify(valid.claim)) as Record<string, JsonValue>,
  );
  const encode = (e: TransactionEvent | DebitReservationEvent): NewEvent => ({
    ...ctx.events.encode(e),
    id: randomUUID(),
    metadata,
  });
  const dueDateTaken = dueDateReservation(reserve);
  let together: Awaited<ReturnType<typeof claimIdempotencyKeyWith>>;
  try {
    together = await claimIdempotencyKeyWith(
      deps(ctx),
      claimInput,
      metadata,
      { stream: transactionStream(reserve.transactionId), events: valid.events.map(encode) },
      [{ stream: dueDateTaken.stream, events: [encode(dueDateTaken.event)] }],
    );
  } catch (error) {
    if (error instanceof WrongExpectedVersionError && error.stream === dueDateTaken.stream) {
      throw chargeExists();
    }
    if (!isDomainError(error) || error.code !== 'idempotency_conflict') throw error;
    return replay(await heldChargeClaim(error, ctx, input));
  }
  if (together?.first) {
    let state: TransactionState = transaction.initialState;
    for (const e of valid.events) state = transaction.evolve(state, e);
    return scheduleAndRecord(ctx, valid.claim, metadata, { state, version: together.appended.version });
  }
  if (together) return replay(together.claim);
  // EventStoreDB: claim, then the due date, then Reserved (each completable from the claim).
  const claimed = await claimIdempotencyKey(deps(ctx), claimInput, metadata);
  if (!claimed.first) return replay(claimed.claim);
  return completeClaim(ctx, claimOf(claimed.claim.payload), metadata);
}

function chargeExists(): DomainError {
  return new DomainError(
    'automatic_charge_exists',
    'A debit already exists for this authorization and due date (SPEC 4.11: one per due date).',
  );
}

function dueDateReservation(reserve: ReserveTransaction): {
  stream: string;
  event: DebitReservationEvent;
} {
  const debit = reserve.pixAutomatic;
  if (!debit) throw new Error('a debit reservation without its authorization');
  return {
    stream: debitReservationStream(debit.authorizationId, debit.dueDate),
    event: {
      type: 'PixAutomaticDebit.Reserved',
      data: {
        authorization_id: debit.authorizationId,
        due_date: debit.dueDate,
        transaction_id: reserve.transactionId,
        tenant_id: reserve.tenantId,
        livemode: reserve.livemode,
      },
    },
  };
}

/**
 * A claim whose transaction may be missing (EventStoreDB, or a crash between appends there): the due date
 * is taken for this transaction (or found taken by it), then Reserved is appended; whoever appends Reserved
 * calls the provider, everyone else answers the stored record.
 */
async function completeClaim(ctx: ChargeContext, claim: DebitClaim, metadata: EventMetadata) {
  const { reserve } = claim;
  const id = reserve.transactionId;
  const stored = await foldStream(deps(ctx), transaction, transactionStream(id));
  if (stored.status !== 'none') return { kind: 'replayed', transactionId: id, state: stored } as const;
  const taken = dueDateReservation(reserve);
  try {
    await ctx.store.append(
      taken.stream,
      [{ ...ctx.events.encode(taken.event), id: randomUUID(), metadata }],
      'no_stream',
    );
  } catch (error) {
    if (!(error instanceof WrongExpectedVersionError)) throw error;
    const [first] = await ctx.store.read(taken.stream);
    const holder = first ? (ctx.events.decode(first) as DebitReservationEvent).data.transaction_id : null;
    if (holder !== id) throw chargeExists();
  }
  const reserved = await handleCommand(deps(ctx), transaction, transactionStream(id), reserve, {
    metadata,
    retryOnConflict: true,
  });
  if (reserved.events.length === 0)
    return { kind: 'replayed', transactionId: id, state: reserved.state } as const;
  return scheduleAndRecord(ctx, claim, metadata, reserved);
}

/** The provider call and its outcome's append, by the request that appended Reserved (never twice). */
async function scheduleAndRecord(
  ctx: ChargeContext,
  claim: DebitClaim,
  metadata: EventMetadata,
  reserved: { state: TransactionState; version: number },
): Promise<ChargeOutcome> {
  const { reserve } = claim;
  const id = reserve.transactionId;
  const command = await scheduleAtProvider(ctx, claim);
  const recorded = await recordCreation(deps(ctx), reserved, command, metadata, {
    transactionId: id,
    noun: 'debit',
  });
  return { kind: 'created', transactionId: id, state: recorded.state };
}

type DebitRecord = RecordIssued | RecordRefused | RecordUncertain;

const issuedWith = (providerReference: string): RecordIssued => ({
  kind: 'record_issued',
  // A scheduled debit has no QR code, copy-and-paste or deadline (SPEC 2.2, 3.1): only its external id.
  artifacts: { ...NO_ARTIFACTS, provider_reference: providerReference },
});

async function scheduleAtProvider(ctx: ChargeContext, claim: DebitClaim): Promise<DebitRecord> {
  const { reserve, authorization } = claim;
  const debit = reserve.pixAutomatic;
  if (!debit) throw new Error('a debit reservation without its authorization');
  const resolved = await reservationAdapter({ deps: deps(ctx), config: ctx.config, adapters: ctx }, reserve);
  if (resolved === null) return blockedAfterReservation();
  const port: PortDebit = {
    transactionId: reserve.transactionId,
    authorization,
    dueDate: debit.dueDate,
    amount: reserve.amount,
    description: reserve.description.trim(),
  };
  const outcome = await guarded(() =>
    withCapability(resolved.adapter, 'pixAutomatic', (p) =>
      p.scheduleDebit(port, resolved.context(), ctx.now()),
    ),
  );
  switch (outcome.kind) {
    case 'issued':
      if (outcome.status === 'failed') {
        return {
          kind: 'record_refused',
          failureCode: CREATION_REFUSED,
          providerReference: outcome.providerReference,
          diagnostics: diagnosticsFor('status_refused', null, null),
        };
      }
      // Any other status is scheduled for now; the poller reads what follows (never paid from a creation).
      return issuedWith(outcome.providerReference);
    case 'refused':
      return unissuedRecord(outcome);
    case 'uncertain': {
      // SPEC 3.1, port: no idempotency at the provider, so read before anything is sent again (never here).
      const found = await guarded(() =>
        withCapability(resolved.adapter, 'pixAutomatic', (p) =>
          p.findDebits(authorization, reserve.transactionId, resolved.context()),
        ),
      );
      if (found.kind === 'issued') {
        const same = found.debits.filter((d) => d.amount === null || d.amount === reserve.amount);
        const only = same[0];
        if (same.length === 1 && only) return issuedWith(only.providerReference);
      }
      return unissuedRecord(outcome);
    }
  }
}

/** Every check before the claim (a claim must always be completable); reads only. */
async function validDebit(
  ctx: ChargeContext,
  input: CreateDebitInput,
  snapshot: TransactionRequestSnapshot,
): Promise<{ claim: DebitClaim; events: readonly TransactionEvent[] }> {
  const body = input.body;
  const now = ctx.now();
  const loaded = await loadAuthorization(ctx, body.authorization_id);
  const a = loaded?.state;
  // SPEC 4.10 last bullet (authorizations too), 5.2: another mode or tree is 404; a descendant's is 403.
  if (
    !a ||
    a.livemode !== input.livemode ||
    !(await isTenantInTree({ store: ctx.store, registry: ctx.events }, input.tenantId, a.tenant_id))
  ) {
    throw new ApiError('not_found', 'The authorization does not exist.');
  }
  requireOwnTenant(
    input.tenantId,
    a.tenant_id,
    "The authorization belongs to a descendant tenant; use that tenant's key.",
  );
  if (a.status !== 'approved' || a.provider_reference === null) {
    throw new DomainError('automatic_not_approved', 'The payer has not approved this authorization.', {
      param: 'authorization_id',
    });
  }
  if (!inAuthorizedCalendar(a.first_due_date, a.interval_months, body.due_date)) {
    throw new DomainError('automatic_calendar_mismatch', 'The due date is not in the authorized calendar.', {
      param: 'due_date',
    });
  }
  const today = saoPauloDate(now);
  if (body.due_date < addDays(today, 2) || body.due_date > addDays(today, 10)) {
    throw new DomainError(
      'automatic_schedule_window',
      'A debit must be scheduled 2 to 10 days before its due date (Brasilia time).',
      { param: 'due_date' },
    );
  }
  if (body.amount !== a.amount) {
    throw new DomainError('automatic_contract_mismatch', 'The amount differs from the authorization.', {
      param: 'amount',
    });
  }
  if (normalizedDocument(body.customer.document) !== normalizedDocument(a.customer.document)) {
    throw new DomainError(
      'automatic_contract_mismatch',
      "The payer's document differs from the authorization's.",
      { param: 'customer.document' },
    );
  }
  if (body.callback_url !== undefined) {
    const check = checkDestinationSyntax(body.callback_url, destinationPolicy(ctx.config));
    if (!check.ok) throw invalid('callback_url', `callback_url is not allowed: ${check.reason}.`);
  }
  if (body.cost_center_id !== undefined) {
    await resolveCostCenter(ctx, input.tenantId, body.cost_center_id, {
      inherited: input.inheritedCostCenter,
    });
  }
  const routed = await route(ctx, input, a);
  // Issue 28 item 4: a debit is a Pix charge and retains the pix fees, fixed before the claim.
  const fees = await resolveFees(ctx, { tenantId: input.tenantId, method: 'pix', amount: body.amount, now });
  const reserve: ReserveTransaction = {
    kind: 'reserve',
    transactionId: newId('txn'),
    tenantId: input.tenantId,
    livemode: input.livemode,
    method: 'pix',
    amount: body.amount,
    reference: body.reference,
    description: body.description,
    costCenterId: body.cost_center_id ?? null,
    callbackUrl: body.callback_url ?? null,
    providerId: routed.providerId,
    subaccountId: null,
    environment: routed.environment,
    simulated: routed.simulated,
    idempotencyKeySha256: sha256Hex(input.idempotencyKey),
    expiresIn: null,
    boleto: null,
    creditCard: null,
    pixAutomatic: { authorizationId: a.id, dueDate: body.due_date },
    fees,
    request: snapshot,
    // The port has no builder of a debit's body: nothing is prepared at reservation (SPEC 2.3 null).
    providerRequest: null,
  };
  const precheck = transaction.decide(reserve, transaction.initialState, { now });
  if (isDomainError(precheck)) throw precheck;
  return {
    claim: { reserve, authorization: { authorizationId: a.id, providerReference: a.provider_reference } },
    events: precheck,
  };
}

/**
 * Where the debit goes (SPEC 4.11, 2.8): a test key's to the simulator; a live key's to the account that
 * holds the authorization (routing changes never move it), as long as the tenant's Pix rule still resolves
 * to that account and it is a production one, behind the production controls.
 */
async function route(
  ctx: ChargeContext,
  input: CreateDebitInput,
  a: AuthorizationState,
): Promise<{ providerId: string | null; environment: 'sandbox' | 'production'; simulated: boolean }> {
  if (!input.livemode) return { providerId: null, environment: 'sandbox', simulated: true };
  let current: string;
  try {
    const resolution = await resolveProviderFor(ctx.db, {
      tenantId: input.tenantId,
      method: 'pix',
      amount: input.body.amount,
    });
    current = resolution.provider.id;
  } catch (error) {
    if (!isDomainError(error) || error.code === 'amount_limit_exceeded') throw error;
    throw routingChanged();
  }
  if (a.provider_id === null || current !== a.provider_id) throw routingChanged();
  if (a.simulated) {
    if (!simulatorEnabled(ctx.config)) {
      throw new DomainError('simulator_disabled', 'The simulator is disabled (ENABLE_SIMULATOR).');
    }
    return { providerId: a.provider_id, environment: 'sandbox', simulated: true };
  }
  if (a.environment !== 'production') {
    throw new DomainError(
      'automatic_provider_unavailable',
      "The tenant's Pix rule does not use a production provider account.",
    );
  }
  await authorizeLiveIssuance(
    { deps: deps(ctx), config: ctx.config },
    {
      tenantId: input.tenantId,
      providerId: a.provider_id,
      reference: input.body.reference,
      idempotencyKey: input.idempotencyKey,
      amount: input.body.amount,
      method: 'pix',
    },
  );
  // Before reservation: a record that cannot send (no credentials, unreadable key) is refused, nothing stored.
  await resolveAdapter(
    { deps: deps(ctx), config: ctx.config, adapters: ctx },
    // An authorization is never routed through a marketplace subaccount (authorizations/create/handler.ts).
    { providerId: a.provider_id, simulated: false, subaccountId: null },
  );
  return { providerId: a.provider_id, environment: 'production', simulated: false };
}

function routingChanged(): DomainError {
  return new DomainError(
    'automatic_routing_changed',
    "The tenant's Pix rule now uses another account; a new authorization is needed.",
  );
}
