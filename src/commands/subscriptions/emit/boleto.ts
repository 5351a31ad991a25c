import { issueCycleCharge } from './charge.ts';
import type { CycleIssuer } from './outcome.ts';

/**
 * A boleto cycle (SPEC 4.10): due on the cycle's due date, with no instruction, penalty or interest; the Pix
 * of the same value comes attached where the boleto flow attaches it (its provider's boleto carries one).
 */
export const issueBoletoCycle: CycleIssuer = (ctx, c, metadata) =>
  issueCycleCharge(ctx, c, { method: 'boleto', boleto: { due_date: c.dueDate } }, metadata);
