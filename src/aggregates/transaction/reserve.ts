import { parsedWith } from '../../events/event-registry.ts';
import type { DomainError } from '../decider.ts';
import type { ReserveTransaction, TransactionCommand } from './commands.ts';
import { reservedData, type TransactionEvent, type TransactionReservedData } from './events.ts';
import { policyOf } from './policies/index.ts';
import { invalid, refuse } from './refusals.ts';
import type { TransactionState } from './state.ts';
import { chargeKindOf, MAX_AMOUNT } from './vocabulary.ts';

function reservedFacts(c: ReserveTransaction, now: Date): TransactionReservedData {
  return {
    transaction_id: c.transactionId,
    tenant_id: c.tenantId,
    livemode: c.livemode,
    method: c.method,
    amount: c.amount,
    currency: 'BRL',
    reference: c.reference,
    description: c.description,
    cost_center_id: c.costCenterId,
    callback_url: c.callbackUrl,
    provider_id: c.providerId,
    subaccount_id: c.subaccountId,
    environment: c.environment,
    simulated: c.simulated,
    idempotency_key_sha256: c.idempotencyKeySha256,
    expires_in: c.expiresIn,
    boleto: c.boleto,
    ...(c.creditCard ? { credit_card: c.creditCard } : {}),
    ...(c.pixAutomatic
      ? {
          pix_automatic_authorization_id: c.pixAutomatic.authorizationId,
          scheduled_due_date: c.pixAutomatic.dueDate,
        }
      : {}),
    ...(c.fees ? { fees: c.fees } : {}),
    reserved_at: now.toISOString(),
    request: c.request,
    provider_request: c.providerRequest === null ? null : { ...c.providerRequest },
  };
}

/** Whether a repeated reserve carries the stored facts (the reservation time aside). */
export function sameReservation(state: TransactionState, command: TransactionCommand): boolean {
  if (state.status === 'none' || command.kind !== 'reserve') return false;
  const { reserved_at: _a, ...stored } = state.reserved;
  const { reserved_at: _b, ...asked } = reservedFacts(command, new Date(0));
  return JSON.stringify(sorted(stored)) === JSON.stringify(sorted(asked));
}

/** A JSON value with object keys sorted and undefined members dropped, as a stored payload reads back. */
function sorted(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sorted);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([k, v]) => [k, sorted(v)]),
  );
}

/** The creation checks (c), in the order a caller would fix them. */
export function reserve(c: ReserveTransaction, now: Date): readonly TransactionEvent[] | DomainError {
  if (!Number.isSafeInteger(c.amount) || c.amount < 1 || c.amount > MAX_AMOUNT) {
    return invalid('amount', 'The amount must be an integer of 1 to 100000000 centavos.');
  }
  if (!/^[0-9a-f]{64}$/.test(c.idempotencyKeySha256)) {
    return invalid('idempotency_key', 'The idempotency key digest must be a sha256 hex digest.');
  }
  const policy = policyOf(
    chargeKindOf({ method: c.method, pix_automatic_authorization_id: c.pixAutomatic?.authorizationId }),
  );
  if (c.pixAutomatic && c.method !== policy.method) {
    return invalid('method', 'A Pix Automatic debit is a Pix charge (SPEC 4.11).');
  }
  const fields = policy.checkFields({ expiresIn: c.expiresIn, boleto: c.boleto });
  if (fields !== null) return invalid(fields.param, fields.message);
  // Test-mode charges never reach a provider (SPEC 1, 5.2).
  if (!c.livemode && !c.simulated) return invalid('simulated', 'A test-mode charge is always simulated.');
  if (c.providerId === null && c.livemode) return invalid('provider_id', 'A live charge needs a provider.');
  if (c.simulated && c.providerRequest !== null) {
    return invalid('provider_request', 'A simulated charge has no provider body (SPEC 2.3).');
  }
  if (policy.sandboxRefusal !== null && !c.simulated && c.environment === 'sandbox') {
    return refuse(policy.sandboxRefusal.code, policy.sandboxRefusal.message);
  }
  if (Boolean(c.creditCard) !== (policy.kind === 'credit_card')) {
    return invalid('credit_card', 'Only a card charge carries a card, and it always does.');
  }
  const r = c.request;
  if (r.tenant_id !== c.tenantId || r.method !== c.method || r.amount !== c.amount) {
    return invalid('request', 'The snapshot must carry the tenant, method and amount of the charge.');
  }
  const facts = reservedFacts(c, now);
  const parsed = reservedData.safeParse(facts);
  if (!parsed.success) {
    const param = parsed.error.issues[0]?.path.join('.') ?? 'request';
    return invalid(param, 'The reservation is not a valid charge.');
  }
  // The parsed copy, marked: the registry's encode of this event does not parse it a second time.
  return [{ type: 'Transaction.Reserved', data: parsedWith(reservedData, parsed.data) }];
}
