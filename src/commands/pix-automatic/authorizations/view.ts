import type { AuthorizationView } from '../../../contract/pix-automatic.ts';
import { pick } from '../../../pick.ts';
import type { LoadedAuthorization } from './load.ts';

/**
 * The public authorization (SPEC 2.6; src/contract/pix-automatic.ts `authorizationView`), from its fold. The
 * payer's contact and address never leave: only the name and the document every debit repeats (normalized:
 * trimmed, upper-cased, SPEC 4.1), as subscriptions show `customer_name` only.
 */
export function toAuthorizationView(loaded: LoadedAuthorization): AuthorizationView {
  const s = loaded.state;
  return {
    ...pick(s, 'id', 'tenant_id', 'livemode', 'simulated', 'environment', 'status', 'name', 'description'),
    ...pick(s, 'amount', 'first_due_date', 'interval_months'),
    customer_name: s.customer.name.trim(),
    customer_document: s.customer.document.trim().toUpperCase(),
    ...pick(s, 'copy_paste', 'provider_reference', 'approval_deadline', 'approved_at'),
    ...s.diagnostics,
    created_at: s.created_at,
    updated_at: loaded.updatedAt.toISOString(),
  };
}
