import { getTransaction, getTransactionRequest } from '../../../contract/operations/transactions.ts';
import { bind } from '../../bind.ts';
import {
  readableFoldedTransaction,
  readableTransaction,
  toTransactionView,
  transactionRequestData,
} from '../view.ts';

/**
 * Reads of one charge (SPEC 4.4, 4.5): the transaction and its creation snapshot, through the tree-scoped
 * read helpers of ../view.ts (another tree or mode: 404). No handler: nothing is decided.
 */
export const getRoutes = [
  bind(getTransaction, async (call, ctx) => {
    const row = await readableTransaction(ctx, call.apiKey(), call.params.id);
    return { data: await toTransactionView(ctx, row) };
  }),
  bind(getTransactionRequest, async (call, ctx) => {
    const folded = await readableFoldedTransaction(ctx, call.apiKey(), call.params.id);
    return { data: transactionRequestData(folded) };
  }),
];
