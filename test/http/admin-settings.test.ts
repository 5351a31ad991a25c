import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, test } from 'vitest';
import { createGateway } from '../../src/app.ts';
import { getPaymentSettings } from '../../src/commands/payment-settings/view.ts';
import { createUser } from '../../src/commands/users/create/handler.ts';
import { identityDeps } from '../../src/commands/users/identity-deps.ts';
import { loadConfig } from '../../src/config.ts';
import type { EventStore } from '../../src/events/event-store.ts';
import { createLogger } from '../../src/logger.ts';
import { seedTenantAndKey } from '../support/fixtures.ts';
import { startTestApp, type TestApp } from '../support/http.ts';

const ADMIN_EMAIL = 'admin@example.com';
const ADMIN_PASSWORD = 'bootstrap admin password';
const baseEnv = {
  BOOTSTRAP_ADMIN_EMAIL: ADMIN_EMAIL,
  BOOTSTRAP_ADMIN_PASSWORD: ADMIN_PASSWORD,
  BCRYPT_COST: '4',
};
const metadata = { actor: 'system:test', request_id: 'req_test' };
const PATH = '/admin/settings/payments';
const SCOPE = {
  tenant_id: 'ten_secretscope',
  provider_id: 'prv_secretscope',
  reference: 'order-secret-reference',
  idempotency_key: 'secret-idempotency-key',
  amount: 98765,
};

/** The gateway's store, with a switch that makes every read and append fail (a database outage). */
function breakable(real: EventStore) {
  const state = { broken: false };
  const check = () => {
    if (state.broken) throw new Error('connection terminated');
  };
  const store: EventStore = {
    kind: real.kind,
    supportsInlineProjections: real.supportsInlineProjections,
    append: async (stream, events, expected) => {
      check();
      return real.append(stream, events, expected);
    },
    read: async (stream, from) => {
      check();
      return real.read(stream, from);
    },
    readAll: (afterCp, limit) => real.readAll(afterCp, limit),
    headCheckpoint: () => real.headCheckpoint(),
    onAppended: (listener) => real.onAppended(listener),
    close: () => real.close(),
  };
  return { store, state };
}

async function logIn(
  app: TestApp,
  email: string,
  password: string,
): Promise<{ token: string; userId: string }> {
  const res = await app.request('POST', '/admin/sessions', { json: { email, password } });
  assert.equal(res.status, 201, res.text);
  return { token: res.body.data.token, userId: res.body.data.user.id };
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

describe('GET/PATCH /admin/settings/payments (SPEC 2.7, 4.14, 5.7, 5.8, 7)', () => {
  let app: TestApp;
  let outage: ReturnType<typeof breakable>['state'];
  let admin: { token: string; userId: string };
  let tenantAdmin: { token: string; userId: string };
  let viewer: { token: string; userId: string };

  beforeAll(async () => {
    app = await startTestApp({ ...baseEnv, ALLOW_LIVE_PAYMENTS: 'true' }, (gw) => {
      const b = breakable(gw.ctx.store);
      gw.ctx.store = b.store;
      outage = b.state;
    });
    const { tenantId } = await seedTenantAndKey(app.gateway.ctx);
    const deps = identityDeps(app.gateway.ctx);
    for (const role of ['tenant_admin', 'viewer'] as const) {
      await createUser(
        deps,
        { email: `${role}@example.com`, password: 'a long enough password', role, tenant_id: tenantId },
        metadata,
      );
    }
    admin = await logIn(app, ADMIN_EMAIL, ADMIN_PASSWORD);
    tenantAdmin = await logIn(app, 'tenant_admin@example.com', 'a long enough password');
    viewer = await logIn(app, 'viewer@example.com', 'a long enough password');
  });
  afterAll(() => app.close());

  test('SPEC 2.7, 4.14: with no record, the environment default applies (source environment)', async () => {
    const res = await app.request('GET', PATH, { headers: bearer(admin.token) });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body, {
      data: {
        allow_live_payments: true,
        source: 'environment',
        environment_default: true,
        allow_unscoped_live_payments: false,
        has_live_payment_scope: false,
        // SPEC 5.8: on alone does not unlock real payments.
        issuance_authorized: false,
        updated_at: null,
        updated_by: null,
      },
    });
  });

  test('SPEC 7: no session is 401 unauthorized', async () => {
    assert.equal((await app.request('GET', PATH)).body.error.code, 'unauthorized');
    const res = await app.request('PATCH', PATH, { json: { allow_live_payments: true } });
    assert.equal(res.status, 401);
    assert.equal(res.body.error.code, 'unauthorized');
  });

  test('SPEC 5.7 "Global production payments control": tenant_admin and viewer get 403 forbidden', async () => {
    for (const who of [tenantAdmin, viewer]) {
      for (const [method, json] of [
        ['GET', undefined],
        ['PATCH', { allow_live_payments: false }],
      ] as const) {
        const res = await app.request(method, PATH, { headers: bearer(who.token), json });
        assert.equal(res.status, 403, `${method}: ${res.text}`);
        assert.equal(res.body.error.code, 'forbidden');
      }
    }
    // Nothing was saved by the refused requests.
    const res = await app.request('GET', PATH, { headers: bearer(admin.token) });
    assert.equal(res.body.data.source, 'environment');
  });

  test('SPEC 4.14: the body is exactly { allow_live_payments: boolean }', async () => {
    const cases: [string, number, string][] = [
      ['{}', 422, 'validation_error'],
      ['{"allow_live_payments":null}', 400, 'invalid_json'],
      ['{"allow_live_payments":"true"}', 400, 'invalid_json'],
      ['{"allow_live_payments":1}', 400, 'invalid_json'],
      ['{"allow_live_payments":true,"updated_by":"x"}', 400, 'invalid_json'],
      ['{"allow_live_payments":true,"allow_live_payments":false}', 400, 'invalid_json'],
      ['null', 400, 'invalid_json'],
      ['[true]', 400, 'invalid_json'],
    ];
    for (const [raw, status, code] of cases) {
      const res = await app.request('PATCH', PATH, { headers: bearer(admin.token), raw });
      assert.equal(res.status, status, `${raw}: ${res.text}`);
      assert.equal(res.body.error.code, code, raw);
    }
    const res = await app.request('GET', PATH, { headers: bearer(admin.token) });
    assert.equal(res.body.data.source, 'environment', 'refused bodies save nothing');
  });

  test('SPEC 4.14: a save applies at once, overrides the environment and is audited with the request id', async () => {
    const before = Date.now();
    const res = await app.request('PATCH', PATH, {
      headers: bearer(admin.token),
      json: { allow_live_payments: false },
    });
    assert.equal(res.status, 200, res.text);
    const data = res.body.data;
    assert.equal(data.allow_live_payments, false);
    assert.equal(data.source, 'database');
    assert.equal(data.environment_default, true);
    assert.equal(data.updated_by, admin.userId);
    assert.ok(Date.parse(data.updated_at) >= before - 1000);
    const read = await app.request('GET', PATH, { headers: bearer(admin.token) });
    assert.deepEqual(read.body, res.body);

    const [event] = await app.gateway.ctx.store.read('payment_settings-global');
    assert.ok(event);
    assert.equal(event.type, 'PaymentSettings.Updated');
    assert.equal(event.metadata.request_id, res.headers.get('x-request-id'));
    assert.equal(event.metadata.actor, `user:${admin.userId}`);
    assert.deepEqual(
      { ...(event.data as object), updated_at: undefined },
      {
        allow_live_payments: false,
        previous_allow_live_payments: true,
        previous_source: 'environment',
        updated_by: admin.userId,
        updated_at: undefined,
      },
    );

    // Saving the same value again changes and audits nothing.
    const again = await app.request('PATCH', PATH, {
      headers: bearer(admin.token),
      json: { allow_live_payments: false },
    });
    assert.equal(again.status, 200);
    assert.deepEqual(again.body, res.body);
    assert.equal((await app.gateway.ctx.store.read('payment_settings-global')).length, 1);
  });

  test('SPEC 4.14: a restart with another environment default never overwrites the saved value', async () => {
    for (const value of ['true', 'false']) {
      const config = loadConfig({
        DATABASE_URL: app.db.url,
        ALLOW_LIVE_PAYMENTS: value,
        BCRYPT_COST: '4',
        DOCUMENT_SIGNING_SECRET: 'test-document-signing-secret-for-this-suite-0123',
      });
      const restarted = await createGateway(config, createLogger('silent'));
      try {
        const view = await getPaymentSettings(
          { store: restarted.ctx.store, registry: restarted.ctx.events },
          restarted.config,
        );
        assert.equal(view.allow_live_payments, false);
        assert.equal(view.source, 'database');
        assert.equal(view.environment_default, value === 'true');
      } finally {
        await restarted.close();
      }
    }
  });

  test('SPEC 7: the control unreadable or unwritable is 503 payment_settings_unavailable', async () => {
    outage.broken = true;
    try {
      const read = await app.request('GET', PATH, { headers: bearer(admin.token) });
      assert.equal(read.status, 503, read.text);
      assert.equal(read.body.error.code, 'payment_settings_unavailable');
      const write = await app.request('PATCH', PATH, {
        headers: bearer(admin.token),
        json: { allow_live_payments: true },
      });
      assert.equal(write.status, 503, write.text);
      assert.equal(write.body.error.code, 'payment_settings_unavailable');
    } finally {
      outage.broken = false;
    }
    const res = await app.request('GET', PATH, { headers: bearer(admin.token) });
    assert.equal(res.body.data.allow_live_payments, false, 'the failed write saved nothing');
  });
});

describe('SPEC 2.7, 5.8: the scope is reported, never returned', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({
      ...baseEnv,
      ALLOW_UNSCOPED_LIVE_PAYMENTS: 'true',
      LIVE_PAYMENT_SCOPE_JSON: JSON.stringify(SCOPE),
    });
  });
  afterAll(() => app.close());

  test('SPEC 2.7: has_live_payment_scope and issuance_authorized follow the control; no scope content', async () => {
    const { token } = await logIn(app, ADMIN_EMAIL, ADMIN_PASSWORD);
    const off = await app.request('GET', PATH, { headers: bearer(token) });
    assert.equal(off.status, 200);
    assert.equal(off.body.data.allow_live_payments, false);
    assert.equal(off.body.data.has_live_payment_scope, true);
    assert.equal(off.body.data.allow_unscoped_live_payments, true);
    assert.equal(off.body.data.issuance_authorized, false);
    const on = await app.request('PATCH', PATH, {
      headers: bearer(token),
      json: { allow_live_payments: true },
    });
    assert.equal(on.status, 200);
    assert.equal(on.body.data.issuance_authorized, true);
    for (const res of [off, on]) {
      for (const value of Object.values(SCOPE)) assert.ok(!res.text.includes(String(value)));
    }
    const docs = await app.request('GET', '/openapi.json');
    for (const value of Object.values(SCOPE)) assert.ok(!docs.text.includes(String(value)));
  });
});

test('SPEC 5.8: an invalid LIVE_PAYMENT_SCOPE_JSON stops `calebe serve` with exit code 2 and a clear message', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'calebe-scope-'));
  try {
    for (const [scope, message] of [
      ['{not json', /LIVE_PAYMENT_SCOPE_JSON: is not valid JSON/],
      [JSON.stringify({ tenant_id: 'ten_1', provider_id: 'prv_1' }), /LIVE_PAYMENT_SCOPE_JSON\.0\.reference/],
    ] as const) {
      const env: NodeJS.ProcessEnv = {
        ...process.env,
        PORT: '0',
        CALEBE_DATA_DIR: dataDir,
        LIVE_PAYMENT_SCOPE_JSON: scope,
      };
      for (const k of [
        'DATABASE_URL',
        'BOOTSTRAP_ADMIN_EMAIL',
        'BOOTSTRAP_ADMIN_PASSWORD',
        'REDIS_URL',
        'EVENTSTORE_URL',
      ]) {
        delete env[k];
      }
      const { code, out } = await new Promise<{ code: number | null; out: string }>((resolve) => {
        const child = spawn(process.execPath, ['bin/calebe.js', 'serve'], {
          env,
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        let text = '';
        child.stdout.on('data', (c) => (text += c));
        child.stderr.on('data', (c) => (text += c));
        child.on('exit', (exitCode) => resolve({ code: exitCode, out: text }));
      });
      assert.equal(code, 2, out);
      assert.match(out, /invalid configuration/);
      assert.match(out, message);
      assert.doesNotMatch(out, /Server listening/);
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});
