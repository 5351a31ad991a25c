/**
 * Centavos <-> Safe2Pay decimal reais (wire doc 2.4: "Money is decimal reais, never cents"). This is the only
 * place where money is not integer centavos (DESIGN.md "Providers"), and it uses digit strings, never float
 * arithmetic, so 1250 <-> 12.50 is exact for every amount the gateway accepts.
 */

const MAX_CENTAVOS = 100_000_000_000; // far above SPEC 8's 100000000; guards the string conversion only

/** 1250 -> "12.50". */
export function centavosToReaisText(centavos: number): string {
  if (!Number.isSafeInteger(centavos) || centavos < 0 || centavos > MAX_CENTAVOS) {
    throw new RangeError('amount must be a non-negative integer number of centavos');
  }
  const digits = String(centavos).padStart(3, '0');
  return `${digits.slice(0, -2)}.${digits.slice(-2)}`;
}

/**
 * The JSON number for the body. `Number("12.50")` is the double nearest to 12.5, and JSON.stringify writes the
 * shortest text that reads back as that double, which is the same decimal ("12.5"): the text on the wire is
 * exact. No arithmetic is done on it.
 */
export function centavosToReais(centavos: number): number {
  return Number(centavosToReaisText(centavos));
}

const DECIMAL = /^(0|[1-9][0-9]{0,11})(?:\.([0-9]+))?$/;

/**
 * A provider amount -> centavos, or null when it is not an exact amount of centavos: "12.5", "12.50" and
 * 12.5 give 1250; "12.505", "12,50", "1e3", negatives and non-numbers give null (never rounded).
 */
export function reaisToCentavos(value: unknown): number | null {
  let text: string;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) return null;
    text = String(value); // shortest round-trip text of the double, e.g. 12.5 -> "12.5"
  } else if (typeof value === 'string') {
    text = value.trim();
  } else {
    return null;
  }
  const m = DECIMAL.exec(text);
  if (!m) return null;
  const whole = m[1] ?? '0';
  const fraction = (m[2] ?? '').replace(/0+$/, ''); // "12.500" is exactly 12.50
  if (fraction.length > 2) return null;
  const centavos = Number(whole) * 100 + Number(fraction.padEnd(2, '0'));
  return Number.isSafeInteger(centavos) ? centavos : null;
}
