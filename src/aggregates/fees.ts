import { z } from 'zod';
import { type ChargeMethod, MAX_AMOUNT } from './transaction/vocabulary.ts';

/**
 * Fee arithmetic (SPEC 2.2 `retained_amount`, `split`; 7 `fee_exceeds_amount`, `split_*`; docs/decisions.md
 * "Fees and split (issue 28 item 4)"). Pure and integer-only: centavos and basis points, never floats.
 *
 * Rounding rule: each level's percentage part is `amount * percent_bps / 10000` rounded half up to the
 * centavo (the commercial rounding Brazilian PSPs state in their fee tables), plus its fixed part; the
 * levels' fees are then summed. Rounding per level means each level's own fee is what it would be alone.
 */

/** 100% in basis points: a percentage part is 0 to 10000 bps. */
export const MAX_PERCENT_BPS = 10_000;

/** One level's version in force: the tenant's own or an ancestor's. */
export interface FeeLevel {
  readonly feeId: string;
  readonly tenantId: string;
  readonly percentBps: number;
  readonly fixedAmount: number;
  readonly startsOn: string;
}

/** `amount * bps / 10000` rounded half up, exact in integers (amount <= 1e8, bps <= 1e4: below 2^53). */
export function percentPart(amount: number, percentBps: number): number {
  return Math.floor((amount * percentBps + 5_000) / 10_000);
}

/** One level's fee: its percentage part (rounded) plus its fixed part. */
export function levelFee(amount: number, level: Pick<FeeLevel, 'percentBps' | 'fixedAmount'>): number {
  return percentPart(amount, level.percentBps) + level.fixedAmount;
}

/** The sum of every level's fee ("own and inherited fees"). */
export function totalFee(
  amount: number,
  levels: readonly Pick<FeeLevel, 'percentBps' | 'fixedAmount'>[],
): number {
  let total = 0;
  for (const level of levels) total += levelFee(amount, level);
  return total;
}

/** What a charge stores at reservation, fixed forever (never recomputed on replay or on a later version). */
export const feeFactsData = z.strictObject({
  /** SPEC 2.2 `retained_amount` = `split.total_fee_amount`. */
  retained_amount: z.number().int().min(0).max(MAX_AMOUNT),
  /** The method the fees were computed on (SPEC 2.2 `split.on`). */
  on: z.enum(['pix', 'boleto', 'credit_card']),
  /** The tenant's own version in force, null when it only inherits (SPEC 2.2). */
  tenant_fee_id: z.string().nullable(),
  fee_starts_on: z.string().nullable(),
  /**
   * A boleto's attached Pix: the fees a payment by that Pix retains (SPEC 2.2: on a boleto paid with Pix only
   * `split` carries the Pix summary). Absent on other methods.
   */
  pix_retained_amount: z.number().int().min(0).max(MAX_AMOUNT).optional(),
});
export type FeeFacts = z.infer<typeof feeFactsData>;

/** Why fees cannot apply to a charge; refused before reservation. */
export type FeeRefusal =
  | { readonly code: 'fee_exceeds_amount'; readonly total: number }
  | { readonly code: 'split_no_merchant_amount'; readonly total: number }
  | { readonly code: 'split_pix_fee_exceeds_amount'; readonly total: number };

/**
 * The fee facts of a new charge of `amount` on `method`, from the versions in force at every level of its
 * tenant's chain (`levels`: own and ancestors', for `method`; `pixLevels` the same for Pix, boleto only).
 * Fees above the amount are `fee_exceeds_amount`; fees equal to it leave the merchant nothing and are
 * `split_no_merchant_amount`; a boleto whose attached Pix would retain more than the amount is
 * `split_pix_fee_exceeds_amount`.
 */
export function feeFacts(input: {
  readonly tenantId: string;
  readonly method: ChargeMethod;
  readonly amount: number;
  readonly levels: readonly FeeLevel[];
  readonly pixLevels?: readonly FeeLevel[] | undefined;
}): FeeFacts | FeeRefusal {
  const total = totalFee(input.amount, input.levels);
  if (total > input.amount) return { code: 'fee_exceeds_amount', total };
  if (total > 0 && total === input.amount) return { code: 'split_no_merchant_amount', total };
  const own = input.levels.find((l) => l.tenantId === input.tenantId) ?? null;
  const facts: FeeFacts = {
    retained_amount: total,
    on: input.method,
    tenant_fee_id: own?.feeId ?? null,
    fee_starts_on: own?.startsOn ?? null,
  };
  if (input.method !== 'boleto' || input.pixLevels === undefined) return facts;
  const pixTotal = totalFee(input.amount, input.pixLevels);
  if (pixTotal >= input.amount && pixTotal > 0)
    return { code: 'split_pix_fee_exceeds_amount', total: pixTotal };
  return { ...facts, pix_retained_amount: pixTotal };
}

export function isFeeRefusal(value: FeeFacts | FeeRefusal): value is FeeRefusal {
  return 'code' in value;
}

/** SPEC 2.2 `split`: null on older history (no fee facts); on a boleto paid by its Pix, the Pix summary. */
export function splitOf(
  amount: number,
  fees: FeeFacts | null,
  paidWith: string | null,
): { total_fee_amount: number; merchant_amount: number; on: string } | null {
  if (fees === null) return null;
  const byPix = fees.on === 'boleto' && paidWith === 'pix' && fees.pix_retained_amount !== undefined;
  const total = byPix ? (fees.pix_retained_amount as number) : fees.retained_amount;
  return { total_fee_amount: total, merchant_amount: amount - total, on: byPix ? 'pix' : fees.on };
}
