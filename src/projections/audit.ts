import { sql, type Transaction } from 'kysely';
import { paymentSettingsEvents } from '../aggregates/payment-settings.ts';
import { copyField, copyFromStdin } from '../db/copy-from-stdin.ts';
import type { Database } from '../db/schema.ts';
import { EventRegistry } from '../events/event-registry.ts';
import type { RecordedEvent } from '../events/event-store.ts';
import type { Projection } from '../events/projection.ts';
import { droppableIndexes, recordset } from './batch-sql.ts';

const settingsRegistry = new EventRegistry(paymentSettingsEvents);

/**
 * Claims on reservation streams (`user_email-<hash>`, `tenant_type_name-<hash>`, `idempotency-<scope>-<hash>`)
 * duplicate the record they guard, which is audited itself; their stream ids are digests of personal data,
 * names or keys, and idempotency claims carry whole request bodies.
 */
const SKIPPED_TYPES: ReadonlySet<string> = new Set([
  'UserEmail.Claimed',
  'TenantTypeName.Reserved',
  'Idempotency.Claimed',
  // Marks a claimed change as applied; the change itself is the audited event.
  'Idempotency.Completed',
]);

/** Field names that may hold a secret or a derivative of one: dropped at any depth, whatever the event. */
const SECRET_FIELD = /password|secret|token|hash|digest|sha256|cipher|credential|private|api_?key|encrypted/i;
const SECRET_EXACT: ReadonlySet<string> = new Set(['iv', 'tag', 'auth_tag', 'nonce', 'key', 'salt']);

export function isSecretField(name: string): boolean {
  return SECRET_FIELD.test(name) || SECRET_EXACT.has(name.toLowerCase());
}

/** isSecretField by name, remembered: payloads repeat a few dozen field names millions of times (rebuild). */
const secretByName = new Map<string, boolean>();
function isSecretFieldCached(name: string): boolean {
  let secret = secretByName.get(name);
  if (secret === undefined) {
    secret = isSecretField(name);
    if (secretByName.size < 10_000) secretByName.set(name, secret);
  }
  return secret;
}

/** A copy of an event payload without secret fields (SPEC 5.6: hashes, digests, ciphertexts never leave). */
export function stripSecrets(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(stripSecrets);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    if (!isSecretFieldCached(k)) out[k] = stripSecrets(v);
  }
  return out;
}

/** Whether a payload holds a secret field at any depth (most do not: then it is recorded as it is). */
function hasSecretField(value: unknown): boolean {
  if (value === null || typeof value !== 'object') return false;
  if (Array.isArray(value)) return value.some(hasSecretField);
  for (const k of Object.keys(value)) {
    if (isSecretFieldCached(k) || hasSecretField((value as Record<string, unknown>)[k])) return true;
  }
  return false;
}

/**
 * stripSecrets without the copy when there is nothing to strip (issue 14 B4: a rebuild copied every payload
 * only to serialize it). The result is only read (serialized), never mutated.
 */
function withoutSecrets(value: unknown): unknown {
  return hasSecretField(value) ? stripSecrets(value) : value;
}

/** `<category>-<id>`: the aggregate type and id every stream name carries. */
export function targetOf(stream: string): { type: string; id: string } {
  const dash = stream.indexOf('-');
  if (dash <= 0) return { type: stream, id: stream };
  return { type: stream.slice(0, dash), id: stream.slice(dash + 1) };
}

function stringField(data: unknown, name: string): string | undefined {
  if (data === null || typeof data !== 'object') return undefined;
  const v = (data as Record<string, unknown>)[name];
  return typeof v === 'string' && v.length > 0 ? v : undefined;
}

/** The tenant an earlier audited event of this target (or of a user) was attributed to. */
async function knownTenant(
  trx: Transaction<Database>,
  targetType: string,
  targetId: string,
): Promise<string | undefined> {
  const row = await trx
    .selectFrom('audit_log')
    .select('tenant_id')
    .where('target_type', '=', targetType)
    .where('target_id', '=', targetId)
    .where('tenant_id', 'is not', null)
    .orderBy('position')
    .limit(1)
    .executeTakeFirst();
  return row?.tenant_id ?? undefined;
}

/**
 * The tenant whose tree may read the record (SPEC 5.7 "Read logs"): the payload's `tenant_id`; else the
 * tenant of this target's earlier events (a key's revocation inherits its issuance's tenant); else the
 * tenant of the user the event is about (sessions); else, for an API key actor, the key's tenant. null means
 * platform-wide (payment settings, providers, global rules): super_admin only.
 */
async function tenantOf(
  known: (targetType: string, targetId: string) => Promise<string | undefined>,
  event: RecordedEvent,
  target: { type: string; id: string },
): Promise<string | null> {
  const own = stringField(event.data, 'tenant_id');
  if (own) return own;
  if (target.type === 'tenant') return target.id;
  const earlier = await known(target.type, target.id);
  if (earlier) return earlier;
  const userId = stringField(event.data, 'user_id');
  if (userId && target.type !== 'user') {
    const ofUser = await known('user', userId);
    if (ofUser) return ofUser;
  }
  // An API key acts for its own tenant. A panel user's tenant says nothing about the target (a super_admin
  // bound to a tenant configuring providers must not expose that to the tenant's tree): platform-wide.
  if (event.metadata.actor.startsWith('api_key:')) return event.metadata.tenant_id ?? null;
  return null;
}

/** tenantOf over attributions already in memory (a batch's): its rules, kept in step, no promise per event. */
function tenantFromKnown(
  known: KnownTenants,
  event: RecordedEvent,
  target: { type: string; id: string },
): string | null {
  const own = stringField(event.data, 'tenant_id');
  if (own) return own;
  if (target.type === 'tenant') return target.id;
  const earlier = known.get(key(target.type, target.id))?.tenant;
  if (earlier) return earlier;
  const userId = stringField(event.data, 'user_id');
  if (userId && target.type !== 'user') {
    const ofUser = known.get(key('user', userId))?.tenant;
    if (ofUser) return ofUser;
  }
  if (event.metadata.actor.startsWith('api_key:')) return event.metadata.tenant_id ?? null;
  return null;
}

function beforeAfter(event: RecordedEvent): { before: unknown; after: unknown } {
  if (event.type === 'PaymentSettings.Updated') {
    const decoded = settingsRegistry.decode(event);
    const d = decoded.data as { allow_live_payments: boolean; previous_allow_live_payments: boolean };
    return {
      before: { allow_live_payments: d.previous_allow_live_payments },
      after: { allow_live_payments: d.allow_live_payments },
    };
  }
  if (event.type === 'Provider.Updated' && event.data !== null && typeof event.data === 'object') {
    // Issue 23 item 2.3: the changed fields before and after; credentials only as whether they were replaced
    // (the ciphertext is stripped like every secret). Events written before `previous`: before null.
    const { previous, ...changed } = event.data as Record<string, unknown>;
    const after = withoutSecrets(changed) as Record<string, unknown>;
    const replaced = 'credentials_ciphertext' in changed ? { credentials_replaced: true } : {};
    if (previous === null || typeof previous !== 'object')
      return { before: null, after: { ...after, ...replaced } };
    // A flag, not a secret: re-added after the name-based strip, which drops anything named *credential*.
    const had = (previous as { had_credentials?: unknown }).had_credentials;
    return {
      before: {
        ...(withoutSecrets(previous) as object),
        ...(typeof had === 'boolean' ? { had_credentials: had } : {}),
      },
      after: { ...after, ...replaced },
    };
  }
  if (event.type === 'Transaction.Reserved' && event.data !== null && typeof event.data === 'object') {
    // The creation snapshot holds payer personal data (SPEC 2.2 rule 4, 2.3): it stays in its own resource.
    const { request: _r, provider_request: _p, ...facts } = event.data as Record<string, unknown>;
    return { before: null, after: withoutSecrets(facts) ?? null };
  }
  return { before: null, after: withoutSecrets(event.data) ?? null };
}

/**
 * The audit read model (async; DESIGN.md: audit queries read projected tables). Every event is recorded
 * (`handlesAll`): configuration changes, keys, sessions, transaction operations and types this file has
 * never heard of, generically: action = the event type's audit action name (its event definition's), target = the stream's aggregate type and id, the payload
 * without secret fields as `after`. Settings changes record previous/new as `before`/`after`. The events
 * themselves are the audit trail; this table is rebuildable from them.
 */
/** An event type's audit action name (the event registry's, SPEC 4.14). */
export type ActionOf = (eventType: string) => string;

function auditRow(
  event: RecordedEvent,
  target: { type: string; id: string },
  tenant: string | null,
  actionOf: ActionOf,
) {
  const { before, after } = beforeAfter(event);
  return {
    id: event.id,
    position: event.position,
    occurred_at: event.recordedAt,
    actor: event.metadata.actor,
    action: actionOf(event.type),
    target_type: target.type,
    target_id: target.id,
    tenant_id: tenant,
    request_id: event.metadata.request_id ?? null,
    before,
    after,
  };
}

/** Earlier attributions by target (`key`): the tenant of the target's first (by position) attributed row. */
type KnownTenants = Map<string, { tenant: string; position: number }>;

const key = (type: string, id: string) => `${type}\u0000${id}`;

/** audit_log's columns in table order (migrations/0005_settings_audit.ts): the COPY line's fields. */
const COLUMNS = [
  'id',
  'position',
  'occurred_at',
  'actor',
  'action',
  'target_type',
  'target_id',
  'tenant_id',
  'request_id',
  'before',
  'after',
] as const;

const jsonField = (v: unknown) => (v === null || v === undefined ? '\\N' : copyField(JSON.stringify(v)));

/** A row as one line of COPY's text format, in COLUMNS order. */
function copyLine(row: ReturnType<typeof auditRow>, occurredAt: string): string {
  return `${copyField(row.id)}\t${row.position}\t${occurredAt}\t${copyField(row.actor)}\t${copyField(row.action)}\t${copyField(row.target_type)}\t${copyField(row.target_id)}\t${copyField(row.tenant_id)}\t${copyField(row.request_id)}\t${jsonField(row.before)}\t${jsonField(row.after)}\n`;
}

/**
 * How a batch is written: `upsert` (catch-up: a row may exist, `on conflict do nothing`); `fresh` (a bulk
 * load into the emptied table, each event once: a plain insert, no speculative insertion per row); `copy`
 * (the same, as COPY FROM STDIN, about half the server CPU per row of `fresh`: issue 14 B4).
 */
type WriteMode = 'upsert' | 'fresh' | 'copy';

/**
 * Attributes a batch's events in order (each sees what `handle` would have seen: `known` as looked up before
 * the batch, kept up to date with the batch's own rows) and writes their rows in one statement.
 */
async function insertBatch(
  kept: readonly RecordedEvent[],
  known: KnownTenants,
  trx: Transaction<Database>,
  actionOf: ActionOf,
  mode: WriteMode = 'upsert',
): Promise<void> {
  const rows = [];
  let lines = '';
  for (const e of kept) {
    const target = targetOf(e.stream);
    const tenant = tenantFromKnown(known, e, target);
    const row = auditRow(e, target, tenant, actionOf);
    // The same instant as the Date (millisecond precision either way); a string keeps JSON.stringify on its
    // fast path (a Date's toJSON call makes it the costliest field of the row).
    const occurredAt = e.recordedAt.toISOString();
    if (mode === 'copy') lines += copyLine(row, occurredAt);
    else rows.push({ ...row, occurred_at: occurredAt });
    if (tenant === null) continue;
    const held = known.get(key(target.type, target.id));
    if (!held || e.position < held.position)
      known.set(key(target.type, target.id), { tenant, position: e.position });
  }
  if (mode === 'copy') await copyFromStdin('audit_log', COLUMNS, lines).execute(trx);
  else if (mode === 'fresh')
    await sql`insert into audit_log select * from ${recordset('audit_log', rows)}`.execute(trx);
  else
    await sql`
      insert into audit_log select * from ${recordset('audit_log', rows)}
      on conflict (id) do nothing`.execute(trx);
}

/**
 * The secondary indexes of migrations/0005_settings_audit.ts, which a rebuild from empty drops and builds
 * back at its end. Keep in step with the migrations (the audit tests compare the indexes after a rebuild
 * with those the migrations made).
 */
const secondaryIndexes = droppableIndexes('audit_log', {
  audit_log_position: '(position desc)',
  audit_log_tenant: '(tenant_id, position desc)',
  audit_log_target: '(target_id, position desc)',
  audit_log_action: '(action, position desc)',
});

/** The `audit_log` read model, naming each entry's action with `actionOf` (the event registry's names). */
export function createAuditProjection(actionOf: ActionOf): Projection {
  return {
    name: 'audit_log',
    eventTypes: [],
    handlesAll: true,

    async handle(event, trx) {
      if (SKIPPED_TYPES.has(event.type)) return;
      const target = targetOf(event.stream);
      const tenant = await tenantOf((t, i) => knownTenant(trx, t, i), event, target);
      const row = auditRow(event, target, tenant, actionOf);
      await trx
        .insertInto('audit_log')
        .values({
          ...row,
          before: row.before === null ? null : JSON.stringify(row.before),
          after: row.after === null ? null : JSON.stringify(row.after),
        })
        .onConflict((oc) => oc.column('id').doNothing())
        .execute();
    },

    /**
     * One insert per batch. The earlier tenants the attribution may need are read in one query before the
     * batch (the earliest attributed row per target), then kept up to date in memory as the batch's own rows
     * are attributed in order, so each event sees what `handle` would have seen.
     */
    async handleBatch(events, trx) {
      const kept = events.filter((e) => !SKIPPED_TYPES.has(e.type));
      if (kept.length === 0) return;
      const wanted = new Map<string, { type: string; id: string }>();
      // A stream that starts in this batch (version 1) has no earlier rows: its target needs no lookup.
      const started = new Set<string>();
      for (const e of kept) {
        if (e.version === 1) started.add(e.stream);
        if (stringField(e.data, 'tenant_id')) continue;
        const target = targetOf(e.stream);
        if (target.type === 'tenant') continue;
        if (!started.has(e.stream)) wanted.set(key(target.type, target.id), target);
        const userId = stringField(e.data, 'user_id');
        if (userId) wanted.set(key('user', userId), { type: 'user', id: userId });
      }
      const known: KnownTenants = new Map();
      if (wanted.size > 0) {
        const targets = [...wanted.values()];
        const { rows } = await sql<{
          target_type: string;
          target_id: string;
          tenant_id: string;
          position: string;
        }>`
        select w.type as target_type, w.id as target_id, a.tenant_id, a.position
        from unnest(${targets.map((t) => t.type)}::text[], ${targets.map((t) => t.id)}::text[]) as w(type, id)
        cross join lateral (
          select tenant_id, position from audit_log
          where target_id = w.id and target_type = w.type and tenant_id is not null
          order by position limit 1) a`.execute(trx);
        for (const r of rows) {
          known.set(key(r.target_type, r.target_id), { tenant: r.tenant_id, position: Number(r.position) });
        }
      }
      await insertBatch(kept, known, trx, actionOf);
    },

    async reset(trx) {
      await sql`truncate audit_log`.execute(trx);
    },

    /**
     * A rebuild from empty (`rebuildAll`) writes without the four secondary indexes and builds them once at
     * the end. The earlier tenants the attribution needs are then all in memory, the loader having written
     * every row since the empty table: no lookup (which would need `audit_log_target`).
     */
    bulkLoad: {
      async begin(trx, options) {
        await secondaryIndexes.drop(trx);
        const known: KnownTenants = new Map();
        const mode: WriteMode = options?.copyFromStdin ? 'copy' : 'fresh';
        return {
          async handleBatch(events, trx) {
            const kept = events.filter((e) => !SKIPPED_TYPES.has(e.type));
            if (kept.length > 0) await insertBatch(kept, known, trx, actionOf, mode);
          },
        };
      },
      async restore(trx) {
        await secondaryIndexes.restore(trx);
      },
    },
  };
}
