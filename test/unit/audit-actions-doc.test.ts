import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'vitest';
import { AUDIT_DOC, auditActionsDoc } from '../../scripts/audit-actions-doc.ts';
import { createEventRegistry } from '../../src/commands/index.ts';

/** Stable dotted lower-case names, as SPEC 4.14 writes `settings.payments.updated`. */
const ACTION = /^[a-z][a-z_]*(\.[a-z][a-z_]*)+$/;

describe('audit action names (SPEC 4.14; issue 24 item 1: generated from the event definitions)', () => {
  test('docs/audit-actions.md is what the event definitions say (npm run docs:audit rewrites it)', () => {
    const page = readFileSync(AUDIT_DOC, 'utf8');
    assert.equal(page, auditActionsDoc(page));
  });

  test('every name is dotted lower case and no two event types share one', () => {
    const names = createEventRegistry().auditNames();
    for (const n of names) assert.match(n.action, ACTION, n.type);
    assert.equal(new Set(names.map((n) => n.action)).size, names.length);
  });
});
