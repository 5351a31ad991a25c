import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, test } from 'vitest';
import { transactionStream } from '../../src/commands/transactions/shared/stream.ts';
import { assertError, idem, roleTokens, startAdminApp } from '../support/admin.ts';
import { boletoBody } from '../support/charges.ts';
import { seedTenantAndKey } from '../support/fixtures.ts';
import type { TestApp } from '../support/http.ts';

/** SPEC 4.2 (`POST /admin/boleto`), 5.7 (Create boleto: super_admin chosen tenant, tenant_admin own tree). */

let app: TestApp;
let tokens: Awaited<ReturnType<typeof roleTokens>>;

function create(headers: Record<string, string>, json: unknown, key = randomUUID()) {
  return app.request('POST', '/admin/boleto', { headers: { ...headers, ...idem(key) }, json });
}

async function eventCount(): Promise<number> {
  const { rows } = await sql<{ n: string }>`select count(*) as n from events`.execute(app.gateway.ctx.db);
  return Number(rows[0]?.n);
}

beforeAll(async () => {
  app = await startAdminApp({ ENABLE_SIMULATOR: 'true' });
  tokens = await roleTokens(app);
});
afterAll(() => app.close());

describe('POST /admin/boleto (SPEC 4.2, 5.7)', () => {
  test('super_admin charges a chosen tenant: 201, live mode on the simulator, actor in the metadata', async () => {
    const res = await create(tokens.super_admin, boletoBody({}, { tenant_id: tokens.tenantId }));
    assert.equal(res.status, 201, res.text);
    const t = res.body.data;
    assert.equal(t.tenant_id, tokens.tenantId);
    assert.equal(t.method, 'boleto');
    assert.equal(t.livemode, true);
    assert.equal(t.simulated, true);
    assert.equal(t.environment, 'sandbox');
    const [reserved] = await app.gateway.ctx.store.read(transactionStream(t.id));
    assert.match(reserved?.metadata.actor ?? '', /^user:usr_/);
  });

  test('tenant_admin defaults to its own tenant; a replay is 200 Idempotency-Replayed', async () => {
    const key = randomUUID();
    const first = await create(tokens.tenant_admin, boletoBody(), key);
    assert.equal(first.status, 201, first.text);
    assert.equal(first.body.data.tenant_id, tokens.tenantId);
    const again = await create(tokens.tenant_admin, boletoBody(), key);
    assert.equal(again.status, 200, again.text);
    assert.equal(again.headers.get('idempotency-replayed'), 'true');
    assert.equal(again.body.data.id, first.body.data.id);
    assertError(
      await create(tokens.tenant_admin, boletoBody({}, { amount: 1 }), key),
      409,
      'idempotency_conflict',
    );
  });

  test('refusals append nothing: viewer 403, other tree 404, super_admin without tenant 422, bad body', async () => {
    const other = await seedTenantAndKey(app.gateway.ctx);
    const before_ = await eventCount();
    assertError(await create(tokens.viewer, boletoBody()), 403, 'forbidden');
    assertError(
      await create(tokens.tenant_admin, boletoBody({}, { tenant_id: other.tenantId })),
      404,
      'not_found',
    );
    const noTenant = await create(tokens.super_admin, boletoBody());
    assertError(noTenant, 422, 'validation_error');
    assert.equal(noTenant.body.error.param, 'tenant_id');
    assertError(
      await create(tokens.super_admin, boletoBody({}, { tenant_id: 'ten_missing' })),
      404,
      'not_found',
    );
    assertError(
      await create(tokens.super_admin, boletoBody({ due_date: '2000-01-01' }, { tenant_id: other.tenantId })),
      422,
      'validation_error',
    );
    assertError(
      await create(tokens.super_admin, boletoBody({}, { tenant_id: other.tenantId, provider_id: 'prv_x' })),
      400,
      'invalid_json',
    );
    assertError(
      await app.request('POST', '/admin/boleto', { headers: tokens.super_admin, json: boletoBody() }),
      400,
      'idempotency_key_required',
    );
    assertError(await app.request('POST', '/admin/boleto', { json: boletoBody() }), 401, 'unauthorized');
    assert.equal(await eventCount(), before_);
  });

  test('a suspended tenant: 403 tenant_suspended', async () => {
    const other = await seedTenantAndKey(app.gateway.ctx);
    const suspend = await app.request('POST', `/admin/tenants/${other.tenantId}/suspend`, {
      headers: tokens.super_admin,
    });
    assert.equal(suspend.status, 200, suspend.text);
    assertError(
      await create(tokens.super_admin, boletoBody({}, { tenant_id: other.tenantId })),
      403,
      'tenant_suspended',
    );
  });
});
