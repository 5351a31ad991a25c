import { dataEnvelope, errorEnvelope, idParams } from '../../../contract/envelopes.ts';
import { apiKeyPrincipal } from '../../../http/auth.ts';
import type { HttpServer } from '../../../http/server.ts';
import type { AppContext } from '../../context.ts';
import {
  readableFoldedTransaction,
  readableTransaction,
  toTransactionView,
  transactionRequestData,
  transactionRequestView,
  transactionView,
} from '../view.ts';

/**
 * Reads of one charge (SPEC 4.4, 4.5): the transaction and its creation snapshot, through the tree-scoped
 * read helpers of src/http/transaction-dto.ts (another tree or mode: 404). No handler: nothing is decided.
 */
export function registerGetRoutes(app: HttpServer, ctx: AppContext): void {
  app.get(
    '/v1/transactions/:id',
    {
      config: { access: { auth: 'api_key', scopes: ['transactions:read'] } },
      schema: {
        operationId: 'getTransaction',
        summary: "A transaction of the key's tenant or of a descendant, in the key's mode",
        description:
          'Local state only (POST …/refresh asks the provider); outside the tree or of the other mode: 404.',
        params: idParams,
        response: { 200: dataEnvelope(transactionView), 404: errorEnvelope },
      },
    },
    async (request) => {
      const row = await readableTransaction(ctx, apiKeyPrincipal(request), request.params.id);
      return { data: await toTransactionView(ctx, row) };
    },
  );

  app.get(
    '/v1/transactions/:id/request',
    {
      config: { access: { auth: 'api_key', scopes: ['transactions:read'] } },
      schema: {
        operationId: 'getTransactionRequest',
        summary: 'The creation request of a transaction, as received',
        description: 'Same authorization as GET /v1/transactions/{id}. Contains payer personal data.',
        params: idParams,
        response: { 200: dataEnvelope(transactionRequestView), 404: errorEnvelope },
      },
    },
    async (request) => {
      const folded = await readableFoldedTransaction(ctx, apiKeyPrincipal(request), request.params.id);
      return { data: transactionRequestData(folded) };
    },
  );
}
