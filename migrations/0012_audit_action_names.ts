import { type Kysely, sql } from 'kysely';

/**
 * Issue 12 item 5: audit entries were recorded with the event type as action (`PaymentSettings.Updated`);
 * they now carry the documented names of src/projections/audit-actions.ts (`settings.payments.updated`,
 * SPEC 4.14). This renames the rows written before, in place, so a filter by the new name finds old and
 * new entries alike without a rebuild. The table is a frozen copy: a migration never follows later code.
 * An event type without a row takes the same spelling rule as auditAction (`A.FooBar` -> `a.foo_bar`).
 */
const RENAMES: Record<string, string> = {
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
};

export async function up(db: Kysely<unknown>): Promise<void> {
  const from = Object.keys(RENAMES);
  const to = Object.values(RENAMES);
  await sql`
    update audit_log a set action = r.name
    from unnest(${from}::text[], ${to}::text[]) as r(type, name)
    where a.action = r.type`.execute(db);
  // Old-style names of types without a row: any upper-case letter marks an event type.
  await sql`
    update audit_log set action = lower(regexp_replace(action, '([a-z0-9])([A-Z])', '\\1_\\2', 'g'))
    where action ~ '[A-Z]'`.execute(db);
}

/** Back to event types for the names of the table; names made by the spelling rule stay as they are. */
export async function down(db: Kysely<unknown>): Promise<void> {
  const from = Object.values(RENAMES);
  const to = Object.keys(RENAMES);
  await sql`
    update audit_log a set action = r.type
    from unnest(${from}::text[], ${to}::text[]) as r(name, type)
    where a.action = r.name`.execute(db);
}
