import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, test } from 'vitest';
import { issueApiKey } from '../../src/commands/api-keys/issue/handler.ts';
import { revokeApiKey } from '../../src/commands/api-keys/revoke/handler.ts';
import type { CommandDeps } from '../../src/commands/command-handler.ts';
import { auditProjection, createEventRegistry, inlineProjections } from '../../src/commands/index.ts';
import { updatePaymentSettings } from '../../src/commands/payment-settings/update/handler.ts';
import { getPaymentSettings } from '../../src/commands/payment-settings/view.ts';
import { login } from '../../src/commands/sessions/login/handler.ts';
import { createTenant } from '../../src/commands/tenants/create/handler.ts';
import { createTenantType } from '../../src/commands/tenants/create-type/handler.ts';
import { suspendTenant } from '../../src/commands/tenants/suspend/handler.ts';
import {
  authorizeLiveIssuance,
  authorizeLiveRefresh,
} from '../../src/commands/transactions/shared/live-payments.ts';
import { changePassword } from '../../src/commands/users/change-password/handler.ts';
import { createUser } from '../../src/commands/users/create/handler.ts';
import type { IdentityDeps } from '../../src/commands/users/identity-deps.ts';
import { loadConfig } from '../../src/config.ts';
import { sha256Hex } from '../../src/crypto/secrets.ts';
import { PostgresEventStore } from '../../src/events/postgres-event-store.ts';
import type { Projection } from '../../src/events/projection.ts';
import { stripSecrets, targetOf } from '../../src/projections/audit.ts';
import { ProjectionRunner, readCheckpoint } from '../../src/projections/projection-runner.ts';
import { createTestDatabase, type TestDatabase } from '../support/databases.ts';

const meta = (request_id: string, actor = 'user:usr_admin') => ({ actor, request_id });

describe('audit read model (SPEC 4.14, 5.6, 5.7 "Read logs")', () => {
  let t: TestDatabase;
  let store: PostgresEventStore;
  let deps: IdentityDeps;
  let runner: ProjectionRunner;
  const secrets: string[] = [];
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    t = await createTestDatabase();
    store = new PostgresEventStore(t.db, inlineProjections);
    deps = { store, registry: createEventRegistry(), now: () => new Date(), db: t.db, bcryptCost: 4 };
    runner = new ProjectionRunner(t.db, store, [auditProjection]);

    const { type } = await createTenantType(
      deps,
      { name: 'Audit type', allowsChildren: true },
      meta('req_type'),
    );
    const root = await createTenant(
      deps,
      { name: 'Root', typeId: type.id, parentId: null },
      meta('req_root'),
    );
    const child = await createTenant(
      deps,
      { name: 'Child', typeId: type.id, parentId: root.id },
      meta('req_child'),
    );
    ids.root = root.id;
    ids.child = child.id;
    const issued = await issueApiKey(
      deps,
      {
        tenantId: child.id,
        livemode: true,
        name: 'audit key',
        scopes: ['transactions:read'],
        accessProfile: 'standard',
        createdBy: 'user:usr_admin',
      },
      meta('req_key'),
    );
    ids.key = issued.keyId;
    secrets.push(issued.key, sha256Hex(issued.key));
    await revokeApiKey(deps, issued.keyId, meta('req_revoke'));
    const password = 'a long enough password';
    const { user } = await createUser(
      deps,
      { email: 'viewer@example.com', password, role: 'viewer', tenant_id: child.id },
      meta('req_user'),
    );
    ids.user = user.id;
    secrets.push(password);
    await changePassword(deps, user.id, 'another long password', meta('req_pw'));
    secrets.push('another long password');
    const session = await login(
      deps,
      { email: 'viewer@example.com', password: 'another long password' },
      meta('req_login', 'anonymous'),
    );
    secrets.push(session.token, sha256Hex(session.token));
    await suspendTenant(deps, child.id, meta('req_suspend'));
    const config = loadConfig({ ALLOW_LIVE_PAYMENTS: 'true' });
    await updatePaymentSettings(
      deps,
      config,
      { allowLivePayments: false, updatedBy: 'usr_admin' },
      meta('req_set'),
    );
    await runner.catchUp(auditProjection);
  });
  afterAll(async () => {
    await runner.stop();
    await t.drop();
  });

  const rows = () => t.db.selectFrom('audit_log').selectAll().orderBy('position').execute();

  test('SPEC 4.14: a settings change is recorded with previous and new values, administrator and request id', async () => {
    const [row] = await t.db
      .selectFrom('audit_log')
      .selectAll()
      .where('action', '=', 'settings.payments.updated')
      .execute();
    assert.ok(row);
    assert.equal(row.actor, 'user:usr_admin');
    assert.equal(row.request_id, 'req_set');
    assert.equal(row.target_type, 'payment_settings');
    assert.equal(row.target_id, 'global');
    assert.equal(row.tenant_id, null);
    assert.deepEqual(row.before, { allow_live_payments: true });
    assert.deepEqual(row.after, { allow_live_payments: false });
  });

  test('SPEC 5.7: records are attributed to the tenant whose tree may read them', async () => {
    const all = await rows();
    const byAction = (action: string) => all.filter((r) => r.action === action);
    assert.equal(byAction('tenant.created').find((r) => r.target_id === ids.child)?.tenant_id, ids.child);
    assert.equal(byAction('api_key.created')[0]?.tenant_id, ids.child);
    // The revocation names only the key: it inherits the issuance's tenant.
    assert.equal(byAction('api_key.revoked')[0]?.tenant_id, ids.child);
    assert.equal(byAction('user.password_changed')[0]?.tenant_id, ids.child);
    // The session names only the user: it inherits the user's tenant.
    assert.equal(byAction('session.created')[0]?.tenant_id, ids.child);
    assert.equal(byAction('tenant.suspended')[0]?.tenant_id, ids.child);
    // Reservation claims are not recorded twice.
    assert.equal(byAction('user_email.claimed').length, 0);
    assert.equal(byAction('tenant_type_name.reserved').length, 0);
  });

  test('SPEC 5.6: no password, password hash, token, token hash or key digest reaches the audit log', async () => {
    const text = JSON.stringify(await rows());
    for (const secret of secrets) assert.ok(!text.includes(secret), 'a secret reached the audit log');
    assert.ok(!/\$2[aby]\$/.test(text), 'a bcrypt hash reached the audit log');
    assert.ok(!/password_hash|token_sha256|secret_sha256/.test(text));
  });

  test('the audit log rebuilds to the same rows from the events', async () => {
    const first = await rows();
    await runner.rebuild(auditProjection);
    assert.deepEqual(await rows(), first);
  });

  const indexes = async () =>
    (
      await sql<{ indexname: string; indexdef: string }>`
        select indexname, indexdef from pg_indexes where tablename = 'audit_log' order by indexname`.execute(
        t.db,
      )
    ).rows;

  test('issue 7 B4: rebuildAll (secondary indexes dropped, tenants kept in memory) leaves the same rows and indexes', async () => {
    const first = await rows();
    const made = await indexes();
    assert.equal(made.length, 5, 'the primary key and the four secondary indexes of the migration');
    // Batches of 2: attributions inherited across batches (a key's revocation, a session) come from memory.
    const n = await runner.rebuildAll([auditProjection], undefined, 2);
    assert.ok(n > 0);
    assert.deepEqual(await rows(), first);
    assert.deepEqual(await indexes(), made);
  });

  test('issue 14 B4: rebuildAll writing through COPY FROM STDIN leaves the same rows and indexes, escapes included', async () => {
    // A payload and metadata with every character COPY's text format escapes, and a unicode one.
    const odd = 'tab\there\nnew line\r\\back\\slash "quoted" ção \\N';
    await store.append(
      `widget-${randomUUID()}`,
      [
        {
          id: randomUUID(),
          type: 'Widget.Renamed',
          data: { tenant_id: ids.child, name: odd, nested: { list: [odd, null, 1] } },
          metadata: { actor: `user:${odd}`, request_id: `req\t${odd}` },
        },
      ],
      'no_stream',
    );
    await runner.catchUp(auditProjection);
    const first = await rows();
    assert.ok(first.some((r) => (r.after as { name?: string } | null)?.name === odd));
    const made = await indexes();
    const copying = new ProjectionRunner(t.db, store, [auditProjection], { copyFromStdin: true });
    const n = await copying.rebuildAll([auditProjection], undefined, 3);
    assert.ok(n > 0);
    assert.deepEqual(await rows(), first);
    assert.deepEqual(await indexes(), made);
  });

  test('issue 7 B4: a rebuild that fails midway builds the indexes back before it throws; a catch-up completes it', async () => {
    const first = await rows();
    const made = await indexes();
    const bulk = auditProjection.bulkLoad;
    assert.ok(bulk);
    let batches = 0;
    const failing: Projection = {
      ...auditProjection,
      bulkLoad: {
        async begin(trx) {
          const loader = await bulk.begin(trx);
          return {
            async handleBatch(events, trx) {
              if (++batches === 3) throw new Error('rebuild died');
              await loader.handleBatch(events, trx);
            },
          };
        },
        restore: bulk.restore,
      },
    };
    const other = new ProjectionRunner(t.db, store, [failing]);
    await assert.rejects(other.rebuildAll([failing], undefined, 2), /rebuild died/);
    assert.deepEqual(await indexes(), made);
    assert.ok((await rows()).length < first.length, 'the rebuild stopped midway');
    await other.catchUp(auditProjection);
    assert.deepEqual(await rows(), first);
  });

  test('issue 7 B4: a rebuild killed after dropping the indexes: the next catch-up or started runner builds them back', async () => {
    const first = await rows();
    const made = await indexes();
    const bulk = auditProjection.bulkLoad;
    assert.ok(bulk);
    // What a process killed during the pass leaves: the reset and the dropped indexes committed, some
    // batches applied through the loader (no lookup), the rest never.
    const killed = async () => {
      await t.db.transaction().execute(async (trx) => {
        await auditProjection.reset(trx);
        await trx
          .updateTable('projection_checkpoints')
          .set({ tx: 0, pos: 0 })
          .where('name', '=', 'audit_log')
          .execute();
        const loader = await bulk.begin(trx);
        const some = await store.readAll({ tx: 0, pos: 0 }, 5);
        await loader.handleBatch(some, trx);
        const last = some.at(-1);
        assert.ok(last);
        await trx
          .updateTable('projection_checkpoints')
          .set({ tx: last.checkpoint.tx, pos: last.checkpoint.pos })
          .where('name', '=', 'audit_log')
          .execute();
      });
      assert.deepEqual(
        (await indexes()).map((i) => i.indexname),
        ['audit_log_pkey'],
      );
    };

    await killed();
    await new ProjectionRunner(t.db, store, [auditProjection]).catchUp(auditProjection);
    assert.deepEqual(await indexes(), made);
    assert.deepEqual(await rows(), first);

    await killed();
    const started = new ProjectionRunner(t.db, store, [auditProjection], { idleMs: 5 });
    started.start();
    try {
      const head = await store.headCheckpoint();
      for (let i = 0; i < 2000; i++) {
        const at = await readCheckpoint(t.db, 'audit_log');
        if (at.tx === head.tx && at.pos === head.pos) break;
        await new Promise((r) => setTimeout(r, 10));
      }
    } finally {
      await started.stop();
    }
    assert.deepEqual(await indexes(), made);
    assert.deepEqual(await rows(), first);
  });

  test('stripSecrets drops secret fields at any depth; targetOf splits stream names', () => {
    assert.deepEqual(
      stripSecrets({
        a: 1,
        password_hash: 'x',
        nested: [{ credentials_ciphertext: 'y', iv: 'z', ok: true }],
      }),
      { a: 1, nested: [{ ok: true }] },
    );
    assert.deepEqual(targetOf('payment_settings-global'), { type: 'payment_settings', id: 'global' });
    assert.deepEqual(targetOf('idempotency-ten_1-abc'), { type: 'idempotency', id: 'ten_1-abc' });
  });

  test('SPEC 4.14, 5.8: the saved value overrides the environment default at once, with no restart', async () => {
    const scope = loadConfig({
      ALLOW_LIVE_PAYMENTS: 'true',
      LIVE_PAYMENT_SCOPE_JSON: JSON.stringify({
        tenant_id: ids.child,
        provider_id: 'prv_1',
        reference: 'order-1',
        idempotency_key: 'key-1',
        amount: 500,
      }),
    });
    const live = { deps: deps satisfies CommandDeps, config: scope };
    const charge = {
      tenantId: ids.child ?? '',
      providerId: 'prv_1',
      reference: 'order-1',
      idempotencyKey: 'key-1',
      amount: 500,
      method: 'pix' as const,
    };
    // Saved off above: the environment's true does not apply.
    assert.equal((await getPaymentSettings(deps, scope)).source, 'database');
    await assert.rejects(authorizeLiveIssuance(live, charge), { code: 'live_payments_disabled' });
    await assert.rejects(authorizeLiveRefresh(live, { providerId: 'prv_1' }), {
      code: 'live_payments_disabled',
    });
    await updatePaymentSettings(
      deps,
      scope,
      { allowLivePayments: true, updatedBy: 'usr_admin' },
      meta('req_on'),
    );
    await authorizeLiveIssuance(live, charge);
    await authorizeLiveRefresh(live, { providerId: 'prv_1' });
    await assert.rejects(authorizeLiveIssuance(live, { ...charge, amount: 501 }), {
      code: 'live_payment_out_of_scope',
    });
    await assert.rejects(authorizeLiveRefresh(live, { providerId: 'prv_2' }), {
      code: 'live_payment_out_of_scope',
    });
  });

  test('SPEC 4.14: concurrent saves each record the value they replaced', async () => {
    const config = loadConfig({});
    await Promise.all(
      [true, false, true, false].map((allow, i) =>
        updatePaymentSettings(
          deps,
          config,
          { allowLivePayments: allow, updatedBy: `usr_${i}` },
          meta(`req_c${i}`),
        ),
      ),
    );
    const events = (await store.read('payment_settings-global')).map((r) => deps.registry.decode(r).data);
    const changes = events as { allow_live_payments: boolean; previous_allow_live_payments: boolean }[];
    for (let i = 1; i < changes.length; i++) {
      const [prev, cur] = [changes[i - 1], changes[i]];
      assert.ok(prev && cur);
      assert.equal(cur.previous_allow_live_payments, prev.allow_live_payments);
      assert.notEqual(cur.allow_live_payments, prev.allow_live_payments);
    }
  });

  test('unknown event types are recorded generically, without secrets; tenant from the payload or an API key', async () => {
    const append = (stream: string, type: string, data: unknown, metadata: Record<string, string>) =>
      store.append(
        stream,
        [{ id: randomUUID(), type, data, metadata: { actor: 'system:test', ...metadata } }],
        'any',
      );
    await append(
      'provider-prv_generic',
      'Provider.SomethingNew',
      {
        provider_id: 'prv_generic',
        api_key: 'sk_live_secret',
        nested: { credentials_ciphertext: 'c1', ok: 1 },
      },
      { actor: 'user:usr_admin', tenant_id: ids.root ?? '', request_id: 'req_gen' },
    );
    await append(
      'charge-txn_generic',
      'Charge.SomethingNew',
      { transaction_id: 'txn_generic', amount: 100 },
      { actor: 'api_key:key_x', tenant_id: ids.child ?? '' },
    );
    await runner.catchUp(auditProjection);
    const provider = await t.db
      .selectFrom('audit_log')
      .selectAll()
      .where('action', '=', 'provider.something_new')
      .executeTakeFirstOrThrow();
    assert.equal(provider.target_type, 'provider');
    assert.equal(provider.target_id, 'prv_generic');
    assert.equal(provider.request_id, 'req_gen');
    // A panel user's own tenant says nothing about a platform change: super_admin only.
    assert.equal(provider.tenant_id, null);
    assert.deepEqual(provider.after, { provider_id: 'prv_generic', nested: { ok: 1 } });
    assert.equal(provider.before, null);
    const charge = await t.db
      .selectFrom('audit_log')
      .selectAll()
      .where('action', '=', 'charge.something_new')
      .executeTakeFirstOrThrow();
    assert.equal(charge.tenant_id, ids.child);
    assert.equal(charge.request_id, null);
  });
});
