import { DomainError } from '../../../aggregates/decider.ts';
import { provider } from '../../../aggregates/provider.ts';
import { subaccount } from '../../../aggregates/subaccount.ts';
import type { EventMetadata } from '../../../events/event-store.ts';
import { WrongExpectedVersionError } from '../../../events/event-store.ts';
import { handleCommand } from '../../command-handler.ts';
import { foldStream } from '../../fold-stream.ts';
import { providerStream } from '../../providers/record.ts';
import type { SubaccountCtx } from '../provider.ts';
import { type LoadedSubaccount, mustLoadSubaccount, resealWithToken, subaccountStream } from '../record.ts';

const changed = () =>
  new DomainError('subaccount_changed', 'The subaccount changed since it was read; read it again.');

/**
 * `PATCH /admin/subaccounts/{id}/credentials` (SPEC 4.14): the token of the marketplace provider's environment
 * replaced locally (no remote call), sealed with the rest of the set, audited without its value. Optimistic:
 * `expected_updated_at` must be the record's `updated_at`, and the append expects the version that was read,
 * so of two concurrent changes from the same read one wins and the other is `409 subaccount_changed`.
 */
export async function updateSubaccountCredentials(
  ctx: SubaccountCtx,
  id: string,
  input: { apiKey: string; expectedUpdatedAt: string },
  metadata: EventMetadata,
): Promise<LoadedSubaccount> {
  const deps = { store: ctx.store, registry: ctx.events, now: () => ctx.now() };
  const loaded = await mustLoadSubaccount(deps, id);
  if (new Date(input.expectedUpdatedAt).getTime() !== loaded.updatedAt.getTime()) throw changed();
  const s = loaded.state;
  const record = await foldStream(deps, provider, providerStream(s.providerId));
  if (record.status === 'none')
    throw new DomainError('conflict', 'The marketplace provider no longer exists.');
  const tokensCiphertext = await resealWithToken(
    ctx.config,
    s.id,
    s.providerId,
    s.tokensCiphertext,
    record.environment,
    input.apiKey,
  );
  try {
    await handleCommand(
      deps,
      subaccount,
      subaccountStream(id),
      { kind: 'replace_token', environment: record.environment, tokensCiphertext },
      { metadata, from: { state: s, version: loaded.version } },
    );
  } catch (error) {
    if (error instanceof WrongExpectedVersionError) throw changed();
    throw error;
  }
  return mustLoadSubaccount(deps, id);
}
