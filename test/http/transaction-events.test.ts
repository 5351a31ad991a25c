import assert from 'node:assert/strict';
import { afterAll, beforeAll, describe, test } from 'vitest';
import { createUser } from '../../src/commands/users/create/handler.ts';
import { identityDeps } from '../../src/commands/users/identity-deps.ts';
import { newId } from '../../src/ids.ts';
import { ADMIN_EMAIL, ADMIN_PASSWORD, assertError, bearer, logIn, startAdminApp } from '../support/admin.ts';
import { seedChildTenant, seedTenantAndKey } from '../support/fixtures.ts';
import type { TestApp } from '../support/http.ts';
import { populateTransactions } from '../support/transaction-history.ts';

interface EventItem {
  id: string;
  position: number;
  version: number;
  type: string;
  schema_version: number;
  data: Record<string, unknown>;
  metadata: { actor: string; request_id: string | null; tenant_id: string | null };
  recorded_at: string;
}

describe('GET /admin/transactions/{id}/events (issue 5 item 10; SPEC 5.7 "Read transactions")', () => {
  let app: TestApp;
  let headers: Record<'super_admin' | 'tenant_admin' | 'viewer', Record<string, string>>;
  /** The longest history of each tenant: root (the tenant_admin's), child (the viewer's), other. */
  const txn = { root: '', child: '', other: '' };
  let rootTenant = '';

  async function longest(ids: string[]): Promise<string> {
    let best = { id: '', n: 0 };
    for (const id of ids) {
      const n = (await app.gateway.ctx.store.read(`transaction-${id}`)).length;
      if (n > best.n) best = { id, n };
    }
    return best.id;
  }

  beforeAll(async () => {
    app = await startAdminApp();
    const ctx = app.gateway.ctx;
    const root = (await seedTenantAndKey(ctx)).tenantId;
    rootTenant = root;
    const child = (await seedChildTenant(ctx, root)).tenantId;
    const other = (await seedTenantAndKey(ctx)).tenantId;
    const deps = identityDeps(ctx);
    const meta = { actor: 'system:test', request_id: 'req_test' };
    await createUser(
      deps,
      { email: 'ta@example.com', password: 'a long enough password', role: 'tenant_admin', tenant_id: root },
      meta,
    );
    await createUser(
      deps,
      { email: 'viewer@example.com', password: 'a long enough password', role: 'viewer', tenant_id: child },
      meta,
    );
    const events = { store: ctx.store, registry: ctx.events };
    const metadata = { actor: 'user:usr_auditor', request_id: 'req_history', tenant_id: root };
    txn.root = await longest(
      await populateTransactions(events, { count: 6, seed: 7, tenantId: root, metadata, maxSteps: 8 }),
    );
    txn.child = await longest(await populateTransactions(events, { count: 2, seed: 8, tenantId: child }));
    txn.other = await longest(await populateTransactions(events, { count: 2, seed: 9, tenantId: other }));
    headers = {
      super_admin: bearer(await logIn(app, ADMIN_EMAIL, ADMIN_PASSWORD)),
      tenant_admin: bearer(await logIn(app, 'ta@example.com')),
      viewer: bearer(await logIn(app, 'viewer@example.com')),
    };
  });
  afterAll(() => app.close());

  const get = (id: string, h: Record<string, string>) =>
    app.request('GET', `/admin/transactions/${id}/events`, { headers: h });

  test('every event of the stream, in stream order, with type, data, metadata and position', async () => {
    const res = await get(txn.root, headers.super_admin);
    assert.equal(res.status, 200, res.text);
    const items: EventItem[] = res.body.data;
    const recorded = await app.gateway.ctx.store.read(`transaction-${txn.root}`);
    assert.ok(recorded.length >= 2, 'the chosen history has more than its reservation');
    assert.deepEqual(
      items.map((e) => e.version),
      recorded.map((_, i) => i + 1),
    );
    assert.deepEqual(
      items.map((e) => [e.id, e.type, e.position, e.schema_version]),
      recorded.map((r) => [r.id, r.type, r.position, r.schemaVersion]),
    );
    for (let i = 1; i < items.length; i++) {
      assert.ok((items[i]?.position ?? 0) > (items[i - 1]?.position ?? 0), 'positions increase');
    }
    const first = items[0];
    assert.ok(first);
    assert.equal(first.type, 'Transaction.Reserved');
    assert.equal(first.data.transaction_id, txn.root);
    assert.deepEqual(first.metadata, {
      actor: 'user:usr_auditor',
      request_id: 'req_history',
      tenant_id: rootTenant,
      livemode: null,
      correlation_id: null,
      causation_id: null,
    });
    assert.equal(new Date(first.recorded_at).toISOString(), first.recorded_at);
    // Only digests: the Idempotency-Key is never stored, its sha256 is.
    assert.match(String(first.data.idempotency_key_sha256), /^[0-9a-f]{64}$/);
  });

  test("scoped to the caller's tree: super_admin global, tenant_admin and viewer their subtree; else 404", async () => {
    const expect = {
      super_admin: { root: 200, child: 200, other: 200 },
      tenant_admin: { root: 200, child: 200, other: 404 },
      viewer: { root: 404, child: 200, other: 404 },
    } as const;
    for (const role of ['super_admin', 'tenant_admin', 'viewer'] as const) {
      for (const which of ['root', 'child', 'other'] as const) {
        const res = await get(txn[which], headers[role]);
        assert.equal(res.status, expect[role][which], `${role} reading ${which}: ${res.text}`);
        if (res.status === 404) assertError(res, 404, 'not_found');
        else assert.equal(res.body.data[0].data.transaction_id, txn[which]);
      }
    }
  });

  test('issue 23 item 2.10, SPEC 5.7: each role sees the fields of its transaction reads; a viewer never the payer', async () => {
    // The payer of every reservation these histories were written with (test/support/transactions.ts).
    const payer = ['Maria Silva', '12345678901', 'maria@example.com', '11987654321', 'Paulista'];
    const [reserved] = await app.gateway.ctx.store.read(`transaction-${txn.child}`);
    assert.ok(reserved);
    const recorded = reserved.data as {
      amount: number;
      request: { customer: unknown; reference: string };
      provider_request: unknown;
    };
    assert.ok(recorded.request.customer, 'the reservation carries the payer');
    const snapshots = new Map<string, { status: number; text: string; body: { data: unknown } }>();
    for (const role of ['super_admin', 'tenant_admin', 'viewer'] as const) {
      const res = await get(txn.child, headers[role]);
      assert.equal(res.status, 200, `${role}: ${res.text}`);
      const first: EventItem = res.body.data[0];
      assert.equal(first.type, 'Transaction.Reserved');
      const request = first.data.request as Record<string, unknown>;
      if (role === 'viewer') {
        assert.equal(request.customer, null, 'the viewer gets no payer');
        assert.equal(first.data.provider_request, null);
        for (const value of payer) assert.ok(!res.text.includes(value), `viewer sees ${value}`);
        // What the viewer does see is the charge as its reads show it.
        assert.equal(first.data.amount, recorded.amount);
        assert.equal(request.reference, recorded.request.reference);
      } else {
        assert.deepEqual(request.customer, recorded.request.customer, role);
        assert.deepEqual(first.data.provider_request, recorded.provider_request, role);
        assert.ok(res.text.includes('Maria Silva'), role);
      }
      snapshots.set(
        role,
        await app.request('GET', `/admin/transactions/${txn.child}/request`, { headers: headers[role] }),
      );
    }
    // The snapshot alias follows the same rule: the admins read the payer, the viewer does not.
    for (const role of ['super_admin', 'tenant_admin'] as const) {
      const res = snapshots.get(role);
      assert.ok(res);
      assert.equal(res.status, 200, res.text);
      const data = res.body.data as { request: { customer: unknown } };
      assert.deepEqual(data.request.customer, recorded.request.customer);
    }
    const viewer = snapshots.get('viewer');
    assert.ok(viewer);
    assert.equal(viewer.status, 200, viewer.text);
    const data = viewer.body.data as { request: { customer: unknown }; provider_request: unknown };
    assert.equal(data.request.customer, null);
    assert.equal(data.provider_request, null);
    for (const value of payer) assert.ok(!viewer.text.includes(value), `viewer snapshot shows ${value}`);
  });

  test('an unknown transaction or a non-transaction id is 404; no session is 401', async () => {
    assertError(await get(newId('txn'), headers.super_admin), 404, 'not_found');
    assertError(await get('ten_nope', headers.super_admin), 404, 'not_found');
    const anonymous = await get(txn.root, {});
    assert.equal(anonymous.status, 401, anonymous.text);
  });
});
