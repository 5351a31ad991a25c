/**
 * Realistic bank boleto numbers for the emulator (Carta-Circular BCB 2.926/2000, FEBRABAN layout): a 44-digit
 * barcode with its módulo-11 general check digit and the matching 47-digit digitable line with the módulo-10
 * check digit of each of its first three fields. Written here because the one well-kept npm library that
 * knows boletos (`@brazilian-utils/brazilian-utils`) only generates random ones, without a chosen amount and
 * due date; the tests check these numbers with that library's validator.
 */

/** Módulo 11 with weights 2..9 from the right; results 0, 10 and 11 become 1 (BCB 2.926). */
export function mod11(digits: string): number {
  let sum = 0;
  let weight = 2;
  for (let i = digits.length - 1; i >= 0; i--) {
    sum += Number(digits[i]) * weight;
    weight = weight === 9 ? 2 : weight + 1;
  }
  const dv = 11 - (sum % 11);
  return dv === 0 || dv === 10 || dv === 11 ? 1 : dv;
}

/** Módulo 10 with weights 2,1,2,1... from the right, products' digits added. */
export function mod10(digits: string): number {
  let sum = 0;
  let weight = 2;
  for (let i = digits.length - 1; i >= 0; i--) {
    const product = Number(digits[i]) * weight;
    sum += product > 9 ? product - 9 : product;
    weight = weight === 2 ? 1 : 2;
  }
  return (10 - (sum % 10)) % 10;
}

/**
 * The "fator de vencimento": days since the base date. The factor reached 9999 on 2025-02-21 and restarted at
 * 1000 on 2025-02-22 (FEBRABAN), so dates from then on count from that day.
 */
export function dueFactor(dueDate: string): string {
  const days = Math.round(
    (Date.parse(`${dueDate}T00:00:00Z`) - Date.parse('2025-02-22T00:00:00Z')) / 86_400_000,
  );
  if (days < 0 || days > 8999) throw new RangeError('due date outside the current factor cycle');
  return String(1000 + days);
}

export interface BoletoNumbers {
  readonly barcode: string;
  readonly digitableLine: string;
}

/** A boleto of `amount` centavos due on `dueDate` (`YYYY-MM-DD`); `freeField` is the bank's 25 digits. */
export function boletoNumbers(
  bank: string,
  amount: number,
  dueDate: string,
  freeField: string,
): BoletoNumbers {
  if (!/^[0-9]{3}$/.test(bank) || !/^[0-9]{25}$/.test(freeField)) throw new RangeError('bank or free field');
  const value = String(amount).padStart(10, '0');
  if (value.length !== 10) throw new RangeError('amount too large for a boleto');
  const factorValue = dueFactor(dueDate) + value;
  const head = `${bank}9`;
  const dv = mod11(head + factorValue + freeField);
  const barcode = `${head}${dv}${factorValue}${freeField}`;
  const f1 = head + freeField.slice(0, 5);
  const f2 = freeField.slice(5, 15);
  const f3 = freeField.slice(15, 25);
  const digitableLine = `${f1}${mod10(f1)}${f2}${mod10(f2)}${f3}${mod10(f3)}${dv}${factorValue}`;
  return { barcode, digitableLine };
}
