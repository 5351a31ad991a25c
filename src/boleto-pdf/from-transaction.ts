import { z } from 'zod';
import { addressFields, type BoletoDetails, type StoredMethod } from '../aggregates/transaction.ts';
import type { ChargeStatus } from '../charge-page/render.ts';
import { type BoletoPdfInput, NOT_KNOWN } from './render.ts';

/**
 * What the boleto PDF prints, from the Transaction (SPEC 2.2), its creation request (SPEC 2.3: payer name and
 * document, the boleto instruction) and the tenant's name. Null when the charge has no boleto to print: not a
 * boleto, or no digitable line and barcode yet (the simulator issues none, SPEC 1).
 */

/** The Transaction fields (SPEC 2.2, same names) the PDF needs. */
export interface BoletoTransaction {
  id: string;
  method: StoredMethod;
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
  customer: z
    .object({
      name: z.string().optional(),
      document: z.string().optional(),
      // SPEC 4.1: required on a new charge; a legacy record may lack it.
      address: z.object(addressFields).optional(),
    })
    .partial()
    .optional(),
  boleto: z.object({ instruction: z.string().nullable().optional() }).partial().optional(),
});

type Address = NonNullable<NonNullable<z.infer<typeof requestFields>['customer']>['address']>;

/** A Brazilian postal address on one line: `Av. Paulista, 1000, sala 1 — Bela Vista — Sao Paulo/SP — CEP 01310-100`. */
export function formatAddress(a: Address): string {
  const street = [a.street, a.number, a.complement].filter(Boolean).join(', ');
  const zip = /^[0-9]{8}$/.test(a.zip_code) ? `${a.zip_code.slice(0, 5)}-${a.zip_code.slice(5)}` : a.zip_code;
  return `${street} — ${a.district} — ${a.city}/${a.state} — CEP ${zip}`;
}

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

/**
 * "Agência/Código do Beneficiário" as the layout prints it, `1234-3 / 56789-0`; a missing half is said, not
 * made up; null when the provider gave neither.
 */
export function agencyCode(d: BoletoDetails | null): string | null {
  if (!d || (d.agency === null && d.beneficiary_code === null)) return null;
  const agency =
    d.agency === null ? NOT_KNOWN : d.agency_dv === null ? d.agency : `${d.agency}-${d.agency_dv}`;
  return `${agency} / ${d.beneficiary_code ?? NOT_KNOWN}`;
}

/**
 * `details`: the provider's FEBRABAN fields kept at issuance (Transaction.Issued / DueDateChanged
 * `boleto_details`); null for a charge issued before they were kept, or whose provider gave none.
 */
export function boletoPdfInput(
  t: BoletoTransaction,
  request: unknown,
  payeeName: string | null,
  details: BoletoDetails | null = null,
): BoletoPdfInput | null {
  const line = t.boleto_digitable_line;
  const barcode = t.boleto_barcode;
  if (t.method !== 'boleto' || !line || !barcode || !t.boleto_due_date) return null;
  const parsed = requestFields.safeParse(request);
  const fields = parsed.success ? parsed.data : {};
  // The Pix of a boleto is payable only on a real production charge (SPEC 1: no Pix sandbox), and the view
  // already hides it outside `pending` and past its deadline.
  const real = t.environment === 'production' && t.livemode && !t.simulated;
  const address = fields.customer?.address;
  return {
    transactionId: t.id,
    payeeName: payeeName ?? '',
    // No record of the gateway holds the beneficiary's CNPJ or address (the tenant has a name only): the PDF
    // says so instead of printing made-up values (docs/decisions.md "Boleto PDF: FEBRABAN fields..."). The
    // bank's fields are the provider's, as its boleto answer gave them. A simulated charge never gets here:
    // the simulator issues no line, so it has no PDF (SPEC 1).
    payeeDocument: null,
    payeeAddress: null,
    ourNumber: details?.our_number ?? null,
    agencyCode: agencyCode(details),
    wallet: details?.wallet ?? null,
    documentKind: details?.document_kind ?? null,
    accept: details?.accept ?? null,
    payerName: fields.customer?.name ?? null,
    payerDocument: fields.customer?.document ?? null,
    payerAddress: address ? formatAddress(address) : null,
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
