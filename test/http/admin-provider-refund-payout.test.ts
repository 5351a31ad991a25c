import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, test } from 'vitest';
import { auditProjection } from '../../src/commands/index.ts';
import { refundPayoutEnabled } from '../../src/commands/providers/refund-payout.ts';
import { roleTokens } from '../support/admin.ts';
import { startTestApp, type TestApp } from '../support/http.ts';

// Issue 22 item 4.2: payouts happen only where the provider record enables them. `boleto_refund_payout` on a
// provider record (default false), set by the panel's provider API (super_admin only, SPEC 5.7), audited as
// every provider change, shown by the read and the list, and read by `refundPayoutEnabled` for a charge.

const ADMIN = { email: 'admin@example.com', password: 'bootstrap admin password' };
const env = {
  BOOTSTRAP_ADMIN_EMAIL: ADMIN.email,
  BOOTSTRAP_ADMIN_PASSWORD: ADMIN.password,
  BCRYPT_COST: '4',
  CREDENTIALS_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
};

describe('provider record: boleto_refund_payout over HTTP (issue 22 item 4.2)', () => {
  let app: TestApp;
  let as: Awaited<ReturnType<typeof roleTokens>>;

  beforeAll(async () => {
    app = await startTestApp(env);
    as = await roleTokens(app, ADMIN);
  });
  afterAll(() => app.close());

  const external = {
    name: 'Safe2Pay',
    kind: 'external',
    environment: 'production',
    enabled_methods: ['boleto'],
  };
  const create = (json: unknown, headers = as.super_admin) =>
    app.request('POST', '/admin/providers', { json, headers });
  const patch = (id: string, json: unknown, headers = as.super_admin) =>
    app.request('PATCH', `/admin/providers/${id}`, { json, headers });
  const read = (id: string) => app.request('GET', `/admin/providers/${id}`, { headers: as.super_admin });
  async function listed(id: string) {
    await app.settle();
    const list = await app.request('GET', '/admin/providers?limit=100', { headers: as.super_admin });
    assert.equal(list.status, 200, list.text);
    return list.body.data.find((p: { id: string }) => p.id === id);
  }
  const deps = () => ({ store: app.gateway.ctx.store, registry: app.gateway.ctx.events });

  test('off by default, for an external provider and for the simulator; the read and the list show it', async () => {
    for (const body of [external, { name: 'Simulador', kind: 'simulator', environment: 'sandbox' }]) {
      const res = await create(body);
      assert.equal(res.status, 201, res.text);
      assert.equal(res.body.data.boleto_refund_payout, false);
      assert.equal((await read(res.body.data.id)).body.data.boleto_refund_payout, false);
      assert.equal((await listed(res.body.data.id)).boleto_refund_payout, false);
      assert.equal(
        await refundPayoutEnabled(deps(), { providerId: res.body.data.id, simulated: false }),
        false,
      );
    }
  });

  test('set at creation or by PATCH, and back off; every change audited as provider.updated', async () => {
    const on = await create({ ...external, boleto_refund_payout: true });
    assert.equal(on.status, 201, on.text);
    assert.equal(on.body.data.boleto_refund_payout, true);
    assert.equal((await listed(on.body.data.id)).boleto_refund_payout, true);

    const { body } = await create(external);
    const id = body.data.id;
    const enabled = await patch(id, { boleto_refund_payout: true });
    assert.equal(enabled.status, 200, enabled.text);
    assert.equal(enabled.body.data.boleto_refund_payout, true);
    assert.deepEqual((await read(id)).body.data, enabled.body.data);
    assert.deepEqual(await listed(id), enabled.body.data);
    assert.equal(await refundPayoutEnabled(deps(), { providerId: id, simulated: false }), true);
    // Test mode mirrors live: a test-mode charge of the same record may pay out (through the simulator).
    assert.equal(await refundPayoutEnabled(deps(), { providerId: id, simulated: true }), true);

    const same = await patch(id, { boleto_refund_payout: true });
    assert.equal(same.status, 200, 'the same value again is a no-op');
    const disabled = await patch(id, { boleto_refund_payout: false });
    assert.equal(disabled.body.data.boleto_refund_payout, false);
    assert.equal((await listed(id)).boleto_refund_payout, false);
    assert.equal(await refundPayoutEnabled(deps(), { providerId: id, simulated: false }), false);

    await app.gateway.runner.catchUp(auditProjection);
    const audit = await app.request('GET', `/admin/audit?action=provider.updated&target_id=${id}`, {
      headers: as.super_admin,
    });
    assert.equal(audit.status, 200, audit.text);
    const changes = audit.body.data.map(
      (e: { after: { boleto_refund_payout?: boolean } }) => e.after.boleto_refund_payout,
    );
    assert.deepEqual(changes.sort(), [false, true], 'two changes, the repeated value wrote nothing');
    for (const e of audit.body.data) assert.match(e.actor, /^user:usr_/);
  });

  test('a charge without a provider record, or with an unknown one, never pays out', async () => {
    assert.equal(await refundPayoutEnabled(deps(), { providerId: null, simulated: true }), false);
    assert.equal(await refundPayoutEnabled(deps(), { providerId: 'prv_missing', simulated: false }), false);
  });

  test('SPEC 7: a value that is not a boolean is 400 invalid_json and changes nothing', async () => {
    const { body } = await create(external);
    const id = body.data.id;
    for (const value of ['yes', 1, null]) {
      const res = await patch(id, { boleto_refund_payout: value });
      assert.equal(res.status, 400, res.text);
      assert.equal(res.body.error.code, 'invalid_json');
      const created = await create({ ...external, boleto_refund_payout: value });
      assert.equal(created.status, 400, created.text);
      assert.equal(created.body.error.code, 'invalid_json');
    }
    assert.equal((await read(id)).body.data.boleto_refund_payout, false);
  });

  test('SPEC 5.7 roles: only super_admin sets it; tenant_admin and viewer 403 forbidden; no session 401', async () => {
    const { body } = await create(external);
    const id = body.data.id;
    for (const [method, path, json] of [
      ['PATCH', `/admin/providers/${id}`, { boleto_refund_payout: true }],
      ['POST', '/admin/providers', { ...external, boleto_refund_payout: true }],
    ] as const) {
      for (const role of ['tenant_admin', 'viewer'] as const) {
        const res = await app.request(method, path, { json, headers: as[role] });
        assert.equal(res.status, 403, `${role} ${method} ${path}`);
        assert.equal(res.body.error.code, 'forbidden');
      }
      const anon = await app.request(method, path, { json });
      assert.equal(anon.status, 401);
      assert.equal(anon.body.error.code, 'unauthorized');
    }
    assert.equal((await read(id)).body.data.boleto_refund_payout, false);
  });
});
