import assert from 'node:assert/strict';
import { afterAll, beforeAll, describe, test } from 'vitest';
import { createEventRegistry, inlineProjections } from '../../src/commands/index.ts';
import {
  bootstrapSimulator,
  SIMULATOR_PROVIDER_ID,
  simulatorEnabled,
} from '../../src/commands/providers/bootstrap-simulator.ts';
import { createProvider } from '../../src/commands/providers/create/handler.ts';
import { updateProvider } from '../../src/commands/providers/update/handler.ts';
import { createRoutingRule } from '../../src/commands/routing-rules/create/handler.ts';
import { updateRoutingRule } from '../../src/commands/routing-rules/update/handler.ts';
import { PostgresEventStore } from '../../src/events/postgres-event-store.ts';
import { createLogger } from '../../src/logger.ts';
import { defaultProviderRegistry } from '../../src/providers/registry.ts';
import { resolveProviderFor } from '../../src/routing/resolve-provider.ts';
import { createTestDatabase, type TestDatabase } from '../support/databases.ts';
import { seedChildTenant, seedTenantAndKey } from '../support/fixtures.ts';

const metadata = { actor: 'system:test', request_id: 'req_routing' };
const logger = createLogger('silent');

describe('routing against the read models (SPEC 2.8)', () => {
  let t: TestDatabase;
  let ctx: { store: PostgresEventStore; events: ReturnType<typeof createEventRegistry>; now: () => Date };
  const deps = () => ({
    store: ctx.store,
    registry: ctx.events,
    now: ctx.now,
    config: { DATABASE_URL: t.url, CALEBE_DATA_DIR: '/nonexistent' },
    adapters: { providers: defaultProviderRegistry },
  });

  beforeAll(async () => {
    t = await createTestDatabase();
    ctx = {
      store: new PostgresEventStore(t.db, inlineProjections),
      events: createEventRegistry(),
      now: () => new Date(),
    };
  });
  afterAll(() => t.drop());

  test('SPEC 2.8 last line: ENABLE_SIMULATOR defaults to on only without DATABASE_URL', () => {
    assert.equal(simulatorEnabled({ ENABLE_SIMULATOR: undefined, DATABASE_URL: undefined }), true);
    assert.equal(simulatorEnabled({ ENABLE_SIMULATOR: undefined, DATABASE_URL: 'postgres://x' }), false);
    assert.equal(simulatorEnabled({ ENABLE_SIMULATOR: true, DATABASE_URL: 'postgres://x' }), true);
    assert.equal(simulatorEnabled({ ENABLE_SIMULATOR: false, DATABASE_URL: undefined }), false);
  });

  test('simulator bootstrap: several instances at once create one provider and its three rules (pix, boleto, card); restarts keep edits', async () => {
    // Two stores on one database stand for two instances starting together.
    const second = { ...deps(), store: new PostgresEventStore(t.db, inlineProjections) };
    await Promise.all([
      bootstrapSimulator(deps(), logger),
      bootstrapSimulator(second, logger),
      bootstrapSimulator(deps(), logger),
    ]);
    const events = await t.db
      .selectFrom('events')
      .select(['stream_id', 'type'])
      .where('stream_id', 'in', [
        'provider-prv_simulator',
        'routing_rule-rul_simulator_pix',
        'routing_rule-rul_simulator_boleto',
        'routing_rule-rul_simulator_credit_card',
      ])
      .execute();
    assert.equal(events.length, 4);
    const rules = await t.db.selectFrom('routing_rules').selectAll().execute();
    assert.deepEqual(rules.map((r) => [r.method, r.tenant_id, r.provider_id]).sort(), [
      ['boleto', null, SIMULATOR_PROVIDER_ID],
      ['credit_card', null, SIMULATOR_PROVIDER_ID],
      ['pix', null, SIMULATOR_PROVIDER_ID],
    ]);
    // An administrator's change survives the next start.
    await updateProvider(deps(), SIMULATOR_PROVIDER_ID, { name: 'Renamed simulator' }, metadata);
    await updateRoutingRule(deps(), 'rul_simulator_pix', { enabled: false }, metadata);
    await bootstrapSimulator(deps(), logger);
    const p = await t.db
      .selectFrom('providers')
      .selectAll()
      .where('id', '=', SIMULATOR_PROVIDER_ID)
      .executeTakeFirstOrThrow();
    assert.equal(p.name, 'Renamed simulator');
    const pix = await t.db
      .selectFrom('routing_rules')
      .selectAll()
      .where('id', '=', 'rul_simulator_pix')
      .executeTakeFirstOrThrow();
    assert.equal(pix.enabled, false);
    await updateRoutingRule(deps(), 'rul_simulator_pix', { enabled: true }, metadata);
  });

  test('SPEC 2.8: own rule, then ancestors nearest first, then global; oldest creation breaks priority ties', async () => {
    const root = await seedTenantAndKey(ctx);
    const mid = await seedChildTenant(ctx, root.tenantId);
    const leaf = await seedChildTenant(ctx, mid.tenantId);
    const mk = async (name: string) =>
      (
        await createProvider(
          deps(),
          {
            name,
            kind: 'external',
            environment: 'production',
            enabledMethods: ['pix'],
            isMarketplace: false,
          },
          metadata,
        )
      ).provider.id;
    const [pRoot, pMid, pLeafA, pLeafB] = [
      await mk('root'),
      await mk('mid'),
      await mk('leaf a'),
      await mk('leaf b'),
    ];
    const rule = async (tenantId: string, providerId: string, priority: number) =>
      (
        await createRoutingRule(
          deps(),
          { method: 'pix', tenantId, providerId, priority, enabled: true },
          metadata,
        )
      ).rule.id;
    const pixFor = (tenantId: string) => resolveProviderFor(t.db, { tenantId, method: 'pix', amount: 100 });

    assert.equal((await pixFor(leaf.tenantId)).provider.id, SIMULATOR_PROVIDER_ID, 'global only');
    await rule(root.tenantId, pRoot, 0);
    assert.equal((await pixFor(leaf.tenantId)).provider.id, pRoot);
    assert.equal((await pixFor(leaf.tenantId)).level, 2);
    await rule(mid.tenantId, pMid, 500);
    assert.equal((await pixFor(leaf.tenantId)).provider.id, pMid, 'nearest ancestor, whatever the priority');
    const first = await rule(leaf.tenantId, pLeafA, 10);
    await rule(leaf.tenantId, pLeafB, 10);
    const own = await pixFor(leaf.tenantId);
    assert.deepEqual(
      [own.provider.id, own.ruleId, own.level],
      [pLeafA, first, 0],
      'same priority: oldest wins',
    );
    // Deactivating the provider lets the next rule of the same level take over; then the parent's.
    await updateProvider(deps(), pLeafA, { enabled: false }, metadata);
    assert.equal((await pixFor(leaf.tenantId)).provider.id, pLeafB);
    await updateProvider(deps(), pLeafB, { enabledMethods: ['boleto'] }, metadata);
    assert.equal((await pixFor(leaf.tenantId)).provider.id, pMid);
    // The parent does not see the child's rules.
    assert.equal((await pixFor(mid.tenantId)).provider.id, pMid);
    assert.equal((await pixFor(root.tenantId)).provider.id, pRoot);
  });

  test('SPEC 7: provider_not_configured without any usable rule; amount_limit_exceeded on the chosen rule', async () => {
    const lone = await seedTenantAndKey(ctx);
    await updateRoutingRule(deps(), 'rul_simulator_boleto', { enabled: false }, metadata);
    await assert.rejects(resolveProviderFor(t.db, { tenantId: lone.tenantId, method: 'boleto', amount: 1 }), {
      code: 'provider_not_configured',
    });
    await updateRoutingRule(deps(), 'rul_simulator_boleto', { enabled: true, maxAmount: 100 }, metadata);
    await assert.rejects(
      resolveProviderFor(t.db, { tenantId: lone.tenantId, method: 'boleto', amount: 101 }),
      {
        code: 'amount_limit_exceeded',
      },
    );
  });
});
