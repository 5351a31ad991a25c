import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'vitest';
import { resolveAdapter } from '../../src/commands/provider-adapter.ts';
import { refundPayoutEnabled } from '../../src/commands/providers/refund-payout.ts';
import { payoutBankAccount, withCapability } from '../../src/providers/port.ts';
import { useExternalProviderWorld } from '../support/external-provider.ts';

// Issue 22 item 4.2 as the refund flow will reach it: a provider record created and switched over the panel
// API, its adapter resolved from the record (hosts, sealed key, environment), the payout sent to the provider
// emulator over HTTP. A test-mode charge of the same record pays out through the simulator, sending nothing.

const world = useExternalProviderWorld();

async function productionProviderId(): Promise<string> {
  const list = await world.app.request('GET', '/admin/providers?limit=100', { headers: world.admin });
  const record = list.body.data.find(
    (p: { environment: string; payment_host: string }) =>
      p.environment === 'production' && p.payment_host === world.emulator.paymentUrl,
  );
  assert.ok(record, list.text);
  return record.id;
}

function request(identification: string) {
  return {
    transactionId: identification.replace('refund:', ''),
    identification,
    amount: 1999,
    receiverName: 'Maria Silva',
    receiverDocument: '12345678909',
    bankAccount: payoutBankAccount({
      bank_code: '341',
      branch: '0937',
      account: '98765432-1',
      account_type: 'checking',
    }),
    compensationDate: new Date(Date.now() - 3 * 3_600_000).toISOString().slice(0, 10),
  };
}

describe('payout through a provider record (issue 22 item 4.2)', () => {
  test('the record enables it over PATCH; its adapter sends the transfer with its key to its hosts', async () => {
    const providerId = await productionProviderId();
    const ctx = world.app.gateway.ctx;
    const adapterContext = {
      deps: { store: ctx.store, registry: ctx.events },
      config: ctx.config,
      adapters: ctx,
    };
    assert.equal(await refundPayoutEnabled(adapterContext.deps, { providerId, simulated: false }), false);
    const patched = await world.app.request('PATCH', `/admin/providers/${providerId}`, {
      headers: world.admin,
      json: { boleto_refund_payout: true },
    });
    assert.equal(patched.status, 200, patched.text);
    assert.equal(await refundPayoutEnabled(adapterContext.deps, { providerId, simulated: false }), true);

    const resolved = await resolveAdapter(adapterContext, {
      providerId,
      simulated: false,
      subaccountId: null,
    });
    assert.equal(resolved.kind, 'external');
    const identification = `refund:txn_${randomUUID()}`;
    const outcome = await withCapability(resolved.adapter, 'payouts', (payouts) =>
      payouts.payout(request(identification), resolved.context()),
    );
    assert.equal(outcome.kind, 'issued', JSON.stringify(outcome));
    if (outcome.kind !== 'issued') return;
    const calls = await world.control.calls({ reference: identification });
    assert.deepEqual(
      calls.map((c) => [c.host, c.operation, c.environment, c.httpStatus]),
      [['payment', 'transfer_create', 'production', 200]],
    );
    const polled = await withCapability(resolved.adapter, 'payouts', (payouts) =>
      payouts.queryPayout(
        { transferId: outcome.transferId, identification, amount: 1999 },
        resolved.context(),
      ),
    );
    assert.equal(polled.kind === 'issued' && polled.state, 'processing');

    // A test-mode charge of the same record: the simulator's payout, nothing reaches the provider.
    const simulated = await resolveAdapter(adapterContext, {
      providerId,
      simulated: true,
      subaccountId: null,
    });
    assert.equal(simulated.kind, 'simulator');
    const testIdentification = `refund:txn_${randomUUID()}`;
    const test = await withCapability(simulated.adapter, 'payouts', (payouts) =>
      payouts.payout(request(testIdentification), simulated.context()),
    );
    assert.deepEqual(test, { kind: 'issued', transferId: `sim_tr_${testIdentification}` });
    assert.equal((await world.control.calls({ reference: testIdentification })).length, 0);
  });
});
