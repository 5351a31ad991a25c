import assert from 'node:assert/strict';
import { test } from 'vitest';
import { z } from 'zod';
import { transactionEvents } from '../../src/aggregates/transaction.ts';
import { EventRegistry } from '../../src/events/event-registry.ts';

// Issue 14: a charge's stream is folded without a zod pass per stored event (EventRegistry.decodeStored).
// That is only the same as `decode` while parsing returns what it accepts: no schema of a transaction event
// may default, transform, coerce or catch a value.

/** The paths inside `schema` that would make `parse` return something other than its input. */
function valueChangingParts(schema: z.core.$ZodType, path: string, seen = new Set<unknown>()): string[] {
  if (seen.has(schema)) return [];
  seen.add(schema);
  const def = schema._zod.def as unknown as Record<string, unknown> & { type: string };
  if (['transform', 'default', 'prefault', 'catch', 'pipe'].includes(def.type))
    return [`${path}: ${def.type}`];
  if (def.coerce === true) return [`${path}: coerce`];
  const inner = (s: unknown, p: string) => valueChangingParts(s as z.core.$ZodType, p, seen);
  switch (def.type) {
    case 'object':
      return Object.entries(def.shape as Record<string, unknown>).flatMap(([k, s]) =>
        inner(s, `${path}.${k}`),
      );
    case 'optional':
    case 'nullable':
    case 'readonly':
    case 'nonoptional':
      return inner(def.innerType, path);
    case 'array':
      return inner(def.element, `${path}[]`);
    case 'union':
      return (def.options as unknown[]).flatMap((s, i) => inner(s, `${path}|${i}`));
    case 'intersection':
      return [...inner(def.left, path), ...inner(def.right, path)];
    case 'record':
      return [...inner(def.keyType, `${path}{key}`), ...inner(def.valueType, `${path}{}`)];
    case 'tuple':
      return (def.items as unknown[]).flatMap((s, i) => inner(s, `${path}[${i}]`));
    case 'lazy':
      return inner((def.getter as () => unknown)(), path);
    default:
      return [];
  }
}

test('issue 14: every transaction event schema returns what it accepts, so a stored payload needs no parse', () => {
  const found = transactionEvents.flatMap((d) => valueChangingParts(d.schema as z.core.$ZodType, d.type));
  assert.deepEqual(found, []);
});

test('the walker finds what would change a value (a default inside an optional object)', () => {
  const schema = z.strictObject({ a: z.strictObject({ b: z.number().default(1) }).optional() });
  assert.deepEqual(valueChangingParts(schema, 'x'), ['x.a.b: default']);
});

test('decodeStored answers a current-version payload as stored and upcasts an older one like decode', () => {
  const registry = new EventRegistry([
    {
      type: 'Thing.Done',
      version: 2,
      schema: z.strictObject({ n: z.number() }),
      upcasters: { 1: (data) => ({ n: Number((data as { m: string }).m) }) },
    },
  ]);
  const stored = { n: 7 };
  assert.equal(registry.decodeStored({ type: 'Thing.Done', schemaVersion: 2, data: stored }).data, stored);
  assert.deepEqual(registry.decodeStored({ type: 'Thing.Done', schemaVersion: 1, data: { m: '3' } }).data, {
    n: 3,
  });
  assert.throws(() => registry.decodeStored({ type: 'Thing.Done', schemaVersion: 1, data: { m: 'x' } }));
});
