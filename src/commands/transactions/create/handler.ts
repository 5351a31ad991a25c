import { randomUUID } from 'node:crypto';
import type { Selectable } from 'kysely';
import { DomainError, isDomainError } from '../../../aggregates/decider.ts';
import {
  type BoletoOptions,
  type ChargeMethod,
  policyOf,
  type RecordCaptured,
  type ReserveTransaction,
  saoPauloDate,
  type TransactionEvent,
  type TransactionRequestSnapshot,
  type TransactionState,
  transaction,
} from '../../../aggregates/transaction.ts';
import type { Config } from '../../../config.ts';
import { externalProviderPayerIssue } from '../../../contract/transactions.ts';
import { sha256Hex } from '../../../crypto/secrets.ts';
import type { TransactionsTable } from '../../../db/schema.ts';
import type { EventMetadata, NewEvent } from '../../../events/event-store.ts';
import { newId } from '../../../ids.ts';
import { transactionRowFromState } from '../../../projections/transactions.ts';
import type { PortCardCharge, PortCharge, ProviderCustomer } from '../../../providers/port.ts';
import { type CandidateProvider, resolveProviderFor } from '../../../routing/resolve-provider.ts';
import { checkDestinationSyntax, destinationPolicy } from '../../../webhooks/ssrf-guard.ts';
import { type CommandDeps, handleCommand } from '../../command-handler.ts';
import type { AppContext } from '../../context.ts';
import { resolveCostCenter } from '../../cost-centers/resolve.ts';
import { type CardCharge, opensAt } from '../../credit-card/card-charge.ts';
import { isCardExpired } from '../../credit-card/card-expiry.ts';
import { issueCardCharge } from '../../credit-card/issue-card.ts';
import { resolveFees } from '../../fee-schedules/resolve.ts';
import {
  claimIdempotencyKey,
  claimIdempotencyKeyWith,
  type IdempotencyClaim,
  type JsonValue,
  requestHash,
} from '../../idempotency.ts';
import { ImmutableFacts } from '../../immutable-facts.ts';
import { refuseBodyTenant } from '../../principal.ts';
import { type ResolvedAdapter, resolveAdapter } from '../../provider-adapter.ts';
import { simulatorEnabled } from '../../providers/bootstrap-simulator.ts';
import { routeLink } from '../../subaccounts/route-link.ts';
import { authorizeLiveIssuance } from '../shared/live-payments.ts';
import { transactionStream } from '../shared/stream.ts';
import { chargeClaimInput, heldChargeClaim, knownChargeClaim } from './charge-claim.ts';
import { type CreationRecord, issueAtProvider, recordCreation } from './issuance.ts';

/**
 * Charge creation (SPEC 3.1, 4 common rules, 4.1, 4.2, 5.8; DESIGN.md "Command handlers").
 *
 * 1. A body carrying `tenant_id` is `422 tenant_from_api_key` (the tenant comes from the key).
 * 2. The snapshot (SPEC 2.3 `request`: original values, tenant resolved, defaults applied) is the
 *    idempotency body; the hash also covers the method and route, so a Pix key reused on boleto conflicts.
 * 3. An existing claim with the same hash is a replay (never re-validated: a replay keeps the original due
 *    date, and a record stored without phone or address replays with its original body: SPEC 4.1 "Legacy
 *    replay"); another hash is `409 idempotency_conflict`.
 * 4. A new request is validated fully (due date window, cost center, routing, production controls, the
 *    decider's creation checks) before the claim: a claim must always be completable.
 * 5. The claim (`idempotency-<tenant>-<sha256(key)>` live, `idempotency-<tenant>-test-<sha256(key)>` test:
 *    the mode is part of the scope, SPEC 5.2) carries the whole reservation; the Reserved append is
 *    `no_stream` on `transaction-<id>`. Whoever appends Reserved, and only they, calls the provider: with 100
 *    concurrent identical requests one claim wins, one Reserved is appended, one provider call is made.
 *    A crash between claim and Reserved is completed by the next replay (which then makes the only call).
 */

export interface ChargeAddressInput {
  zip_code: string;
  street: string;
  number: string;
  complement?: string | undefined;
  district: string;
  city: string;
  state: string;
}
export interface ChargeCustomerInput {
  name?: string | undefined;
  document?: string | undefined;
  email?: string | undefined;
  /** Required for a new charge; optional in the type because a legacy replay may lack it (SPEC 4.1). */
  phone?: string | undefined;
  address?: ChargeAddressInput | undefined;
}
export interface BoletoInput {
  due_date: string;
  instruction?: string | undefined;
  penalty_rate?: number | undefined;
  interest_rate?: number | undefined;
  cancel_after_due?: boolean | undefined;
  days_before_cancel?: number | undefined;
}
/** A body already checked by the route's schema (SPEC 4.1, 4.2), original spelling kept. */
export interface ChargeBody {
  tenant_id?: unknown;
  amount: number;
  reference: string;
  description: string;
  customer: ChargeCustomerInput;
  expires_in?: number | undefined;
  boleto?: BoletoInput | undefined;
  cost_center_id?: string | undefined;
  callback_url?: string | undefined;
}

export interface CreateChargeInput {
  tenantId: string;
  livemode: boolean;
  method: ChargeMethod;
  idempotencyKey: string;
  /** Route template, part of the request hash. */
  route: string;
  body: ChargeBody;
  /** A card charge's card (SPEC 4.9): its data held in memory only, or a stored card. */
  card?: CardCharge | undefined;
  /** The cost center is a subscription's or a checkout link's: it may have been deactivated since (SPEC 4.10). */
  inheritedCostCenter?: boolean | undefined;
}

export type ChargeOutcome =
  /** This request reserved the charge and called the provider. */
  | {
      kind: 'created';
      transactionId: string;
      state: TransactionState;
      /** The `transactions` row the answer shows, folded without a read when the store gave the times. */
      row?: Selectable<TransactionsTable>;
    }
  /**
   * A replay: the stored record (status may still be processing). `state` is absent when the reservation was
   * already known to this process (then nothing is read: the caller reads the record it answers anyway).
   */
  | { kind: 'replayed'; transactionId: string; state?: TransactionState };

export type ChargeContext = Pick<AppContext, 'store' | 'events' | 'db' | 'now' | 'providers'> & {
  config: Pick<
    Config,
    | 'ENABLE_SIMULATOR'
    | 'DATABASE_URL'
    | 'ALLOW_LIVE_PAYMENTS'
    | 'ALLOW_UNSCOPED_LIVE_PAYMENTS'
    | 'LIVE_PAYMENT_SCOPE_JSON'
    | 'WEBHOOK_ALLOWED_PRIVATE_HOSTS'
    | 'CREDENTIALS_ENCRYPTION_KEY'
    | 'CALEBE_DATA_DIR'
    | 'PROVIDER_TIMEOUT_MS'
  >;
};

const DEFAULT_EXPIRES_IN = 3600;

function deps(ctx: ChargeContext): CommandDeps {
  return { store: ctx.store, registry: ctx.events, now: () => ctx.now() };
}

function invalid(param: string, message: string): DomainError {
  return new DomainError('validation_error', message, { param });
}

function addDays(date: string, days: number): string {
  const d = new Date(`${date}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + days);
  return d.toISOString().slice(0, 10);
}

/** SPEC 2.3 `request`: original values, tenant and method, effective expiry; zero/false defaults omitted. */
export function requestSnapshot(input: CreateChargeInput): TransactionRequestSnapshot {
  const b = input.body;
  const snapshot: TransactionRequestSnapshot = {
    tenant_id: input.tenantId,
    method: input.method,
    amount: b.amount,
    reference: b.reference,
    description: b.description,
    customer: customerSnapshot(b.customer),
    ...(b.cost_center_id !== undefined ? { cost_center_id: b.cost_center_id } : {}),
    ...(b.callback_url !== undefined ? { callback_url: b.callback_url } : {}),
    ...(input.card ? { installments: input.card.installments, credit_card: input.card.masked } : {}),
  };
  const policy = policyOf(input.method);
  if (policy.expiresIn) {
    snapshot.expires_in =
      b.expires_in === undefined || b.expires_in === 0 ? DEFAULT_EXPIRES_IN : b.expires_in;
  } else if (b.boleto) {
    const o = b.boleto;
    snapshot.boleto = {
      due_date: o.due_date,
      ...(o.instruction !== undefined && o.instruction !== '' ? { instruction: o.instruction } : {}),
      ...(o.penalty_rate ? { penalty_rate: o.penalty_rate } : {}),
      ...(o.interest_rate ? { interest_rate: o.interest_rate } : {}),
      ...(o.cancel_after_due ? { cancel_after_due: true } : {}),
      ...(o.days_before_cancel ? { days_before_cancel: o.days_before_cancel } : {}),
    };
  }
  return snapshot;
}

/** SPEC 2.3 `request.customer`: the payer as sent (original spelling), absent fields left out. */
export function customerSnapshot(c: ChargeBody['customer']): TransactionRequestSnapshot['customer'] {
  return {
    ...(c.name !== undefined ? { name: c.name } : {}),
    ...(c.document !== undefined ? { document: c.document } : {}),
    ...(c.email !== undefined ? { email: c.email } : {}),
    ...(c.phone !== undefined ? { phone: c.phone } : {}),
    ...(c.address
      ? {
          address: {
            zip_code: c.address.zip_code,
            street: c.address.street,
            number: c.address.number,
            ...(c.address.complement !== undefined ? { complement: c.address.complement } : {}),
            district: c.address.district,
            city: c.address.city,
            state: c.address.state,
          },
        }
      : {}),
  };
}

/** Effective boleto options (defaults applied), as the reservation stores them. */
function boletoOptions(snapshot: TransactionRequestSnapshot): BoletoOptions | null {
  const o = snapshot.boleto;
  if (!o) return null;
  return {
    due_date: o.due_date,
    instruction: o.instruction ?? null,
    penalty_rate: o.penalty_rate ?? 0,
    interest_rate: o.interest_rate ?? 0,
    cancel_after_due: o.cancel_after_due ?? false,
    days_before_cancel: o.days_before_cancel ?? 0,
  };
}

/** SPEC 4.1: normalized copies for the provider body (trim; state and document upper; e-mail lower). */
export function normalizedCustomer(snapshot: TransactionRequestSnapshot): ProviderCustomer {
  const c = snapshot.customer;
  const a = c.address;
  return {
    ...(c.name !== undefined ? { name: c.name.trim() } : {}),
    ...(c.document !== undefined ? { document: c.document.trim().toUpperCase() } : {}),
    ...(c.email !== undefined ? { email: c.email.trim().toLowerCase() } : {}),
    ...(c.phone !== undefined ? { phone: c.phone.trim() } : {}),
    ...(a
      ? {
          address: {
            zip_code: a.zip_code.trim(),
            street: a.street.trim(),
            number: a.number.trim(),
            ...(a.complement !== undefined && a.complement.trim() !== ''
              ? { complement: a.complement.trim() }
              : {}),
            district: a.district.trim(),
            city: a.city.trim(),
            state: a.state.trim().toUpperCase(),
          },
        }
      : {}),
  };
}

export interface Route {
  providerId: string | null;
  kind: 'simulator' | 'external';
  environment: 'sandbox' | 'production';
  /**
   * SPEC 2.2 `subaccount_id`: the marketplace subaccount link the charge is issued through (issue 28 item 3),
   * or null. Also set for a test-mode charge routed to a marketplace (the same validation, SPEC 1).
   */
  subaccountId: string | null;
  /** The record's adapter, resolved before reservation (its builder makes the body; SPEC 2.3). */
  adapter: ResolvedAdapter;
}

/**
 * SPEC 2.8 routing for both modes: a test key gets "the same validation" (SPEC 1), so its charge is routed
 * exactly as a live one (no rule, method disabled, `max_amount`, Pix on an external sandbox, a marketplace's
 * subaccount link and its token), and only then served by the simulator: no provider record, no provider
 * call, no production controls (SPEC 5.2, 5.8). Live keys also get the simulator switch, the production
 * controls and the adapter check.
 *
 * Marketplace providers (SPEC 2.8, issue 28 item 3): the tenant's own active link with the token of the
 * provider's environment (subaccounts/route-link.ts: `422 subaccount_not_configured`,
 * `422 subaccount_credentials_missing`), checked before the claim, so a refusal stores nothing; the charge
 * then carries `subaccount_id` and every call about it uses that subaccount's token.
 */
export async function route(ctx: ChargeContext, input: CreateChargeInput): Promise<Route> {
  const resolution = await resolveProviderFor(ctx.db, {
    tenantId: input.tenantId,
    method: input.method,
    amount: input.body.amount,
  });
  const p = resolution.provider;
  if (!input.livemode) {
    if (p.kind === 'external' && p.environment === 'sandbox') refuseSandbox(input.method);
    if (p.kind === 'external') requireProviderPayer(input);
    const link = p.kind === 'external' && p.isMarketplace ? await marketplaceLink(ctx, input, p) : null;
    const adapter = await resolveAdapter(adapterContext(ctx), {
      providerId: null,
      simulated: true,
      subaccountId: null,
    });
    return {
      providerId: null,
      kind: 'simulator',
      environment: 'sandbox',
      subaccountId: link?.subaccountId ?? null,
      adapter,
    };
  }
  if (p.kind === 'simulator') {
    if (!simulatorEnabled(ctx.config)) {
      throw new DomainError('simulator_disabled', 'The simulator is disabled (ENABLE_SIMULATOR).');
    }
    const adapter = await resolveAdapter(adapterContext(ctx), {
      providerId: p.id,
      simulated: true,
      subaccountId: null,
    });
    return { providerId: p.id, kind: 'simulator', environment: 'sandbox', subaccountId: null, adapter };
  }
  if (p.environment === 'sandbox') refuseSandbox(input.method);
  requireProviderPayer(input);
  const link = p.isMarketplace ? await marketplaceLink(ctx, input, p) : null;
  if (p.environment === 'production') {
    await authorizeLiveIssuance(
      { deps: deps(ctx), config: ctx.config },
      {
        tenantId: input.tenantId,
        providerId: p.id,
        reference: input.body.reference,
        idempotencyKey: input.idempotencyKey,
        amount: input.body.amount,
        method: input.method,
      },
    );
  }
  // Before reservation: a record that cannot send (no credentials, unreadable key) is refused with nothing stored.
  const adapter = await resolveAdapter(adapterContext(ctx), {
    providerId: p.id,
    simulated: false,
    subaccountId: link?.subaccountId ?? null,
    subaccountToken: link?.token,
  });
  return {
    providerId: p.id,
    kind: 'external',
    environment: p.environment,
    subaccountId: link?.subaccountId ?? null,
    adapter,
  };
}

/** SPEC 2.8: the tenant's own active link with the provider, holding the token of its environment. */
function marketplaceLink(ctx: ChargeContext, input: CreateChargeInput, p: CandidateProvider) {
  return routeLink(ctx, { tenantId: input.tenantId, providerId: p.id, environment: p.environment });
}

/** SPEC 4.9: an expiry `MM/YYYY` not in the past, by the month in America/Sao_Paulo. */
function requireUnexpiredCard(card: CardCharge, now: Date): void {
  if (isCardExpired(card.masked.expiration, now)) {
    throw invalid(
      card.secret.kind === 'data' ? 'credit_card.expiration' : 'credit_card.card_id',
      'The card has expired (MM/YYYY before this month in America/Sao_Paulo).',
    );
  }
}

/**
 * A stored card is charged only where it was kept (its token opens nowhere else): the provider account the
 * charge is routed to now ({@link opensAt}). Otherwise the integrator charges the card data again.
 */
function requireCardOfRoute(card: CardCharge, routed: Route): void {
  if (card.secret.kind !== 'data' && !opensAt(card.secret.card, routed)) {
    throw invalid(
      'credit_card.card_id',
      'This card was kept by another provider account; charge it with its data again.',
    );
  }
}

/** SPEC 1: the external provider's sandbox serves boleto only; the other methods are refused before anything is stored. */
function refuseSandbox(method: ChargeMethod): void {
  const refusal = policyOf(method).sandboxRefusal;
  if (refusal) throw new DomainError(refusal.code, refusal.message);
}

/**
 * Issue 23 item 1.6: what the external provider would refuse in the payer, refused here first with
 * `422 validation_error` naming the field, for a live key and for a test key routed to the same provider
 * (SPEC 1: the same validation). Before the production controls and the reservation: nothing is stored.
 */
function requireProviderPayer(input: CreateChargeInput): void {
  const issue = externalProviderPayerIssue(input.body.customer);
  if (issue) throw invalid(issue.param, issue.message);
}

/** `ctx` holds the provider registry, read at each resolution (provider-adapter.ts). */
function adapterContext(ctx: ChargeContext) {
  return { deps: deps(ctx), config: ctx.config, adapters: ctx };
}

/** The charge as the port sees it, from the reservation's normalized copies (SPEC 4.1). */
function portCharge(reserve: ReserveTransaction): PortCharge {
  return {
    transactionId: reserve.transactionId,
    method: reserve.method,
    amount: reserve.amount,
    description: reserve.description.trim(),
    customer: normalizedCustomer(reserve.request),
    expiresIn: reserve.expiresIn,
    boleto: reserve.boleto,
    callbackUrl: reserve.callbackUrl,
  };
}

/** A card charge as the port sees it (SPEC 4.9). */
function portCardCharge(reserve: ReserveTransaction): PortCardCharge {
  return {
    transactionId: reserve.transactionId,
    amount: reserve.amount,
    installments: reserve.creditCard?.installments ?? 1,
    description: reserve.description.trim(),
    customer: normalizedCustomer(reserve.request),
    callbackUrl: reserve.callbackUrl,
  };
}

function reserveFromClaim(payload: Record<string, JsonValue>): ReserveTransaction {
  const reserve = payload.reserve;
  if (
    reserve === null ||
    typeof reserve !== 'object' ||
    Array.isArray(reserve) ||
    reserve.kind !== 'reserve'
  ) {
    throw new Error('charge claim without its reservation');
  }
  // The decider re-validates every fact (reservedData.safeParse) before the Reserved event is appended.
  return reserve as unknown as ReserveTransaction;
}

/**
 * Transactions whose Reserved event this process has seen appended or read (per store). Once in the log it
 * stays there, so a replay of such a claim has nothing to complete and is answered without reading the
 * stream again (BENCHMARKS.md "HTTP create and replay").
 */
const reservedTransactions = new ImmutableFacts<true>(10_000);

/**
 * Appends Reserved from the claim when it is not there yet; the request that appends it makes the provider
 * call and records the outcome. Everyone else gets the stored record. `claimedNow`: this request has just
 * appended the claim, whose transaction id is new, so its stream cannot exist yet and is not read first.
 */
async function completeClaim(
  ctx: ChargeContext,
  reserve: ReserveTransaction,
  metadata: EventMetadata,
  card: CardCharge | undefined,
  claimedNow = false,
): Promise<ChargeOutcome> {
  const id = reserve.transactionId;
  if (!claimedNow && reservedTransactions.get(ctx.store, id)) return { kind: 'replayed', transactionId: id };
  const stream = transactionStream(id);
  const reserved = await handleCommand(deps(ctx), transaction, stream, reserve, {
    metadata,
    retryOnConflict: true,
    // A wrong guess only costs a version conflict, after which the stream is read and the command re-decided.
    ...(claimedNow ? { from: { state: transaction.initialState, version: 0 } } : {}),
  });
  reservedTransactions.set(ctx.store, id, true);
  if (reserved.events.length === 0) return { kind: 'replayed', transactionId: id, state: reserved.state };
  return recordOutcome(ctx, reserve, metadata, reserved, card);
}

/**
 * The provider call and its outcome's append, by the request that appended Reserved. The answer's row is
 * folded from what this request holds (the state after Reserved plus the outcome, the two appends' times),
 * so the route does not read the stream back (issue 14); without those times (EventStoreDB) it reads.
 */
async function recordOutcome(
  ctx: ChargeContext,
  reserve: ReserveTransaction,
  metadata: EventMetadata,
  reserved: { state: TransactionState; version: number; recordedAt?: Date | undefined },
  card: CardCharge | undefined,
): Promise<ChargeOutcome> {
  const id = reserve.transactionId;
  let command: CreationRecord | RecordCaptured;
  if (reserve.creditCard) {
    // The card secret is this request's (a replay of the same body brings it again); without it, nothing is sent.
    if (!card) throw new Error('a card charge was reserved without its card');
    const issuing = { ...adapterContext(ctx), now: () => ctx.now() };
    command = await issueCardCharge(issuing, reserve, portCardCharge(reserve), card.secret, metadata);
  } else {
    command = await issueAtProvider(adapterContext(ctx), reserve, portCharge(reserve), () => ctx.now());
  }
  const recorded = await recordCreation(deps(ctx), reserved, command, metadata, {
    transactionId: id,
    noun: 'charge',
  });
  const state = recorded.state;
  // The stream's first event is Reserved (its time `reserved.recordedAt`), its last the outcome just appended.
  const row =
    state.status !== 'none' && reserved.recordedAt && recorded.recordedAt && recorded.events.length > 0
      ? transactionRowFromState(
          state,
          { recordedAt: reserved.recordedAt },
          { recordedAt: recorded.recordedAt, version: recorded.version },
        )
      : undefined;
  return { kind: 'created', transactionId: id, state, ...(row ? { row } : {}) };
}

/** `POST /v1/pix` and `POST /v1/boleto`. */
export async function createCharge(
  ctx: ChargeContext,
  input: CreateChargeInput,
  metadata: EventMetadata,
): Promise<ChargeOutcome> {
  refuseBodyTenant(input.body.tenant_id);
  if (policyOf(input.method).boletoOptions && !input.body.boleto)
    throw invalid('boleto', 'boleto options are required.');
  const snapshot = requestSnapshot(input);
  // A card's data is compared by its keyed fingerprint (card-token.ts), never kept in the claim.
  const hash = requestHash(
    'POST',
    input.route,
    input.card?.fingerprint ? { ...snapshot, card_fingerprint: input.card.fingerprint } : snapshot,
  );
  const replay = (held: IdempotencyClaim): Promise<ChargeOutcome> => {
    if (held.request_hash !== hash) {
      throw new DomainError(
        'idempotency_conflict',
        'This Idempotency-Key was used with another body or method.',
      );
    }
    return completeClaim(ctx, reserveFromClaim(held.payload), metadata, input.card);
  };

  // Replays are answered as stored, never judged by validation (a replay keeps the original due date, and a
  // record stored without phone or address replays with its original body). A claim this process knows is
  // answered at once. Otherwise the claim is read only when it may exist and matters (BENCHMARKS.md "HTTP
  // create and replay", lever c): when validation fails (this may be a replay of a record that would not
  // pass today) and when the claim append finds the key taken; a new key costs no read.
  const known = knownChargeClaim(ctx, input);
  if (known) return replay(known);
  let valid: { reserve: ReserveTransaction; events: readonly TransactionEvent[] };
  try {
    valid = await validReservation(ctx, input, snapshot);
  } catch (error) {
    return replay(await heldChargeClaim(error, ctx, input));
  }
  const { reserve, events } = valid;
  const claimInput = chargeClaimInput(input, input.route, snapshot, hash, reserve.transactionId, {
    reserve: JSON.parse(JSON.stringify(reserve)) as JsonValue,
  });
  const stream = transactionStream(reserve.transactionId);
  // SPEC 3.1: the claim and Reserved (with its inline projections) commit in one SQL transaction.
  const resource = {
    stream,
    events: events.map((e): NewEvent => ({ ...ctx.events.encode(e), id: randomUUID(), metadata })),
  };
  let claimed: Awaited<ReturnType<typeof claimIdempotencyKey>> | undefined;
  try {
    const together = await claimIdempotencyKeyWith(deps(ctx), claimInput, metadata, resource);
    if (together?.first) {
      let state: TransactionState = transaction.initialState;
      for (const e of events) state = transaction.evolve(state, e);
      reservedTransactions.set(ctx.store, reserve.transactionId, true);
      const { version, recordedAt } = together.appended;
      return recordOutcome(ctx, reserve, metadata, { state, version, recordedAt }, input.card);
    }
    // No multi-stream transaction (EventStoreDB): claim, then append Reserved (a crash between the two is
    // completed by the next replay).
    claimed = together ?? (await claimIdempotencyKey(deps(ctx), claimInput, metadata));
  } catch (error) {
    // Taken by another body: the same answer (and message) as when the claim is found first.
    if (!isDomainError(error) || error.code !== 'idempotency_conflict') throw error;
    return replay(await heldChargeClaim(error, ctx, input));
  }
  const { first, claim } = claimed;
  return completeClaim(ctx, reserveFromClaim(claim.payload), metadata, input.card, first);
}

/**
 * Every check a new charge must pass before its claim (a claim must always be completable): SPEC 4.1 phone
 * and address, the boleto due date window, the callback_url's syntax, the cost center, routing and the
 * production controls, then the decider's own creation checks. Reads only, no append: a replay whose
 * validation fails is answered from its claim, as if validation had not run.
 */
async function validReservation(
  ctx: ChargeContext,
  input: CreateChargeInput,
  snapshot: TransactionRequestSnapshot,
): Promise<{ reserve: ReserveTransaction; events: readonly TransactionEvent[] }> {
  // SPEC 4.1 legacy replay: only a stored record may lack phone or address; a new attempt needs both.
  if (input.body.customer.phone === undefined) {
    throw invalid('customer.phone', 'customer.phone is required for a new charge.');
  }
  if (input.body.customer.address === undefined) {
    throw invalid('customer.address', 'customer.address is required for a new charge.');
  }
  const now = ctx.now();
  if (input.card) requireUnexpiredCard(input.card, now);
  const boleto = boletoOptions(snapshot);
  if (boleto) {
    const today = saoPauloDate(now);
    if (boleto.due_date < today || boleto.due_date > addDays(today, 365)) {
      throw invalid('boleto.due_date', 'The due date must be today to today + 365 days (America/Sao_Paulo).');
    }
  }
  if (input.body.callback_url !== undefined) {
    // SPEC 6 SSRF guard, without DNS here; the delivery checks the resolved addresses again.
    const check = checkDestinationSyntax(input.body.callback_url, destinationPolicy(ctx.config));
    if (!check.ok) throw invalid('callback_url', `callback_url is not allowed: ${check.reason}.`);
  }
  if (input.body.cost_center_id !== undefined) {
    await resolveCostCenter(ctx, input.tenantId, input.body.cost_center_id, {
      inherited: input.inheritedCostCenter,
    });
  }
  const routed = await route(ctx, input);
  // Issue 28 item 4: fees resolved (or refused) before the claim, then fixed in the reservation.
  const fees = await resolveFees(ctx, {
    tenantId: input.tenantId,
    method: input.method,
    amount: input.body.amount,
    now,
  });
  const draft: ReserveTransaction = {
    kind: 'reserve',
    transactionId: newId('txn'),
    tenantId: input.tenantId,
    livemode: input.livemode,
    method: input.method,
    amount: input.body.amount,
    reference: input.body.reference,
    description: input.body.description,
    costCenterId: input.body.cost_center_id ?? null,
    callbackUrl: input.body.callback_url ?? null,
    providerId: routed.providerId,
    subaccountId: routed.subaccountId,
    environment: routed.environment,
    simulated: routed.kind === 'simulator',
    idempotencyKeySha256: sha256Hex(input.idempotencyKey),
    expiresIn: policyOf(input.method).expiresIn ? (snapshot.expires_in ?? DEFAULT_EXPIRES_IN) : null,
    boleto,
    creditCard: input.card ? { card: input.card.masked, installments: input.card.installments } : null,
    fees,
    request: snapshot,
    providerRequest: null,
  };
  // SPEC 2.3: the provider body is built now, by the builder issuance uses, and stored in the reservation
  // (null for the simulator, which sends nothing).
  const adapter = routed.adapter.adapter;
  const environment = { environment: routed.adapter.environment };
  if (input.card) requireCardOfRoute(input.card, routed);
  const reserve: ReserveTransaction = {
    ...draft,
    providerRequest: input.card
      ? (adapter.cards?.buildChargeRequest(portCardCharge(draft), environment) ?? null)
      : adapter.charges.buildRequest(portCharge(draft), environment),
  };
  const precheck = transaction.decide(reserve, transaction.initialState, { now });
  if (isDomainError(precheck)) throw precheck;
  // The decider's own events for the reservation, appended with the claim.
  return { reserve, events: precheck };
}
