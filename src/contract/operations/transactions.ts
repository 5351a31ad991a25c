import { dataEnvelope, errorEnvelope, idParams } from '../envelopes.ts';
import { operation } from '../operation.ts';
import { transactionRequestView, transactionView } from '../transactions.ts';

/** SPEC 4.4: one charge of the key's tree, in the key's mode. */
export const getTransaction = operation({
  method: 'GET',
  path: '/v1/transactions/:id',
  access: { auth: 'api_key', scopes: ['transactions:read'] },
  schema: {
    operationId: 'getTransaction',
    summary: "A transaction of the key's tenant or of a descendant, in the key's mode",
    description:
      'Local state only (POST …/refresh asks the provider); outside the tree or of the other mode: 404.',
    params: idParams,
    response: { 200: dataEnvelope(transactionView), 404: errorEnvelope },
  },
});

/** SPEC 4.5: the creation request of a charge, as received. */
export const getTransactionRequest = operation({
  method: 'GET',
  path: '/v1/transactions/:id/request',
  access: { auth: 'api_key', scopes: ['transactions:read'] },
  schema: {
    operationId: 'getTransactionRequest',
    summary: 'The creation request of a transaction, as received',
    description: 'Same authorization as GET /v1/transactions/{id}. Contains payer personal data.',
    params: idParams,
    response: { 200: dataEnvelope(transactionRequestView), 404: errorEnvelope },
  },
});
