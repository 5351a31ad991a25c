import type { Kysely } from 'kysely';
import { DomainError } from '../../../aggregates/decider.ts';
import type { Database } from '../../../db/schema.ts';

/**
 * SPEC 3.2 last row, SPEC 7 `409 reconciliation_required` ("revocation while a debit is unconfirmed"): an
 * authorization with a debit `processing` (its schedule call may be in flight) or `unknown` (its outcome is
 * unconfirmed) is not revoked. Read from the `transactions` read model by the partial index
 * `transactions_pix_automatic` (migration 0027); the authorization's revoke handler calls it before it
 * reserves the revocation.
 */
export async function hasUnconfirmedDebit(db: Kysely<Database>, authorizationId: string): Promise<boolean> {
  const row = await db
    .selectFrom('transactions')
    .select('id')
    .where('pix_automatic_authorization_id', '=', authorizationId)
    .where('status', 'in', ['processing', 'unknown'])
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

/** Throws `409 reconciliation_required` when {@link hasUnconfirmedDebit}. */
export async function requireNoUnconfirmedDebit(
  db: Kysely<Database>,
  authorizationId: string,
): Promise<void> {
  if (await hasUnconfirmedDebit(db, authorizationId)) {
    throw new DomainError(
      'reconciliation_required',
      'A debit of this authorization is processing or unconfirmed; reconcile it before revoking.',
    );
  }
}
