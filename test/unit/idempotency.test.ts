import assert from 'node:assert/strict';
import fc from 'fast-check';
import { describe, test } from 'vitest';
import { canonicalJson, idempotencyStream, requestHash } from '../../src/commands/idempotency.ts';

/** Reorders every object's keys, recursively, keeping arrays in place. */
function shuffleKeys(value: unknown, seed: number): unknown {
  if (Array.isArray(value)) return value.map((v) => shuffleKeys(v, seed + 1));
  if (value === null || typeof value !== 'object') return value;
  const entries = Object.entries(value);
  const rotated = entries.map((_, i) => entries[(i + seed) % entries.length] as [string, unknown]);
  return Object.fromEntries(rotated.map(([k, v]) => [k, shuffleKeys(v, seed + 1)]));
}

describe('idempotency request hash (SPEC 4 common rules: property order does not matter)', () => {
  test('SPEC 4: canonical JSON sorts keys at every level and keeps array order', () => {
    assert.equal(canonicalJson({ b: 1, a: { d: [2, 1], c: null } }), '{"a":{"c":null,"d":[2,1]},"b":1}');
    assert.equal(canonicalJson({ a: undefined, b: 'x' }), '{"b":"x"}');
    assert.equal(canonicalJson('é"'), JSON.stringify('é"'));
  });

  test('SPEC 4: any property order gives the same hash (property test)', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.nat(7), (value, seed) => {
        assert.equal(requestHash('POST', '/x', value), requestHash('POST', '/x', shuffleKeys(value, seed)));
      }),
    );
  });

  test('SPEC 4: another body, method or route gives another hash', () => {
    const body = { tenant_id: 'ten_1', amount: 100 };
    const h = requestHash('POST', '/v1/pix', body);
    assert.notEqual(h, requestHash('POST', '/v1/pix', { ...body, amount: 101 }));
    assert.notEqual(h, requestHash('POST', '/v1/boleto', body), 'a Pix key reused on boleto conflicts');
    assert.notEqual(h, requestHash('PUT', '/v1/pix', body));
    assert.equal(h, requestHash('post', '/v1/pix', body), 'the method is case-insensitive');
    assert.notEqual(requestHash('POST', '/x', [1, 2]), requestHash('POST', '/x', [2, 1]));
  });

  test('DESIGN reservation streams: idempotency-<scope>-<sha256(key)>, scopes kept apart', () => {
    const s = idempotencyStream('ten_1', 'abc');
    assert.match(s, /^idempotency-ten_1-[0-9a-f]{64}$/);
    assert.notEqual(s, idempotencyStream('ten_2', 'abc'));
    assert.notEqual(s, idempotencyStream('ten_1', 'abd'));
    assert.ok(!s.includes('abc'), 'the key itself is not in the stream id');
  });
});
