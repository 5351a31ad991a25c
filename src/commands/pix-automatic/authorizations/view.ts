import type { AuthorizationView } from '../../../contract/pix-automatic.ts';
import type { LoadedAuthorization } from './load.ts';

/**
 * The public authorization (SPEC 2.6; src/contract/pix-automatic.ts `authorizationView`), from its fold. The
 * payer's contact and address never leave: only the name and the document every debit repeats (normalized:
 * trimmed, upper-cased, SPEC 4.1), as subscriptions show `customer_name` only.
 */
export function toAuthorizationView(loaded: LoadedAuthorization): AuthorizationView {
  const s = loaded.state;
  return {
    id: s.id,
    tenant_id: s.tenant_id,
    livemode: s.livemode,
    simulated: s.simulated,
    environment: s.environment,
    status: s.status,
    name: s.name,
    description: s.description,
    amount: s.amount,
    first_due_date: s.first_due_date,
    interval_months: s.interval_months,
    customer_name: s.customer.name.trim(),
    customer_document: s.customer.document.trim().toUpperCase(),
    copy_paste: s.copy_paste,
    provider_reference: s.provider_reference,
    approval_deadline: s.approval_deadline,
    approved_at: s.approved_at,
    ...s.diagnostics,
    created_at: s.created_at,
    updated_at: loaded.updatedAt.toISOString(),
  };
}
