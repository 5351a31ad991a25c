import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, test } from 'vitest';
import { claimIdempotencyKey } from '../../src/commands/idempotency.ts';
import { auditProjection } from '../../src/commands/index.ts';
import { disableGoneWebhookEndpoint } from '../../src/commands/webhook-endpoints/disable-gone/handler.ts';
import { endpointSigningSecrets } from '../../src/commands/webhook-endpoints/secrets.ts';
import { newId } from '../../src/ids.ts';
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
import { commandDeps } from '../support/fixtures.ts';
import type { TestApp } from '../support/http.ts';

const KEY = randomBytes(32).toString('base64');
/** The secrets are sealed with the provider-credentials key, required with DATABASE_URL. */
const env = { CREDENTIALS_ENCRYPTION_KEY: KEY };
const ROUTE = '/admin/webhook-endpoints';
const DAY_MS = 24 * 60 * 60 * 1000;

async function eventCount(app: TestApp): Promise<number> {
  const row = await app.gateway.ctx.db
    .selectFrom('events')
    .select((eb) => eb.fn.countAll().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

describe('panel webhook endpoints over HTTP (SPEC 5.7, 6, 7; docs/decisions.md "Webhooks")', () => {
  let app: TestApp;
  const tokens = { super_admin: {}, tenant_admin: {}, viewer: {} } as Record<
    'super_admin' | 'tenant_admin' | 'viewer',
    Record<string, string>
  >;
  /** The tenant_admin's and viewer's tree: root with a child; `other` is a separate tree. */
  let root: string;
  let child: string;
  let other: string;
  let tenantAdminId: string;

  beforeAll(async () => {
    app = await startAdminApp(env);
    const superToken = await logIn(app, ADMIN_EMAIL, ADMIN_PASSWORD);
    tokens.super_admin = bearer(superToken);
    const admin = adminClient(app, superToken);
    const type = await admin.type();
    root = await admin.tenant(type);
    child = await admin.tenant(type, root);
    other = await admin.tenant(type);
    for (const role of ['tenant_admin', 'viewer'] as const) {
      const user = await admin.user(role, root);
      if (role === 'tenant_admin') tenantAdminId = user.id;
      tokens[role] = bearer(await logIn(app, user.email));
    }
  });
  afterAll(() => app.close());

  const body = (tenantId: string, extra: Record<string, unknown> = {}) => ({
    tenant_id: tenantId,
    url: `https://hooks.example.com/${randomUUID()}`,
    mode: 'test',
    ...extra,
  });

  function create(headers: Record<string, string>, json: unknown, key: string | null = randomUUID()) {
    return app.request('POST', ROUTE, { headers: { ...headers, ...(key === null ? {} : idem(key)) }, json });
  }

  async function created(tenantId: string, extra: Record<string, unknown> = {}): Promise<string> {
    const res = await create(tokens.super_admin, body(tenantId, extra));
    assert.equal(res.status, 201, res.text);
    return res.body.data.id;
  }

  /** Runs `fn` and asserts it appended no event. */
  async function appendsNothing(fn: () => Promise<void>): Promise<void> {
    const before = await eventCount(app);
    await fn();
    assert.equal(await eventCount(app), before, 'a refused request appends no event');
  }

  test('SPEC 6: registration answers the endpoint and its secret once; reads never show it', async () => {
    const json = body(root, { mode: 'live' });
    const res = await create(tokens.super_admin, json);
    assert.equal(res.status, 201, res.text);
    const d = res.body.data;
    assert.match(d.id, /^whe_/);
    assert.match(d.secret, /^whsec_[A-Za-z0-9+/]{32}$/);
    assert.deepEqual(
      { tenant_id: d.tenant_id, url: d.url, mode: d.mode, enabled: d.enabled, reason: d.disabled_reason },
      { tenant_id: root, url: json.url, mode: 'live', enabled: true, reason: null },
    );
    assert.equal(d.previous_secret_expires_at, null);

    const got = await app.request('GET', `${ROUTE}/${d.id}`, { headers: tokens.super_admin });
    assert.equal(got.status, 200, got.text);
    const { secret: _secret, ...view } = d;
    assert.deepEqual(got.body.data, view);
    assert.equal(got.body.data.secret, undefined);

    await app.settle();
    const list = await app.request('GET', `${ROUTE}?tenant_id=${root}&mode=live`, {
      headers: tokens.super_admin,
    });
    assert.equal(list.status, 200, list.text);
    assert.deepEqual(
      list.body.data.find((e: { id: string }) => e.id === d.id),
      view,
    );
    assert.ok(!list.text.includes(d.secret));

    const secret = await app.request('GET', `${ROUTE}/${d.id}/secret`, { headers: tokens.super_admin });
    assert.equal(secret.status, 200, secret.text);
    assert.deepEqual(secret.body.data, {
      secret: d.secret,
      previous_secret: null,
      previous_expires_at: null,
    });

    // Stored only sealed: neither the log nor the read model holds the secret.
    const events = await app.gateway.ctx.db.selectFrom('events').select(['data']).execute();
    assert.ok(!JSON.stringify(events).includes(d.secret));
    const row = await app.gateway.ctx.db
      .selectFrom('webhook_endpoints')
      .selectAll()
      .where('id', '=', d.id)
      .executeTakeFirstOrThrow();
    assert.ok(row.secret_sealed && !row.secret_sealed.includes(d.secret.slice(6)));
    assert.equal(row.enabled, true);

    // The audit projection records the registration without the secret, sealed or not.
    await app.gateway.runner.catchUp(auditProjection);
    const audited = await app.gateway.ctx.db
      .selectFrom('audit_log')
      .select(['action', 'after', 'tenant_id', 'request_id'])
      .where('target_id', '=', d.id)
      .execute();
    assert.deepEqual(
      audited.map((a) => a.action),
      ['webhook_endpoint.created'],
    );
    assert.equal(audited[0]?.tenant_id, root);
    assert.equal(audited[0]?.request_id, res.headers.get('x-request-id'));
    const text = JSON.stringify(audited);
    assert.ok(!text.includes(d.secret) && !text.includes(row.secret_sealed) && !text.includes('secret'));
  });

  test('SPEC 4: same key and body replays (200, Idempotency-Replayed, no secret); another body is 409', async () => {
    const key = randomUUID();
    const json = body(root);
    const first = await create(tokens.tenant_admin, json, key);
    assert.equal(first.status, 201, first.text);
    await appendsNothing(async () => {
      const replay = await create(tokens.tenant_admin, json, key);
      assert.equal(replay.status, 200, replay.text);
      assert.equal(replay.headers.get('idempotency-replayed'), 'true');
      assert.equal(replay.body.data.id, first.body.data.id);
      assert.equal(replay.body.data.secret, undefined);
      assertError(
        await create(tokens.tenant_admin, { ...json, mode: 'live' }, key),
        409,
        'idempotency_conflict',
      );
    });
    await app.settle();
    const list = await app.request('GET', `${ROUTE}?tenant_id=${root}&limit=100`, {
      headers: tokens.super_admin,
    });
    assert.equal(list.body.data.filter((e: { url: string }) => e.url === json.url).length, 1);
  });

  test('DESIGN.md reservation streams: a claim left without its endpoint (crash) is completed by the replay', async () => {
    const key = randomUUID();
    const json = { ...body(child), enabled: true };
    const endpointId = newId('whe');
    // The process died after claiming the key and before registering: only the claim exists.
    await claimIdempotencyKey(
      app.gateway.ctx,
      {
        scope: tenantAdminId,
        key,
        method: 'POST',
        route: ROUTE,
        body: json,
        resourceId: endpointId,
        payload: json,
      },
      { actor: `user:${tenantAdminId}`, request_id: 'req_crashed' },
    );
    const res = await create(tokens.tenant_admin, json, key);
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.data.id, endpointId);
    assert.match(res.body.data.secret, /^whsec_/, 'the secret was never shown: this is its first showing');
    const again = await create(tokens.tenant_admin, json, key);
    assert.equal(again.status, 200, again.text);
    assert.equal(again.headers.get('idempotency-replayed'), 'true');
    assert.equal(again.body.data.id, endpointId);
  });

  test('SPEC 7: 400 idempotency_key_required, 400 invalid_json, 422 validation_error; nothing appended', async () => {
    await appendsNothing(async () => {
      assertError(await create(tokens.super_admin, body(root), null), 400, 'idempotency_key_required');
      assertError(await create(tokens.super_admin, body(root), 'bad key!'), 400, 'idempotency_key_required');
      assertError(await create(tokens.super_admin, body(root, { secret: 'mine' })), 400, 'invalid_json');
      assertError(await create(tokens.super_admin, body(root, { enabled: 'yes' })), 400, 'invalid_json');
      for (const url of [
        'http://hooks.example.com/x',
        'https://127.0.0.1/',
        'https://10.0.0.1/',
        'https://169.254.169.254/latest/meta-data',
        'https://[::1]/',
        'https://localhost/',
        'https://user:pass@hooks.example.com/',
        'ftp://hooks.example.com/',
        'not a url',
        `https://hooks.example.com/${'a'.repeat(2030)}`,
      ]) {
        const res = await create(tokens.super_admin, body(root, { url }));
        assertError(res, 422, 'validation_error');
        assert.equal(res.body.error.param, 'url', url);
      }
      const mode = await create(tokens.super_admin, body(root, { mode: 'production' }));
      assertError(mode, 422, 'validation_error');
      assert.equal(mode.body.error.param, 'mode');
      const { url: _u, ...noUrl } = body(root);
      assertError(await create(tokens.super_admin, noUrl), 422, 'validation_error');
      const { mode: _m, ...noMode } = body(root);
      assertError(await create(tokens.super_admin, noMode), 422, 'validation_error');
      assertError(await create(tokens.super_admin, body('ten_missing')), 404, 'not_found');
    });
  });

  test('issue 23 item 2.9: a url is stored in its WHATWG normal form; one the parser reads otherwise than written is 422 on url', async () => {
    const misread = [
      // WHATWG: path /@127.0.0.1/ on example.com; other parsers: user `example.com\`, host 127.0.0.1.
      'https://example.com\\@127.0.0.1/',
      'https://hooks.example.com\\evil.example/',
      'https:///hooks.example.com/x',
      'https:hooks.example.com/x',
      'https://hooks.example.com:0/',
      'https://hooks.example.com:443/x',
      ' https://hooks.example.com/x',
      'https://hooks.example.com/a b',
      'https://hooks.example.com/\tx',
    ];
    const id = await created(root);
    await appendsNothing(async () => {
      for (const url of misread) {
        const res = await create(tokens.super_admin, body(root, { url }));
        assertError(res, 422, 'validation_error');
        assert.equal(res.body.error.param, 'url', url);
        const changed = await app.request('PATCH', `${ROUTE}/${id}`, {
          headers: tokens.super_admin,
          json: { url },
        });
        assertError(changed, 422, 'validation_error');
        assert.equal(changed.body.error.param, 'url', `PATCH ${url}`);
      }
    });
    // The parser's harmless rewrites (scheme and host case, `/` for an empty path) are stored rewritten.
    for (const [typed, stored] of [
      ['HTTPS://Hooks.Example.COM/Path/To?Q=1', 'https://hooks.example.com/Path/To?Q=1'],
      ['https://hooks.example.com', 'https://hooks.example.com/'],
    ]) {
      const res = await create(tokens.super_admin, body(root, { url: typed }));
      assert.equal(res.status, 201, res.text);
      assert.equal(res.body.data.url, stored);
      const read = await app.request('GET', `${ROUTE}/${res.body.data.id}`, { headers: tokens.super_admin });
      assert.equal(read.body.data.url, stored);
      const patched = await app.request('PATCH', `${ROUTE}/${id}`, {
        headers: tokens.super_admin,
        json: { url: typed },
      });
      assert.equal(patched.status, 200, patched.text);
      assert.equal(patched.body.data.url, stored);
    }
  });

  test('SPEC 5.7 role matrix: creation', async () => {
    await appendsNothing(async () => {
      assertError(await create(tokens.viewer, body(root)), 403, 'forbidden');
      assertError(await create(tokens.tenant_admin, body(other)), 404, 'not_found');
      // Refused before the body is read.
      const raw = await app.request('POST', ROUTE, {
        headers: { ...tokens.viewer, ...idem() },
        raw: '{not json',
      });
      assertError(raw, 403, 'forbidden');
      assertError(await app.request('POST', ROUTE, { json: body(root) }), 401, 'unauthorized');
    });
    for (const [role, tenant] of [
      ['tenant_admin', root],
      ['tenant_admin', child],
      ['super_admin', other],
    ] as const) {
      const res = await create(tokens[role], body(tenant));
      assert.equal(res.status, 201, `${role} on ${tenant}: ${res.text}`);
    }
  });

  test('SPEC 5.7 role matrix: reads, secret, rotation, changes and deletion, cell by cell', async () => {
    const own = await created(child);
    const foreign = await created(other);
    const cases: {
      method: string;
      path: (id: string) => string;
      json?: unknown;
      writes: boolean;
      ok: number;
    }[] = [
      { method: 'GET', path: (id) => `${ROUTE}/${id}`, writes: false, ok: 200 },
      { method: 'GET', path: (id) => `${ROUTE}/${id}/secret`, writes: true, ok: 200 },
      { method: 'PATCH', path: (id) => `${ROUTE}/${id}`, json: { enabled: true }, writes: true, ok: 200 },
      { method: 'POST', path: (id) => `${ROUTE}/${id}/rotate-secret`, writes: true, ok: 200 },
      { method: 'DELETE', path: (id) => `${ROUTE}/${id}`, writes: true, ok: 204 },
    ];
    for (const c of cases) {
      const call = (role: keyof typeof tokens, id: string) =>
        app.request(c.method, c.path(id), {
          headers: tokens[role],
          ...(c.json === undefined ? {} : { json: c.json }),
        });
      await appendsNothing(async () => {
        const viewer = await call('viewer', own);
        if (c.writes) assertError(viewer, 403, 'forbidden');
        else assert.equal(viewer.status, c.ok, viewer.text);
        // Outside the tree: 404 for readers; a viewer is refused by its role first.
        if (c.writes) assertError(await call('viewer', foreign), 403, 'forbidden');
        else assertError(await call('viewer', foreign), 404, 'not_found');
        assertError(await call('tenant_admin', foreign), 404, 'not_found');
        assertError(await call('tenant_admin', 'whe_01missing'), 404, 'not_found');
        assertError(await call('tenant_admin', 'not-an-id'), 404, 'not_found');
        assertError(await app.request(c.method, c.path(own)), 401, 'unauthorized');
      });
      const mine = await call('tenant_admin', own);
      assert.equal(mine.status, c.ok, `${c.method} ${c.path('')}: ${mine.text}`);
      const global = await call('super_admin', c.method === 'DELETE' ? await created(other) : foreign);
      assert.equal(global.status, c.ok, `${c.method} ${c.path('')} as super_admin: ${global.text}`);
    }
  });

  test('SPEC 5.7: lists are scoped to the caller tree; tenant_id outside it is 404; mode filters', async () => {
    const mine = await created(child, { mode: 'live' });
    const foreign = await created(other, { mode: 'live' });
    for (const role of ['tenant_admin', 'viewer'] as const) {
      const res = await app.request('GET', `${ROUTE}?limit=100`, { headers: tokens[role] });
      assert.equal(res.status, 200, res.text);
      const tenants = new Set(res.body.data.map((e: { tenant_id: string }) => e.tenant_id));
      assert.ok(!tenants.has(other), `${role} sees only its tree`);
      assert.ok(res.body.data.some((e: { id: string }) => e.id === mine));
      assertError(
        await app.request('GET', `${ROUTE}?tenant_id=${other}`, { headers: tokens[role] }),
        404,
        'not_found',
      );
    }
    const live = await app.request('GET', `${ROUTE}?mode=live&limit=100`, { headers: tokens.super_admin });
    assert.ok(live.body.data.every((e: { mode: string }) => e.mode === 'live'));
    assert.ok(live.body.data.some((e: { id: string }) => e.id === foreign));
    const page = await app.request('GET', `${ROUTE}?limit=1&offset=1`, { headers: tokens.super_admin });
    assert.deepEqual(page.body.meta, { limit: 1, offset: 1, count: 1 });
    assertError(
      await app.request('GET', `${ROUTE}?mode=prod`, { headers: tokens.super_admin }),
      422,
      'validation_error',
    );
  });

  test('PATCH: url and enabled with previous values in the event; empty 422; unknown 400; no change no event', async () => {
    const original = body(root);
    const id = (await create(tokens.super_admin, original)).body.data.id;
    const path = `${ROUTE}/${id}`;
    const patch = (json: unknown) => app.request('PATCH', path, { headers: tokens.tenant_admin, json });
    await appendsNothing(async () => {
      assertError(await patch({}), 422, 'validation_error');
      assertError(await patch({ mode: 'live' }), 400, 'invalid_json');
      assertError(await patch({ tenant_id: other }), 400, 'invalid_json');
      const bad = await patch({ url: 'https://10.0.0.1/hook' });
      assertError(bad, 422, 'validation_error');
      assert.equal(bad.body.error.param, 'url');
      assertError(await patch({ url: 'http://hooks.example.com/' }), 422, 'validation_error');
      assert.equal((await patch({ enabled: true })).status, 200);
    });
    const res = await patch({ url: 'https://hooks.example.com/v2', enabled: false });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.data.url, 'https://hooks.example.com/v2');
    assert.equal(res.body.data.enabled, false);
    assert.equal(res.body.data.disabled_reason, 'panel');
    const last = await app.gateway.ctx.db
      .selectFrom('events')
      .select(['type', 'data', 'metadata'])
      .where('stream_id', '=', `webhook_endpoint-${id}`)
      .orderBy('version', 'desc')
      .limit(1)
      .executeTakeFirstOrThrow();
    assert.equal(last.type, 'WebhookEndpoint.Updated');
    assert.deepEqual(last.data, {
      endpoint_id: id,
      url: 'https://hooks.example.com/v2',
      previous_url: original.url,
      enabled: false,
      previous_enabled: true,
    });
    assert.equal((last.metadata as { request_id: string }).request_id, res.headers.get('x-request-id'));
    await app.settle();
    const row = await app.gateway.ctx.db
      .selectFrom('webhook_endpoints')
      .select(['url', 'enabled', 'disabled_reason', 'sequence'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    assert.deepEqual(row, {
      url: 'https://hooks.example.com/v2',
      enabled: false,
      disabled_reason: 'panel',
      sequence: '2',
    });
  });

  test('rotation: both secrets sign for 24 hours, then only the new one', async () => {
    const res = await create(tokens.tenant_admin, body(root));
    const { id, secret: first } = res.body.data;
    const realNow = app.gateway.ctx.now;
    const rotatedAt = Date.now();
    app.gateway.ctx.now = () => new Date(rotatedAt);
    try {
      const rotated = await app.request('POST', `${ROUTE}/${id}/rotate-secret`, {
        headers: tokens.tenant_admin,
      });
      assert.equal(rotated.status, 200, rotated.text);
      const { secret, previous_secret, previous_expires_at } = rotated.body.data;
      assert.match(secret, /^whsec_/);
      assert.notEqual(secret, first);
      assert.equal(previous_secret, first);
      assert.equal(previous_expires_at, new Date(rotatedAt + DAY_MS).toISOString());

      const shown = await app.request('GET', `${ROUTE}/${id}/secret`, { headers: tokens.super_admin });
      assert.deepEqual(shown.body.data, rotated.body.data);
      const view = await app.request('GET', `${ROUTE}/${id}`, { headers: tokens.viewer });
      assert.equal(view.body.data.previous_secret_expires_at, previous_expires_at);

      // The row is a projection: with async projections it follows the event a moment later.
      await app.settle();
      const row = await app.gateway.ctx.db
        .selectFrom('webhook_endpoints')
        .selectAll()
        .where('id', '=', id)
        .executeTakeFirstOrThrow();
      const ctx = app.gateway.ctx;
      assert.deepEqual(await endpointSigningSecrets(ctx, row, new Date(rotatedAt + DAY_MS - 1)), [
        secret,
        first,
      ]);
      assert.deepEqual(await endpointSigningSecrets(ctx, row, new Date(rotatedAt + DAY_MS)), [secret]);

      // 25 hours later (sessions last 8 hours: log in again at that time).
      app.gateway.ctx.now = () => new Date(rotatedAt + DAY_MS + 3_600_000);
      const later = bearer(await logIn(app, ADMIN_EMAIL, ADMIN_PASSWORD));
      const after = await app.request('GET', `${ROUTE}/${id}/secret`, { headers: later });
      assert.deepEqual(after.body.data, { secret, previous_secret: null, previous_expires_at: null });
      const listed = await app.request('GET', `${ROUTE}?tenant_id=${root}&limit=100`, { headers: later });
      assert.equal(
        listed.body.data.find((e: { id: string }) => e.id === id).previous_secret_expires_at,
        null,
      );
    } finally {
      app.gateway.ctx.now = realNow;
    }
  });

  test('DELETE is final: 204, then 404 everywhere; the row keeps no secret; a create replay is 404', async () => {
    const key = randomUUID();
    const json = body(root);
    const id = (await create(tokens.tenant_admin, json, key)).body.data.id;
    const path = `${ROUTE}/${id}`;
    const del = await app.request('DELETE', path, { headers: tokens.tenant_admin });
    assert.equal(del.status, 204, del.text);
    await appendsNothing(async () => {
      assertError(await app.request('GET', path, { headers: tokens.super_admin }), 404, 'not_found');
      assertError(
        await app.request('GET', `${path}/secret`, { headers: tokens.super_admin }),
        404,
        'not_found',
      );
      assertError(
        await app.request('PATCH', path, { headers: tokens.super_admin, json: { enabled: true } }),
        404,
        'not_found',
      );
      assertError(
        await app.request('POST', `${path}/rotate-secret`, { headers: tokens.super_admin }),
        404,
        'not_found',
      );
      assertError(await app.request('DELETE', path, { headers: tokens.super_admin }), 404, 'not_found');
      assertError(await create(tokens.tenant_admin, json, key), 404, 'not_found');
    });
    const list = await app.request('GET', `${ROUTE}?limit=100`, { headers: tokens.super_admin });
    assert.ok(!list.body.data.some((e: { id: string }) => e.id === id));
    const row = await app.gateway.ctx.db
      .selectFrom('webhook_endpoints')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    assert.equal(row.secret_sealed, null);
    assert.equal(row.previous_secret_sealed, null);
    assert.ok(row.deleted_at);
    assert.deepEqual(await endpointSigningSecrets(app.gateway.ctx, row, new Date()), []);
  });

  test('disable_gone (delivery worker, 410 Gone): disabled with reason gone; the panel can enable again', async () => {
    const id = await created(root);
    const deps = commandDeps(app.gateway.ctx);
    const meta = { actor: 'system:webhooks', request_id: 'req_test' };
    assert.equal(await disableGoneWebhookEndpoint(deps, id, meta), 'disabled');
    assert.equal(await disableGoneWebhookEndpoint(deps, id, meta), 'already_disabled');
    assert.equal(await disableGoneWebhookEndpoint(deps, 'whe_01missing', meta), 'not_found');
    const got = await app.request('GET', `${ROUTE}/${id}`, { headers: tokens.viewer });
    assert.equal(got.body.data.enabled, false);
    assert.equal(got.body.data.disabled_reason, 'gone');
    const fanOut = await app.gateway.ctx.db
      .selectFrom('webhook_endpoints')
      .select('id')
      .where('tenant_id', '=', root)
      .where('mode', '=', 'test')
      .where('enabled', '=', true)
      .where('deleted_at', 'is', null)
      .execute();
    assert.ok(!fanOut.some((r) => r.id === id));
    const enabled = await app.request('PATCH', `${ROUTE}/${id}`, {
      headers: tokens.tenant_admin,
      json: { enabled: true },
    });
    assert.equal(enabled.body.data.enabled, true);
    assert.equal(enabled.body.data.disabled_reason, null);
  });
});

describe('webhook endpoints without CREDENTIALS_ENCRYPTION_KEY on DATABASE_URL (docs/decisions.md "Webhooks")', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startAdminApp();
  });
  afterAll(() => app.close());

  test('registration is refused with 422 validation_error and nothing is written', async () => {
    const token = await logIn(app, ADMIN_EMAIL, ADMIN_PASSWORD);
    const admin = adminClient(app, token);
    const tenant = await admin.tenant(await admin.type());
    const before = await eventCount(app);
    const res = await app.request('POST', ROUTE, {
      headers: { ...bearer(token), ...idem() },
      json: { tenant_id: tenant, url: 'https://hooks.example.com/x', mode: 'test' },
    });
    assertError(res, 422, 'validation_error');
    assert.match(res.body.error.message, /CREDENTIALS_ENCRYPTION_KEY/);
    assert.equal(await eventCount(app), before);
  });
});
