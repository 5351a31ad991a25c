import { ApiError } from '../../../../aggregates/errors.ts';
import { pixAutomaticAuthorization } from '../../../../aggregates/pix-automatic-authorization.ts';
import { simulatePixAutomaticAuthorization } from '../../../../contract/operations/pix-automatic.ts';
import { bind } from '../../../bind.ts';
import { handleCommand } from '../../../command-handler.ts';
import { simulatorEnabled } from '../../../providers/bootstrap-simulator.ts';
import { authorizationStream, loadAuthorization, ownAuthorization } from '../load.ts';
import { toAuthorizationView } from '../view.ts';

const COMMAND = {
  approved: 'simulate_approved',
  cancelled: 'simulate_cancelled',
  expired: 'simulate_expired',
} as const;

/**
 * `POST /v1/pix-automatic/authorizations/{id}/simulate` (SPEC 3.2, 4.7, 4.11): the payer's answer on a
 * simulated authorization, decided by its table (409 simulation_not_allowed unless the state allows it). A
 * live key is refused with 409 simulation_not_allowed before the authorization is read ("test key only", as
 * transactions); ENABLE_SIMULATOR off is 422 simulator_disabled; a descendant's is 403 forbidden. No
 * provider call.
 */
export const simulateRoute = bind(simulatePixAutomaticAuthorization, async (call, ctx) => {
  const principal = call.apiKey();
  if (principal.livemode) {
    throw new ApiError(
      'simulation_not_allowed',
      'Only a test key can simulate the payer; a production authorization is approved in the bank app.',
    );
  }
  const loaded = await ownAuthorization(ctx, principal, call.params.id);
  if (!simulatorEnabled(ctx.config)) throw new ApiError('simulator_disabled');
  await handleCommand(
    { store: ctx.store, registry: ctx.events, now: () => ctx.now() },
    pixAutomaticAuthorization,
    authorizationStream(loaded.state.id),
    { kind: COMMAND[call.body.status] },
    // Nothing outside the stream was consulted: re-deciding after a concurrent append is safe.
    { metadata: call.metadata(), retryOnConflict: true },
  );
  const after = await loadAuthorization(ctx, loaded.state.id);
  return { data: toAuthorizationView(after ?? loaded) };
});
