import { CompiledQuery, type Kysely, type Selectable } from 'kysely';
import pg from 'pg';
import type { z } from 'zod';
import type { publicTransactionQuery } from '../../../contract/transactions.ts';
import type { Database, TransactionsTable } from '../../../db/schema.ts';
import { inSubtreeText } from '../../tenancy.ts';

/**
 * SPEC 4.3's list as constant SQL text per filter shape (issue 14, B3): the gateway's CPU per page was the
 * lever (BENCHMARKS.md "Issue 14: B3 listing"). Compared with the kysely-built `select x.*` it replaced:
 * - no operation tree built and compiled per request: one text per shape, cached, so the connection's
 *   named prepared statement is reused (src/db/database.ts);
 * - only the columns the SPEC 2.2 view reads, `boleto_url` as a flag (the view writes its own URL);
 * - the cost centers' names stay a second statement (costCenterNames, constant text too): as a scalar
 *   subquery per row they cost PostgreSQL ~0.19 ms of CPU per page (100 lookups; BENCHMARKS.md);
 * - every timestamp as the text of the instant in UTC (`at time zone 'UTC'`, independent of the session's
 *   TimeZone), which pg hands over unparsed and `isoOfUtcText` turns into `Date.prototype.toISOString()`'s
 *   string by slicing (pg's `parseDate` alone was 3.7 % of the gateway's profile, `toISOString` more).
 */

type Filters = z.infer<typeof publicTransactionQuery>;
export type ListFilters = Omit<Filters, 'include_descendants'>;

export interface Scope {
  /** The tenant the list is rooted at; undefined = unrestricted (super_admin). */
  root: string | undefined;
  /** Whether the root's descendants are included. */
  subtree: boolean;
  livemode: boolean;
}

/** The instants the list selects as UTC text. */
export type Instant =
  | 'expires_at'
  | 'boleto_pix_expires_at'
  | 'paid_at'
  | 'duplicate_payment_at'
  | 'created_at'
  | 'updated_at';

/**
 * A row of the list statement: the `transactions` columns the view reads (not the provider, the pending
 * due date, the duplicate refund or the sequence), the instants as UTC text, `boleto_url` as a flag.
 */
export type ListRow = Omit<
  Selectable<TransactionsTable>,
  Instant | 'boleto_url' | 'provider_id' | 'duplicate_refund' | 'pending_due_date' | 'sequence'
> &
  Record<Exclude<Instant, 'created_at' | 'updated_at'>, string | null> & {
    created_at: string;
    updated_at: string;
    /** `boleto_url is not null`: the view writes the signed URL itself. */
    has_boleto_url: boolean;
  };

const utc = (column: string) => `(p.${column} at time zone 'UTC')::text as ${column}`;

/** The outer select list, on the page `p` (after its limit and offset). */
const COLUMNS = [
  'p.id',
  'p.tenant_id',
  'p.livemode',
  'p.method',
  'p.status',
  'p.amount',
  'p.currency',
  'p.reference',
  'p.description',
  'p.simulated',
  'p.environment',
  'p.subaccount_id',
  'p.provider_reference',
  'p.cost_center_id',
  'p.callback_url',
  'p.pix_copy_paste',
  'p.pix_qr_code',
  utc('expires_at'),
  'p.boleto_due_date',
  'p.boleto_url is not null as has_boleto_url',
  'p.boleto_digitable_line',
  'p.boleto_barcode',
  'p.boleto_pix_copy_paste',
  utc('boleto_pix_expires_at'),
  'p.failure_code',
  'p.provider_error_code',
  'p.provider_error_message',
  'p.provider_http_status',
  'p.paid_with',
  utc('paid_at'),
  utc('duplicate_payment_at'),
  'p.refund_status',
  'p.credit_card',
  'p.card_id',
  'p.document_signature',
  'p.pix_automatic_authorization_id',
  'p.scheduled_due_date',
  'p.fees',
  utc('created_at'),
  utc('updated_at'),
].join(', ');

/** A statement's text and its values in `$n` order. */
export interface ListStatement {
  sql: string;
  parameters: readonly unknown[];
}

/**
 * The shape of a request: which filters are present and how the scope is rooted. The texts are few
 * (3 x 2 x 2 x 2 x 3 x 2, first page or later) and built once each.
 */
function shapeOf(scope: Scope, q: ListFilters): string {
  const root = scope.root === undefined ? 'all' : scope.subtree ? 'tree' : 'one';
  const cc = q.cost_center_id === undefined ? '-' : q.cost_center_id === 'unassigned' ? 'null' : '=';
  const later = q.offset > 0;
  return `${root}|${q.status !== undefined}|${q.method !== undefined}|${q.reference !== undefined}|${cc}|${later}`;
}

const texts = new Map<string, string>();

function textOf(shape: string, scope: Scope, q: ListFilters): string {
  let text = texts.get(shape);
  if (text !== undefined) return text;
  let n = 0;
  const p = () => `$${++n}`;
  // Placeholders in the order `parametersOf` pushes values.
  const where = [`x.livemode = ${p()}`];
  if (q.status !== undefined) where.push(`x.status = ${p()}`);
  if (q.method !== undefined) where.push(`x.method = ${p()}`);
  if (q.reference !== undefined) where.push(`x.reference = ${p()}`);
  if (q.cost_center_id === 'unassigned') where.push('x.cost_center_id is null');
  else if (q.cost_center_id !== undefined) where.push(`x.cost_center_id = ${p()}`);
  const order = 'order by x.created_at desc, x.id desc';
  let page: string;
  if (scope.root !== undefined && scope.subtree) {
    // A subtree is read tenant by tenant, each through its own index with its own limit, then merged: one
    // filter over the whole subtree made PostgreSQL scan and sort every charge of it (BENCHMARKS.md B3).
    const inner = `${p()}`; // offset + limit
    const root = p();
    page = `select t.* from tenants s cross join lateral (
          select x.* from transactions x where x.tenant_id = s.id and ${where.join(' and ')}
          ${order} limit ${inner}) t
        where ${inSubtreeText('s.ancestor_ids', root)}
        order by t.created_at desc, t.id desc limit ${p()} offset ${p()}`;
  } else {
    if (scope.root !== undefined) where.push(`x.tenant_id = ${p()}`);
    page = `select x.* from transactions x where ${where.join(' and ')}
        ${order} limit ${p()} offset ${p()}`;
  }
  // The first page is a subquery: PostgreSQL keeps its order without sorting again. A later page is a
  // materialized CTE planned with `x.*`, so the scan hands whole rows to the limit unprojected and the rows
  // the offset skips are never deformed; as a subquery PostgreSQL dropped the unused columns and projected
  // every scanned row (backend CPU per page at offset=10000: 1.9 ms for main's statement, 3.9 ms as a
  // subquery, 2.3 ms as a CTE; at offset 0 the CTE's materialization and sort cost 0.2 ms more than the
  // subquery: BENCHMARKS.md). Either way the UTC texts are computed for the page's rows only.
  text =
    q.offset === 0
      ? `select ${COLUMNS} from (${page}) p order by p.created_at desc, p.id desc`
      : `with p as materialized (${page}) select ${COLUMNS} from p order by p.created_at desc, p.id desc`;
  texts.set(shape, text);
  return text;
}

function parametersOf(scope: Scope, q: ListFilters): unknown[] {
  const values: unknown[] = [scope.livemode];
  if (q.status !== undefined) values.push(q.status);
  if (q.method !== undefined) values.push(q.method);
  if (q.reference !== undefined) values.push(q.reference);
  if (q.cost_center_id !== undefined && q.cost_center_id !== 'unassigned') values.push(q.cost_center_id);
  if (scope.root !== undefined && scope.subtree) values.push(q.offset + q.limit, scope.root);
  else if (scope.root !== undefined) values.push(scope.root);
  values.push(q.limit, q.offset);
  return values;
}

/**
 * SPEC 4.3: newest first (created_at desc, id desc), one mode, the optional filters. Also the text the B3
 * benchmark's bare-SQL reference and floor server send.
 */
export function listQuery(scope: Scope, q: ListFilters): ListStatement {
  return { sql: textOf(shapeOf(scope, q), scope, q), parameters: parametersOf(scope, q) };
}

/** Runs `listQuery` through the Kysely instance (its pool and the connection's prepared statements). */
export async function listRows(db: Kysely<Database>, scope: Scope, q: ListFilters): Promise<ListRow[]> {
  const { sql, parameters } = listQuery(scope, q);
  const { rows } = await db.executeQuery(CompiledQuery.raw(sql, [...parameters]) as CompiledQuery<ListRow>);
  return rows;
}

const parseTimestamptz = pg.types.getTypeParser(pg.types.builtins.TIMESTAMPTZ) as (text: string) => Date;

/**
 * `new Date(<the timestamptz>).toISOString()` from the instant's text in UTC
 * (`YYYY-MM-DD HH:MM:SS[.ffffff]`, PostgreSQL's ISO DateStyle): the date, `T`, the time, the fraction cut to
 * milliseconds (postgres-date and Date truncate; so does this) and `Z`. Other shapes (years past 9999, BC)
 * go through pg's own parser, as the rows did before.
 */
export function isoOfUtcText(text: string): string {
  const n = text.length;
  if (n >= 19 && text.charCodeAt(10) === 32 && text.charCodeAt(4) === 45) {
    if (n === 19) return `${text.slice(0, 10)}T${text.slice(11)}.000Z`;
    if (n <= 26 && text.charCodeAt(19) === 46) {
      const ms = n >= 23 ? text.slice(20, 23) : text.slice(20).padEnd(3, '0');
      return `${text.slice(0, 10)}T${text.slice(11, 19)}.${ms}Z`;
    }
  }
  const bc = text.endsWith(' BC');
  return parseTimestamptz(bc ? `${text.slice(0, -3)}+00 BC` : `${text}+00`).toISOString();
}

/** isoOfUtcText for a nullable column. */
export const isoOrNull = (text: string | null): string | null => (text === null ? null : isoOfUtcText(text));
