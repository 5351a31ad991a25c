import type {
  AuthorizationDiagnostics,
  AuthorizationState,
} from '../../../aggregates/pix-automatic-authorization.ts';
import type { TransactionRequestSnapshot } from '../../../aggregates/transaction.ts';
import {
  type AuthorizationTarget,
  type IntervalMonths,
  type Outcome,
  type PortAuthorization,
  type ProviderContext,
  withCapability,
} from '../../../providers/port.ts';
import type { AppContext } from '../../context.ts';
import { type ResolvedAdapter, resolveAdapter } from '../../provider-adapter.ts';
import { callProvider } from '../../provider-call.ts';
import { normalizedCustomer } from '../../transactions/create/handler.ts';

/**
 * The provider side of an authorization (src/providers/port.ts PixAutomaticCapability): the port's copy of
 * the reservation (normalized: trimmed, document and state upper, e-mail lower; SPEC 4.1) and one call at a
 * time, where anything an adapter throws is `uncertain` (DESIGN.md "Providers").
 */

export function portAuthorization(state: AuthorizationState): PortAuthorization {
  return {
    authorizationId: state.id,
    name: state.name.trim(),
    description: state.description.trim(),
    amount: state.amount,
    firstDueDate: state.first_due_date,
    intervalMonths: state.interval_months as IntervalMonths,
    // Only the payer is read from the snapshot: the charges' one normalization (SPEC 4.1).
    customer: normalizedCustomer({ customer: state.customer } as unknown as TransactionRequestSnapshot),
  };
}

export function authorizationTarget(state: AuthorizationState): AuthorizationTarget | null {
  if (state.provider_reference === null) return null;
  return { authorizationId: state.id, providerReference: state.provider_reference };
}

/** The adapter of an authorization's provider: the simulator for a simulated one (SPEC 2.8: never moved). */
export function adapterOf(
  ctx: Pick<AppContext, 'store' | 'events' | 'config' | 'providers'>,
  state: Pick<AuthorizationState, 'provider_id' | 'simulated'>,
): Promise<ResolvedAdapter> {
  return resolveAdapter(
    { deps: { store: ctx.store, registry: ctx.events }, config: ctx.config, adapters: ctx },
    // Never through a marketplace subaccount (create/handler.ts refuses that route).
    { providerId: state.provider_id, simulated: state.simulated, subaccountId: null },
  );
}

/** One call of the capability; a throw is an unanswered call (`uncertain`), never a refusal. */
export function callPixAutomatic<T>(
  resolved: ResolvedAdapter,
  call: (
    port: NonNullable<ResolvedAdapter['adapter']['pixAutomatic']>,
    c: ProviderContext,
  ) => Promise<Outcome<T>>,
): Promise<Outcome<T>> {
  return callProvider(() =>
    withCapability(resolved.adapter, 'pixAutomatic', (port) => call(port, resolved.context())),
  );
}

export function diagnosticsOf(outcome: { diagnostics: AuthorizationDiagnostics }): AuthorizationDiagnostics {
  const d = outcome.diagnostics;
  return {
    provider_error_code: d.provider_error_code,
    provider_error_message: d.provider_error_message,
    provider_http_status: d.provider_http_status,
  };
}
