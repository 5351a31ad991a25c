/** Texts printed on the boleto PDF, formatted the way Brazilian boletos print them. */

/**
 * The digitable line in its usual groups. 47 digits (bank boleto, FEBRABAN):
 * `AAAAA.AAAAA BBBBB.BBBBBB CCCCC.CCCCCC D EEEEEEEEEEEEEE`; 48 digits (convênio): four blocks of 11 digits
 * and their check digit, `NNNNNNNNNNN-N …`. Anything else is printed as given.
 */
export function formatDigitableLine(line: string): string {
  if (/^[0-9]{47}$/.test(line)) {
    const s = (a: number, b: number) => line.slice(a, b);
    return `${s(0, 5)}.${s(5, 10)} ${s(10, 15)}.${s(15, 21)} ${s(21, 26)}.${s(26, 32)} ${s(32, 33)} ${s(33, 47)}`;
  }
  if (/^[0-9]{48}$/.test(line)) {
    return [0, 12, 24, 36].map((i) => `${line.slice(i, i + 11)}-${line.slice(i + 11, i + 12)}`).join(' ');
  }
  return line;
}

/** A CPF (11 digits) as `123.456.789-01`, a CNPJ (14) as `12.345.678/0001-90`; anything else as given. */
export function formatPayerDocument(document: string): string {
  const d = document.replace(/[^0-9]/g, '');
  if (d.length === 11) return `${d.slice(0, 3)}.${d.slice(3, 6)}.${d.slice(6, 9)}-${d.slice(9)}`;
  if (d.length === 14) {
    return `${d.slice(0, 2)}.${d.slice(2, 5)}.${d.slice(5, 8)}/${d.slice(8, 12)}-${d.slice(12)}`;
  }
  return document;
}
