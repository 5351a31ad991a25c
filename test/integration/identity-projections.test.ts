import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { type Selectable, sql } from 'kysely';
import { afterAll, beforeAll, describe, test } from 'vitest';
import { type ApiKeyEvent, apiKey } from '../../src/aggregates/api-key.ts';
import { fold } from '../../src/aggregates/decider.ts';
import { type TenantEvent, tenant } from '../../src/aggregates/tenant.ts';
import { type TenantTypeEvent, tenantType } from '../../src/aggregates/tenant-type.ts';
import { issueApiKey } from '../../src/commands/api-keys/issue/handler.ts';
import { revokeApiKey } from '../../src/commands/api-keys/revoke/handler.ts';
import type { CommandDeps } from '../../src/commands/command-handler.ts';
import { createEventRegistry, inlineProjections } from '../../src/commands/index.ts';
import { createTenant } from '../../src/commands/tenants/create/handler.ts';
import { createTenantType } from '../../src/commands/tenants/create-type/handler.ts';
import { reactivateTenant } from '../../src/commands/tenants/reactivate/handler.ts';
import { suspendTenant } from '../../src/commands/tenants/suspend/handler.ts';
import type { ApiKeysTable, TenantsTable, TenantTypesTable } from '../../src/db/schema.ts';
import type { EventRegistry } from '../../src/events/event-registry.ts';
import { PostgresEventStore } from '../../src/events/postgres-event-store.ts';
import { apiKeysProjection } from '../../src/projections/api-keys.ts';
import { ProjectionRunner } from '../../src/projections/projection-runner.ts';
import { tenantsProjection } from '../../src/projections/tenants.ts';
import { createTestDatabase, type TestDatabase } from '../support/databases.ts';

const metadata = { actor: 'system:test', request_id: 'req_identity' };

interface ReadModels {
  tenant_types: unknown[];
  tenants: unknown[];
  api_keys: unknown[];
}

const byId = (a: { id: string }, b: { id: string }) => a.id.localeCompare(b.id);

/** The three read models, as stored. */
async function readModels(t: TestDatabase): Promise<ReadModels> {
  return {
    tenant_types: await t.db.selectFrom('tenant_types').selectAll().orderBy('id').execute(),
    tenants: await t.db.selectFrom('tenants').selectAll().orderBy('id').execute(),
    api_keys: await t.db.selectFrom('api_keys').selectAll().orderBy('id').execute(),
  };
}

/**
 * The same read models computed from the log alone: every stream of the three categories folded with its
 * decider, timestamps from the events' recorded times. Streams are read one by one (not through readAll),
 * so an open transaction elsewhere in the cluster cannot hide recent events.
 */
async function foldOfStreams(t: TestDatabase, store: PostgresEventStore, registry: EventRegistry) {
  const { rows } = await sql<{ stream_id: string }>`
    select stream_id from streams where stream_id like 'tenant_type-%' or stream_id like 'tenant-%'
      or stream_id like 'api_key-%'`.execute(t.db);
  const out: {
    tenant_types: Selectable<TenantTypesTable>[];
    tenants: Selectable<TenantsTable>[];
    api_keys: Selectable<ApiKeysTable>[];
  } = { tenant_types: [], tenants: [], api_keys: [] };
  for (const { stream_id } of rows) {
    const recorded = await store.read(stream_id);
    const first = recorded[0];
    const last = recorded.at(-1);
    if (!first || !last) continue;
    const events = recorded.map((r) => registry.decode(r));
    if (stream_id.startsWith('tenant_type-')) {
      const s = fold(tenantType, events as TenantTypeEvent[]);
      assert.equal(s.status, 'created');
      out.tenant_types.push({
        id: s.typeId,
        name: s.name,
        allows_children: s.allowsChildren,
        created_at: first.recordedAt,
      });
    } else if (stream_id.startsWith('tenant-')) {
      const s = fold(tenant, events as TenantEvent[]);
      assert.notEqual(s.status, 'none');
      if (s.status === 'none') continue;
      out.tenants.push({
        id: s.tenantId,
        name: s.name,
        type_id: s.typeId,
        parent_id: s.parentId,
        ancestor_ids: [...s.ancestorIds],
        status: s.status,
        created_at: first.recordedAt,
        updated_at: last.recordedAt,
      });
    } else {
      const s = fold(apiKey, events as ApiKeyEvent[]);
      if (s.status === 'none') continue;
      const revokedEvent = recorded.find((r) => r.type === 'ApiKey.Revoked');
      out.api_keys.push({
        id: s.key_id,
        secret_sha256: s.secret_sha256,
        prefix: s.prefix,
        tenant_id: s.tenant_id,
        livemode: s.livemode,
        name: s.name,
        scopes: s.scopes,
        access_profile: s.access_profile,
        created_by: s.created_by,
        created_at: first.recordedAt,
        revoked_at: revokedEvent?.recordedAt ?? null,
      });
    }
  }
  return {
    tenant_types: out.tenant_types.sort(byId),
    tenants: out.tenants.sort(byId),
    api_keys: out.api_keys.sort(byId),
  };
}

describe('identity read models: tenant_types, tenants, api_keys (DESIGN.md "Projections", SPEC 5.5)', () => {
  let t: TestDatabase;
  let store: PostgresEventStore;
  let deps: CommandDeps;
  const registry = createEventRegistry();
  const tree = { root: '', child: '', grandchild: '', otherRoot: '' };

  beforeAll(async () => {
    t = await createTestDatabase();
    store = new PostgresEventStore(t.db, inlineProjections);
    deps = { store, registry, now: () => new Date() };
  });
  afterAll(() => t.drop());

  test('SPEC 5.5: a 3-level tree carries ancestor_ids root first, self last', async () => {
    const holding = await createTenantType(deps, { name: 'Holding', allowsChildren: true }, metadata);
    const company = await createTenantType(deps, { name: 'Company', allowsChildren: true }, metadata);
    const branch = await createTenantType(deps, { name: 'Branch', allowsChildren: false }, metadata);
    const root = await createTenant(
      deps,
      { name: 'Root SA', typeId: holding.type.id, parentId: null },
      metadata,
    );
    const child = await createTenant(
      deps,
      { name: 'Child Ltda', typeId: company.type.id, parentId: root.id },
      metadata,
    );
    const grandchild = await createTenant(
      deps,
      { name: 'Grandchild ME', typeId: branch.type.id, parentId: child.id },
      metadata,
    );
    const otherRoot = await createTenant(
      deps,
      { name: 'Other Root', typeId: holding.type.id, parentId: null },
      metadata,
    );
    Object.assign(tree, {
      root: root.id,
      child: child.id,
      grandchild: grandchild.id,
      otherRoot: otherRoot.id,
    });

    const rows = await t.db.selectFrom('tenants').select(['id', 'parent_id', 'ancestor_ids']).execute();
    const of = (id: string) => rows.find((r) => r.id === id);
    assert.deepEqual(of(root.id), { id: root.id, parent_id: null, ancestor_ids: [root.id] });
    assert.deepEqual(of(child.id), { id: child.id, parent_id: root.id, ancestor_ids: [root.id, child.id] });
    assert.deepEqual(of(grandchild.id), {
      id: grandchild.id,
      parent_id: child.id,
      ancestor_ids: [root.id, child.id, grandchild.id],
    });
    // The GIN-indexed subtree query the session revocation and summaries use.
    const subtree = await sql<{ id: string }>`
      select id from tenants where ancestor_ids @> array[${child.id}]::text[] order by id`.execute(t.db);
    assert.deepEqual(
      subtree.rows.map((r) => r.id),
      [child.id, grandchild.id].sort(),
    );
  });

  test('the inline read models equal the fold of the streams after suspensions, keys and revocations', async () => {
    await suspendTenant(deps, tree.child, metadata);
    await reactivateTenant(deps, tree.child, metadata);
    await suspendTenant(deps, tree.otherRoot, metadata);
    await suspendTenant(deps, tree.otherRoot, metadata); // no-op
    const base = {
      name: 'Integration',
      scopes: ['transactions:read'] as const,
      accessProfile: 'standard' as const,
      createdBy: 'user:usr_admin',
    };
    await issueApiKey(deps, { ...base, tenantId: tree.root, livemode: false }, metadata);
    const live = await issueApiKey(deps, { ...base, tenantId: tree.child, livemode: true }, metadata);
    await issueApiKey(
      deps,
      { ...base, tenantId: tree.grandchild, livemode: false, accessProfile: 'developer' },
      metadata,
    );
    await revokeApiKey(deps, live.keyId, metadata);
    await revokeApiKey(deps, live.keyId, metadata); // no-op

    const models = await readModels(t);
    assert.deepEqual(models, await foldOfStreams(t, store, registry));
    assert.equal(models.tenant_types.length, 3);
    assert.equal(models.tenants.length, 4);
    assert.equal(models.api_keys.length, 3);
    const statuses = await t.db.selectFrom('tenants').select(['id', 'status']).execute();
    assert.equal(statuses.find((r) => r.id === tree.child)?.status, 'active');
    assert.equal(statuses.find((r) => r.id === tree.otherRoot)?.status, 'suspended');
  });

  test('property: any sequence of identity commands leaves the read models equal to the fold', async () => {
    const op = fc.oneof(
      fc.record({ kind: fc.constant('tenant' as const), parent: fc.nat(), allows: fc.boolean() }),
      fc.record({ kind: fc.constantFrom('suspend' as const, 'reactivate' as const), target: fc.nat() }),
      fc.record({ kind: fc.constant('key' as const), target: fc.nat(), livemode: fc.boolean() }),
      fc.record({ kind: fc.constant('revoke' as const), target: fc.nat() }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 5, maxLength: 25 }), async (ops) => {
        const tenants: string[] = [tree.root];
        const keys: string[] = [];
        const pick = (ids: readonly string[], n: number) => ids[n % ids.length];
        for (const o of ops) {
          // Refusals (a parent whose type forbids children) are part of the run: they must leave no trace.
          try {
            if (o.kind === 'tenant') {
              const { type } = await createTenantType(
                deps,
                { name: `T ${randomUUID()}`, allowsChildren: o.allows },
                metadata,
              );
              const parentId = pick(tenants, o.parent) ?? null;
              tenants.push(
                (await createTenant(deps, { name: 'Node', typeId: type.id, parentId }, metadata)).id,
              );
            } else if (o.kind === 'suspend' || o.kind === 'reactivate') {
              const id = pick(tenants, o.target) ?? tree.root;
              await (o.kind === 'suspend' ? suspendTenant : reactivateTenant)(deps, id, metadata);
            } else if (o.kind === 'key') {
              const tenantId = pick(tenants, o.target) ?? tree.root;
              const issued = await issueApiKey(
                deps,
                {
                  tenantId,
                  livemode: o.livemode,
                  name: 'k1',
                  scopes: ['pix:write'],
                  accessProfile: 'standard',
                  createdBy: 'system:test',
                },
                metadata,
              );
              keys.push(issued.keyId);
            } else {
              const id = pick(keys, o.target);
              if (id) await revokeApiKey(deps, id, metadata);
            }
          } catch (error) {
            assert.equal((error as { code?: string }).code, 'conflict');
          }
        }
        assert.deepEqual(await readModels(t), await foldOfStreams(t, store, registry));
      }),
      { numRuns: 6 },
    );
  });

  test('a rebuild (ProjectionRunner.rebuild) reproduces the read models exactly, even after damage', async () => {
    const before = await readModels(t);
    // Damage both read models: a rebuild must not depend on what is there.
    await sql`update tenants set status = 'active', name = 'tampered'`.execute(t.db);
    await sql`delete from api_keys where revoked_at is not null`.execute(t.db);
    await sql`update tenant_types set allows_children = not allows_children`.execute(t.db);
    assert.notDeepEqual(await readModels(t), before);

    const runner = new ProjectionRunner(t.db, store, [tenantsProjection, apiKeysProjection]);
    await runner.rebuild(tenantsProjection);
    await runner.rebuild(apiKeysProjection);
    assert.deepEqual(await readModels(t), before);
    assert.deepEqual(await readModels(t), await foldOfStreams(t, store, registry));
  });
});
