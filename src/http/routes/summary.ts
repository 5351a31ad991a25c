import { sql } from 'kysely';
import { z } from 'zod';
import { saoPauloDate, TRANSACTION_STATUSES, type TransactionStatus } from '../../aggregates/transaction.ts';
import { requireTenantInTree, treeRoot } from '../admin-scope.ts';
import { sessionPrincipal } from '../auth.ts';
import type { AppContext } from '../context.ts';
import { dataEnvelope, errorResponses } from '../schemas.ts';
import type { HttpServer } from '../server.ts';

const DAY_MS = 86_400_000;
const queryBoolean = z.enum(['true', 'false']).transform((v) => v === 'true');

const query = z.strictObject({
  days: z.coerce
    .number()
    .int()
    .min(1)
    .max(365)
    .default(30)
    .meta({ description: 'Window length in days (1 to 365): charges created at or after now - days x 24h.' }),
  tenant_id: z
    .string()
    .min(1)
    .max(100)
    .optional()
    .meta({ description: 'Root of the subtree to summarize; must lie in the caller’s tree (else 404).' }),
  livemode: queryBoolean
    .default(true)
    .meta({ description: '`true` (default): production charges only; `false`: test-mode charges only.' }),
});

const money = z.number().int().meta({ description: 'Centavos.' });
const dayEntry = z.object({
  date: z.iso.date().meta({ description: 'Creation day in America/Sao_Paulo.' }),
  created_count: z.number().int(),
  created_amount: money,
  paid_count: z.number().int(),
  paid_amount: money,
});

const summary = z
  .object({
    days: z.number().int(),
    livemode: z.boolean(),
    tenant_id: z
      .string()
      .nullable()
      .meta({ description: 'The subtree root asked for; null for the whole scope.' }),
    window: z.object({
      from: z.iso.datetime().meta({ description: 'now - days x 24h (inclusive).' }),
      to: z.iso.datetime().meta({ description: 'now.' }),
      time_zone: z.literal('America/Sao_Paulo'),
    }),
    totals: z.object({
      created_count: z.number().int(),
      created_amount: money,
      paid_count: z
        .number()
        .int()
        .meta({ description: 'Charges created in the window that were ever paid.' }),
      paid_amount: money,
      success_rate: z.number().min(0).max(1).meta({
        description: 'paid_count / created_count, rounded to 4 decimals; 0 when nothing was created.',
      }),
    }),
    status_counts: z.object(
      Object.fromEntries(TRANSACTION_STATUSES.map((s) => [s, z.number().int()])) as Record<
        TransactionStatus,
        z.ZodNumber
      >,
    ),
    daily: z.array(dayEntry).meta({ description: 'Every day of the window, oldest first, zeros included.' }),
    tenants: z
      .object({ total: z.number().int(), active: z.number().int(), suspended: z.number().int() })
      .meta({ description: 'The current registry within the scope, whatever the window.' }),
  })
  .meta({ id: 'AdminSummary' });

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
 * `summary_transactions` table (may trail writes by a moment) and the current `tenants` registry.
 */
export function registerSummaryRoutes(app: HttpServer, ctx: AppContext): void {
  app.get(
    '/admin/summary',
    {
      config: { access: { auth: 'session', roles: ['super_admin', 'tenant_admin', 'viewer'] } },
      schema: {
        summary: 'Summarize charges of the authorized tree',
        description:
          'Totals, counts per status, success rate and a daily series (America/Sao_Paulo) over the charges created in the last `days` x 24h; tenant counts from the current registry. May trail writes by a moment.',
        querystring: query,
        response: { 200: dataEnvelope(summary), ...errorResponses(401, 403, 404, 422, 429) },
      },
    },
    async (request) => {
      const principal = sessionPrincipal(request);
      const { days, tenant_id, livemode } = request.query;
      if (tenant_id !== undefined) await requireTenantInTree(ctx.db, principal, tenant_id);
      const root = tenant_id ?? treeRoot(principal);
      const now = ctx.now();
      const from = new Date(now.getTime() - days * DAY_MS);

      const inScope = (column: string) =>
        root === undefined
          ? sql<boolean>`true`
          : sql<boolean>`${sql.ref(column)} in (select id from tenants where ancestor_ids @> array[${root}]::text[])`;

      const rows = await ctx.db
        .selectFrom('summary_transactions')
        .where(inScope('summary_transactions.tenant_id'))
        .where('livemode', '=', livemode)
        .where('created_at', '>=', from)
        .where('created_at', '<=', now)
        .select([
          sql<string>`created_day::text`.as('day'),
          'status',
          sql<string>`count(*)`.as('n'),
          sql<string>`coalesce(sum(amount), 0)`.as('amount'),
          sql<string>`count(paid_at)`.as('paid_n'),
          sql<string>`coalesce(sum(amount) filter (where paid_at is not null), 0)`.as('paid_amount'),
        ])
        .groupBy(['created_day', 'status'])
        .execute();

      const tenantRows = await ctx.db
        .selectFrom('tenants')
        .where(inScope('tenants.id'))
        .select(['status', sql<string>`count(*)`.as('n')])
        .groupBy('status')
        .execute();

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
