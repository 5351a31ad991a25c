/**
 * A JSON number written with a fraction or an exponent, or an integer outside the safe-integer range, as the
 * strict JSON parser (src/http/strict-json.ts) hands it to the schemas, which check its lexeme exactly.
 */
export class JsonDecimal {
  /** `Number(lexeme)`: may be rounded, or `±Infinity` for huge exponents; use `lexeme` for exact checks. */
  readonly value: number;

  constructor(readonly lexeme: string) {
    this.value = Number(lexeme);
  }
}
