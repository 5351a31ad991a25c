import { isValidBoleto, isValidPixPayload } from '@brazilian-utils/brazilian-utils';
import { type BoletoDetails, boletoDetails } from '../../aggregates/transaction.ts';

/**
 * Checks of what the provider hands back for the payer (SPEC 4.2 "Received artifacts are validated": https
 * URL, line of 47 to 48 digits, code of 44 digits, expected due date). A charge whose artifacts fail is
 * `uncertain`, never shown to a payer. Check digits are verified too (why: a line that fails its own check
 * digits is refused by every bank app, so showing it would be a broken charge).
 */

export function httpsUrl(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  try {
    const url = new URL(value.trim());
    return url.protocol === 'https:' && url.hostname !== '' ? url.toString() : null;
  } catch {
    return null;
  }
}

/** Digits of a line or barcode; the provider may format the line with dots and spaces. */
function digitsOf(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const compact = value.replace(/[.\s-]/g, '');
  return /^[0-9]+$/.test(compact) ? compact : null;
}

export function digitableLine(value: unknown): string | null {
  const d = digitsOf(value);
  return d && (d.length === 47 || d.length === 48) && isValidBoleto(d) ? d : null;
}

/**
 * 44 digits. Its módulo-11 check digit is verified through the line: the validator rebuilds the barcode from a
 * 47-digit line and checks it, and {@link sameBoleto} requires this barcode to be that one.
 */
export function barcode(value: unknown): string | null {
  const d = digitsOf(value);
  return d && d.length === 44 ? d : null;
}

/**
 * A bank boleto's 47-digit line and 44-digit barcode carry the same fields in another order (Carta-Circular
 * BCB 2.926): bank+currency, general check digit, due factor+value, free field. They must be the same boleto.
 */
export function sameBoleto(line: string, code: string): boolean {
  if (line.length !== 47) return line.length === 48; // arrecadação lines are not produced for charges
  const rebuilt =
    line.slice(0, 4) +
    line.slice(32, 33) +
    line.slice(33, 47) +
    line.slice(4, 9) +
    line.slice(10, 20) +
    line.slice(21, 31);
  return rebuilt === code;
}

/** The value field of a bank barcode (positions 10-19), in centavos. */
export function barcodeAmount(code: string): number {
  return Number(code.slice(9, 19));
}

/** A Pix "copia e cola": an EMV BR Code whose structure and CRC16 are correct. */
export function pixCopyPaste(value: unknown): string | null {
  return typeof value === 'string' && isValidPixPayload(value.trim()) ? value.trim() : null;
}

/**
 * The boleto's FEBRABAN fields of a boleto answer (wire doc 2.6: creation and due-date change; field names from
 * the official .NET SDK's `CheckoutResponse` and LEO's newer `CodeBeneficiary`), for the PDF (issue 23 item
 * 1.11). Each value is kept only in the shape a boleto prints it (the event schema's patterns: digits, the
 * bank's separators, a check character, short codes); anything else, free text included, is dropped rather
 * than cleaned, so no name or message reaches the event. Null when the answer gives none of them.
 */
export function boletoDetailsOf(source: Readonly<Record<string, unknown>>): BoletoDetails | null {
  const field = <K extends keyof BoletoDetails>(key: K, value: unknown, upper = false): BoletoDetails[K] => {
    if (typeof value !== 'string' && typeof value !== 'number') return null;
    const text = String(value).trim();
    const parsed = boletoDetails.shape[key].safeParse(upper ? text.toUpperCase() : text);
    return parsed.success ? (parsed.data as BoletoDetails[K]) : null;
  };
  // `CodeBeneficiary` is the newer name (LEO); `CodeAssignor` ("cedente") the older one of every SDK.
  const code =
    field('beneficiary_code', source.CodeBeneficiary) ?? field('beneficiary_code', source.CodeAssignor);
  const details: BoletoDetails = {
    our_number: field('our_number', source.BankSlipNumber),
    agency: field('agency', source.Agency),
    agency_dv: field('agency_dv', source.AgencyDV, true),
    beneficiary_code: code,
    wallet: field('wallet', source.Wallet, true),
    document_kind: field('document_kind', source.DocType, true),
    accept: field('accept', source.Accept, true),
  };
  return Object.values(details).some((v) => v !== null) ? details : null;
}
