import type { Kysely } from 'kysely';
import { saoPauloDate } from '../../aggregates/business-date.ts';
import { DomainError } from '../../aggregates/decider.ts';
import { type FeeFacts, type FeeLevel, feeFacts, isFeeRefusal } from '../../aggregates/fees.ts';
import type { ChargeMethod } from '../../aggregates/transaction/vocabulary.ts';
import { constantQuery } from '../../db/constant-query.ts';
import type { Database } from '../../db/schema.ts';

/**
 * The versions in force on a date for a tenant and every ancestor (its `ancestor_ids`, root first, itself
 * last), one per level and method: ONE statement whatever the depth of the tree (issue 28 item 7).
 */
const inForceQuery = constantQuery<{
  id: string;
  tenant_id: string;
  method: ChargeMethod;
  percent_bps: number;
  fixed_amount: string;
  starts_on: string;
}>(
  `select distinct on (v.tenant_id, v.method) v.id, v.tenant_id, v.method, v.percent_bps, v.fixed_amount, v.starts_on
     from tenants t
     join fee_versions v on v.tenant_id = any(t.ancestor_ids)
    where t.id = $1
      and v.method = any($2::text[]) and v.starts_on <= $3
    order by v.tenant_id, v.method, v.starts_on desc`,
);

const REFUSALS = {
  fee_exceeds_amount: 'The fees of this tenant and its ancestors exceed the amount of the charge.',
  split_no_merchant_amount:
    'The fees equal the amount of the charge: nothing would be left for the merchant.',
  split_pix_fee_exceeds_amount: "The Pix fees of the boleto's attached Pix reach the amount of the charge.",
} as const;

/**
 * Issue 28 item 4 (SPEC 2.2, 7): the fees a new charge retains, from the versions in force on its issuance
 * date (Brasilia) at its tenant's level and every ancestor's. Pix Automatic debits are Pix charges and use
 * the pix fees; a boleto also fixes the fees of its attached Pix (SPEC 2.2 `split` of a boleto paid by Pix).
 * Refusals (`422 fee_exceeds_amount`, `422 split_*`) are thrown here, before anything is reserved.
 */
export async function resolveFees(
  ctx: { db: Kysely<Database> },
  input: { tenantId: string; method: ChargeMethod; amount: number; now: Date },
): Promise<FeeFacts> {
  const methods = input.method === 'boleto' ? ['boleto', 'pix'] : [input.method];
  const { rows } = await inForceQuery(ctx.db, [input.tenantId, methods, saoPauloDate(input.now)]);
  const level = (r: (typeof rows)[number]): FeeLevel => ({
    feeId: r.id,
    tenantId: r.tenant_id,
    percentBps: r.percent_bps,
    fixedAmount: Number(r.fixed_amount),
    startsOn: r.starts_on,
  });
  const facts = feeFacts({
    tenantId: input.tenantId,
    method: input.method,
    amount: input.amount,
    levels: rows.filter((r) => r.method === input.method).map(level),
    ...(input.method === 'boleto' ? { pixLevels: rows.filter((r) => r.method === 'pix').map(level) } : {}),
  });
  if (isFeeRefusal(facts)) {
    throw new DomainError(facts.code, REFUSALS[facts.code], { param: 'amount' });
  }
  return facts;
}
