import { provider } from '../../aggregates/provider.ts';
import type { CommandDeps } from '../command-handler.ts';
import { foldStream } from '../fold-stream.ts';
import { providerStream } from './record.ts';

/**
 * Issue 22 item 4.2: whether a charge's boleto refund may go out as a payout (`v2/Transfer`): only where its
 * provider record enables it (`boleto_refund_payout`). A test-mode charge follows the same record (test mode
 * mirrors live; its payout is the simulator's); a charge with no record, or a record that does not exist, never.
 * The record is folded from its stream (consistent, also while async read models catch up). Whether the
 * record is enabled for new charges does not matter: existing charges keep their provider (SPEC 2.8).
 */
export async function refundPayoutEnabled(
  deps: Pick<CommandDeps, 'store' | 'registry'>,
  charge: { readonly providerId: string | null; readonly simulated: boolean },
): Promise<boolean> {
  if (charge.providerId === null) return false;
  const state = await foldStream(deps, provider, providerStream(charge.providerId));
  return state.status === 'active' && state.boletoRefundPayout;
}
