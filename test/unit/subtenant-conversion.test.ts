import assert from 'node:assert/strict';
import fc from 'fast-check';
import { describe, test } from 'vitest';
import type { PaymentMethod } from '../../src/aggregates/provider.ts';
import { CONVERSION_METHODS, marketplaceOf } from '../../src/commands/subtenants/create/conversion.ts';
import {
  type CandidateProvider,
  type CandidateRule,
  resolveProvider,
} from '../../src/routing/resolve-provider.ts';

// SPEC 4.13 + 2.8 + 1: the subaccount of a new subtenant is requested at the marketplace provider its routing
// reaches, for the first of boleto, Pix and card whose route ends at an external is_marketplace provider
// (docs/decisions.md "Subtenants (issue 28 item 1)").

const CHAIN = ['ten_root', 'ten_house', 'ten_new'];

function prov(id: string, over: Partial<CandidateProvider> = {}): CandidateProvider {
  return {
    id,
    kind: 'external',
    environment: 'production',
    enabled: true,
    enabledMethods: ['pix', 'boleto', 'credit_card'],
    isMarketplace: true,
    ...over,
  };
}

let seq = 0;
function rule(
  method: PaymentMethod,
  tenantId: string | null,
  provider: CandidateProvider,
  over: Partial<CandidateRule> = {},
): CandidateRule {
  seq += 1;
  return {
    id: `rul_${String(seq).padStart(4, '0')}`,
    method,
    tenantId,
    priority: 1,
    maxAmount: 1000,
    enabled: true,
    createdAt: new Date(1_700_000_000_000),
    provider,
    ...over,
  };
}

const byMethod = (rules: CandidateRule[]) =>
  new Map<PaymentMethod, CandidateRule[]>(
    CONVERSION_METHODS.map((m) => [m, rules.filter((r) => r.method === m)]),
  );

describe('marketplaceOf (the provider of a subtenant conversion)', () => {
  test('no rule, or only plain providers and the simulator: none', () => {
    assert.equal(marketplaceOf(CHAIN, byMethod([])), null);
    const rules = [
      rule('boleto', 'ten_house', prov('prv_plain', { isMarketplace: false })),
      rule('pix', null, prov('prv_sim', { kind: 'simulator', isMarketplace: true })),
    ];
    assert.equal(marketplaceOf(CHAIN, byMethod(rules)), null);
  });

  test('boleto first, then Pix, then card; a method routed elsewhere is passed over', () => {
    const rules = [
      rule('pix', 'ten_house', prov('prv_pix_market')),
      rule('credit_card', 'ten_house', prov('prv_card_market')),
      rule('boleto', 'ten_house', prov('prv_plain', { isMarketplace: false })),
    ];
    assert.equal(marketplaceOf(CHAIN, byMethod(rules)), 'prv_pix_market');
    rules.push(rule('boleto', 'ten_root', prov('prv_root_market')));
    assert.equal(marketplaceOf(CHAIN, byMethod(rules)), 'prv_pix_market', 'the nearest boleto rule wins');
    const boleto = [...rules, rule('boleto', 'ten_new', prov('prv_own_market'))];
    assert.equal(marketplaceOf(CHAIN, byMethod(boleto)), 'prv_own_market');
  });

  test('inherited from an ancestor or global; a disabled provider, rule or method does not route', () => {
    assert.equal(marketplaceOf(CHAIN, byMethod([rule('boleto', 'ten_root', prov('prv_m'))])), 'prv_m');
    assert.equal(marketplaceOf(CHAIN, byMethod([rule('boleto', null, prov('prv_g'))])), 'prv_g');
    assert.equal(marketplaceOf(CHAIN, byMethod([rule('boleto', 'ten_other', prov('prv_o'))])), null);
    const off = [
      rule('boleto', 'ten_house', prov('prv_a', { enabled: false })),
      rule('pix', 'ten_house', prov('prv_b'), { enabled: false }),
      rule('credit_card', 'ten_house', prov('prv_c', { enabledMethods: ['pix'] })),
    ];
    assert.equal(marketplaceOf(CHAIN, byMethod(off)), null);
  });

  test('property: the answer is the first method whose SPEC 2.8 resolution is an external marketplace', () => {
    const providers = [
      prov('prv_m1'),
      prov('prv_m2', { environment: 'sandbox' }),
      prov('prv_plain', { isMarketplace: false }),
      prov('prv_sim', { kind: 'simulator', isMarketplace: false }),
      prov('prv_off', { enabled: false }),
    ];
    const ruleArb = fc.record({
      method: fc.constantFrom(...CONVERSION_METHODS),
      tenantId: fc.constantFrom<string | null>(null, 'ten_other', ...CHAIN),
      provider: fc.constantFrom(...providers),
      priority: fc.integer({ min: 0, max: 2 }),
      maxAmount: fc.integer({ min: 1, max: 5 }),
      enabled: fc.boolean(),
    });
    fc.assert(
      fc.property(fc.array(ruleArb, { maxLength: 10 }), (specs) => {
        const rules = specs.map((s) => rule(s.method, s.tenantId, s.provider, s));
        const expected =
          CONVERSION_METHODS.map((method) => {
            try {
              return resolveProvider({ method, amount: 0, ancestorIds: CHAIN }, rules).provider;
            } catch {
              return undefined;
            }
          }).find((p) => p?.kind === 'external' && p.isMarketplace)?.id ?? null;
        assert.equal(marketplaceOf(CHAIN, byMethod(rules)), expected);
      }),
    );
  });
});
