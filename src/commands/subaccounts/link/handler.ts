import { timingSafeEqual } from 'node:crypto';
import { DomainError } from '../../../aggregates/decider.ts';
import type { EventMetadata } from '../../../events/event-store.ts';
import type { ProviderSecret } from '../../../providers/port.ts';
import { callProvider } from '../../provider-call.ts';
import { commandOf, record } from '../create/handler.ts';
import { resolveMatrix, type SubaccountCtx } from '../provider.ts';
import { type LoadedSubaccount, mustLoadSubaccount } from '../record.ts';
import { CREATING_GRACE_MS } from '../refresh/handler.ts';

const invalid = (param: string, message: string) => new DomainError('validation_error', message, { param });

function sameSecret(given: string, secret: ProviderSecret | null): boolean {
  if (secret === null) return false;
  const a = Buffer.from(given, 'utf8');
  const b = Buffer.from(secret.reveal(), 'utf8');
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * `POST /admin/subaccounts/{id}/link` (SPEC 4.14 "/link checks id, document and tokens; can recover an
 * uncertain record without duplicating only when credentials are verifiable"): a read of the account by id
 * with the matrix key; every check must hold before the record becomes `active` with the provider's tokens.
 */
export async function linkSubaccount(
  ctx: SubaccountCtx,
  id: string,
  input: {
    providerReference: string;
    productionToken?: string | undefined;
    sandboxToken?: string | undefined;
  },
  metadata: EventMetadata,
): Promise<LoadedSubaccount> {
  const loaded = await mustLoadSubaccount({ store: ctx.store, registry: ctx.events }, id);
  const s = loaded.state;
  const inCall =
    s.status === 'creating' &&
    ctx.now().getTime() - loaded.updatedAt.getTime() < ctx.config.PROVIDER_TIMEOUT_MS + CREATING_GRACE_MS;
  if ((s.status !== 'unknown' && s.status !== 'creating') || inCall) {
    throw new DomainError('conflict', 'Only a subaccount left unknown can be linked.');
  }
  const matrix = await resolveMatrix(ctx, s.providerId);
  const answer = await callProvider(() => matrix.capability.get(input.providerReference, matrix.context()));
  if (answer.kind === 'uncertain') {
    throw new DomainError('provider_refresh_failed', 'The provider did not answer; nothing changed.');
  }
  if (answer.kind === 'refused' || answer.subaccount.removed) {
    throw invalid('provider_reference', 'The provider has no live subaccount with this id.');
  }
  const remote = answer.subaccount;
  if (remote.document !== s.document) {
    throw invalid('provider_reference', "That subaccount has another document than this record's.");
  }
  const c = remote.credentials;
  if (c.productionToken === null && c.sandboxToken === null) {
    throw invalid(
      'provider_reference',
      "The provider does not show that subaccount's tokens: they cannot be verified.",
    );
  }
  if (input.productionToken !== undefined && !sameSecret(input.productionToken, c.productionToken)) {
    throw invalid('production_token', "The production token is not that subaccount's.");
  }
  if (input.sandboxToken !== undefined && !sameSecret(input.sandboxToken, c.sandboxToken)) {
    throw invalid('sandbox_token', "The sandbox token is not that subaccount's.");
  }
  const command = await commandOf(ctx, id, s.providerId, answer, 'link');
  return record(ctx, id, command, metadata);
}
