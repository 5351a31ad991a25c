import { ApiError } from '../../../aggregates/errors.ts';
import { getProvider } from '../../../contract/operations/providers.ts';
import { bind } from '../../bind.ts';
import { loadProvider } from '../record.ts';

/** SPEC 4.14: one provider. No handler: nothing is decided. */
export const getRoute = bind(getProvider, async (call, ctx) => {
  // Folded from its stream: always consistent, also while an async read model catches up.
  const provider = await loadProvider({ store: ctx.store, registry: ctx.events }, call.params.id);
  if (!provider) throw new ApiError('not_found', 'The provider does not exist.');
  return { data: provider };
});
