import assert from 'node:assert/strict';
import fc from 'fast-check';
import { describe, test } from 'vitest';
import { DomainError } from '../../src/aggregates/decider.ts';
import type { PaymentMethod } from '../../src/aggregates/provider.ts';
import {
  type CandidateProvider,
  type CandidateRule,
  type Resolution,
  resolveProvider,
} from '../../src/routing/resolve-provider.ts';

const CHAIN = ['ten_root', 'ten_mid', 'ten_leaf'];
const method = fc.constantFrom<PaymentMethod>('pix', 'boleto');

const providerArb: fc.Arbitrary<CandidateProvider | undefined> = fc.option(
  fc.record({
    id: fc.constantFrom('prv_a', 'prv_b', 'prv_c'),
    kind: fc.constantFrom('simulator' as const, 'external' as const),
    environment: fc.constantFrom('sandbox' as const, 'production' as const),
    enabled: fc.boolean(),
    enabledMethods: fc.subarray(['pix', 'boleto']),
    isMarketplace: fc.constant(false),
  }),
  { nil: undefined, freq: 8 },
);

const ruleArb = (i: number): fc.Arbitrary<CandidateRule> =>
  fc.record({
    id: fc.constant(`rul_${String(i).padStart(3, '0')}`),
    method,
    tenantId: fc.constantFrom<string | null>(null, 'ten_other', ...CHAIN),
    // Small ranges so ties on priority and creation time are common.
    priority: fc.integer({ min: 0, max: 3 }),
    maxAmount: fc.integer({ min: 1, max: 1000 }),
    enabled: fc.boolean(),
    createdAt: fc.integer({ min: 0, max: 3 }).map((s) => new Date(1_700_000_000_000 + s * 1000)),
    provider: providerArb,
  });

const rulesArb = fc
  .integer({ min: 0, max: 14 })
  .chain((n) => fc.tuple(...Array.from({ length: n }, (_, i) => ruleArb(i))))
  .chain((rules) => fc.shuffledSubarray(rules, { minLength: rules.length, maxLength: rules.length }));

const request = fc.record({
  method,
  amount: fc.integer({ min: 1, max: 1000 }),
  depth: fc.integer({ min: 1, max: CHAIN.length }),
});

function attempt(fn: () => Resolution): Resolution | string {
  try {
    return fn();
  } catch (error) {
    assert.ok(error instanceof DomainError);
    return error.code;
  }
}

/** SPEC 2.8 restated as one sort key: (level nearest first, priority, creation, id); global is last. */
function oracle(rules: readonly CandidateRule[], m: PaymentMethod, chain: readonly string[]) {
  const levelOf = (r: CandidateRule) =>
    r.tenantId === null ? chain.length : chain.toReversed().indexOf(r.tenantId);
  const eligible = rules.filter(
    (r) =>
      r.enabled &&
      r.method === m &&
      r.provider?.enabled === true &&
      r.provider.enabledMethods.includes(m) &&
      levelOf(r) >= 0,
  );
  const key = (r: CandidateRule) => [levelOf(r), r.priority, r.createdAt.getTime()] as const;
  return eligible.sort((a, b) => {
    const [ka, kb] = [key(a), key(b)];
    for (let i = 0; i < 3; i++) if (ka[i] !== kb[i]) return (ka[i] ?? 0) - (kb[i] ?? 0);
    return a.id.localeCompare(b.id);
  })[0];
}

describe('routing resolver (SPEC 2.8)', () => {
  test('SPEC 2.8 steps 1-4: picks the minimum of (nearest level, priority, creation, id) among eligible rules', () => {
    fc.assert(
      fc.property(rulesArb, request, (rules, req) => {
        const chain = CHAIN.slice(0, req.depth);
        const expected = oracle(rules, req.method, chain);
        const got = attempt(() =>
          resolveProvider({ method: req.method, amount: req.amount, ancestorIds: chain }, rules),
        );
        if (!expected) {
          assert.ok(got === 'provider_not_configured' || got === 'provider_method_disabled', String(got));
          return;
        }
        if (req.amount > expected.maxAmount) assert.equal(got, 'amount_limit_exceeded');
        else assert.equal(typeof got === 'string' ? got : got.ruleId, expected.id);
      }),
      { numRuns: 500 },
    );
  });

  test('SPEC 2.8: the order of the loaded rows never matters', () => {
    fc.assert(
      fc.property(rulesArb, request, (rules, req) => {
        const chain = CHAIN.slice(0, req.depth);
        const r = { method: req.method, amount: req.amount, ancestorIds: chain };
        const a = attempt(() => resolveProvider(r, rules));
        const b = attempt(() => resolveProvider(r, rules.toReversed()));
        assert.deepEqual(a, b);
      }),
    );
  });

  test("SPEC 2.8 step 4: a child's rule precedes a parent's and a global one, even with a higher priority number", () => {
    fc.assert(
      fc.property(rulesArb, method, (rules, m) => {
        const own: CandidateRule = {
          id: 'rul_zzz',
          method: m,
          tenantId: 'ten_leaf',
          priority: 1_000_000,
          maxAmount: 1000,
          enabled: true,
          createdAt: new Date(1_800_000_000_000),
          provider: {
            id: 'prv_own',
            kind: 'external',
            environment: 'production',
            enabled: true,
            enabledMethods: [m],
            isMarketplace: false,
          },
        };
        const others = rules.filter((r) => r.tenantId !== 'ten_leaf');
        const got = resolveProvider({ method: m, amount: 1, ancestorIds: CHAIN }, [...others, own]);
        assert.equal(got.ruleId, 'rul_zzz');
        assert.equal(got.level, 0);
      }),
    );
  });

  test('SPEC 2.8: exceeding the limit never selects another provider', () => {
    fc.assert(
      fc.property(rulesArb, request, (rules, req) => {
        const chain = CHAIN.slice(0, req.depth);
        const small = attempt(() =>
          resolveProvider({ method: req.method, amount: 1, ancestorIds: chain }, rules),
        );
        const big = attempt(() =>
          resolveProvider({ method: req.method, amount: req.amount, ancestorIds: chain }, rules),
        );
        if (typeof big !== 'string')
          assert.equal(typeof small === 'string' ? small : small.ruleId, big.ruleId);
        else if (big === 'amount_limit_exceeded') assert.equal(typeof small, 'object');
        else assert.equal(big, small);
      }),
    );
  });

  const provider = (over: Partial<CandidateProvider> = {}): CandidateProvider => ({
    id: 'prv_x',
    kind: 'external',
    environment: 'production',
    enabled: true,
    enabledMethods: ['pix', 'boleto'],
    isMarketplace: false,
    ...over,
  });
  const rule = (over: Partial<CandidateRule> = {}): CandidateRule => ({
    id: 'rul_1',
    method: 'pix',
    tenantId: null,
    priority: 100,
    maxAmount: 1000,
    enabled: true,
    createdAt: new Date(0),
    provider: provider(),
    ...over,
  });
  const req = { method: 'pix' as const, amount: 10, ancestorIds: ['ten_a'] };

  test('SPEC 7 provider_not_configured: no rule, a disabled rule, a disabled or missing provider', () => {
    for (const rules of [
      [],
      [rule({ enabled: false })],
      [rule({ provider: provider({ enabled: false }) })],
      [rule({ provider: undefined })],
      [rule({ method: 'boleto' })],
      [rule({ tenantId: 'ten_elsewhere' })],
    ]) {
      assert.throws(() => resolveProvider(req, rules), { code: 'provider_not_configured' });
    }
  });

  test('SPEC 7 provider_method_disabled: the rule exists but its provider does not list the method', () => {
    assert.throws(
      () => resolveProvider(req, [rule({ provider: provider({ enabledMethods: ['boleto'] }) })]),
      {
        code: 'provider_method_disabled',
      },
    );
    // SPEC 2.8: another rule takes over when one exists.
    const other = rule({ id: 'rul_2', priority: 500, provider: provider({ id: 'prv_y' }) });
    const blocked = rule({ provider: provider({ enabledMethods: [] }) });
    assert.equal(resolveProvider(req, [blocked, other]).provider.id, 'prv_y');
  });

  test('SPEC 7 amount_limit_exceeded: above max_amount; equal passes', () => {
    assert.equal(resolveProvider({ ...req, amount: 1000 }, [rule()]).ruleId, 'rul_1');
    assert.throws(() => resolveProvider({ ...req, amount: 1001 }, [rule()]), {
      code: 'amount_limit_exceeded',
    });
  });
});
