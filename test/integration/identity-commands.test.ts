import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, test } from 'vitest';
import { DomainError } from '../../src/aggregates/decider.ts';
import { apiKeyStream, loadApiKey } from '../../src/commands/api-keys/api-key-record.ts';
import { issueApiKey } from '../../src/commands/api-keys/issue/handler.ts';
import { revokeApiKey } from '../../src/commands/api-keys/revoke/handler.ts';
import type { CommandDeps } from '../../src/commands/command-handler.ts';
import { createEventRegistry, inlineProjections } from '../../src/commands/index.ts';
import { createTenant } from '../../src/commands/tenants/create/handler.ts';
import { createTenantType } from '../../src/commands/tenants/create-type/handler.ts';
import { reactivateTenant } from '../../src/commands/tenants/reactivate/handler.ts';
import { suspendTenant } from '../../src/commands/tenants/suspend/handler.ts';
import { loadTenant, tenantStream } from '../../src/commands/tenants/tenant-record.ts';
import { tenantTypeNameStream, tenantTypeStream } from '../../src/commands/tenants/tenant-type-record.ts';
import { livemodeOfKey, sha256Hex } from '../../src/crypto/secrets.ts';
import type { EventStore } from '../../src/events/event-store.ts';
import { PostgresEventStore } from '../../src/events/postgres-event-store.ts';
import { createTestDatabase, type TestDatabase } from '../support/databases.ts';

const metadata = { actor: 'user:usr_admin', request_id: 'req_first' };
const other = { actor: 'user:usr_other', request_id: 'req_second' };

function rejectsWith(code: string) {
  return (error: unknown) => error instanceof DomainError && error.code === code;
}

/** The store, except that the first append to a matching stream dies as a crashed process would. */
function crashOnce(store: EventStore, matches: (stream: string) => boolean): EventStore {
  let crashed = false;
  return {
    kind: store.kind,
    supportsInlineProjections: store.supportsInlineProjections,
    async append(stream, events, expected) {
      if (!crashed && matches(stream)) {
        crashed = true;
        throw new Error('simulated crash');
      }
      return store.append(stream, events, expected);
    },
    read: (stream, from) => store.read(stream, from),
    readAll: (after, limit) => store.readAll(after, limit),
    headCheckpoint: () => store.headCheckpoint(),
    onAppended: (listener) => store.onAppended(listener),
    close: async () => {},
  };
}

describe('identity commands (SPEC 2.7, 5, 7; DESIGN.md "Uniqueness uses reservation streams")', () => {
  let t: TestDatabase;
  let store: PostgresEventStore;
  let deps: CommandDeps;
  const registry = createEventRegistry();
  let branchType = '';
  let companyType = '';

  const streamCount = async () =>
    Number((await sql<{ n: string }>`select count(*) as n from streams`.execute(t.db)).rows[0]?.n);

  beforeAll(async () => {
    t = await createTestDatabase();
    store = new PostgresEventStore(t.db, inlineProjections);
    deps = { store, registry, now: () => new Date() };
    branchType = (await createTenantType(deps, { name: 'Branch', allowsChildren: false }, metadata)).type.id;
    companyType = (await createTenantType(deps, { name: 'Company', allowsChildren: true }, metadata)).type.id;
  });
  afterAll(() => t.drop());

  describe('tenant types: unique names through a reservation stream', () => {
    test('SPEC 7 409: a name is unique case-insensitively; an exact repeat answers the same type', async () => {
      const first = await createTenantType(deps, { name: 'Franchise', allowsChildren: true }, metadata);
      assert.equal(first.created, true);
      await assert.rejects(
        createTenantType(deps, { name: 'FRANCHISE', allowsChildren: true }, other),
        rejectsWith('conflict'),
      );
      await assert.rejects(
        createTenantType(deps, { name: 'Franchise', allowsChildren: false }, other),
        rejectsWith('conflict'),
      );
      const repeat = await createTenantType(deps, { name: '  Franchise ', allowsChildren: true }, metadata);
      assert.deepEqual(repeat, { type: first.type, created: false });
      const rows = await t.db
        .selectFrom('tenant_types')
        .select('id')
        .where('name', 'ilike', 'franchise')
        .execute();
      assert.deepEqual(rows, [{ id: first.type.id }]);
    });

    test('concurrent creations of one name: exactly one type, every other request 409', async () => {
      const names = ['Kiosk', 'KIOSK', 'kiosk', 'KiOsK', 'kIOSK', 'Kiosk ', 'KIOSk'];
      const results = await Promise.allSettled(
        names.map((name, i) => createTenantType(deps, { name, allowsChildren: i % 2 === 0 }, metadata)),
      );
      const created = results.filter((r) => r.status === 'fulfilled' && r.value.created);
      assert.equal(created.length, 1);
      for (const r of results) {
        if (r.status === 'rejected') assert.ok(rejectsWith('conflict')(r.reason));
      }
      const rows = await t.db
        .selectFrom('tenant_types')
        .select('id')
        .where('name', 'ilike', 'kiosk')
        .execute();
      assert.equal(rows.length, 1);
    });

    test('a crash between the claim and TenantType.Created: the next request completes it from the claim', async () => {
      const crashing = { ...deps, store: crashOnce(store, (s) => s.startsWith('tenant_type-')) };
      await assert.rejects(
        createTenantType(crashing, { name: 'Marketplace', allowsChildren: true }, metadata),
        /simulated crash/,
      );
      const [claim] = await store.read(tenantTypeNameStream('Marketplace'));
      assert.ok(claim, 'the claim was committed');
      const claimed = claim.data as { type_id: string };
      assert.deepEqual(await store.read(tenantTypeStream(claimed.type_id)), []);
      assert.equal(
        await t.db
          .selectFrom('tenant_types')
          .select('id')
          .where('id', '=', claimed.type_id)
          .executeTakeFirst(),
        undefined,
      );

      // Another administrator asks for the name: the claim wins, the record appears, the answer is 409.
      await assert.rejects(
        createTenantType(deps, { name: 'marketplace', allowsChildren: false }, other),
        rejectsWith('conflict'),
      );
      const [record] = await store.read(tenantTypeStream(claimed.type_id));
      assert.equal(record?.type, 'TenantType.Created');
      assert.deepEqual(record?.data, {
        type_id: claimed.type_id,
        name: 'Marketplace',
        allows_children: true,
      });
      // The record carries the claim's metadata: the audit names who asked, and what caused it.
      assert.equal(record?.metadata.actor, metadata.actor);
      assert.equal(record?.metadata.request_id, metadata.request_id);
      assert.equal(record?.metadata.causation_id, claim.id);
      const row = await t.db
        .selectFrom('tenant_types')
        .selectAll()
        .where('id', '=', claimed.type_id)
        .executeTakeFirstOrThrow();
      assert.equal(row.name, 'Marketplace');

      // The crashed request's retry answers the type it claimed; nothing is appended twice.
      const retry = await createTenantType(deps, { name: 'Marketplace', allowsChildren: true }, metadata);
      assert.deepEqual(retry, {
        type: { id: claimed.type_id, name: 'Marketplace', allows_children: true },
        created: false,
      });
      assert.equal((await store.read(tenantTypeStream(claimed.type_id))).length, 1);
    });

    test('SPEC 7 validation_error: an invalid name is refused before anything is claimed', async () => {
      const n = await streamCount();
      await assert.rejects(
        createTenantType(deps, { name: 'x', allowsChildren: true }, metadata),
        rejectsWith('validation_error'),
      );
      assert.equal(await streamCount(), n);
    });
  });

  describe('tenants', () => {
    test('SPEC 7 not_found / 409: unknown type or parent, or a parent whose type has no children; nothing appended', async () => {
      const leaf = await createTenant(
        deps,
        { name: 'Leaf Branch', typeId: branchType, parentId: null },
        metadata,
      );
      const n = await streamCount();
      await assert.rejects(
        createTenant(deps, { name: 'Orphan', typeId: 'tty_missing', parentId: null }, metadata),
        rejectsWith('not_found'),
      );
      await assert.rejects(
        createTenant(deps, { name: 'Orphan', typeId: companyType, parentId: 'ten_missing' }, metadata),
        rejectsWith('not_found'),
      );
      await assert.rejects(
        createTenant(deps, { name: 'Under Leaf', typeId: companyType, parentId: leaf.id }, metadata),
        rejectsWith('conflict'),
      );
      assert.equal(await streamCount(), n);
    });

    test('suspend and reactivate append once; repeats append nothing; unknown tenant is not_found', async () => {
      const ten = await createTenant(deps, { name: 'Toggle', typeId: companyType, parentId: null }, metadata);
      assert.equal((await suspendTenant(deps, ten.id, metadata)).status, 'suspended');
      assert.equal((await suspendTenant(deps, ten.id, metadata)).status, 'suspended');
      assert.equal((await reactivateTenant(deps, ten.id, metadata)).status, 'active');
      assert.equal((await reactivateTenant(deps, ten.id, metadata)).status, 'active');
      const types = (await store.read(tenantStream(ten.id))).map((e) => e.type);
      assert.deepEqual(types, ['Tenant.Created', 'Tenant.Suspended', 'Tenant.Reactivated']);
      await assert.rejects(suspendTenant(deps, 'ten_missing', metadata), rejectsWith('not_found'));
      await assert.rejects(reactivateTenant(deps, 'ten_missing', metadata), rejectsWith('not_found'));
    });

    test('SPEC 7 cannot_suspend_self: not the acting user’s tenant nor one above it; below it is fine', async () => {
      const root = await createTenant(deps, { name: 'Root', typeId: companyType, parentId: null }, metadata);
      const mid = await createTenant(deps, { name: 'Mid', typeId: companyType, parentId: root.id }, metadata);
      const leaf = await createTenant(deps, { name: 'Leaf', typeId: branchType, parentId: mid.id }, metadata);
      for (const target of [root.id, mid.id]) {
        await assert.rejects(
          suspendTenant(deps, target, metadata, { actorTenantId: mid.id }),
          rejectsWith('cannot_suspend_self'),
        );
      }
      await suspendTenant(deps, leaf.id, metadata, { actorTenantId: mid.id });
      assert.equal((await loadTenant(deps, leaf.id))?.status, 'suspended');
      assert.equal((await loadTenant(deps, mid.id))?.status, 'active');
    });
  });

  describe('API keys', () => {
    test('SPEC 5.1, 2.7: the secret is returned once and stored nowhere, only its SHA-256', async () => {
      const ten = await createTenant(deps, { name: 'Keyed', typeId: companyType, parentId: null }, metadata);
      const issued = await issueApiKey(
        deps,
        {
          tenantId: ten.id,
          livemode: true,
          name: 'ERP',
          scopes: ['pix:write', 'transactions:read'],
          accessProfile: 'standard',
          createdBy: 'user:usr_admin',
        },
        metadata,
      );
      assert.equal(livemodeOfKey(issued.key), true);
      assert.ok(issued.key.startsWith('clb_live_'));
      assert.ok(!JSON.stringify(issued.record).includes(issued.key));
      const leaked = await sql<{ n: string }>`
        select count(*) as n from events where data::text like ${`%${issued.key}%`}
          or metadata::text like ${`%${issued.key}%`}`.execute(t.db);
      assert.equal(Number(leaked.rows[0]?.n), 0);
      const row = await t.db
        .selectFrom('api_keys')
        .selectAll()
        .where('id', '=', issued.keyId)
        .executeTakeFirstOrThrow();
      assert.equal(row.secret_sha256, sha256Hex(issued.key));
      assert.equal(row.prefix, issued.key.slice(0, 'clb_live_'.length + 4));
      assert.ok(!JSON.stringify(row).includes(issued.key));
      assert.deepEqual(await loadApiKey(deps, issued.keyId), issued.record);
    });

    test('SPEC 7 not_found: a key for an unknown tenant; revoking an unknown key', async () => {
      const n = await streamCount();
      await assert.rejects(
        issueApiKey(
          deps,
          {
            tenantId: 'ten_missing',
            livemode: false,
            name: 'ERP',
            scopes: ['pix:write'],
            accessProfile: 'standard',
            createdBy: 'user:usr_admin',
          },
          metadata,
        ),
        rejectsWith('not_found'),
      );
      await assert.rejects(revokeApiKey(deps, 'key_missing', metadata), rejectsWith('not_found'));
      assert.equal(await streamCount(), n);
    });

    test('revoking is idempotent: one ApiKey.Revoked, revoked_at kept from the first', async () => {
      const ten = await createTenant(
        deps,
        { name: 'Revoker', typeId: companyType, parentId: null },
        metadata,
      );
      const { keyId } = await issueApiKey(
        deps,
        {
          tenantId: ten.id,
          livemode: false,
          name: 'Temp',
          scopes: ['transactions:read'],
          accessProfile: 'developer',
          createdBy: 'user:usr_admin',
        },
        metadata,
      );
      assert.equal((await revokeApiKey(deps, keyId, metadata)).status, 'revoked');
      const first = await t.db
        .selectFrom('api_keys')
        .select('revoked_at')
        .where('id', '=', keyId)
        .executeTakeFirst();
      assert.ok(first?.revoked_at instanceof Date);
      assert.equal((await revokeApiKey(deps, keyId, other)).status, 'revoked');
      const again = await t.db
        .selectFrom('api_keys')
        .select('revoked_at')
        .where('id', '=', keyId)
        .executeTakeFirst();
      assert.deepEqual(again, first);
      assert.deepEqual(
        (await store.read(apiKeyStream(keyId))).map((e) => e.type),
        ['ApiKey.Issued', 'ApiKey.Revoked'],
      );
    });
  });
});
