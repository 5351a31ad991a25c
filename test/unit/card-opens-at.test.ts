import assert from 'node:assert/strict';
import { describe, test } from 'vitest';
import { opensAt } from '../../src/commands/credit-card/card-charge.ts';

// Wire doc wave 2b §1.2: a provider token opens only in the account that made it. SPEC 2.8: a marketplace's
// charges go through the tenant's subaccount link, so the link is part of the account (issue 28).
const routed = { providerId: 'prv_a', subaccountId: 'sac_1', environment: 'production' } as const;
const kept = { provider_id: 'prv_a', subaccount_id: 'sac_1', environment: 'production' } as const;

describe('a kept token opens where the charge is routed only in the account that made it', () => {
  test('given the same provider, environment and link, it opens', () => {
    assert.equal(opensAt(kept, routed), true);
  });

  test('given another provider, environment or link, it does not', () => {
    assert.equal(opensAt({ ...kept, provider_id: 'prv_b' }, routed), false);
    assert.equal(opensAt({ ...kept, environment: 'sandbox' }, routed), false);
    assert.equal(opensAt({ ...kept, subaccount_id: 'sac_2' }, routed), false);
  });

  test('given a card kept through no link, a route through a link does not open it, and the other way round', () => {
    assert.equal(opensAt({ ...kept, subaccount_id: null }, routed), false);
    assert.equal(opensAt(kept, { ...routed, subaccountId: null }), false);
    assert.equal(opensAt({ ...kept, subaccount_id: null }, { ...routed, subaccountId: null }), true);
  });

  test('given a card kept before links were recorded, only provider and environment are judged', () => {
    const { subaccount_id: _, ...legacy } = kept;
    assert.equal(opensAt(legacy, routed), true);
    assert.equal(opensAt(legacy, { ...routed, subaccountId: null }), true);
    assert.equal(opensAt({ ...legacy, provider_id: 'prv_b' }, routed), false);
  });
});
