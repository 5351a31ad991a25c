/**
 * The floor of a whole request on this design (issue 14, "Done when": what remains and why it cannot go
 * lower): one Node process, `node:http`, a `pg` Pool sending named prepared statements, one ioredis client,
 * loopback sockets. It answers three routes doing only the work SPEC requires of every such request, with
 * the gateway's own SQL and Lua where there is one (imported from src/), and nothing else:
 *
 *   POST /v1/pix                create: key lookup, rate-limit admit, transaction 1 (the claim, the charge's
 *                               stream and Reserved event, its read models), transaction 2 (the Issued event
 *                               and the read models' update), a 201 answer of the real answer's shape.
 *   POST /floor/replay          replay: key lookup, rate-limit admit, the stored record read, a 200 answer.
 *   GET  /v1/transactions       list (limit=100 only): key lookup, rate-limit admit, the page's SQL,
 *                               JSON.stringify of the rows, a 200 answer.
 *
 * Why each step is indispensable:
 *   - Key lookup on every request (SPEC 5.1, 5.5): a revoked key or a suspended tenant or ancestor is
 *     refused on the very next request, so no credential is cached; the gateway's own statement
 *     (KEY_BY_DIGEST_SQL) over the key's SHA-256.
 *   - Rate-limit admit on every request (SPEC 8, shared across processes): one EVALSHA of the gateway's
 *     ADMIT_LUA (the actor's bucket counted; a valid key never reads its address's failures, issue 23 2.2).
 *   - Creation (SPEC 3.1): the reservation is durable before the provider is called and the outcome is a
 *     second write: two commits, with the rows and statements of bench/pgbench-create-floor.sql (ids fresh
 *     per request; the request hash of the body computed as the claim must store it). The provider is the
 *     in-process simulator: no call.
 *   - Replay (SPEC 4 common rules, 5): the claim (which body, which charge) never changes, so it is read
 *     once per key and kept, as the gateway keeps it; the charge's record can change, so its stream is read
 *     on every replay (the gateway's READ_STREAM_SQL) and the body compared with the claim's request hash.
 *   - List (SPEC 4.3): the route's own `listQuery` text for limit=100, newest first, the key's tenant and mode.
 *
 * Deliberately left out, so this is a floor and not a competitor: body validation and error envelopes
 * (a malformed request gets a bare 4xx), the views (the list writes the rows as pg returns them; create and
 * replay write plain objects), idempotency conflicts beyond the hash comparison, logging, metrics, request
 * ids, CORS and security headers, async projections, graceful shutdown. Run by bench/http-server.ts
 * (`floorProcess`) with DATABASE_URL, DATABASE_POOL_SIZE, REDIS_URL, REDIS_KEY_PREFIX, PORT (FLOOR_IDLE_MS).
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { Redis } from 'ioredis';
import pg from 'pg';
import { idempotencyStream, requestHash } from '../src/commands/idempotency.ts';
import { listQuery } from '../src/commands/transactions/list/list-query.ts';
import { transactionView } from '../src/contract/transactions.ts';
import { livemodeOfKey, sha256Hex } from '../src/crypto/secrets.ts';
import { READ_STREAM_SQL } from '../src/events/postgres-event-store.ts';
import { KEY_BY_DIGEST_SQL } from '../src/http/api-key-auth.ts';
import { ADMIT_LUA, LIMITS } from '../src/http/rate-limit.ts';

const env = process.env;
const pool = new pg.Pool({
  connectionString: env.DATABASE_URL,
  max: Number(env.DATABASE_POOL_SIZE ?? 32),
  // The create benchmark runs pgbench with as many connections between the floor's runs: FLOOR_IDLE_MS
  // lets the floor hand its connections back meanwhile (its runs then count their connection set-up).
  idleTimeoutMillis: Number(env.FLOOR_IDLE_MS ?? 10_000),
  application_name: 'calebe-floor',
});
const redis = new Redis(env.REDIS_URL ?? 'redis://127.0.0.1:6379', { connectionName: 'calebe-floor' });
redis.defineCommand('admit', { numberOfKeys: 1, lua: ADMIT_LUA });
const admitScript = redis as unknown as { admit(apiKey: string, seconds: number): Promise<number> };
const prefix = env.REDIS_KEY_PREFIX ?? 'calebe:floor';
const apiPerMinute = Number(env.RATE_LIMIT_PER_MINUTE ?? LIMITS.api.points);

/** One named prepared statement per text (parsed and planned once per connection, as the gateway does). */
const names = new Map<string, string>();
function run<R extends pg.QueryResultRow>(
  client: pg.Pool | pg.PoolClient,
  text: string,
  values: unknown[],
): Promise<pg.QueryResult<R>> {
  let name = names.get(text);
  if (name === undefined) {
    name = `floor_${names.size + 1}`;
    names.set(text, name);
  }
  return client.query<R>({ name, text, values });
}

class Refused extends Error {
  constructor(readonly status: number) {
    super(String(status));
  }
}

interface Principal {
  keyId: string;
  tenantId: string;
  livemode: boolean;
}

/** Key lookup (the gateway's statement) and rate-limit admit (the gateway's script): every request. */
async function authenticate(req: IncomingMessage, scope: string): Promise<Principal> {
  const key = req.headers['x-api-key'];
  if (typeof key !== 'string') throw new Refused(401);
  const livemode = livemodeOfKey(key);
  const { rows } = await run<{
    id: string;
    tenant_id: string;
    livemode: boolean;
    scopes: string[];
    revoked_at: Date | null;
    suspended: boolean;
  }>(pool, KEY_BY_DIGEST_SQL, [sha256Hex(key)]);
  const row = rows[0];
  if (!row || row.revoked_at !== null || row.livemode !== livemode) throw new Refused(401);
  if (row.suspended) throw new Refused(403);
  if (!row.scopes.includes(scope)) throw new Refused(403);
  const count = await admitScript.admit(`${prefix}:api:api_key:${row.id}`, LIMITS.api.duration);
  if (count > apiPerMinute) throw new Refused(429);
  return { keyId: row.id, tenantId: row.tenant_id, livemode: row.livemode };
}

async function bodyOf(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function write(res: ServerResponse, status: number, body: string, replayed = false): void {
  const headers: Record<string, string | number> = {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(body),
  };
  if (replayed) headers['idempotency-replayed'] = 'true';
  res.writeHead(status, headers);
  res.end(body);
}

// The statements of bench/pgbench-create-floor.sql, with parameters.
const INSERT_STREAM = 'insert into streams (stream_id, version) values ($1, 1) on conflict do nothing';
const INSERT_EVENT = `insert into events (stream_id, version, event_id, type, schema_version, data, metadata)
  values ($1, $2, gen_random_uuid(), $3, 1, $4::jsonb, $5::jsonb)`;
const INSERT_TRANSACTION = `insert into transactions (id, tenant_id, livemode, method, status, amount, currency,
    reference, description, simulated, environment, sequence, created_at, updated_at)
  values ($1, $2, $3, 'pix', 'processing', $4, 'BRL', $5, $6, true, 'sandbox', 1, now(), now())
  on conflict (id) do nothing`;
const INSERT_REQUEST = `insert into transaction_requests (transaction_id, tenant_id, livemode, source, request,
    provider_request, missing_fields, created_at)
  values ($1, $2, $3, 'captured', $4::jsonb, null, '{}', now()) on conflict do nothing`;
const INSERT_CHARGE_STATE = `insert into webhook_charge_states (transaction_id, tenant_id, livemode, callback_url,
    status, sequence) values ($1, $2, $3, null, 'processing', 1) on conflict do nothing`;
const ADVANCE_STREAM = 'update streams set version = version + 1 where stream_id = $1 and version = 1';
const UPDATE_TRANSACTION = `update transactions set status = 'pending', provider_reference = $2,
    pix_copy_paste = $3, pix_qr_code = $3, expires_at = $4, sequence = 2, updated_at = now()
  where id = $1 and sequence < 2`;
const UPDATE_CHARGE_STATE =
  "update webhook_charge_states set status = 'pending', sequence = 2 where transaction_id = $1 and sequence < 2";

interface PixRequest {
  amount: number;
  reference?: string;
  description?: string;
  expires_in?: number;
  customer: Record<string, unknown>;
}

/** The request as the claim hashes and stores it (the gateway's requestSnapshot, without its checks). */
function snapshotOf(body: PixRequest, tenantId: string) {
  return {
    amount: body.amount,
    method: 'pix',
    customer: body.customer,
    reference: body.reference,
    tenant_id: tenantId,
    expires_in: body.expires_in || 3600,
    description: body.description,
  };
}

async function create(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const p = await authenticate(req, 'pix:write');
  const key = req.headers['idempotency-key'];
  if (typeof key !== 'string') throw new Refused(400);
  const body = JSON.parse(await bodyOf(req)) as PixRequest;
  const request = snapshotOf(body, p.tenantId);
  const hash = requestHash('POST', '/v1/pix', request);
  const id = `txn_flr_${randomBytes(10).toString('hex')}`;
  const stream = `transaction-${id}`;
  const reservedAt = new Date();
  const expiresAt = new Date(reservedAt.getTime() + 3_600_000);
  const common = {
    amount: body.amount,
    boleto: null,
    method: 'pix',
    request,
    livemode: p.livemode,
    reference: body.reference,
    simulated: true,
    description: body.description,
    environment: 'sandbox',
  };
  const metadata = JSON.stringify({
    actor: `api_key:${p.keyId}`,
    livemode: p.livemode,
    tenant_id: p.tenantId,
    request_id: `req_${randomBytes(8).toString('hex')}`,
  });
  const claim = JSON.stringify({
    route: '/v1/pix',
    scope: p.tenantId,
    method: 'POST',
    payload: {
      reserve: {
        kind: 'reserve',
        ...common,
        tenantId: p.tenantId,
        expiresIn: 3600,
        providerId: null,
        callbackUrl: null,
        costCenterId: null,
        subaccountId: null,
        transactionId: id,
        providerRequest: null,
        idempotencyKeySha256: sha256Hex(key),
      },
    },
    livemode: p.livemode,
    resource_id: id,
    request_hash: hash,
  });
  const reserved = JSON.stringify({
    ...common,
    currency: 'BRL',
    tenant_id: p.tenantId,
    expires_in: 3600,
    provider_id: null,
    reserved_at: reservedAt.toISOString(),
    callback_url: null,
    subaccount_id: null,
    cost_center_id: null,
    transaction_id: id,
    provider_request: null,
    idempotency_key_sha256: sha256Hex(key),
  });
  const copyPaste = `SIMULADOR-TESTE-NAO-PAGAVEL:${id}`;
  const issued = JSON.stringify({
    source: 'creation',
    boleto_url: null,
    expires_at: expiresAt.toISOString(),
    pix_qr_code: copyPaste,
    boleto_barcode: null,
    pix_copy_paste: copyPaste,
    transaction_id: id,
    provider_reference: `sim_${id}`,
    boleto_digitable_line: null,
    boleto_pix_copy_paste: null,
    boleto_pix_expires_at: null,
  });
  const claimStream = idempotencyStream(p.tenantId, key, p.livemode);
  const client = await pool.connect();
  try {
    // Transaction 1 (SPEC 3.1): the reservation, durable before the provider is called.
    await client.query('begin');
    await run(client, INSERT_STREAM, [claimStream]);
    await run(client, INSERT_EVENT, [claimStream, 1, 'Idempotency.Claimed', claim, metadata]);
    await run(client, INSERT_STREAM, [stream]);
    await run(client, INSERT_EVENT, [stream, 1, 'Transaction.Reserved', reserved, metadata]);
    await run(client, INSERT_TRANSACTION, [
      id,
      p.tenantId,
      p.livemode,
      body.amount,
      body.reference,
      body.description,
    ]);
    await run(client, INSERT_REQUEST, [id, p.tenantId, p.livemode, JSON.stringify(request)]);
    await run(client, INSERT_CHARGE_STATE, [id, p.tenantId, p.livemode]);
    await client.query('commit');
    // Transaction 2: the outcome (the simulator's answer, in process).
    await client.query('begin');
    await run(client, ADVANCE_STREAM, [stream]);
    await run(client, INSERT_EVENT, [stream, 2, 'Transaction.Issued', issued, metadata]);
    await run(client, UPDATE_TRANSACTION, [id, `sim_${id}`, copyPaste, expiresAt]);
    await run(client, UPDATE_CHARGE_STATE, [id]);
    await client.query('commit');
  } catch (error) {
    await client.query('rollback').catch(() => {});
    throw error;
  } finally {
    client.release();
  }
  // The SPEC 2.2 fields of the real answer (same keys in the same order, same size within a few bytes),
  // without the view: what a pending simulated Pix sets, every other field null.
  write(
    res,
    201,
    JSON.stringify({
      data: {
        ...NULL_VIEW,
        id,
        tenant_id: p.tenantId,
        amount: body.amount,
        retained_amount: 0,
        currency: 'BRL',
        status: 'pending',
        method: 'pix',
        reference: body.reference,
        description: body.description,
        simulated: true,
        environment: 'sandbox',
        livemode: p.livemode,
        pix_copy_paste: copyPaste,
        pix_qr_code: copyPaste,
        expires_at: expiresAt.toISOString(),
        provider_reference: `sim_${id}`,
        document_url: `${env.BASE_URL ?? 'http://localhost:3000'}/c/${id}?signature=${sha256Hex(id).slice(0, 43)}`,
        created_at: reservedAt.toISOString(),
        updated_at: new Date().toISOString(),
      },
    }),
  );
}

/** Every SPEC 2.2 field null, in the view's order (the creation answer's template). */
const NULL_VIEW: Record<string, null> = Object.fromEntries(
  Object.keys(transactionView.shape).map((field) => [field, null]),
);

/** Claims read by this process (immutable once in the log): stream id -> charge id and request hash. */
const claims = new Map<string, { id: string; hash: string }>();

async function replay(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const p = await authenticate(req, 'pix:write');
  const key = req.headers['idempotency-key'];
  if (typeof key !== 'string') throw new Refused(400);
  const body = JSON.parse(await bodyOf(req)) as PixRequest;
  const hash = requestHash('POST', '/v1/pix', snapshotOf(body, p.tenantId));
  const claimStream = idempotencyStream(p.tenantId, key, p.livemode);
  let claim = claims.get(claimStream);
  if (!claim) {
    const { rows } = await run<{ data: { resource_id: string; request_hash: string } }>(
      pool,
      READ_STREAM_SQL,
      [claimStream, 1],
    );
    const data = rows[0]?.data;
    if (!data) throw new Refused(404);
    claim = { id: data.resource_id, hash: data.request_hash };
    claims.set(claimStream, claim);
  }
  if (claim.hash !== hash) throw new Refused(409);
  const { rows } = await run<{ type: string; data: Record<string, unknown>; recorded_at: Date }>(
    pool,
    READ_STREAM_SQL,
    [`transaction-${claim.id}`, 1],
  );
  if (rows.length === 0) throw new Refused(404);
  // The record as stored, without the gateway's fold and view.
  const data: Record<string, unknown> = { id: claim.id };
  for (const r of rows) Object.assign(data, r.data);
  data.updated_at = rows[rows.length - 1]?.recorded_at;
  write(res, 200, JSON.stringify({ data }), true);
}

/** The list route's own text for limit=100 and no filter; its parameters are [livemode, tenant, 100, 0]. */
const listStatement = listQuery({ root: 'ten_x', subtree: false, livemode: true }, { limit: 100, offset: 0 });
if (JSON.stringify(listStatement.parameters) !== JSON.stringify([true, 'ten_x', 100, 0]))
  throw new Error(`the list query's parameters changed: ${JSON.stringify(listStatement.parameters)}`);
const LIST_SQL = listStatement.sql;

async function list(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const p = await authenticate(req, 'transactions:read');
  const { rows } = await run(pool, LIST_SQL, [p.livemode, p.tenantId, 100, 0]);
  write(res, 200, JSON.stringify({ data: rows, meta: { limit: 100, offset: 0, count: rows.length } }));
}

const server = createServer((req, res) => {
  const path = req.url ?? '/';
  const route =
    req.method === 'POST' && path === '/v1/pix'
      ? create
      : req.method === 'POST' && path === '/floor/replay'
        ? replay
        : req.method === 'GET' && path.startsWith('/v1/transactions')
          ? list
          : undefined;
  if (!route) {
    // Readiness probe of the harness (and anything else): no work.
    write(res, path === '/health' ? 200 : 404, '{}');
    return;
  }
  route(req, res).catch((error: unknown) => {
    if (error instanceof Refused) write(res, error.status, '{}');
    // The load generator closing its connections at the end of a run, requests in flight.
    else if ((error as { code?: string }).code === 'ECONNRESET') res.destroy();
    else {
      console.error(error);
      write(res, 500, '{}');
    }
  });
});
server.keepAliveTimeout = 60_000;
server.listen(Number(env.PORT ?? 0), '127.0.0.1');

process.once('SIGTERM', () => {
  server.close();
  server.closeAllConnections();
  redis.disconnect();
  void pool.end().finally(() => process.exit(0));
});
