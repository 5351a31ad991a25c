import { shredSubject } from '../crypto/vault.ts';
import type { Projection } from '../events/projection.ts';

/**
 * Crypto-shredding of a refund's bank account (issue 22 item 4.4): when a charge's refund ends — refunded
 * by any route (the payout's transfer, a person, a refresh that finds the provider returned it) or
 * cancelled by a person — the vault's data keys of that charge are destroyed, so the sealed account cannot
 * be read again; the vault row keeps the hash, who and when. Inline: it happens in the append's own
 * transaction, whatever path appended the event. Replaying it (rebuild) finds nothing left to shred, and
 * `reset` restores nothing: a destroyed key stays destroyed. The 90-day end is the expiry worker's
 * (src/workers/vault-expiry.ts).
 */
const ENDINGS: Readonly<Record<string, 'refund_completed' | 'refund_cancelled'>> = {
  'Transaction.Refunded': 'refund_completed',
  'Transaction.RefundCancelled': 'refund_cancelled',
};

export const refundVaultProjection: Projection = {
  name: 'refund_vault',
  eventTypes: Object.keys(ENDINGS),

  async handle(recorded, trx) {
    const reason = ENDINGS[recorded.type];
    if (reason === undefined) return;
    const subject = (recorded.data as { transaction_id: string }).transaction_id;
    const holders = await trx
      .selectFrom('personal_data_vault')
      .select('tenant_id')
      .distinct()
      .where('subject_id', '=', subject)
      .where('wrapped_key', 'is not', null)
      .execute();
    for (const { tenant_id } of holders) {
      await shredSubject(
        trx,
        tenant_id,
        subject,
        { reason, actor: recorded.metadata.actor },
        recorded.recordedAt,
      );
    }
  },

  async reset() {
    // Nothing to rebuild: shredded keys are gone for good, and a replay shreds nothing more.
  },
};
