import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, test } from 'vitest';
import { auditProjection } from '../../src/commands/index.ts';
import {
  ADMIN_EMAIL,
  ADMIN_PASSWORD,
  adminClient,
  assertError,
  bearer,
  idem,
  logIn,
  startAdminApp,
} from '../support/admin.ts';
import { seedTenantAndKey } from '../support/fixtures.ts';
import type { TestApp } from '../support/http.ts';

/**
 * Internal panel notifications (issue 28 item 5; SPEC 2.7, 5.7 rows "Read logs/notifications", "Create
 * internal notification", "Mark notification read", 7 errors; docs/decisions.md "Panel notifications, logs
 * and the roles table"). The tree: `root` with its child `child`, and an unrelated `other`.
 */

type Who = 'super_admin' | 'rootAdmin' | 'rootViewer' | 'childViewer' | 'otherAdmin';

let app: TestApp;
const tokens = {} as Record<Who, Record<string, string>>;
const users = {} as Record<Who, string>;
let root: string;
let child: string;
let other: string;
let apiKey: string;

const body = (over: Record<string, unknown> = {}) => ({
  title: 'Manutenção programada',
  body: 'O painel ficará indisponível no domingo,\ndas 2h às 3h.',
  severity: 'warning',
  tenant_id: null,
  ...over,
});

function create(who: Who, json: unknown, key: string = randomUUID()) {
  return app.request('POST', '/admin/notifications', { headers: { ...tokens[who], ...idem(key) }, json });
}

async function published(tenantId: string | null, title = `n ${randomUUID()}`): Promise<string> {
  const res = await create('super_admin', body({ tenant_id: tenantId, title }));
  assert.equal(res.status, 201, res.text);
  return res.body.data.id;
}

async function list(who: Who, query = '?limit=100') {
  // Lists read the inline read model; under TEST_PROJECTIONS=async it trails the log by a moment.
  await app.settle();
  return app.request('GET', `/admin/notifications${query}`, { headers: tokens[who] });
}

async function listedIds(who: Who, query = '?limit=100'): Promise<string[]> {
  const res = await list(who, query);
  assert.equal(res.status, 200, res.text);
  return res.body.data.map((n: { id: string }) => n.id);
}

const markRead = (who: Who | 'none', id: string, headers?: Record<string, string>) =>
  app.request('POST', `/admin/notifications/${id}/read`, {
    headers: headers ?? (who === 'none' ? {} : tokens[who]),
  });

async function notificationEvents(): Promise<number> {
  const { rows } = await sql<{ n: string }>`
    select count(*) as n from events where type like 'Notification.%'`.execute(app.db.db);
  return Number(rows[0]?.n);
}

beforeAll(async () => {
  app = await startAdminApp({ RATE_LIMIT_PER_MINUTE: '100000' });
  const superToken = await logIn(app, ADMIN_EMAIL, ADMIN_PASSWORD);
  tokens.super_admin = bearer(superToken);
  const admin = adminClient(app, superToken);
  const type = await admin.type();
  root = await admin.tenant(type);
  child = await admin.tenant(type, root);
  other = await admin.tenant(type);
  const made: [Who, string, string][] = [
    ['rootAdmin', 'tenant_admin', root],
    ['rootViewer', 'viewer', root],
    ['childViewer', 'viewer', child],
    ['otherAdmin', 'tenant_admin', other],
  ];
  for (const [who, role, tenant] of made) {
    const u = await admin.user(role, tenant);
    users[who] = u.id;
    tokens[who] = bearer(await logIn(app, u.email));
  }
  const me = await app.db.db
    .selectFrom('users')
    .select('id')
    .where('email', '=', ADMIN_EMAIL)
    .executeTakeFirstOrThrow();
  users.super_admin = me.id;
  apiKey = (await seedTenantAndKey(app.gateway.ctx)).key;
});
afterAll(() => app.close());

describe('POST /admin/notifications (SPEC 5.7 "Create internal notification": super_admin only)', () => {
  test('SPEC 5.7: a super_admin publishes one; 201 with the fields, unread for everyone', async () => {
    const res = await create('super_admin', body({ tenant_id: root, severity: 'critical' }));
    assert.equal(res.status, 201, res.text);
    const n = res.body.data;
    assert.match(n.id, /^ntf_/);
    assert.equal(n.tenant_id, root);
    assert.equal(n.title, 'Manutenção programada');
    assert.equal(n.body, 'O painel ficará indisponível no domingo,\ndas 2h às 3h.');
    assert.equal(n.severity, 'critical');
    assert.equal(n.created_by, users.super_admin);
    assert.ok(!Number.isNaN(Date.parse(n.created_at)));
    assert.equal(n.read, false);
    assert.equal(n.read_at, null);
  });

  test('SPEC 4 common rules: the same Idempotency-Key and body replays (200, Idempotency-Replayed); another body is 409 idempotency_conflict', async () => {
    const key = randomUUID();
    const first = await create('super_admin', body({ title: '  Aviso  ' }), key);
    assert.equal(first.status, 201, first.text);
    assert.equal(first.body.data.title, 'Aviso', 'stored trimmed');
    const before = await notificationEvents();
    const again = await create('super_admin', body({ title: '  Aviso  ' }), key);
    assert.equal(again.status, 200, again.text);
    assert.equal(again.headers.get('idempotency-replayed'), 'true');
    assert.deepEqual(again.body.data, first.body.data);
    assertError(await create('super_admin', body({ title: 'Outro' }), key), 409, 'idempotency_conflict');
    assert.equal(await notificationEvents(), before, 'no event appended');
  });

  test('SPEC 5.7, 7: tenant_admin and viewer get 403 forbidden; no session and an API key 401; nothing appended', async () => {
    const before = await notificationEvents();
    for (const who of ['rootAdmin', 'rootViewer', 'childViewer'] as const) {
      assertError(await create(who, body({ tenant_id: root })), 403, 'forbidden');
    }
    const post = (headers: Record<string, string>) =>
      app.request('POST', '/admin/notifications', { headers: { ...headers, ...idem() }, json: body() });
    assertError(await post({}), 401, 'unauthorized');
    assertError(await post({ 'x-api-key': apiKey }), 401, 'unauthorized');
    assertError(await post(bearer(apiKey)), 401, 'unauthorized');
    assert.equal(await notificationEvents(), before);
  });

  test('SPEC 7: invalid bodies are 422 validation_error (400 invalid_json for unknown fields), an unknown tenant 404; no event appended', async () => {
    const before = await notificationEvents();
    const invalid: Record<string, unknown>[] = [
      { ...body(), title: undefined },
      body({ title: '   ' }),
      body({ title: 'x'.repeat(121) }),
      body({ title: 'ç'.repeat(61) }), // 122 bytes of UTF-8
      body({ title: 'tab\there' }),
      body({ body: '' }),
      body({ body: 'x'.repeat(4001) }),
      body({ body: 'bell \u0007' }),
      body({ severity: 'urgent' }),
      body({ severity: null }),
      { ...body(), tenant_id: undefined },
    ];
    for (const json of invalid) {
      const res = await create('super_admin', json);
      assertError(res, 422, 'validation_error');
    }
    // SPEC 7: unknown fields and incompatible types are 400 invalid_json.
    assertError(await create('super_admin', { ...body(), url: 'https://x' }), 400, 'invalid_json');
    assertError(await create('super_admin', body({ tenant_id: 42 })), 400, 'invalid_json');
    assertError(await create('super_admin', body({ tenant_id: 'ten_missing' })), 404, 'not_found');
    assertError(
      await app.request('POST', '/admin/notifications', { headers: tokens.super_admin, json: body() }),
      400,
      'idempotency_key_required',
    );
    assert.equal(await notificationEvents(), before);
  });

  test('docs/decisions.md: limits are bytes — a 120-byte title and a 4000-byte body are accepted', async () => {
    const res = await create('super_admin', body({ title: 'ç'.repeat(60), body: 'y'.repeat(4000) }));
    assert.equal(res.status, 201, res.text);
  });
});

describe('GET /admin/notifications (SPEC 5.7 "Read notifications": super_admin global, others own tree)', () => {
  let global: string;
  let toRoot: string;
  let toChild: string;
  let toOther: string;

  beforeAll(async () => {
    global = await published(null);
    toRoot = await published(root);
    toChild = await published(child);
    toOther = await published(other);
  });

  test('SPEC 5.7: super_admin sees every notification, newest first', async () => {
    const ids = await listedIds('super_admin');
    assert.deepEqual(
      ids.filter((id) => [global, toRoot, toChild, toOther].includes(id)),
      [toOther, toChild, toRoot, global],
    );
  });

  test('SPEC 5.7: a tenant_admin and a viewer see the platform-wide ones and those of their tenant and its descendants', async () => {
    for (const who of ['rootAdmin', 'rootViewer'] as const) {
      const ids = await listedIds(who);
      assert.ok(ids.includes(global) && ids.includes(toRoot) && ids.includes(toChild), who);
      assert.ok(!ids.includes(toOther), who);
    }
    const childIds = await listedIds('childViewer');
    assert.ok(childIds.includes(global) && childIds.includes(toChild));
    assert.ok(!childIds.includes(toRoot), "an ancestor's notification is outside a child's tree");
    assert.ok(!childIds.includes(toOther));
    const otherIds = await listedIds('otherAdmin');
    assert.ok(otherIds.includes(global) && otherIds.includes(toOther));
    assert.ok(!otherIds.includes(toRoot) && !otherIds.includes(toChild));
  });

  test('SPEC 4.3, 5.7, 7: tenant_id filters inside the tree (platform-wide excluded); outside it is 404 not_found', async () => {
    assert.deepEqual(await listedIds('rootAdmin', `?tenant_id=${child}`), [toChild]);
    assert.ok((await listedIds('super_admin', `?tenant_id=${other}`)).includes(toOther));
    assertError(await list('rootAdmin', `?tenant_id=${other}`), 404, 'not_found');
    assertError(await list('childViewer', `?tenant_id=${root}`), 404, 'not_found');
    assertError(await list('rootAdmin', '?tenant_id=ten_missing'), 404, 'not_found');
  });

  test('SPEC 2.1, 4.3: limit and offset page newest first; invalid query is 422; no session and API keys 401', async () => {
    const all = await listedIds('super_admin');
    const page = await list('super_admin', '?limit=2&offset=1');
    assert.deepEqual(page.body.meta, { limit: 2, offset: 1, count: 2 });
    assert.deepEqual(
      page.body.data.map((n: { id: string }) => n.id),
      all.slice(1, 3),
    );
    assert.equal((await list('super_admin', '?limit=500')).body.meta.limit, 100);
    assertError(await list('super_admin', '?offset=-1'), 422, 'validation_error');
    assertError(await list('super_admin', '?unread=maybe'), 422, 'validation_error');
    assertError(await list('super_admin', '?colour=red'), 422, 'validation_error');
    assertError(await app.request('GET', '/admin/notifications'), 401, 'unauthorized');
    assertError(
      await app.request('GET', '/admin/notifications', { headers: { 'x-api-key': apiKey } }),
      401,
      'unauthorized',
    );
  });
});

describe('POST /admin/notifications/{id}/read (SPEC 5.7 "Mark notification read": super_admin any, others own scope)', () => {
  test("SPEC 5.7: the receipt is the caller's own; repeating is a no-op that keeps the first read_at", async () => {
    const id = await published(child);
    const first = await markRead('childViewer', id);
    assert.equal(first.status, 200, first.text);
    assert.equal(first.body.data.id, id);
    assert.equal(first.body.data.read, true);
    assert.ok(!Number.isNaN(Date.parse(first.body.data.read_at)));
    const before = await notificationEvents();
    const again = await markRead('childViewer', id);
    assert.equal(again.status, 200, again.text);
    assert.deepEqual(again.body.data, first.body.data);
    assert.equal(await notificationEvents(), before, 'no second receipt');

    // Per user: the parent's admin still has it unread.
    assert.ok((await listedIds('childViewer', '?unread=true')).every((n) => n !== id));
    assert.ok((await listedIds('childViewer', '?unread=false')).includes(id));
    assert.ok((await listedIds('rootAdmin', '?unread=true')).includes(id));
    const seen = (await list('rootAdmin')).body.data.find((n: { id: string }) => n.id === id);
    assert.equal(seen.read, false);
    assert.equal(seen.read_at, null);
    const mine = (await list('childViewer')).body.data.find((n: { id: string }) => n.id === id);
    assert.equal(mine.read_at, first.body.data.read_at);
  });

  test('SPEC 5.7: a tenant_admin and a viewer mark platform-wide ones and those of their tree; others are 404', async () => {
    const global = await published(null);
    const toRoot = await published(root);
    const toOther = await published(other);
    for (const who of ['rootAdmin', 'rootViewer', 'childViewer', 'otherAdmin'] as const) {
      assert.equal((await markRead(who, global)).status, 200, who);
    }
    assert.equal((await markRead('rootViewer', toRoot)).status, 200);
    const before = await notificationEvents();
    assertError(await markRead('childViewer', toRoot), 404, 'not_found');
    assertError(await markRead('otherAdmin', toRoot), 404, 'not_found');
    assertError(await markRead('rootAdmin', toOther), 404, 'not_found');
    assertError(await markRead('rootAdmin', 'ntf_missing'), 404, 'not_found');
    assertError(await markRead('rootAdmin', 'cc_not_a_notification'), 404, 'not_found');
    assert.equal(await notificationEvents(), before, 'refused receipts append nothing');
  });

  test('SPEC 5.7: a super_admin marks any notification; a missing one is 404', async () => {
    const toOther = await published(other);
    const res = await markRead('super_admin', toOther);
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.data.read, true);
    assertError(await markRead('super_admin', 'ntf_missing'), 404, 'not_found');
  });

  test('SPEC 5.1, 5.6: no session and an API key are 401 unauthorized', async () => {
    const id = await published(null);
    assertError(await markRead('none', id), 401, 'unauthorized');
    assertError(await markRead('none', id, { 'x-api-key': apiKey }), 401, 'unauthorized');
  });
});

describe('SPEC 6 "internal audit records", 5.7 "Read logs": notifications are audited', () => {
  test("creation and receipts appear in GET /admin/audit, in the tree of the notification's tenant", async () => {
    const id = await published(child, 'Auditada');
    assert.equal((await markRead('childViewer', id)).status, 200);
    await app.settle();
    await app.gateway.runner.catchUp(auditProjection);
    const entries = async (who: Who) => {
      const res = await app.request('GET', `/admin/audit?target_id=${id}&limit=100`, {
        headers: tokens[who],
      });
      assert.equal(res.status, 200, res.text);
      return res.body.data.map((e: { action: string }) => e.action).sort();
    };
    assert.deepEqual(await entries('super_admin'), ['notification.created', 'notification.read']);
    assert.deepEqual(await entries('rootAdmin'), ['notification.created', 'notification.read']);
    assert.deepEqual(await entries('otherAdmin'), []);
  });
});
