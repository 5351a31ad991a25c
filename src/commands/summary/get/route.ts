import {
  saoPauloDate,
  TRANSACTION_STATUSES,
  type TransactionStatus,
} from '../../../aggregates/transaction.ts';
import { getAdminSummary } from '../../../contract/operations/summary.ts';
import { bind } from '../../bind.ts';
import { requireTenantInTree, treeRoot } from '../../tenancy.ts';
import { tenantCountsQuery, windowTotalsQuery } from './totals-query.ts';

const DAY_MS = 86_400_000;

/** Every date from `first` to `last` (YYYY-MM-DD), inclusive. */
function datesBetween(first: string, last: string): string[] {
  const out: string[] = [];
  for (let d = new Date(`${first}T00:00:00Z`); ; d = new Date(d.getTime() + DAY_MS)) {
    const date = d.toISOString().slice(0, 10);
    out.push(date);
    if (date >= last) return out;
  }
}

/**
 * `GET /admin/summary` (SPEC 4.14; scope as SPEC 5.7 "Read transactions"). Reads the async
 * `summary_daily` rollup and `summary_transactions` (may trail writes by a moment) and the current `tenants`
 * registry. No handler: nothing is decided.
 */
export const getRoute = bind(getAdminSummary, async (call, ctx) => {
  const principal = call.session();
  const { days, tenant_id, livemode } = call.query;
  if (tenant_id !== undefined) await requireTenantInTree(ctx.db, principal, tenant_id);
  const root = tenant_id ?? treeRoot(principal);
  const now = ctx.now();
  const from = new Date(now.getTime() - days * DAY_MS);

  const { rows } = await windowTotalsQuery(root, livemode, from, now).execute(ctx.db);
  const tenantRows = await tenantCountsQuery(ctx.db, root).execute();

  const statusCounts = Object.fromEntries(TRANSACTION_STATUSES.map((s) => [s, 0])) as Record<
    TransactionStatus,
    number
  >;
  const daily = new Map(
    datesBetween(saoPauloDate(from), saoPauloDate(now)).map((date) => [
      date,
      { date, created_count: 0, created_amount: 0, paid_count: 0, paid_amount: 0 },
    ]),
  );
  const totals = { created_count: 0, created_amount: 0, paid_count: 0, paid_amount: 0 };
  for (const r of rows) {
    const entry = {
      n: Number(r.n),
      amount: Number(r.amount),
      paidN: Number(r.paid_n),
      paid: Number(r.paid_amount),
    };
    statusCounts[r.status] += entry.n;
    for (const acc of [totals, daily.get(r.day)]) {
      if (!acc) continue;
      acc.created_count += entry.n;
      acc.created_amount += entry.amount;
      acc.paid_count += entry.paidN;
      acc.paid_amount += entry.paid;
    }
  }
  const tenantCount = (status: string) => Number(tenantRows.find((r) => r.status === status)?.n ?? 0);
  const active = tenantCount('active');
  const suspended = tenantCount('suspended');
  return {
    data: {
      days,
      livemode,
      tenant_id: tenant_id ?? null,
      window: {
        from: from.toISOString(),
        to: now.toISOString(),
        time_zone: 'America/Sao_Paulo' as const,
      },
      totals: {
        ...totals,
        success_rate:
          totals.created_count === 0
            ? 0
            : Math.round((totals.paid_count / totals.created_count) * 10_000) / 10_000,
      },
      status_counts: statusCounts,
      daily: [...daily.values()],
      tenants: { total: active + suspended, active, suspended },
    },
  };
});
