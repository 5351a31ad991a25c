import { refreshFailed } from '../refusals.ts';
import type { EmitCells } from './cell.ts';

/** Facts a later read adds without moving the status: a boleto's slow Pix (p), an unknown charge's id (f). */
export const lateFactCells: EmitCells<'Transaction.BoletoPixIssued' | 'Transaction.ProviderReferenceFound'> =
  {
    'Transaction.BoletoPixIssued': ({ s, c, policy, id }) => {
      if (c.kind !== 'refresh_boleto_pix') return null;
      const applies = policy.boletoPix && !s.reserved.simulated;
      if (!applies || s.artifacts.boleto_pix_copy_paste !== null) return [];
      return [
        {
          type: 'Transaction.BoletoPixIssued',
          data: {
            transaction_id: id,
            boleto_pix_copy_paste: c.boletoPixCopyPaste,
            boleto_pix_expires_at: c.boletoPixExpiresAt,
          },
        },
      ];
    },
    'Transaction.ProviderReferenceFound': ({ s, c, id }) => {
      if (c.kind !== 'refresh_reference_found') return null;
      const known = s.artifacts.provider_reference;
      if (known === c.providerReference) return [];
      if (known !== null) {
        return refreshFailed(id, 'The provider answered about another charge.');
      }
      return [
        {
          type: 'Transaction.ProviderReferenceFound',
          data: { transaction_id: id, provider_reference: c.providerReference, source: 'query_by_reference' },
        },
      ];
    },
  };
