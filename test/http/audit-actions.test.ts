import assert from 'node:assert/strict';
import { afterAll, beforeAll, describe, test } from 'vitest';
import { auditProjection, createEventRegistry, domainEvents } from '../../src/commands/index.ts';
import { ADMIN_EMAIL, ADMIN_PASSWORD, bearer, logIn, startAdminApp } from '../support/admin.ts';
import type { TestApp } from '../support/http.ts';

/** Stable dotted lower-case names, as SPEC 4.14 writes `settings.payments.updated`. */
const ACTION = /^[a-z][a-z_]*(\.[a-z][a-z_]*)+$/;

/** Reservation claims guard another record, which is audited itself (src/projections/audit.ts). */
const NOT_AUDITED = new Set(['UserEmail.Claimed', 'TenantTypeName.Reserved', 'Idempotency.Claimed']);

/**
 * Issue 12 item 5: SPEC 4.14 names the settings audit action `settings.payments.updated`; entries were
 * recorded with the event type (`PaymentSettings.Updated`). Every audited event type now has a documented
 * action name (docs/audit-actions.md), and GET /admin/audit filters on it as the SPEC writes it.
 */
/** Event type -> audit action, as the event definitions name them (docs/audit-actions.md). */
const AUDIT_ACTIONS: Readonly<Record<string, string>> = Object.fromEntries(
  createEventRegistry()
    .auditNames()
    .map((n) => [n.type, n.action]),
);

describe('audit action names (SPEC 4.14, 5.7)', () => {
  let app: TestApp;
  let admin: Record<string, string>;
  beforeAll(async () => {
    app = await startAdminApp();
    admin = bearer(await logIn(app, ADMIN_EMAIL, ADMIN_PASSWORD));
  });
  afterAll(() => app.close());

  async function auditEntries(query: string) {
    // The audit log is an async projection: bring it up to date as the worker would.
    await app.gateway.runner.catchUp(auditProjection);
    const res = await app.request('GET', `/admin/audit${query}`, { headers: admin });
    assert.equal(res.status, 200, res.text);
    return res.body.data as { action: string; request_id: string }[];
  }

  test('SPEC 4.14: the settings change is filterable as settings.payments.updated', async () => {
    const patch = await app.request('PATCH', '/admin/settings/payments', {
      headers: admin,
      json: { allow_live_payments: true },
    });
    assert.equal(patch.status, 200, patch.text);
    const [entry, ...rest] = await auditEntries('?action=settings.payments.updated');
    assert.ok(entry, 'the change is audited under its SPEC name');
    assert.equal(rest.length, 0);
    assert.equal(entry.action, 'settings.payments.updated');
    assert.equal(entry.request_id, patch.headers.get('x-request-id'));
    // The event-type spelling the filter took before issue 12 still finds it.
    const [same] = await auditEntries('?action=PaymentSettings.Updated');
    assert.equal(same?.action, 'settings.payments.updated');
  });

  test('every audited action is a dotted lower-case name', async () => {
    const all = await auditEntries('?limit=100');
    assert.ok(all.length >= 3);
    for (const e of all) assert.match(e.action, ACTION);
    assert.ok(all.some((e) => e.action === 'session.created'));
  });

  test('one documented action per audited event type, all distinct', () => {
    const types = domainEvents.map((d) => d.type).filter((t) => !NOT_AUDITED.has(t));
    for (const type of types) {
      assert.ok(AUDIT_ACTIONS[type], `${type} has an action name`);
      assert.match(AUDIT_ACTIONS[type] ?? '', ACTION);
    }
    const names = Object.values(AUDIT_ACTIONS);
    assert.equal(new Set(names).size, names.length, 'no two event types share a name');
    assert.equal(AUDIT_ACTIONS['PaymentSettings.Updated'], 'settings.payments.updated');
  });
});
