/**
 * Realistic bank boleto numbers for the emulator (Carta-Circular BCB 2.926/2000, FEBRABAN layout): a 44-digit
 * barcode with its módulo-11 general check digit and the matching 47-digit digitable line with the módulo-10
 * check digit of each of its first three fields. Written here because the one well-kept npm library that
 * knows boletos (`@brazilian-utils/brazilian-utils`) only generates random ones, without a chosen amount and
 * due date; the tests check these numbers with that library's validator.
 */

/** The módulo 11 sum: each digit times 2..9, cycling, from the right. */
function weightedSum(digits: string): number {
  let sum = 0;
  let weight = 2;
  for (let i = digits.length - 1; i >= 0; i--) {
    sum += Number(digits[i]) * weight;
    weight = weight === 9 ? 2 : weight + 1;
  }
  return sum;
}

/** Módulo 11 with weights 2..9 from the right; results 0, 10 and 11 become 1 (BCB 2.926). */
export function mod11(digits: string): number {
  const dv = 11 - (weightedSum(digits) % 11);
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

/**
 * Banco do Brasil's check digit of an agency or account (módulo 11, weights 2..9 from the right; 10 is `X`,
 * 11 is `0`), as printed in "Agência/Código do Beneficiário".
 */
export function bancoDoBrasilCheckDigit(digits: string): string {
  const dv = 11 - (weightedSum(digits) % 11);
  return dv === 10 ? 'X' : dv === 11 ? '0' : String(dv);
}

/**
 * The emulator's beneficiary account at Banco do Brasil: made-up, fixed and plausible numbers, a 7-digit
 * convênio in carteira 17 (docs/decisions.md "Boleto PDF: FEBRABAN fields and one render per version").
 */
export const EMULATOR_BENEFICIARY = {
  convenio: '3128557',
  agency: '1234',
  account: '56789',
  wallet: '17',
  walletDescription: 'Cobrança Simples',
  /** Duplicata mercantil, not accepted: what a gateway's boletos usually are. */
  docType: 'DM',
  accept: 'N',
} as const;

/** A charge's boleto registration at the emulator's bank: its nosso número, the line's free field and the account. */
export interface BoletoRegistration {
  /** Nosso número: convênio (7) + the charge's sequence (10), no check digit (BB, convênio of 7 digits). */
  readonly ourNumber: string;
  /** The 25-digit free field of bank 001 for that convênio: six zeros, the nosso número, the carteira. */
  readonly freeField: string;
  /** The FEBRABAN fields of the boleto answer (wire doc 2.6), as the provider names them. */
  readonly answer: Readonly<Record<string, string>>;
}

/** The registration of the emulator's charge `id` (its sequence): the same for every due date of the charge. */
export function boletoRegistration(id: number): BoletoRegistration {
  const b = EMULATOR_BENEFICIARY;
  const sequence = String(id).padStart(10, '0');
  if (sequence.length !== 10) throw new RangeError('charge sequence beyond 10 digits');
  const ourNumber = `${b.convenio}${sequence}`;
  const accountDv = bancoDoBrasilCheckDigit(b.account);
  const code = `${b.account}-${accountDv}`;
  return {
    ourNumber,
    freeField: `000000${ourNumber}${b.wallet}`,
    answer: {
      BankSlipNumber: ourNumber,
      Wallet: b.wallet,
      WalletDescription: b.walletDescription,
      Agency: b.agency,
      AgencyDV: bancoDoBrasilCheckDigit(b.agency),
      Account: b.account,
      AccountDV: accountDv,
      CodeAssignor: code,
      CodeBeneficiary: code,
      DocType: b.docType,
      Accept: b.accept,
    },
  };
}
