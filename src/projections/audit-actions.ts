/**
 * Issue 12 item 5, SPEC 4.14: the action names of audit entries. Stable, dotted, lower case
 * (`<resource>.<verb>`), as SPEC 4.14 writes `settings.payments.updated`; documented in
 * docs/audit-actions.md. One row per event type the gateway writes; an entry is never renamed (clients
 * filter on it), new event types get a new row. Reservation claims are not audited (SKIPPED_TYPES in
 * audit.ts). migrations/0012_audit_action_names.ts froze this table to rename rows written before it.
 */
export const AUDIT_ACTIONS: Readonly<Record<string, string>> = {
  'PaymentSettings.Updated': 'settings.payments.updated',
  'ApiKey.Issued': 'api_key.created',
  'ApiKey.Revoked': 'api_key.revoked',
  'CostCenter.Created': 'cost_center.created',
  'CostCenter.Renamed': 'cost_center.renamed',
  'CostCenter.Deactivated': 'cost_center.deactivated',
  'CostCenter.Reactivated': 'cost_center.reactivated',
  'Provider.Created': 'provider.created',
  'Provider.Updated': 'provider.updated',
  'RoutingRule.Created': 'routing_rule.created',
  'RoutingRule.Updated': 'routing_rule.updated',
  'Session.Started': 'session.created',
  'Session.Ended': 'session.revoked',
  'Tenant.Created': 'tenant.created',
  'Tenant.Suspended': 'tenant.suspended',
  'Tenant.Reactivated': 'tenant.reactivated',
  'TenantType.Created': 'tenant_type.created',
  'User.Created': 'user.created',
  'User.PasswordChanged': 'user.password_changed',
  'User.PasswordChangeRefused': 'user.password_change_refused',
  'User.Suspended': 'user.suspended',
  'User.Reactivated': 'user.reactivated',
  'WebhookEndpoint.Registered': 'webhook_endpoint.created',
  'WebhookEndpoint.Updated': 'webhook_endpoint.updated',
  'WebhookEndpoint.Disabled': 'webhook_endpoint.disabled',
  'WebhookEndpoint.SecretRotated': 'webhook_endpoint.secret_rotated',
  'WebhookEndpoint.Deleted': 'webhook_endpoint.deleted',
  'Transaction.Reserved': 'transaction.reserved',
  'Transaction.Issued': 'transaction.issued',
  'Transaction.AwaitingPayment': 'transaction.awaiting_payment',
  'Transaction.PaymentProcessing': 'transaction.payment_processing',
  'Transaction.Paid': 'transaction.paid',
  'Transaction.Expired': 'transaction.expired',
  'Transaction.Refused': 'transaction.refused',
  'Transaction.Unconfirmed': 'transaction.unconfirmed',
  'Transaction.Refunded': 'transaction.refunded',
  'Transaction.DueDateChanged': 'transaction.due_date_changed',
  'Transaction.BoletoPixIssued': 'transaction.boleto_pix_issued',
  'Transaction.ProviderReferenceFound': 'transaction.provider_reference_found',
  'Transaction.DuplicatePaymentFound': 'transaction.duplicate_payment_found',
  'Transaction.DuplicateRefundAttempted': 'transaction.duplicate_refund_attempted',
  'Transaction.DuplicateRefunded': 'transaction.duplicate_refunded',
  'Transaction.DuplicateRefundRefused': 'transaction.duplicate_refund_refused',
  'Transaction.RefundUnconfirmed': 'transaction.refund_unconfirmed',
  'Transaction.RefundRefused': 'transaction.refund_refused',
  'Transaction.DueDateChangeUnconfirmed': 'transaction.due_date_change_unconfirmed',
  'Transaction.DueDateChangeRefused': 'transaction.due_date_change_refused',
  'Transaction.RefundRequested': 'transaction.refund_requested',
  'Transaction.DueDateChangeRequested': 'transaction.due_date_change_requested',
  'Transaction.RefundPayoutSent': 'transaction.refund_payout_sent',
  'Transaction.RefundPayoutReturned': 'transaction.refund_payout_returned',
  'Transaction.RefundHandedToOperator': 'transaction.refund_handed_to_operator',
  'Transaction.RefundCancelled': 'transaction.refund_cancelled',
  'Transaction.RefundBankAccountViewed': 'transaction.refund_bank_account_viewed',
};

const snake = (part: string) => part.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase();

/**
 * The action of an event type: its row of AUDIT_ACTIONS, else (a type added without a row) the same
 * spelling rule, `Provider.SomethingNew` -> `provider.something_new`, so the log still records it.
 */
export function auditAction(eventType: string): string {
  return AUDIT_ACTIONS[eventType] ?? eventType.split('.').map(snake).join('.');
}
