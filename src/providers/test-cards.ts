/**
 * The documented test cards (issue 25 item 3; README "Test cards"): what a test-mode key charges, answered by
 * the simulator without reaching any provider, as Stripe's test cards are. Any expiry in the future and any
 * 3-digit security code (4 digits for American Express) work. Every other number is refused in test mode, so
 * a real card typed into a test integration is never tokenized anywhere.
 */
export type TestCardOutcome =
  /** Authorized and captured: `paid`. */
  | 'approved'
  /** Declined by the issuer (return code 05): `failed`, `502 provider_rejected`. */
  | 'declined'
  /** Declined for insufficient funds (return code 51). */
  | 'insufficient_funds'
  /** No answer from the acquirer: `unknown` (`202`), never charged again automatically. */
  | 'uncertain';

export interface TestCard {
  readonly number: string;
  readonly brand: string;
  readonly outcome: TestCardOutcome;
}

export const TEST_CARDS: readonly TestCard[] = [
  { number: '4111111111111111', brand: 'visa', outcome: 'approved' },
  { number: '5555555555554444', brand: 'mastercard', outcome: 'approved' },
  { number: '378282246310005', brand: 'amex', outcome: 'approved' },
  { number: '6362970000457013', brand: 'elo', outcome: 'approved' },
  { number: '6062825624254001', brand: 'hipercard', outcome: 'approved' },
  { number: '4000000000000002', brand: 'visa', outcome: 'declined' },
  { number: '4000000000009995', brand: 'visa', outcome: 'insufficient_funds' },
  { number: '4000000000000119', brand: 'visa', outcome: 'uncertain' },
];

export function testCard(number: string): TestCard | null {
  return TEST_CARDS.find((c) => c.number === number) ?? null;
}
