import type { ColumnType } from 'kysely';
import {
  type AuthorizationStatus,
  approvalDeadline,
  authorizationEvents,
  REVOKE_STALE_MS,
} from '../aggregates/pix-automatic-authorization.ts';
import type { Projection } from '../events/projection.ts';
import { pick } from '../pick.ts';
import { decodedProjection } from './decoded-projection.ts';

type Timestamp = ColumnType<Date, Date | string, Date | string>;
type NullableTimestamp = ColumnType<Date | null, Date | string | null, Date | string | null>;

/**
 * The `pix_automatic_authorizations` read model (migrations/0026_pix_automatic_authorizations.ts): what lists
 * find (answers are folded from each stream) and what the expiry job claims (`next_check_at`).
 */
export interface PixAutomaticAuthorizationsTable {
  id: string;
  tenant_id: string;
  livemode: boolean;
  simulated: boolean;
  status: AuthorizationStatus;
  name: string;
  amount: number;
  first_due_date: string;
  interval_months: number;
  provider_id: string | null;
  provider_reference: string | null;
  approval_deadline: Timestamp;
  /** When the expiry job looks at it next; null: never (src/commands/pix-automatic/authorizations/expire/job.ts). */
  next_check_at: NullableTimestamp;
  created_at: Timestamp;
  updated_at: Timestamp;
}

declare module '../db/schema.ts' {
  interface Database {
    pix_automatic_authorizations: PixAutomaticAuthorizationsTable;
  }
}

/** An expired authorization's close at the provider left unconfirmed is tried again this much later. */
export const CLOSE_RETRY_MS = 5 * 60 * 1000;

/**
 * A reservation is first looked at this long after it was made (the expiry job marks it `unknown` once
 * RECONCILE_AFTER_SECONDS have passed with no answer recorded: a crash between the reservation and the
 * record); its creation normally answers first and moves the check to the approval deadline.
 */
export const PROCESSING_CHECK_MS = 2 * 60 * 1000;

/**
 * Pix Automatic authorizations (issue 27 item 1). Inline, so a created authorization is listed at once and the
 * expiry job sees each change at its next tick. `next_check_at`: a processing one PROCESSING_CHECK_MS after
 * its reservation (a creation left unanswered by a crash); a pending one at its approval deadline; an
 * expired, non-simulated one at once until the provider closed it (an unconfirmed close again after
 * CLOSE_RETRY_MS; one in flight after it is taken as interrupted); otherwise null. Times are the events'
 * recorded times, so a rebuild reproduces them.
 */
export const pixAutomaticAuthorizationsProjection: Projection = decodedProjection({
  name: 'pix_automatic_authorizations',
  definitions: authorizationEvents,
  tables: ['pix_automatic_authorizations'],

  async apply(event, at, trx) {
    const id = event.data.authorization_id;
    const set = async (changes: Partial<Record<string, unknown>>, onlyIfStatus?: AuthorizationStatus) => {
      await trx
        .updateTable('pix_automatic_authorizations')
        .set({ ...changes, updated_at: at })
        .where('id', '=', id)
        .$if(onlyIfStatus !== undefined, (q) => q.where('status', '=', onlyIfStatus as AuthorizationStatus))
        .execute();
    };
    switch (event.type) {
      case 'PixAutomaticAuthorization.Reserved': {
        const d = event.data;
        await trx
          .insertInto('pix_automatic_authorizations')
          .values({
            id,
            ...pick(d, 'tenant_id', 'livemode', 'simulated'),
            status: 'processing',
            ...pick(d, 'name', 'amount', 'first_due_date', 'interval_months', 'provider_id'),
            provider_reference: null,
            approval_deadline: approvalDeadline(d.created_at),
            next_check_at: new Date(at.getTime() + PROCESSING_CHECK_MS),
            created_at: at,
            updated_at: at,
          })
          .onConflict((oc) => oc.column('id').doNothing())
          .execute();
        return;
      }
      case 'PixAutomaticAuthorization.Created': {
        const row = await trx
          .selectFrom('pix_automatic_authorizations')
          .select('approval_deadline')
          .where('id', '=', id)
          .executeTakeFirst();
        await set({
          status: 'pending',
          provider_reference: event.data.provider_reference,
          next_check_at: row?.approval_deadline ?? null,
        });
        return;
      }
      case 'PixAutomaticAuthorization.Confirmed': {
        const row = await trx
          .selectFrom('pix_automatic_authorizations')
          .select('approval_deadline')
          .where('id', '=', id)
          .executeTakeFirst();
        await set({ status: 'pending', next_check_at: row?.approval_deadline ?? null });
        return;
      }
      case 'PixAutomaticAuthorization.Refused':
      case 'PixAutomaticAuthorization.Uncertain':
        await set({
          status: event.type === 'PixAutomaticAuthorization.Refused' ? 'failed' : 'unknown',
          provider_reference: event.data.provider_reference,
          next_check_at: null,
        });
        return;
      case 'PixAutomaticAuthorization.Approved':
        await set({ status: 'approved', next_check_at: null });
        return;
      case 'PixAutomaticAuthorization.Cancelled':
        await set({ status: 'cancelled', next_check_at: null });
        return;
      case 'PixAutomaticAuthorization.Failed':
        await set({ status: 'failed', next_check_at: null });
        return;
      case 'PixAutomaticAuthorization.Expired': {
        const row = await trx
          .selectFrom('pix_automatic_authorizations')
          .select(['simulated', 'provider_reference'])
          .where('id', '=', id)
          .executeTakeFirst();
        // As the aggregate's `provider_closed`: a simulated one, or one the provider reported ended, needs nothing.
        const close =
          row !== undefined &&
          !row.simulated &&
          row.provider_reference !== null &&
          event.data.source !== 'provider';
        await set({ status: 'expired', next_check_at: close ? at : null });
        return;
      }
      case 'PixAutomaticAuthorization.RevokeReserved':
        await set(
          { next_check_at: new Date(new Date(event.data.reserved_at).getTime() + REVOKE_STALE_MS) },
          'expired',
        );
        return;
      case 'PixAutomaticAuthorization.RevokeUncertain':
        await set({ next_check_at: new Date(at.getTime() + CLOSE_RETRY_MS) }, 'expired');
        return;
      case 'PixAutomaticAuthorization.RevokeRefused':
      case 'PixAutomaticAuthorization.Revoked':
        await set({ next_check_at: null }, 'expired');
        return;
    }
  },
});
