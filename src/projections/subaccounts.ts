import { subaccountEvents } from '../aggregates/subaccount.ts';
import { pick } from '../pick.ts';
import { decodedProjection } from './decoded-projection.ts';

/**
 * The `subaccounts` read model (SPEC 2.7, 3.6, 4.14): admin lists with their filters. Inline, so a link is
 * listed as soon as its reservation commits. Tokens stay sealed here, as in the events.
 */
/** The error columns of a link with no error: none yet at its reservation, cleared by its creation. */
const NO_ERROR = { last_error_code: null, last_provider_error_code: null, last_error_message: null } as const;

export const subaccountsProjection = decodedProjection({
  name: 'subaccounts',
  definitions: subaccountEvents,
  tables: ['subaccounts'],

  async apply(event, at, trx) {
    const id = event.data.subaccount_id;
    const update = (set: Record<string, string | null>) =>
      trx
        .updateTable('subaccounts')
        .set({ ...set, updated_at: at })
        .where('id', '=', id)
        .execute();
    switch (event.type) {
      case 'Subaccount.Reserved':
        await trx
          .insertInto('subaccounts')
          .values({
            id,
            ...pick(event.data, 'provider_id', 'tenant_id', 'name', 'document', 'email'),
            status: 'creating',
            provider_reference: null,
            tokens_ciphertext: null,
            ...NO_ERROR,
            created_at: at,
            updated_at: at,
          })
          .execute();
        return;
      case 'Subaccount.Created':
        await update({
          status: 'active',
          ...pick(event.data, 'provider_reference', 'tokens_ciphertext'),
          ...NO_ERROR,
        });
        return;
      case 'Subaccount.Failed':
        await update({
          status: 'failed',
          ...pick(event.data, 'last_error_code', 'last_provider_error_code', 'last_error_message'),
        });
        return;
      case 'Subaccount.Uncertain':
        await update({ status: 'unknown', ...pick(event.data, 'provider_reference', 'last_error_code') });
        return;
      case 'Subaccount.TokenReplaced':
        await update({ tokens_ciphertext: event.data.tokens_ciphertext });
        return;
      case 'Subaccount.Disabled':
        await update({ status: 'disabled' });
        return;
      case 'Subaccount.Enabled':
        await update({ status: 'active' });
        return;
    }
  },
});
