import type { ChargeMethod } from '../transaction.ts';
import { boletoPolicy } from './boleto.ts';
import { pixPolicy } from './pix.ts';
import type { MethodPolicy } from './policy.ts';

export type { MethodFields, MethodPolicy, MethodRefusal } from './policy.ts';

/** One policy per charge method: a new method is a new entry here (DESIGN.md "Providers"). */
export const METHOD_POLICIES: { readonly [M in ChargeMethod]: MethodPolicy } = {
  pix: pixPolicy,
  boleto: boletoPolicy,
};

export function policyOf(method: ChargeMethod): MethodPolicy {
  return METHOD_POLICIES[method];
}

/** The policy of a stored method, or null for one without a policy yet (a `credit_card` row: SPEC 4.9). */
export function policyFor(method: string): MethodPolicy | null {
  return Object.hasOwn(METHOD_POLICIES, method) ? METHOD_POLICIES[method as ChargeMethod] : null;
}
