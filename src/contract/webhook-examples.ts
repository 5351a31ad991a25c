import { AT, LATER, paidTransaction, processingTransaction } from './examples.ts';

/**
 * The examples of the `webhooks` section of /openapi.json: the two SPEC 6 event kinds, as a registered
 * endpoint receives them.
 */
export const webhookExamples = {
  'transaction.created': {
    type: 'transaction.created',
    timestamp: AT,
    // Sent when the charge is registered, before the provider answered: nothing to pay yet.
    data: {
      ...processingTransaction,
      previous_status: null,
      sequence: 1,
    },
  },
  'transaction.updated': {
    type: 'transaction.updated',
    timestamp: LATER,
    data: { ...paidTransaction, previous_status: 'pending', sequence: 3 },
  },
};
