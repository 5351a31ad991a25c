import type { SubaccountCommand } from '../../../aggregates/subaccount.ts';
import type { EventMetadata } from '../../../events/event-store.ts';
import { commandOf, record } from '../create/handler.ts';
import { callMatrix, matrixOrNull, type SubaccountCtx, staticMessage } from '../provider.ts';
import { type LoadedSubaccount, mustLoadSubaccount } from '../record.ts';

/** A `creating` record younger than this may still be in its creation call: it is not consulted yet. */
export const CREATING_GRACE_MS = 5000;

/**
 * `POST /admin/subaccounts/{id}/refresh` (SPEC 3.6, 4.14): a `creating` (past its call) or `unknown` record is
 * consulted with the matrix's production key — by its remote id when an answer gave one, else by document
 * (the provider has no idempotency nor a reference field). Found: `active` with its tokens sealed; not
 * found: `failed` (a new attempt needs a new key); no usable answer, or more than one live account with the
 * document: it stays as it is. Other states are answered as they are, with no call.
 */
export async function refreshSubaccount(
  ctx: SubaccountCtx,
  id: string,
  metadata: EventMetadata,
): Promise<LoadedSubaccount> {
  const loaded = await mustLoadSubaccount({ store: ctx.store, registry: ctx.events }, id);
  const s = loaded.state;
  if (s.status !== 'creating' && s.status !== 'unknown') return loaded;
  const timeout = ctx.config.PROVIDER_TIMEOUT_MS + CREATING_GRACE_MS;
  if (s.status === 'creating' && ctx.now().getTime() - loaded.updatedAt.getTime() < timeout) return loaded;
  const matrix = await matrixOrNull(ctx, s.providerId);
  if (!matrix) return loaded;
  let command: SubaccountCommand | null;
  if (s.providerReference !== null) {
    const ref = s.providerReference;
    const answer = await callMatrix(() => matrix.capability.get(ref, matrix.context()));
    command =
      answer.kind === 'issued' && answer.subaccount.removed
        ? removed()
        : answer.kind === 'refused'
          ? null // a refused read proves nothing about the account: it stays.
          : await commandOf(ctx, id, s.providerId, answer, 'consult');
  } else {
    const answer = await callMatrix(() => matrix.capability.find(s.document, matrix.context()));
    if (answer.kind !== 'issued') command = null;
    else {
      const live = answer.subaccounts.filter((a) => !a.removed);
      const [only] = live;
      command =
        live.length === 0
          ? {
              kind: 'record_failed',
              errorCode: 'not_found_at_provider',
              providerErrorCode: null,
              message: staticMessage('not_found_at_provider'),
            }
          : live.length === 1 && only
            ? await commandOf(ctx, id, s.providerId, { kind: 'issued', subaccount: only }, 'consult')
            : null;
    }
  }
  if (command === null || command.kind === 'record_uncertain') {
    // Still no usable answer: a creating record left by a crash becomes unknown, an unknown one stays.
    if (s.status === 'unknown') return loaded;
    return record(
      ctx,
      id,
      command ?? { kind: 'record_uncertain', errorCode: 'interrupted', providerReference: null },
      metadata,
    );
  }
  return record(ctx, id, command, metadata);
}

function removed(): SubaccountCommand {
  return {
    kind: 'record_failed',
    errorCode: 'removed_at_provider',
    providerErrorCode: null,
    message: staticMessage('removed_at_provider'),
  };
}
