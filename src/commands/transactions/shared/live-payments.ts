import { DomainError } from '../../../aggregates/decider.ts';
import type { ChargeMethod } from '../../../aggregates/transaction.ts';
import type { LiveScopeEntry } from '../../../config.ts';
import type { CommandDeps } from '../../command-handler.ts';
import { type LivePaymentsConfig, readEffectiveSetting } from '../../payment-settings/effective-setting.ts';

/**
 * SPEC 5.8 production controls: the one answer to "may this live charge be issued?" and "may this live
 * refresh query the provider?". Only production (live) operations call these; the simulator and the boleto
 * sandbox never do.
 */

export interface LivePaymentsContext {
  deps: Pick<CommandDeps, 'store' | 'registry'>;
  config: LivePaymentsConfig;
}

export interface LiveCharge {
  tenantId: string;
  providerId: string;
  reference: string;
  idempotencyKey: string;
  /** Centavos. */
  amount: number;
  method: ChargeMethod;
}

function disabled(): DomainError {
  return new DomainError('live_payments_disabled', 'Production payments are disabled.');
}

function outOfScope(): DomainError {
  return new DomainError(
    'live_payment_out_of_scope',
    'This charge is outside the authorized production scope.',
  );
}

function matches(entry: LiveScopeEntry, charge: LiveCharge): boolean {
  return (
    entry.tenant_id === charge.tenantId &&
    entry.provider_id === charge.providerId &&
    entry.reference === charge.reference &&
    entry.idempotency_key === charge.idempotencyKey &&
    entry.amount === charge.amount &&
    entry.method === charge.method
  );
}

/** Reads the effective control first: off or unreadable stops everything before the scope is looked at. */
async function requireLivePaymentsOn(ctx: LivePaymentsContext): Promise<void> {
  const setting = await readEffectiveSetting(ctx.deps, ctx.config);
  if (!setting.allowLivePayments) throw disabled();
}

/**
 * May this live charge be issued? Resolves when it may; otherwise throws the SPEC 7 DomainError:
 *  - `503 payment_settings_unavailable`: the control cannot be read (no fallback to the environment);
 *  - `403 live_payments_disabled`: the effective `allow_live_payments` is off;
 *  - `403 live_payment_out_of_scope`: a scope is configured and no entry is exactly this combination
 *    (a Pix entry never authorizes boleto), or no scope is configured and `ALLOW_UNSCOPED_LIVE_PAYMENTS`
 *    is not true.
 * A configured scope always restricts, even with `ALLOW_UNSCOPED_LIVE_PAYMENTS=true` (docs/decisions.md).
 */
export async function authorizeLiveIssuance(ctx: LivePaymentsContext, charge: LiveCharge): Promise<void> {
  await requireLivePaymentsOn(ctx);
  const scope = ctx.config.LIVE_PAYMENT_SCOPE_JSON;
  if (scope !== undefined) {
    if (!scope.some((entry) => matches(entry, charge))) throw outOfScope();
    return;
  }
  if (!ctx.config.ALLOW_UNSCOPED_LIVE_PAYMENTS) throw outOfScope();
}

/**
 * May a live refresh query this provider (SPEC 4.6, 5.8)? Same control and errors as issuance; with a scope
 * configured, only its providers may be queried ("the scope also blocks financial queries to another
 * provider"). The charge being refreshed already exists, so its reference, key and amount are not checked.
 */
export async function authorizeLiveRefresh(
  ctx: LivePaymentsContext,
  target: { providerId: string },
): Promise<void> {
  await requireLivePaymentsOn(ctx);
  const scope = ctx.config.LIVE_PAYMENT_SCOPE_JSON;
  if (scope !== undefined) {
    if (!scope.some((entry) => entry.provider_id === target.providerId)) throw outOfScope();
    return;
  }
  if (!ctx.config.ALLOW_UNSCOPED_LIVE_PAYMENTS) throw outOfScope();
}
