/**
 * Calebe's TypeScript SDK (issue 15 item 3, SPEC 9): one method per operation of /openapi.json, local
 * validation with the server's own schemas, no retries, typed SPEC 7 errors, Standard Webhooks verification.
 */
export {
  Calebe,
  type CalebeOptions,
  type CalebeResponse,
  type IdempotentOptions,
  type OperationMethods,
  type QueryInput,
  type RawRequest,
  type RequestOptions,
} from './client.ts';
export {
  CalebeConnectionError,
  CalebeError,
  CalebeRedirectError,
  ERROR_CODES,
  type ErrorBody,
  type ErrorCode,
} from './errors.ts';
export { OPERATIONS, type Operation, type OperationId } from './operations.ts';
export { CalebeWebhookError, verifyWebhook, type WebhookEvent, type WebhookHeaders } from './webhooks.ts';

import type { z } from 'zod';
import type { transactionRequestView, transactionView } from '../../src/contract/transactions.ts';

/** SPEC 2.2 Transaction, as every charge operation answers it. */
export type Transaction = z.output<typeof transactionView>;
/** SPEC 2.3 TransactionRequest: the creation snapshot (`getTransactionRequest`). */
export type TransactionRequest = z.output<typeof transactionRequestView>;
