import { DomainError } from '../../aggregates/decider.ts';
import { provider } from '../../aggregates/provider.ts';
import { credentialsKey, decryptCredentials } from '../../crypto/credentials.ts';
import type { AppContext } from '../context.ts';
import { foldStream } from '../fold-stream.ts';
import { credentialsBinding } from '../providers/credentials.ts';
import { providerStream } from '../providers/record.ts';

/** The key subaccounts are managed with (provider.ts resolveMatrix): the same choice, on a plain record. */
function matrixKey(credentials: Record<string, unknown>): unknown {
  return credentials.matrix_production_api_key ?? credentials.api_key;
}

/**
 * SPEC 7 `409 marketplace_has_subaccounts`: a marketplace provider's matrix credential cannot change while
 * links that are not `failed` exist (their tokens belong to that matrix). New credentials with the same
 * matrix key (another entry changed) pass; stored credentials that do not open count as a change. Checked
 * before the provider's update, from the inline read model (docs/decisions.md "Marketplace subaccounts
 * (issue 28): the local record").
 */
export async function refuseMatrixChange(
  ctx: Pick<AppContext, 'store' | 'events' | 'db' | 'config'>,
  providerId: string,
  credentials: Record<string, unknown> | undefined,
): Promise<void> {
  if (credentials === undefined) return;
  const state = await foldStream(
    { store: ctx.store, registry: ctx.events },
    provider,
    providerStream(providerId),
  );
  if (state.status === 'none' || !state.isMarketplace) return;
  const live = await ctx.db
    .selectFrom('subaccounts')
    .select('id')
    .where('provider_id', '=', providerId)
    .where('status', '!=', 'failed')
    .limit(1)
    .executeTakeFirst();
  if (!live) return;
  let current: unknown;
  const key = await credentialsKey(ctx.config);
  if (key && state.credentialsCiphertext !== null) {
    try {
      current = matrixKey(
        decryptCredentials(key, providerId, state.credentialsCiphertext, credentialsBinding(state)),
      );
    } catch {
      current = undefined;
    }
  }
  if (current !== undefined && current === matrixKey(credentials)) return;
  throw new DomainError(
    'marketplace_has_subaccounts',
    "The marketplace's matrix credential cannot change while it has subaccount links that are not failed.",
  );
}
