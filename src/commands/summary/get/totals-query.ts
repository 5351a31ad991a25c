import { type Kysely, sql } from 'kysely';
import { saoPauloDate, type TransactionStatus } from '../../../aggregates/transaction.ts';
import type { Database } from '../../../db/schema.ts';
import { tenantInSubtreeSql } from '../../tenancy.ts';

/**
 * Counts and sums per (creation day, status) over the window `[from, now]`: the whole days after the
 * window's first (Sao Paulo) day from the `summary_daily` rollup, the first day's part from the window's
 * start from `summary_transactions`, less any row the rollup holds that was created after `now` (a charge
 * reserved while this request runs). At most one day of single rows is read, whatever `days` is.
 * Exported for the B5 benchmark's bare-SQL reference.
 */
export function windowTotalsQuery(root: string | undefined, livemode: boolean, from: Date, now: Date) {
  const firstDay = saoPauloDate(from);
  const lastDay = saoPauloDate(now);
  const single = (signValue: 1 | -1) => {
    const sign = sql.lit(signValue);
    return sql`
      select created_day, status, ${sign}::bigint as n, ${sign} * amount as amount,
             case when paid_at is null then 0 else ${sign} end as paid_n,
             case when paid_at is null then 0 else ${sign} * amount end as paid_amount
      from summary_transactions
      where ${tenantInSubtreeSql(root, 'summary_transactions.tenant_id')} and livemode = ${livemode}`;
  };
  return sql<{
    day: string;
    status: TransactionStatus;
    n: string;
    amount: string;
    paid_n: string;
    paid_amount: string;
  }>`
    select created_day::text as day, status, sum(n) as n, sum(amount) as amount, sum(paid_n) as paid_n,
           sum(paid_amount) as paid_amount
    from (
      select created_day, status, created_count as n, created_amount as amount, paid_count as paid_n, paid_amount
      from summary_daily
      where ${tenantInSubtreeSql(root, 'summary_daily.tenant_id')} and livemode = ${livemode}
        and created_day > ${firstDay}::date and created_day <= ${lastDay}::date
      union all
      ${single(1)}
        and created_at >= ${from} and created_at <= ${now}
        and created_at < (${firstDay}::date + 1)::timestamp at time zone 'America/Sao_Paulo'
      union all
      ${single(-1)}
        and created_at > ${now} and created_day > ${firstDay}::date and created_day <= ${lastDay}::date
    ) parts
    group by created_day, status`;
}

/** Tenants of the subtree per status (the registry now, whatever the window). */
export function tenantCountsQuery(db: Kysely<Database>, root: string | undefined) {
  return db
    .selectFrom('tenants')
    .where(tenantInSubtreeSql(root, 'tenants.id'))
    .select(['status', sql<string>`count(*)`.as('n')])
    .groupBy('status');
}
