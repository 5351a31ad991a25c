import { DomainError, isDomainError } from '../../aggregates/decider.ts';
import { provider } from '../../aggregates/provider.ts';
import type { SubaccountRecordState } from '../../aggregates/subaccount.ts';
import type { CreateSubaccountBody } from '../../contract/subaccounts.ts';
import type {
  MatrixContext,
  OutcomeReason,
  PortSubaccount,
  SubaccountsCapability,
} from '../../providers/port.ts';
import type { AppContext } from '../context.ts';
import { foldStream } from '../fold-stream.ts';
import { resolveExternalAdapter } from '../provider-adapter.ts';
import { providerStream } from '../providers/record.ts';

/**
 * The marketplace side of a subaccount (src/providers/port.ts SubaccountsCapability): the matrix's
 * PRODUCTION key (SPEC 2.8), one call at a time, anything thrown is `uncertain`.
 */

export type SubaccountCtx = Pick<AppContext, 'store' | 'events' | 'db' | 'now' | 'config' | 'providers'>;

export interface Matrix {
  readonly capability: SubaccountsCapability;
  context(): MatrixContext;
}

function invalidProvider(message: string): DomainError {
  return new DomainError('validation_error', message, { param: 'provider_id' });
}

/** The provider must exist and be an external `is_marketplace` record (else 422 on `provider_id`). */
export async function requireMarketplace(ctx: SubaccountCtx, providerId: string): Promise<void> {
  const state = await foldStream(
    { store: ctx.store, registry: ctx.events },
    provider,
    providerStream(providerId),
  );
  if (state.status === 'none') throw invalidProvider('provider_id names no provider.');
  if (!state.isMarketplace || state.kind !== 'external') {
    throw invalidProvider('provider_id must name an external provider with is_marketplace true.');
  }
}

/**
 * The management key: the record's `matrix_production_api_key` credential when set, else its `api_key` (a
 * production record's key is the production key; a sandbox record's is the sandbox key, which the provider
 * refuses with code 301, SPEC 2.8). Unusable credentials are `422 provider_not_configured`.
 */
export async function resolveMatrix(ctx: SubaccountCtx, providerId: string): Promise<Matrix> {
  await requireMarketplace(ctx, providerId);
  const resolved = await resolveExternalAdapter(
    { deps: { store: ctx.store, registry: ctx.events }, config: ctx.config, adapters: ctx },
    providerId,
  );
  const capability = resolved.adapter.subaccounts;
  if (capability === undefined) {
    throw invalidProvider('provider_id names a provider whose kind does not manage subaccounts.');
  }
  return {
    capability,
    context() {
      const c = resolved.context();
      return {
        matrixProductionKey: c.credentials.matrix_production_api_key ?? c.credentials.api_key ?? null,
        signal: c.signal,
      };
    },
  };
}

/** Resolution for a record's later calls: a provider that no longer resolves answers null (nothing sent). */
export async function matrixOrNull(ctx: SubaccountCtx, providerId: string): Promise<Matrix | null> {
  try {
    return await resolveMatrix(ctx, providerId);
  } catch (error) {
    if (isDomainError(error)) return null;
    throw error;
  }
}

/** The port's copy of the request: trimmed. The bank account lives only in this request's memory. */
export function portSubaccount(b: CreateSubaccountBody): PortSubaccount {
  const ba = b.bank_account;
  return {
    name: b.name.trim(),
    commercialName: b.commercial_name.trim(),
    document: b.document,
    email: b.email.trim().toLowerCase(),
    responsible: {
      name: b.responsible.name.trim(),
      document: b.responsible.document,
      phone: b.responsible.phone,
      birthDate: b.responsible.birth_date,
    },
    address: {
      zip_code: b.address.zip_code,
      street: b.address.street.trim(),
      number: b.address.number.trim(),
      ...(b.address.complement ? { complement: b.address.complement.trim() } : {}),
      district: b.address.district.trim(),
      city: b.address.city.trim(),
      state: b.address.state,
    },
    bankAccount: {
      bank_code: ba.bank_code,
      branch: ba.branch,
      branch_digit: ba.branch_digit ?? null,
      account: ba.account,
      account_digit: ba.account_digit ?? null,
      account_type: ba.account_type,
    },
  };
}

/** SPEC 2.7 `last_error_message`: static and sanitized, per closed reason; never the provider's text. */
export function staticMessage(code: OutcomeReason | 'not_found_at_provider' | 'removed_at_provider'): string {
  switch (code) {
    case 'matrix_sandbox_key':
      return "The provider refused the marketplace matrix's sandbox key (code 301): subaccounts are managed with the matrix's production key.";
    case 'not_marketplace':
      return 'The provider says the key used is not a marketplace matrix key.';
    case 'provider_error':
      return 'The provider refused the subaccount data.';
    case 'credentials_missing':
      return 'The marketplace provider has no usable credentials; nothing was sent.';
    case 'not_found_at_provider':
      return 'The provider has no subaccount with this document: it was not created.';
    case 'removed_at_provider':
      return 'The subaccount was removed at the provider.';
    default:
      return 'The provider refused the subaccount.';
  }
}

export type { SubaccountRecordState };
