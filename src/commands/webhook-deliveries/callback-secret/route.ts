import { documentSigningSecret } from '../../../charge-page/signing-secret.ts';
import { getWebhookCallbackSecret } from '../../../contract/operations/webhook-deliveries.ts';
import { callbackWebhookSecret } from '../../../webhooks/signing.ts';
import { bind } from '../../bind.ts';
import { requireTenantInTree } from '../../tenancy.ts';

/** The secret signing deliveries to a tenant's `callback_url` addresses: derived, never stored. */
export const callbackSecretRoute = bind(getWebhookCallbackSecret, async (call, ctx) => {
  const { tenant_id, mode } = call.query;
  await requireTenantInTree(ctx.db, call.session(), tenant_id);
  const root = await documentSigningSecret(ctx.config);
  return { data: { tenant_id, mode, secret: callbackWebhookSecret(root, tenant_id, mode) } };
});
