import assert from 'node:assert/strict';
import { describe, test } from 'vitest';
import { z } from 'zod';
import { defineEvent, EventRegistry, parsedWith } from '../../src/events/event-registry.ts';

// Issue 14: a payload a decider has just parsed with the event's own schema is not parsed a second time by
// `encode`; anything else still is (DESIGN.md: every payload validated before it is appended).
const schema = z.strictObject({ n: z.number().int() });
const other = z.strictObject({ n: z.number() });
const registry = new EventRegistry([defineEvent({ type: 'T.Happened', version: 1, schema })]);

describe('EventRegistry.encode and parsedWith', () => {
  test('a payload parsed with the event schema is stored as is (no second pass)', () => {
    const data = parsedWith(schema, schema.parse({ n: 1 }));
    assert.equal(registry.encode({ type: 'T.Happened', data }).data, data);
  });

  test('an unmarked payload, or one parsed with another schema, is validated', () => {
    const plain = { n: 1 };
    assert.notEqual(registry.encode({ type: 'T.Happened', data: plain }).data, plain);
    assert.throws(() => registry.encode({ type: 'T.Happened', data: { n: 1.5 } }));
    assert.throws(() => registry.encode({ type: 'T.Happened', data: parsedWith(other, { n: 1.5 }) }));
  });
});
