import assert from 'node:assert/strict';
import fc from 'fast-check';
import { describe, test } from 'vitest';
import { centavosToReais, centavosToReaisText, reaisToCentavos } from '../../src/providers/safe2pay/money.ts';

// Wire doc 2.4: Safe2Pay money is decimal reais; SPEC 1: the gateway's is integer centavos (1250 = R$ 12,50).
describe('Safe2Pay amounts: centavos <-> decimal reais, exactly (issue 13)', () => {
  test('SPEC 1 example: 1250 centavos is 12.50 reais, and back', () => {
    assert.equal(centavosToReaisText(1250), '12.50');
    assert.equal(JSON.stringify({ UnitPrice: centavosToReais(1250) }), '{"UnitPrice":12.5}');
    assert.equal(centavosToReaisText(1), '0.01');
    assert.equal(centavosToReaisText(100_000_000), '1000000.00');
  });

  test('every SPEC 8 amount (1..100000000) survives centavos -> reais text -> centavos', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 100_000_000 }), (centavos) => {
        assert.equal(reaisToCentavos(centavosToReaisText(centavos)), centavos);
      }),
      { numRuns: 20_000 },
    );
  });

  test('…and through the JSON number the body carries, as the provider reads it back', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 100_000_000 }), (centavos) => {
        const wire = JSON.parse(JSON.stringify({ v: centavosToReais(centavos) })).v;
        assert.equal(reaisToCentavos(wire), centavos);
      }),
      { numRuns: 20_000 },
    );
  });

  test('provider shapes "12.5", "12.50", 12.5 and "12.500" are 1250; edge amounts are exact', () => {
    assert.equal(reaisToCentavos('12.5'), 1250);
    assert.equal(reaisToCentavos('12.50'), 1250);
    assert.equal(reaisToCentavos(12.5), 1250);
    assert.equal(reaisToCentavos('12.500'), 1250);
    assert.equal(reaisToCentavos(0.1), 10);
    assert.equal(reaisToCentavos(0.29), 29); // 0.29 * 100 is 28.999999999999996 in float arithmetic
    assert.equal(reaisToCentavos(1000000), 100_000_000);
    assert.equal(reaisToCentavos('7'), 700);
  });

  test('anything that is not an exact amount of centavos is rejected, never rounded', () => {
    for (const bad of [
      '12.505',
      12.505,
      '12,50',
      '1e3',
      1e21,
      '-1.00',
      -1,
      '',
      ' ',
      '.5',
      '01.00',
      'NaN',
      Number.NaN,
      null,
      true,
      {},
    ]) {
      assert.equal(reaisToCentavos(bad), null, `${String(bad)} must be rejected`);
    }
  });

  test('the builder refuses what is not integer centavos', () => {
    assert.throws(() => centavosToReaisText(12.5), RangeError);
    assert.throws(() => centavosToReaisText(-1), RangeError);
  });
});
