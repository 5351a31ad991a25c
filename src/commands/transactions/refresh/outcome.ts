import type { Diagnostics } from '../../../aggregates/transaction.ts';
import type { CommandDeps } from '../../command-handler.ts';
import type { LivePaymentsConfig } from '../../payment-settings/effective-setting.ts';
import type { AdapterContext } from '../../provider-adapter.ts';

/** What a refresh needs and what it ends in (./handler.ts for charges, ./debit.ts for Pix Automatic debits). */
export type RefreshOutcome =
  /** Applied (or nothing to apply): 200 with the current state. */
  | { readonly kind: 'applied' }
  /** Nothing could be applied: 502 provider_refresh_failed with these diagnostics. */
  | { readonly kind: 'failed'; readonly diagnostics: Diagnostics }
  /** No external id, and none could be found unambiguously: 409 reconciliation_required. */
  | { readonly kind: 'reconciliation_required' };

export interface RefreshContext extends AdapterContext {
  deps: CommandDeps;
  config: AdapterContext['config'] & LivePaymentsConfig;
}
