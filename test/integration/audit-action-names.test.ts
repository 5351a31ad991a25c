import assert from 'node:assert/strict';
import { afterAll, beforeAll, describe, test } from 'vitest';
import { migrations } from '../../migrations/index.ts';
import { createEventRegistry } from '../../src/commands/index.ts';
import { createTestDatabase, type TestDatabase } from '../support/databases.ts';

/**
 * Issue 12 item 5: rows the audit projection wrote before the documented names (action = event type) are
 * renamed by migration 0012, so GET /admin/audit?action=settings.payments.updated (SPEC 4.14) finds them.
 */
/** Event type -> audit action, as the event definitions name them (docs/audit-actions.md). */
const AUDIT_ACTIONS: Readonly<Record<string, string>> = Object.fromEntries(
  createEventRegistry()
    .auditNames()
    .map((n) => [n.type, n.action]),
);

describe('migration 0012: audit rows written with event types get their action names', () => {
  let t: TestDatabase;
  beforeAll(async () => {
    t = await createTestDatabase({ poolSize: 2 });
  });
  afterAll(() => t.drop());

  test('SPEC 4.14: every old action is renamed as audit-actions.ts names it; new names are left alone', async () => {
    const old = [...Object.keys(AUDIT_ACTIONS), 'Provider.SomethingNew', 'settings.payments.updated'];
    await t.db
      .insertInto('audit_log')
      .values(
        old.map((action, i) => ({
          id: `evt_${i}`,
          position: i + 1,
          occurred_at: new Date(),
          actor: 'system:test',
          action,
          target_type: 'x',
          target_id: 'y',
          tenant_id: null,
          request_id: null,
          before: null,
          after: null,
        })),
      )
      .execute();
    const migration = migrations['0012_audit_action_names'];
    assert.ok(migration);
    await migration.up(t.db);
    await migration.up(t.db); // idempotent: a second run changes nothing
    const rows = await t.db.selectFrom('audit_log').select(['id', 'action']).orderBy('position').execute();
    const expected = [...Object.values(AUDIT_ACTIONS), 'provider.something_new', 'settings.payments.updated'];
    assert.deepEqual(
      rows.map((r) => r.action),
      expected,
    );
  });
});
