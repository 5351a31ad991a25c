import { type Kysely, type RawBuilder, sql } from 'kysely';
import { saoPauloDate, TRANSACTION_STATUSES, type TransactionStatus } from '../../aggregates/transaction.ts';
import type { AppContext } from '../../commands/context.ts';
import { requireTenantInTree, treeRoot } from '../../commands/tenancy.ts';
import { dataEnvelope, errorResponses } from '../../contract/envelopes.ts';
import { adminSummary, summaryQuery } from '../../contract/summary.ts';
import type { Database } from '../../db/schema.ts';
import { sessionPrincipal } from '../auth.ts';
import type { HttpServer } from '../server.ts';

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

/** `column` lies in the subtree rooted at `root` (every tenant when undefined). */
function inScope(root: string | undefined, column: string): RawBuilder<boolean> {
  return root === undefined
    ? sql<boolean>`true`
    : sql<boolean>`${sql.ref(column)} in (select id from tenants where ancestor_ids @> array[${root}]::text[])`;
}

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
      where ${inScope(root, 'summary_transactions.tenant_id')} and livemode = ${livemode}`;
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
      where ${inScope(root, 'summary_daily.tenant_id')} and livemode = ${livemode}
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
    .where(inScope(root, 'tenants.id'))
    .select(['status', sql<string>`count(*)`.as('n')])
    .groupBy('status');
}

/**
 * `GET /admin/summary` (SPEC 4.14; scope as SPEC 5.7 "Read transactions"). Reads the async
 * `summary_daily` rollup and `summary_transactions` (may trail writes by a moment) and the current `tenants` registry.
 */
export function registerSummaryRoutes(app: HttpServer, ctx: AppContext): void {
  app.get(
    '/admin/summary',
    {
      config: { access: { auth: 'session', roles: ['super_admin', 'tenant_admin', 'viewer'] } },
      schema: {
        operationId: 'getAdminSummary',
        summary: 'Summarize charges of the authorized tree',
        description:
          'Totals, counts per status, success rate and a daily series (America/Sao_Paulo) over the charges created in the last `days` x 24h; tenant counts from the current registry. May trail writes by a moment.',
        querystring: summaryQuery,
        response: { 200: dataEnvelope(adminSummary), ...errorResponses(401, 403, 404, 422, 429) },
      },
    },
    async (request) => {
      const principal = sessionPrincipal(request);
      const { days, tenant_id, livemode } = request.query;
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
    },
  );
}
