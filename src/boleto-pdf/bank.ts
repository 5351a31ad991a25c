import { getBankByCode } from '@brazilian-utils/brazilian-utils';

/**
 * The bank a boleto is payable to, as the header of both parts of a FEBRABAN boleto prints it: the bank's
 * name and its compensation code with the code's check digit ("Banco do Brasil S.A. | 001-9"). The code is
 * the first three digits of the digitable line (and of the barcode); the name comes from Banco Central's
 * list of STR participants with a compensation code, as shipped by @brazilian-utils (ParticipantesSTR.csv).
 */

export interface BoletoBank {
  /** Three digits, from the line. */
  code: string;
  /** `001-9`. */
  codeWithCheckDigit: string;
  /** Null for a code the list does not have: the header then prints the code alone. */
  name: string | null;
}

/**
 * The check digit of a bank's compensation code: módulo 11 over the three digits, weights 2 to 9 from the
 * right, digit = 11 − (sum mod 11), and 10 or 11 give 0. That is the rule the boleto layouts of the banks
 * (FEBRABAN "Layout Padrão de Arrecadação/Recebimento", the bank header "código do banco com DV") use, as in
 * BoletoPhp's `geraCodigoBanco` (modulo_11 with base 9); it gives the published pairs 001-9, 033-7, 104-0,
 * 237-2, 341-7 and 756-0 (test/unit/boleto-bank.test.ts).
 */
export function bankCodeCheckDigit(code: string): number {
  if (!/^[0-9]{3}$/.test(code)) throw new RangeError('a bank code is three digits');
  let sum = 0;
  let weight = 2;
  for (let i = code.length - 1; i >= 0; i--) {
    sum += Number(code[i]) * weight;
    weight = weight === 9 ? 2 : weight + 1;
  }
  const digit = 11 - (sum % 11);
  return digit >= 10 ? 0 : digit;
}

/**
 * The bank of a 47-digit bank boleto line. A 48-digit line is an arrecadação (convênio) document, which
 * names no bank: null.
 */
export function boletoBank(line: string): BoletoBank | null {
  if (!/^[0-9]{47}$/.test(line)) return null;
  const code = line.slice(0, 3);
  return {
    code,
    codeWithCheckDigit: `${code}-${bankCodeCheckDigit(code)}`,
    name: getBankByCode(code)?.name ?? null,
  };
}

/**
 * Espécie (currency) of a bank boleto, from the line's fourth digit: 9 is the real (FEBRABAN; any other code
 * is "moeda variável", which no charge of this gateway issues): "R$", or null when it is not 9.
 */
export function boletoCurrency(line: string): string | null {
  return /^[0-9]{47}$/.test(line) && line[3] === '9' ? 'R$' : null;
}
