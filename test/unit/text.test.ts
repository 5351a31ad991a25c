import assert from 'node:assert/strict';
import fc from 'fast-check';
import { test } from 'vitest';
import { utf8Bytes, utf8Text } from '../../src/contract/text.ts';

test('SPEC 8: text limits count UTF-8 bytes after trim', () => {
  const reference = utf8Text(1, 100);
  assert.ok(reference.safeParse('a').success);
  assert.ok(
    reference.safeParse(`  ${'a'.repeat(100)}  `).success,
    'surrounding spaces are trimmed before counting',
  );
  assert.ok(!reference.safeParse('a'.repeat(101)).success);
  assert.ok(!reference.safeParse('   ').success, 'only spaces is empty after trim');
  // 'ç' is 2 bytes: 50 of them fill 100 bytes, 51 do not.
  assert.ok(reference.safeParse('ç'.repeat(50)).success);
  assert.ok(!reference.safeParse('ç'.repeat(51)).success);
  // '€' is 3 bytes, an emoji 4.
  assert.equal(utf8Bytes('€'), 3);
  assert.equal(utf8Bytes('😀'), 4);
});

test('SPEC 4.1: the original spelling is kept; only a trimmed copy is measured', () => {
  const parsed = utf8Text(2, 120).parse('  Maria  ');
  assert.equal(parsed, '  Maria  ');
});

test('SPEC 8: the untrimmed variant measures the original value (the Pix phone limit)', () => {
  const phone = utf8Text(1, 20, { trim: false });
  assert.ok(phone.safeParse('11999998888').success);
  assert.ok(!phone.safeParse(` ${'1'.repeat(20)}`).success);
});

test('property: accepted exactly when the trimmed byte length is within the limits', () => {
  const field = utf8Text(2, 30);
  fc.assert(
    fc.property(fc.string({ unit: 'binary', maxLength: 40 }), (s) => {
      const n = Buffer.byteLength(s.trim(), 'utf8');
      assert.equal(field.safeParse(s).success, n >= 2 && n <= 30);
    }),
  );
});
