import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, test } from 'vitest';
import { auditProjection } from '../../src/commands/index.ts';
import { decryptCredentials } from '../../src/crypto/credentials.ts';
import { roleTokens } from '../support/admin.ts';
import { startTestApp, type TestApp } from '../support/http.ts';

const ADMIN = { email: 'admin@example.com', password: 'bootstrap admin password' };
const KEY = randomBytes(32);
const SECRET = 'sk_live_provider_secret_do_not_leak';
const env = {
  BOOTSTRAP_ADMIN_EMAIL: ADMIN.email,
  BOOTSTRAP_ADMIN_PASSWORD: ADMIN.password,
  BCRYPT_COST: '4',
  CREDENTIALS_ENCRYPTION_KEY: KEY.toString('base64'),
};
const _metadata = { actor: 'system:test', request_id: 'req_test' };

describe('admin providers over HTTP (SPEC 2.7, 4.14, 5.7, 7)', () => {
  let app: TestApp;
  let as: Awaited<ReturnType<typeof roleTokens>>;

  beforeAll(async () => {
    app = await startTestApp(env);
    as = await roleTokens(app, ADMIN);
  });
  afterAll(() => app.close());

  const create = (json: unknown, headers = as.super_admin) =>
    app.request('POST', '/admin/providers', { json, headers });
  const base = { name: 'Acme Pay', kind: 'external', environment: 'production' };

  test('SPEC 2.7: creation defaults enabled_methods to [pix]; credentials are sealed, never returned', async () => {
    const res = await create({ ...base, credentials: { api_key: SECRET } });
    assert.equal(res.status, 201, res.text);
    const p = res.body.data;
    assert.deepEqual(p.enabled_methods, ['pix']);
    assert.equal(p.has_credentials, true);
    assert.equal(p.is_marketplace, false);
    assert.equal(p.enabled, true);
    assert.ok(!res.text.includes(SECRET));
    assert.equal('credentials' in p, false);

    // Only ciphertext in the event and the read model, and it opens only for this provider id.
    const events = await app.gateway.ctx.db
      .selectFrom('events')
      .select('data')
      .where('stream_id', '=', `provider-${p.id}`)
      .execute();
    assert.ok(!JSON.stringify(events).includes(SECRET));
    await app.settle();
    const row = await app.gateway.ctx.db
      .selectFrom('providers')
      .selectAll()
      .where('id', '=', p.id)
      .executeTakeFirstOrThrow();
    assert.ok(row.credentials_ciphertext && !row.credentials_ciphertext.includes(SECRET));
    // Issue 23 item 2.3: bound to the id and the record's hosts (none given: the defaults, stored as null).
    const hosts = [null, null];
    assert.deepEqual(decryptCredentials(KEY, p.id, row.credentials_ciphertext, hosts), { api_key: SECRET });
    assert.throws(() => decryptCredentials(KEY, 'prv_other', row.credentials_ciphertext ?? '', hosts));

    const got = await app.request('GET', `/admin/providers/${p.id}`, { headers: as.super_admin });
    assert.equal(got.status, 200);
    assert.deepEqual(got.body.data, p);
  });

  test('SPEC 2.7: [] disables all; duplicates or unknown methods are 422 validation_error', async () => {
    const none = await create({ ...base, enabled_methods: [] });
    assert.equal(none.status, 201, none.text);
    assert.deepEqual(none.body.data.enabled_methods, []);
    for (const enabled_methods of [['pix', 'pix'], ['card'], ['pix', 'boleto', 'boleto']]) {
      const res = await create({ ...base, enabled_methods });
      assert.equal(res.status, 422, res.text);
      assert.equal(res.body.error.code, 'validation_error');
    }
  });

  test('SPEC 7: unknown fields and incompatible values are 400 invalid_json; bad values 422', async () => {
    const unknown = await create({ ...base, provider_token: 'x' });
    assert.equal(unknown.status, 400);
    assert.equal(unknown.body.error.code, 'invalid_json');
    const wrongType = await create({ ...base, is_marketplace: 'yes' });
    assert.equal(wrongType.body.error.code, 'invalid_json');
    for (const body of [
      { ...base, kind: 'bank' },
      { ...base, name: 'x' },
      { ...base, kind: 'simulator', environment: 'production' },
      { name: 'No kind', environment: 'sandbox' },
    ]) {
      const res = await create(body);
      assert.equal(res.status, 422, res.text);
      assert.equal(res.body.error.code, 'validation_error');
    }
  });

  test('SPEC 4.14: PATCH changes enabled_methods, name, enabled and credentials; other fields 400', async () => {
    const { body } = await create({ ...base, is_marketplace: true });
    const id = body.data.id;
    const patch = (json: unknown) =>
      app.request('PATCH', `/admin/providers/${id}`, { json, headers: as.super_admin });
    const res = await patch({
      enabled_methods: ['boleto', 'pix'],
      name: 'Renamed',
      enabled: false,
      credentials: { token: SECRET },
    });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body.data.enabled_methods, ['boleto', 'pix']);
    assert.equal(res.body.data.name, 'Renamed');
    assert.equal(res.body.data.enabled, false);
    assert.equal(res.body.data.has_credentials, true);
    assert.equal(res.body.data.is_marketplace, true);
    assert.equal((await patch({})).status, 200, 'an empty change is a no-op');
    for (const json of [{ kind: 'simulator' }, { is_marketplace: false }, { environment: 'sandbox' }]) {
      const r = await patch(json);
      assert.equal(r.status, 400, r.text);
      assert.equal(r.body.error.code, 'invalid_json');
    }
    const dup = await patch({ enabled_methods: ['pix', 'pix'] });
    assert.equal(dup.body.error.code, 'validation_error');
    const missing = await app.request('PATCH', '/admin/providers/prv_missing', {
      json: { enabled: true },
      headers: as.super_admin,
    });
    assert.equal(missing.status, 404);
    assert.equal(missing.body.error.code, 'not_found');
  });

  test('issue 13: an external provider carries its Safe2Pay hosts (defaults: the real ones); PATCH changes them', async () => {
    const plain = await create(base);
    assert.equal(plain.status, 201, plain.text);
    assert.equal(plain.body.data.payment_host, 'https://payment.safe2pay.com.br');
    assert.equal(plain.body.data.api_host, 'https://api.safe2pay.com.br');
    const hosts = { payment_host: 'http://127.0.0.1:4010/payment', api_host: 'http://127.0.0.1:4010/api' };
    const custom = await create({ ...base, ...hosts });
    assert.equal(custom.status, 201, custom.text);
    assert.equal(custom.body.data.payment_host, hosts.payment_host);
    const id = custom.body.data.id;
    const patched = await app.request('PATCH', `/admin/providers/${id}`, {
      json: { payment_host: null, api_host: 'https://api.example.test' },
      headers: as.super_admin,
    });
    assert.equal(patched.status, 200, patched.text);
    assert.equal(patched.body.data.payment_host, 'https://payment.safe2pay.com.br');
    assert.equal(patched.body.data.api_host, 'https://api.example.test');
    await app.settle();
    const list = await app.request('GET', '/admin/providers?limit=100', { headers: as.super_admin });
    const listed = list.body.data.find((p: { id: string }) => p.id === id);
    assert.deepEqual(listed, patched.body.data);
    // The simulator makes no call: no hosts. A host is an http(s) base without query or credentials.
    const sim = await create({ name: 'Sim', kind: 'simulator', environment: 'sandbox' });
    assert.equal(sim.status, 201, sim.text);
    assert.equal(sim.body.data.payment_host, null);
    const simHosts = await create({ name: 'Sim', kind: 'simulator', environment: 'sandbox', ...hosts });
    assert.equal(simHosts.status, 422, simHosts.text);
    for (const bad of ['ftp://x.test', 'https://u:p@x.test', 'https://x.test/?a=1', 'not a url']) {
      const res = await create({ ...base, payment_host: bad });
      assert.ok(res.status === 400 || res.status === 422, res.text);
    }
  });

  test('GET lists providers oldest first; GET of an unknown id is 404 not_found', async () => {
    const list = await app.request('GET', '/admin/providers?limit=100', { headers: as.super_admin });
    assert.equal(list.status, 200);
    assert.ok(list.body.data.length >= 3);
    assert.ok(
      list.body.data.every((p: { has_credentials: unknown }) => typeof p.has_credentials === 'boolean'),
    );
    assert.ok(!list.text.includes('ciphertext'));
    const missing = await app.request('GET', '/admin/providers/prv_nope', { headers: as.super_admin });
    assert.equal(missing.status, 404);
    assert.equal(missing.body.error.code, 'not_found');
  });

  test('SPEC 5.7 roles: super_admin only; tenant_admin and viewer 403 forbidden; no session 401', async () => {
    const { body } = await create(base);
    const calls: [string, string, unknown?][] = [
      ['POST', '/admin/providers', base],
      ['GET', '/admin/providers'],
      ['GET', `/admin/providers/${body.data.id}`],
      ['PATCH', `/admin/providers/${body.data.id}`, { enabled: false }],
    ];
    for (const [method, path, json] of calls) {
      for (const role of ['tenant_admin', 'viewer'] as const) {
        const res = await app.request(method, path, { json, headers: as[role] });
        assert.equal(res.status, 403, `${role} ${method} ${path}`);
        assert.equal(res.body.error.code, 'forbidden');
      }
      const anon = await app.request(method, path, { json });
      assert.equal(anon.status, 401);
      assert.equal(anon.body.error.code, 'unauthorized');
    }
  });

  test('DESIGN.md "Secrets": the credentials never reach the log', () => {
    assert.ok(app.logs.length > 0);
    assert.ok(!app.logs.join('\n').includes(SECRET));
    assert.ok(!app.logs.join('\n').includes(KEY.toString('base64')));
  });
});

describe('issue 23 item 2.3: provider hosts and the stored credentials', () => {
  let app: TestApp;
  let as: Awaited<ReturnType<typeof roleTokens>>;
  // Development exception for one loopback port only (as the emulator harness sets it).
  const ALLOWED = '127.0.0.1:4010';
  beforeAll(async () => {
    app = await startTestApp({ ...env, PROVIDER_ALLOWED_PRIVATE_HOSTS: ALLOWED });
    as = await roleTokens(app, ADMIN);
  });
  afterAll(() => app.close());

  const create = (json: Record<string, unknown>) =>
    app.request('POST', '/admin/providers', { json, headers: as.super_admin });
  const patch = (id: string, json: Record<string, unknown>) =>
    app.request('PATCH', `/admin/providers/${id}`, { json, headers: as.super_admin });
  const production = { name: 'Acme Pay', kind: 'external', environment: 'production' };
  const hosts = { payment_host: 'https://payment.acme.example', api_host: 'https://api.acme.example' };
  const eventsOf = async (id: string) => (await app.gateway.ctx.store.read(`provider-${id}`)).length;

  test('a host change without the credentials is 422 naming credentials and changes nothing; with them the new secret opens only for the new hosts', async () => {
    const created = await create({ ...production, ...hosts, credentials: { api_key: SECRET } });
    assert.equal(created.status, 201, created.text);
    const id = created.body.data.id;
    const before = await eventsOf(id);
    for (const change of [
      { payment_host: 'https://attacker.example' },
      { api_host: 'https://attacker.example' },
      { payment_host: null },
      { payment_host: 'https://attacker.example', name: 'Renamed' },
    ]) {
      const res = await patch(id, change);
      assert.equal(res.status, 422, `${JSON.stringify(change)}: ${res.text}`);
      assert.equal(res.body.error.code, 'validation_error');
      assert.equal(res.body.error.param, 'credentials');
    }
    assert.equal(await eventsOf(id), before, 'nothing was written');
    const read = await app.request('GET', `/admin/providers/${id}`, { headers: as.super_admin });
    assert.deepEqual(read.body.data, created.body.data);

    const NEW_SECRET = 'sk_live_reentered_for_the_new_host';
    const moved = await patch(id, {
      payment_host: 'https://pay2.acme.example',
      credentials: { api_key: NEW_SECRET },
    });
    assert.equal(moved.status, 200, moved.text);
    assert.equal(moved.body.data.payment_host, 'https://pay2.acme.example');
    await app.settle();
    const row = await app.gateway.ctx.db
      .selectFrom('providers')
      .select('credentials_ciphertext')
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    const sealed = row.credentials_ciphertext ?? '';
    const now = ['https://pay2.acme.example', hosts.api_host];
    assert.deepEqual(decryptCredentials(KEY, id, sealed, now), { api_key: NEW_SECRET });
    for (const other of [
      [hosts.payment_host, hosts.api_host],
      ['https://attacker.example', hosts.api_host],
    ]) {
      assert.throws(
        () => decryptCredentials(KEY, id, sealed, other),
        'bound to the hosts it was entered for',
      );
    }
    // A record without credentials changes hosts freely: there is nothing to send.
    const keyless = await create({ ...production, ...hosts });
    const rehosted = await patch(keyless.body.data.id, { api_host: 'https://api2.acme.example' });
    assert.equal(rehosted.status, 200, rehosted.text);
  });

  test('the audit records the hosts before and after, and only that the credentials were replaced', async () => {
    const created = await create({ ...production, ...hosts, credentials: { api_key: SECRET } });
    const id = created.body.data.id;
    const res = await patch(id, {
      payment_host: 'https://pay3.acme.example',
      api_host: 'https://api3.acme.example',
      credentials: { api_key: SECRET },
    });
    assert.equal(res.status, 200, res.text);
    await app.gateway.runner.catchUp(auditProjection);
    const audit = await app.request('GET', `/admin/audit?action=provider.updated&target_id=${id}`, {
      headers: as.super_admin,
    });
    assert.equal(audit.status, 200, audit.text);
    assert.equal(audit.body.data.length, 1, audit.text);
    const [entry] = audit.body.data;
    assert.deepEqual(entry.before, { ...hosts, had_credentials: true });
    assert.deepEqual(entry.after, {
      provider_id: id,
      payment_host: 'https://pay3.acme.example',
      api_host: 'https://api3.acme.example',
      credentials_replaced: true,
    });
    assert.ok(!audit.text.includes(SECRET));
    assert.ok(!audit.text.includes('v2.'), 'no ciphertext');
  });

  test('a production host is https and public: http, localhost, loopback, private, link-local and metadata hosts are 422 on create and PATCH', async () => {
    const keyless = await create({ ...production, ...hosts });
    assert.equal(keyless.status, 201, keyless.text);
    const refused = [
      'http://payment.acme.example',
      'https://localhost',
      'https://api.localhost:8443',
      'https://127.0.0.1',
      'https://[::1]:8443',
      'https://10.0.0.5',
      'https://192.168.0.10/payment',
      'https://172.16.3.4',
      'https://169.254.10.1',
      'https://169.254.169.254',
      'https://[fd00:ec2::254]',
      'https://0.0.0.0',
      'http://127.0.0.1:4011/payment',
    ];
    for (const bad of refused) {
      for (const field of ['payment_host', 'api_host']) {
        const res = await create({ ...production, ...hosts, [field]: bad });
        assert.equal(res.status, 422, `${field} ${bad}: ${res.text}`);
        assert.equal(res.body.error.code, 'validation_error');
        assert.equal(res.body.error.param, field);
        const changed = await patch(keyless.body.data.id, { [field]: bad });
        assert.equal(changed.status, 422, `PATCH ${field} ${bad}: ${changed.text}`);
        assert.equal(changed.body.error.param, field);
      }
    }
    const read = await app.request('GET', `/admin/providers/${keyless.body.data.id}`, {
      headers: as.super_admin,
    });
    assert.deepEqual(read.body.data, keyless.body.data, 'no refused change was stored');
    // PROVIDER_ALLOWED_PRIVATE_HOSTS: the listed host:port may be loopback over http, nothing else.
    const emulator = await create({
      ...production,
      payment_host: `http://${ALLOWED}/payment`,
      api_host: `http://${ALLOWED}/api`,
    });
    assert.equal(emulator.status, 201, emulator.text);
    // A sandbox record keeps http and private hosts for emulators; a metadata address never.
    const sandbox = { ...production, environment: 'sandbox' };
    const local = await create({ ...sandbox, payment_host: 'http://10.0.0.5:4010/payment' });
    assert.equal(local.status, 201, local.text);
    for (const bad of ['http://169.254.169.254', 'http://[fd00:ec2::254]', 'http://100.100.100.200']) {
      const res = await create({ ...sandbox, api_host: bad });
      assert.equal(res.status, 422, `${bad}: ${res.text}`);
      assert.equal(res.body.error.param, 'api_host');
    }
  });
});

describe('providers without CREDENTIALS_ENCRYPTION_KEY on DATABASE_URL (docs/decisions.md "Admin")', () => {
  let app: TestApp;
  let as: Awaited<ReturnType<typeof roleTokens>>;
  beforeAll(async () => {
    const { CREDENTIALS_ENCRYPTION_KEY: _key, ...withoutKey } = env;
    app = await startTestApp(withoutKey);
    as = await roleTokens(app, ADMIN);
  });
  afterAll(() => app.close());

  test('creating with credentials is 422 validation_error and writes nothing; without them it works', async () => {
    const base = { name: 'No key', kind: 'external', environment: 'sandbox', enabled_methods: ['boleto'] };
    const refused = await app.request('POST', '/admin/providers', {
      json: { ...base, credentials: { api_key: SECRET } },
      headers: as.super_admin,
    });
    assert.equal(refused.status, 422, refused.text);
    assert.equal(refused.body.error.code, 'validation_error');
    assert.match(refused.body.error.message, /CREDENTIALS_ENCRYPTION_KEY/);
    const count = await app.gateway.ctx.db
      .selectFrom('providers')
      .select((eb) => eb.fn.countAll().as('n'))
      .executeTakeFirstOrThrow();
    assert.equal(Number(count.n), 0, 'the simulator is off with DATABASE_URL, and nothing was written');
    const ok = await app.request('POST', '/admin/providers', { json: base, headers: as.super_admin });
    assert.equal(ok.status, 201, ok.text);
    assert.equal(ok.body.data.has_credentials, false);
  });
});

describe('simulator bootstrap (SPEC 2.8, last line)', () => {
  let app: TestApp;
  let as: Awaited<ReturnType<typeof roleTokens>>;
  beforeAll(async () => {
    app = await startTestApp({ ...env, ENABLE_SIMULATOR: 'true' });
    as = await roleTokens(app, ADMIN);
  });
  afterAll(() => app.close());

  test('ENABLE_SIMULATOR=true: the simulator provider and its global pix, boleto and card rules exist at start', async () => {
    const p = await app.request('GET', '/admin/providers/prv_simulator', { headers: as.super_admin });
    assert.equal(p.status, 200, p.text);
    assert.deepEqual(
      { kind: p.body.data.kind, environment: p.body.data.environment, methods: p.body.data.enabled_methods },
      { kind: 'simulator', environment: 'sandbox', methods: ['pix', 'boleto', 'credit_card'] },
    );
    const rules = await app.request('GET', '/admin/rules', { headers: as.super_admin });
    // The rules are written at start in the same instant; their order is by id, which SPEC leaves open.
    assert.deepEqual(
      rules.body.data
        .map((r: { method: string; tenant_id: null; provider_id: string }) => [
          r.method,
          r.tenant_id,
          r.provider_id,
        ])
        .sort(),
      [
        ['boleto', null, 'prv_simulator'],
        ['credit_card', null, 'prv_simulator'],
        ['pix', null, 'prv_simulator'],
      ],
    );
  });
});
