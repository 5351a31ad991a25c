/** The stream of a charge (DESIGN.md "The event store port"): one per transaction, `transaction-<txn_id>`. */
export const transactionStream = (transactionId: string) => `transaction-${transactionId}`;
