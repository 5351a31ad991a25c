import type { EventMetadata } from '../../../events/event-store.ts';
import { issueCycleCharge } from './charge.ts';
import type { CycleToIssue, EmitContext } from './context.ts';
import type { Issued } from './outcome.ts';

/**
 * A boleto cycle (SPEC 4.10): due on the cycle's due date, with no instruction, penalty or interest; the Pix
 * of the same value comes attached where the boleto flow attaches it (its provider's boleto carries one).
 */
export function issueBoletoCycle(
  ctx: EmitContext,
  c: CycleToIssue,
  metadata: EventMetadata,
): Promise<Issued> {
  return issueCycleCharge(ctx, c, { method: 'boleto', boleto: { due_date: c.dueDate } }, metadata);
}
