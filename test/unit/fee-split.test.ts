import assert from 'node:assert/strict';
import fc from 'fast-check';
import { describe, test } from 'vitest';
import {
  type FeeLevel,
  feeFacts,
  isFeeRefusal,
  levelFee,
  percentPart,
  splitOf,
  totalFee,
} from '../../src/aggregates/fees.ts';

/**
 * Issue 28 item 4, SPEC 2.2 (`retained_amount`, `split`, `tenant_fee_id`, `fee_starts_on`), 7
 * (`fee_exceeds_amount`, `split_*`): integer centavos, each level's percentage part rounded half up, summed.
 */

const level = (
  tenantId: string,
  percentBps: number,
  fixedAmount: number,
  feeId = `fee_${tenantId}`,
): FeeLevel => ({
  feeId,
  tenantId,
  percentBps,
  fixedAmount,
  startsOn: '2026-11-01',
});

describe('rounding rule: percentage part half up per level', () => {
  test('worked examples', () => {
    // 1.99% of R$ 10,00 = 19.9 centavos -> 20; of R$ 0,25 = 0.4975 -> 0; 2.00% of R$ 0,25 = 0.5 -> 1.
    assert.equal(percentPart(1000, 199), 20);
    assert.equal(percentPart(25, 199), 0);
    assert.equal(percentPart(25, 200), 1);
    assert.equal(percentPart(100_000_000, 10_000), 100_000_000);
    // Per level, then summed: two levels of 0.5 centavo each retain 1 + 1, not round(1.0) = 1.
    assert.equal(totalFee(25, [level('a', 200, 0), level('b', 200, 0)]), 2);
    assert.equal(levelFee(1000, level('a', 199, 30)), 50);
  });

  test('property: the part is the exact quotient rounded half up', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 100_000_000 }),
        fc.integer({ min: 0, max: 10_000 }),
        (amount, bps) => {
          const part = percentPart(amount, bps);
          const exact = BigInt(amount) * BigInt(bps); // in 1/10000 centavo
          // part - 1/2 <= exact/10000 < part + 1/2
          assert.ok(BigInt(part) * 20_000n - 10_000n <= exact * 2n);
          assert.ok(exact * 2n < BigInt(part) * 20_000n + 10_000n);
        },
      ),
    );
  });
});

describe('fee facts of a new charge', () => {
  test('own and inherited: retained sums every level; tenant_fee_id names only the own version', () => {
    const f = feeFacts({
      tenantId: 'child',
      method: 'pix',
      amount: 10_000,
      levels: [level('root', 100, 10), level('child', 50, 5)],
    });
    assert.ok(!isFeeRefusal(f));
    assert.deepEqual(f, {
      retained_amount: 100 + 10 + 50 + 5,
      on: 'pix',
      tenant_fee_id: 'fee_child',
      fee_starts_on: '2026-11-01',
    });
    // Positive inheritance: only an ancestor has fees -> own fields null.
    const inherited = feeFacts({
      tenantId: 'child',
      method: 'pix',
      amount: 10_000,
      levels: [level('root', 100, 10)],
    });
    assert.ok(!isFeeRefusal(inherited));
    assert.equal(inherited.retained_amount, 110);
    assert.equal(inherited.tenant_fee_id, null);
    assert.equal(inherited.fee_starts_on, null);
  });

  test('fees above the amount are fee_exceeds_amount; equal to it, split_no_merchant_amount', () => {
    assert.equal(
      (
        feeFacts({ tenantId: 't', method: 'boleto', amount: 300, levels: [level('t', 0, 301)] }) as {
          code: string;
        }
      ).code,
      'fee_exceeds_amount',
    );
    assert.equal(
      (
        feeFacts({ tenantId: 't', method: 'pix', amount: 300, levels: [level('t', 0, 300)] }) as {
          code: string;
        }
      ).code,
      'split_no_merchant_amount',
    );
    // No fees anywhere: nothing retained, a split of the whole amount.
    assert.deepEqual(feeFacts({ tenantId: 't', method: 'credit_card', amount: 1, levels: [] }), {
      retained_amount: 0,
      on: 'credit_card',
      tenant_fee_id: null,
      fee_starts_on: null,
    });
  });

  test('a boleto fixes its attached Pix fees too; only split shows them once paid by Pix (SPEC 2.2)', () => {
    const f = feeFacts({
      tenantId: 't',
      method: 'boleto',
      amount: 10_000,
      levels: [level('t', 0, 250)],
      pixLevels: [level('t', 99, 0, 'fee_pix')],
    });
    assert.ok(!isFeeRefusal(f));
    assert.equal(f.pix_retained_amount, 99);
    assert.deepEqual(splitOf(10_000, f, null), {
      total_fee_amount: 250,
      merchant_amount: 9_750,
      on: 'boleto',
    });
    assert.deepEqual(splitOf(10_000, f, 'boleto'), {
      total_fee_amount: 250,
      merchant_amount: 9_750,
      on: 'boleto',
    });
    assert.deepEqual(splitOf(10_000, f, 'pix'), { total_fee_amount: 99, merchant_amount: 9_901, on: 'pix' });
    const tooMuchPix = feeFacts({
      tenantId: 't',
      method: 'boleto',
      amount: 100,
      levels: [],
      pixLevels: [level('t', 0, 100)],
    });
    assert.equal((tooMuchPix as { code: string }).code, 'split_pix_fee_exceeds_amount');
    // Older history carries no fee facts: split null.
    assert.equal(splitOf(10_000, null, 'pix'), null);
  });

  const levels = fc.array(
    fc.record({
      percentBps: fc.integer({ min: 0, max: 10_000 }),
      fixedAmount: fc.integer({ min: 0, max: 5_000 }),
    }),
    { maxLength: 6 },
  );

  test('property: accepted fees never exceed the amount, the parts sum to the whole, inheritance sums every level', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 100_000_000 }),
        levels,
        fc.constantFrom('pix' as const, 'credit_card' as const),
        (amount, ls, method) => {
          const chain = ls.map((l, i) => level(`t${i}`, l.percentBps, l.fixedAmount));
          const own = chain.at(-1);
          const f = feeFacts({ tenantId: own?.tenantId ?? 'none', method, amount, levels: chain });
          const expected = chain.reduce(
            (sum, l) => sum + Math.floor((amount * l.percentBps + 5_000) / 10_000) + l.fixedAmount,
            0,
          );
          if (isFeeRefusal(f)) {
            assert.equal(f.total, expected);
            assert.ok(f.code === 'fee_exceeds_amount' ? expected > amount : expected === amount);
            return;
          }
          assert.equal(f.retained_amount, expected);
          assert.ok(f.retained_amount < amount || f.retained_amount === 0);
          const split = splitOf(amount, f, null);
          assert.ok(split);
          assert.equal(split.total_fee_amount + split.merchant_amount, amount);
          assert.ok(split.merchant_amount > 0);
          assert.equal(split.on, method);
          assert.equal(f.tenant_fee_id, own?.feeId ?? null);
        },
      ),
    );
  });
});
