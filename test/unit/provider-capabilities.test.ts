import assert from 'node:assert/strict';
import { describe, test } from 'vitest';
import { type ProviderPort, withCapability } from '../../src/providers/port.ts';
import {
  decorateRegistry,
  defaultProviderRegistry,
  missingCapability,
} from '../../src/providers/registry.ts';
import { createSimulatorAdapter } from '../../src/providers/simulator.ts';

// Issue 24 item 5 (DESIGN.md "Providers"): the port grows by capability; one lacking is *refused: not
// supported* at the call, and a record that would turn it on is refused at configuration time.

const ctx = { environment: 'sandbox' as const, credentials: {}, signal: AbortSignal.timeout(60_000) };

/** An adapter with charges only, as a provider without transfers would be. */
function chargesOnly(): ProviderPort {
  const { payouts: _payouts, ...adapter } = createSimulatorAdapter();
  return adapter;
}

describe('a capability the adapter lacks', () => {
  test('answers refused, reason not_supported, without calling anything', async () => {
    let called = false;
    const outcome = await withCapability(chargesOnly(), 'payouts', async (payouts) => {
      called = true;
      return payouts.findPayout('refund:txn_1', ctx);
    });
    assert.deepEqual(outcome, {
      kind: 'refused',
      reason: 'not_supported',
      providerReference: null,
      diagnostics: { provider_error_code: null, provider_error_message: null, provider_http_status: null },
    });
    assert.equal(called, false);
  });

  test('a capability the adapter has is called', async () => {
    const outcome = await withCapability(createSimulatorAdapter(), 'payouts', (p) => p.findPayout('x', ctx));
    assert.deepEqual(outcome, { kind: 'issued', transferIds: [] });
  });

  test('configuration: boleto_refund_payout needs payouts; pix and boleto need charges', () => {
    const needs = { enabledMethods: ['pix', 'boleto'] as const, boletoRefundPayout: true };
    assert.deepEqual(missingCapability(chargesOnly(), needs), {
      capability: 'payouts',
      param: 'boleto_refund_payout',
    });
    assert.equal(missingCapability(chargesOnly(), { ...needs, boletoRefundPayout: false }), null);
    assert.equal(missingCapability(createSimulatorAdapter(), needs), null);
  });
});

describe('the default registry', () => {
  test('every kind has charges and payouts today', () => {
    const hosts = { paymentHost: null, apiHost: null };
    for (const kind of ['simulator', 'external'] as const) {
      const adapter = defaultProviderRegistry[kind](hosts);
      assert.ok(adapter.charges, kind);
      assert.ok(adapter.payouts, kind);
    }
  });

  test('a decorated registry passes every adapter it builds, with its kind, through the decorator', () => {
    const seen: string[] = [];
    const registry = decorateRegistry(defaultProviderRegistry, (adapter, kind) => {
      seen.push(`${kind}:${adapter.name}`);
      return adapter;
    });
    registry.simulator({ paymentHost: null, apiHost: null });
    registry.external({ paymentHost: 'https://payment.example.com', apiHost: null });
    assert.deepEqual(seen, ['simulator:simulator', 'external:safe2pay']);
  });
});
