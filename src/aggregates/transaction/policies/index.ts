import type { ChargeKind } from '../vocabulary.ts';
import { boletoPolicy } from './boleto.ts';
import { creditCardPolicy } from './credit-card.ts';
import { pixPolicy } from './pix.ts';
import { pixAutomaticDebitPolicy } from './pix-automatic-debit.ts';
import type { ChargePolicy } from './policy.ts';

export type { ChargePolicy, MethodFields, MethodRefusal } from './policy.ts';

/**
 * One policy per kind of charge, under its own kind: a new kind (`credit_card`, `pix_automatic_debit`) is
 * its policy file plus its key here and in CHARGE_KINDS (DESIGN.md "Providers").
 */
export const CHARGE_POLICIES: { readonly [K in ChargeKind]: ChargePolicy & { readonly kind: K } } = {
  pix: pixPolicy,
  boleto: boletoPolicy,
  credit_card: creditCardPolicy,
  pix_automatic_debit: pixAutomaticDebitPolicy,
};

export function policyOf(kind: ChargeKind): ChargePolicy {
  return CHARGE_POLICIES[kind];
}

/** The policy of a stored kind, or null for a kind this version does not know. */
export function policyFor(kind: string): ChargePolicy | null {
  return Object.hasOwn(CHARGE_POLICIES, kind) ? CHARGE_POLICIES[kind as ChargeKind] : null;
}
