import { DomainError } from '../../../aggregates/decider.ts';
import {
  type AuthorizationState,
  FINAL_AUTHORIZATION_STATUSES,
} from '../../../aggregates/pix-automatic-authorization.ts';
import type { SubscriptionCreatedData } from '../../../aggregates/subscription.ts';
import type { AppContext } from '../../context.ts';
import { loadAuthorization } from '../../pix-automatic/authorizations/load.ts';

/**
 * SPEC 4.10, 4.11: a payer document is 11 or 14 alphanumeric characters (the new CNPJ has letters), compared
 * trimmed and upper-cased, exactly as a debit compares it (pix-automatic/charges/create): a subscription
 * accepted here must never have every debit refused for its document.
 */
const comparableDocument = (document: string | undefined) => (document ?? '').trim().toUpperCase();

/** SPEC 3.2: an authorization that ended (expired, cancelled, or refused) serves no further debit. */
export function authorizationEnded(a: Pick<AuthorizationState, 'status'>): boolean {
  return FINAL_AUTHORIZATION_STATUSES.includes(a.status);
}

/**
 * The authorization a new Pix Automatic subscription names (SPEC 4.10, 4.11): one of the key's own tenant and
 * mode (else `422 validation_error`, as for a card token), not ended (`409 automatic_not_available`), whose
 * contract the subscription repeats: amount, payer document, first due date and interval
 * (`422 automatic_contract_mismatch`). It may still await the payer's approval.
 */
export async function requireAutomaticContract(
  ctx: Pick<AppContext, 'store' | 'events'>,
  data: SubscriptionCreatedData,
): Promise<void> {
  const loaded = data.authorization_id ? await loadAuthorization(ctx, data.authorization_id) : null;
  const a = loaded?.state;
  if (!a || a.tenant_id !== data.tenant_id || a.livemode !== data.livemode) {
    throw new DomainError('validation_error', 'No such Pix Automatic authorization for this key.', {
      param: 'authorization_id',
    });
  }
  if (authorizationEnded(a)) {
    throw new DomainError('automatic_not_available', 'The Pix Automatic authorization has ended.', {
      param: 'authorization_id',
    });
  }
  const mismatch = (
    [
      ['amount', a.amount === data.amount],
      [
        'customer.document',
        comparableDocument(a.customer.document) === comparableDocument(data.customer.document),
      ],
      ['first_due_date', a.first_due_date === data.first_due_date],
      ['interval_months', a.interval_months === data.interval_months],
    ] as const
  ).find(([, same]) => !same);
  if (mismatch) {
    throw new DomainError(
      'automatic_contract_mismatch',
      `${mismatch[0]} differs from the Pix Automatic authorization.`,
      { param: mismatch[0] },
    );
  }
}

/** SPEC 3.3: a paused Pix Automatic subscription resumes only while its authorization has not ended. */
export async function automaticAvailable(
  ctx: Pick<AppContext, 'store' | 'events'>,
  authorizationId: string | null,
): Promise<boolean> {
  const loaded = authorizationId ? await loadAuthorization(ctx, authorizationId) : null;
  return loaded !== null && !authorizationEnded(loaded.state);
}
