import { z } from 'zod';
import type { ChargeStatus } from '../charge-page/render.ts';
import type { BoletoPdfInput } from './render.ts';

/**
 * What the boleto PDF prints, from the Transaction (SPEC 2.2), its creation request (SPEC 2.3: payer name and
 * document, the boleto instruction) and the tenant's name. Null when the charge has no boleto to print: not a
 * boleto, or no digitable line and barcode yet (the simulator issues none, SPEC 1).
 */

/** The Transaction fields (SPEC 2.2, same names) the PDF needs. */
export interface BoletoTransaction {
  id: string;
  method: 'pix' | 'boleto' | 'credit_card';
  status: ChargeStatus;
  amount: number;
  reference: string;
  simulated: boolean;
  environment: 'sandbox' | 'production';
  livemode: boolean;
  boleto_due_date: string | null;
  boleto_digitable_line: string | null;
  boleto_barcode: string | null;
  /** Null outside `pending` and past the Pix deadline (src/http/transaction-dto.ts). */
  boleto_pix_copy_paste: string | null;
  created_at: string;
}

/** The parts of the creation request the PDF uses; anything missing prints as blank. */
const requestFields = z.object({
  customer: z.object({ name: z.string().optional(), document: z.string().optional() }).partial().optional(),
  boleto: z.object({ instruction: z.string().nullable().optional() }).partial().optional(),
});

/** Printed on a boleto that is no longer payable, so a stored copy is not paid (again). */
const STATUS_NOTE: Record<ChargeStatus, string | null> = {
  pending: null,
  paid: 'Boleto pago. Não pague novamente.',
  expired: 'Boleto expirado. Não pague.',
  refunded: 'Pagamento devolvido. Não pague este boleto.',
  failed: 'Cobrança não emitida. Não pague.',
  processing: 'Situação não confirmada. Não pague antes de falar com quem enviou a cobrança.',
  unknown: 'Situação não confirmada. Não pague antes de falar com quem enviou a cobrança.',
};

export function boletoPdfInput(
  t: BoletoTransaction,
  request: unknown,
  payeeName: string | null,
): BoletoPdfInput | null {
  const line = t.boleto_digitable_line;
  const barcode = t.boleto_barcode;
  if (t.method !== 'boleto' || !line || !barcode || !t.boleto_due_date) return null;
  const parsed = requestFields.safeParse(request);
  const fields = parsed.success ? parsed.data : {};
  // The Pix of a boleto is payable only on a real production charge (SPEC 1: no Pix sandbox), and the view
  // already hides it outside `pending` and past its deadline.
  const real = t.environment === 'production' && t.livemode && !t.simulated;
  return {
    transactionId: t.id,
    payeeName: payeeName ?? '',
    payerName: fields.customer?.name ?? null,
    payerDocument: fields.customer?.document ?? null,
    amount: t.amount,
    dueDate: t.boleto_due_date,
    digitableLine: line,
    barcode,
    pixCopyPaste: real ? t.boleto_pix_copy_paste : null,
    reference: t.reference,
    instruction: fields.boleto?.instruction ?? null,
    environment: t.environment,
    simulated: t.simulated,
    statusNote: STATUS_NOTE[t.status],
    issuedAt: new Date(t.created_at),
  };
}
