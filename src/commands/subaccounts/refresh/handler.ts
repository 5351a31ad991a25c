import type { SubaccountCommand, SubaccountRecordState } from '../../../aggregates/subaccount.ts';
import type { EventMetadata } from '../../../events/event-store.ts';
import { callProvider } from '../../provider-call.ts';
import { commandOf, record } from '../create/handler.ts';
import { type Matrix, matrixOrNull, type SubaccountCtx, staticMessage } from '../provider.ts';
import { type LoadedSubaccount, mustLoadSubaccount } from '../record.ts';

/** A `creating` record younger than this may still be in its creation call: it is not consulted yet. */
export const CREATING_GRACE_MS = 5000;

/**
 * `POST /admin/subaccounts/{id}/refresh` (SPEC 3.6, 4.14): a `creating` (past its call) or `unknown` record is
 * consulted ({@link consultSubaccount}). Other states, and a `creating` record whose creation call may still
 * be running, are answered as they are, with no call.
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
  return (await consultSubaccount(ctx, loaded, metadata)).loaded;
}

export interface Consulted {
  /** The record after the consult (as it was when nothing was recorded). */
  readonly loaded: LoadedSubaccount;
  /** The provider's answer settled it (`active` or `failed`); false: it is still `creating`/`unknown`. */
  readonly settled: boolean;
}

/**
 * The consult of an uncertain record (SPEC 3.6), shared by the refresh and the reconciliation job
 * (../reconcile/job.ts): with the matrix's production key, by its remote id when an answer gave one, else by
 * document (the provider has no idempotency nor a reference field). Found: `active` with its tokens sealed;
 * removed: `failed` (`removed_at_provider`); not found: `failed` (`not_found_at_provider`, a new attempt
 * needs a new key); no usable answer (provider unreachable, a refused read, more than one live account with
 * the document, a provider that no longer resolves): nothing settled — a `creating` record becomes `unknown`,
 * an `unknown` one stays as it is. Only reads: it never sends a creation. The caller decides whether a
 * `creating` record is past its creation call; any other state is answered as it is.
 */
export async function consultSubaccount(
  ctx: SubaccountCtx,
  loaded: LoadedSubaccount,
  metadata: EventMetadata,
): Promise<Consulted> {
  const s = loaded.state;
  if (s.status !== 'creating' && s.status !== 'unknown') return { loaded, settled: false };
  const matrix = await matrixOrNull(ctx, s.providerId);
  if (!matrix) return { loaded, settled: false };
  const command = await answerOf(ctx, s, matrix);
  if (command === null || command.kind === 'record_uncertain') {
    // Still no usable answer: a creating record left by a crash becomes unknown, an unknown one stays.
    if (s.status === 'unknown') return { loaded, settled: false };
    const uncertain: SubaccountCommand = command ?? {
      kind: 'record_uncertain',
      errorCode: 'interrupted',
      providerReference: null,
    };
    return { loaded: await record(ctx, s.id, uncertain, metadata), settled: false };
  }
  const after = await record(ctx, s.id, command, metadata);
  return { loaded: after, settled: after.state.status !== 'creating' && after.state.status !== 'unknown' };
}

/** The consult's reads and what they prove, as the decider's command; null: nothing usable. */
async function answerOf(
  ctx: SubaccountCtx,
  s: SubaccountRecordState,
  matrix: Matrix,
): Promise<SubaccountCommand | null> {
  if (s.providerReference !== null) {
    const ref = s.providerReference;
    const answer = await callProvider(() => matrix.capability.get(ref, matrix.context()));
    if (answer.kind === 'issued' && answer.subaccount.removed) return removed();
    // A refused read proves nothing about the account: it stays.
    if (answer.kind === 'refused') return null;
    return commandOf(ctx, s.id, s.providerId, answer, 'consult');
  }
  const answer = await callProvider(() => matrix.capability.find(s.document, matrix.context()));
  if (answer.kind !== 'issued') return null;
  const live = answer.subaccounts.filter((a) => !a.removed);
  const [only] = live;
  if (live.length === 0) {
    return {
      kind: 'record_failed',
      errorCode: 'not_found_at_provider',
      providerErrorCode: null,
      message: staticMessage('not_found_at_provider'),
    };
  }
  // More than one live account with the document: a person decides (`/link`).
  if (live.length > 1 || !only) return null;
  return commandOf(ctx, s.id, s.providerId, { kind: 'issued', subaccount: only }, 'consult');
}

function removed(): SubaccountCommand {
  return {
    kind: 'record_failed',
    errorCode: 'removed_at_provider',
    providerErrorCode: null,
    message: staticMessage('removed_at_provider'),
  };
}
