import { transaction } from '../../../aggregates/transaction.ts';
import { handleCommand } from '../../command-handler.ts';
import type { JobDeps } from '../../job.ts';
import { settleAtProvider } from '../../transactions/reconcile/handler.ts';
import { transactionStream } from '../../transactions/shared/stream.ts';
import { foldTransaction } from '../../transactions/view.ts';
import { foldCheckout } from '../record.ts';

/**
 * A checkout's Pix still pending past its deadline is refreshed, as `POST /v1/transactions/{id}/refresh`
 * would (SPEC 3.1 "expiry by deadline applies to Pix"): a simulated one expires by its deadline; an external
 * one is read at its provider first, so a payment made at the last second is kept, never expired away. The
 * checkout then goes back to `open` and its page offers payment again: a subscription's Pix link outlives
 * the Pix it generated (SPEC 4.10). Without this only a refresh, a provider notification or a test
 * simulation would end it.
 */
export async function refreshLapsedPix(
  app: JobDeps,
  checkoutId: string,
  now: Date,
  actor: string,
): Promise<void> {
  const folded = await foldCheckout(app, checkoutId);
  if (!folded) return;
  const deps = { store: app.store, registry: app.events, now: () => now };
  for (const attempt of folded.state.attempts) {
    if (attempt.outcome !== 'pending' || attempt.method !== 'pix') continue;
    const row = (await foldTransaction(app, attempt.transactionId))?.row;
    if (row?.status !== 'pending' || row.expires_at === null || new Date(row.expires_at) > now) continue;
    const metadata = { actor, tenant_id: row.tenant_id, livemode: row.livemode };
    if (row.simulated) {
      await handleCommand(
        deps,
        transaction,
        transactionStream(row.id),
        {
          kind: 'refresh_expired',
          source: 'deadline',
          providerReference: row.provider_reference,
          observedStatus: row.status,
        },
        { metadata, retryOnConflict: true },
      );
    } else {
      await settleAtProvider({ deps, config: app.config, adapters: app }, row, actor);
    }
  }
}
