import { updateSubaccountCredentials as updateOperation } from '../../../contract/operations/subaccounts.ts';
import { bind } from '../../bind.ts';
import { viewOfLoaded } from '../record.ts';
import { updateSubaccountCredentials } from './handler.ts';

/** SPEC 4.14: the record after its token was replaced (200), or 409 subaccount_changed. */
export const credentialsRoute = bind(updateOperation, async (call, ctx) => {
  const loaded = await updateSubaccountCredentials(
    ctx,
    call.params.id,
    { apiKey: call.body.api_key, expectedUpdatedAt: call.body.expected_updated_at },
    call.metadata(),
  );
  return { data: await viewOfLoaded(ctx.config, loaded) };
});
