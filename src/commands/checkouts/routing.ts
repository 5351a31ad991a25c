import type { CheckoutMethod } from '../../aggregates/checkout.ts';
import { DomainError } from '../../aggregates/decider.ts';
import { policyOf } from '../../aggregates/transaction.ts';
import { type CandidateProvider, resolveProviderFor } from '../../routing/resolve-provider.ts';
import type { AppContext } from '../context.ts';
import { simulatorEnabled } from '../providers/bootstrap-simulator.ts';
import { routeLink } from '../subaccounts/route-link.ts';

/**
 * SPEC 2.8 at a checkout's creation, for each offered method, as a charge of that method would be routed
 * now (src/commands/transactions/create/handler.ts `route`): no rule or provider
 * (`provider_not_configured`), method disabled, `max_amount`, a marketplace's subaccount link and token
 * (the tenant's own), Pix or card at an external sandbox, the simulator switch. So a link that cannot be paid is never created. The payer-dependent checks
 * (the external provider's payer rules) and the production controls of SPEC 5.8 run when the payer picks a
 * method: the charge is created then, by the same command as POST /v1/pix or /v1/boleto. Answers the provider
 * the route leads to (a card subscription checks its production controls: src/commands/subscriptions/create/).
 */
export async function requirePayableRoute(
  ctx: Pick<AppContext, 'db' | 'config'>,
  input: { tenantId: string; livemode: boolean; method: CheckoutMethod; amount: number },
): Promise<CandidateProvider> {
  const { provider: p } = await resolveProviderFor(ctx.db, {
    tenantId: input.tenantId,
    method: input.method,
    amount: input.amount,
  });
  // SPEC 1: the external provider's sandbox serves boleto only (the method's policy names the refusal).
  const sandboxRefusal = policyOf(input.method).sandboxRefusal;
  if (p.kind === 'external' && p.environment === 'sandbox' && sandboxRefusal) {
    throw new DomainError(sandboxRefusal.code, sandboxRefusal.message);
  }
  // SPEC 2.8 (issue 28 item 3): a marketplace needs the tenant's own active link with the environment's token
  // (422 subaccount_not_configured / subaccount_credentials_missing), in both modes as for a charge.
  if (p.kind === 'external' && p.isMarketplace) {
    await routeLink(ctx, { tenantId: input.tenantId, providerId: p.id, environment: p.environment });
  }
  if (input.livemode && p.kind === 'simulator' && !simulatorEnabled(ctx.config)) {
    throw new DomainError('simulator_disabled', 'The simulator is disabled (ENABLE_SIMULATOR).');
  }
  return p;
}
