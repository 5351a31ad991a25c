import assert from 'node:assert/strict';
import { inspect } from 'node:util';
import fc from 'fast-check';
import { describe, test } from 'vitest';
import { ProviderSecret, type SubaccountFee, withCapability } from '../../src/providers/port.ts';
import { defaultProviderRegistry } from '../../src/providers/registry.ts';
import { feesOf, merchantBody, merchantSplit } from '../../src/providers/safe2pay/subaccounts.ts';
import { createSimulatorAdapter } from '../../src/providers/simulator.ts';
import { portSubaccount } from '../support/subaccount-fixtures.ts';

// Issue 28 (SPEC 2.7, 4.14; wire doc §2.13, wave 2b §4.2): the subaccount fee list in integers on the port
// and decimal strings on the wire, both ways, and the secret type that keeps tokens out of every rendering.

const fee = fc
  .record({
    method: fc.constantFrom('boleto' as const, 'pix' as const, 'credit_card' as const),
    percentHundredths: fc.option(fc.integer({ min: 0, max: 10_000 }), { nil: null }),
    fixedCentavos: fc.option(fc.integer({ min: 0, max: 100_000_000 }), { nil: null }),
    subaccountPaysProviderFee: fc.boolean(),
  })
  .filter((f) => f.percentHundredths !== null || f.fixedCentavos !== null)
  // fc.record builds null-prototype objects; the port's are plain ones.
  .map((f): SubaccountFee => ({ ...f }));

const feeList = fc.uniqueArray(fee, { selector: (f) => f.method, maxLength: 3 });

describe('MerchantSplit', () => {
  test('property: any valid fee list reads back unchanged from its wire form (no rounding, no loss)', () => {
    fc.assert(
      fc.property(feeList, (fees: SubaccountFee[]) => {
        assert.deepEqual(feesOf(merchantSplit(fees)), fees);
      }),
    );
  });

  test('property: Tax is always a decimal string with two places, type "1" percent and "2" fixed', () => {
    fc.assert(
      fc.property(feeList, (fees: SubaccountFee[]) => {
        for (const item of merchantSplit(fees)) {
          for (const tax of item.Taxes as { TaxTypeName: string; Tax: string }[]) {
            assert.match(tax.Tax, /^[0-9]+\.[0-9]{2}$/);
            assert.ok(tax.TaxTypeName === '1' || tax.TaxTypeName === '2');
          }
        }
      }),
    );
  });

  test('wave 2b §4.2 example: boleto 1.00 % and card 1.75 %; a read with PaymentMethod/TaxType objects reads too', () => {
    assert.deepEqual(
      merchantSplit([
        { method: 'boleto', percentHundredths: 100, fixedCentavos: null, subaccountPaysProviderFee: false },
        {
          method: 'credit_card',
          percentHundredths: 175,
          fixedCentavos: null,
          subaccountPaysProviderFee: true,
        },
      ]),
      [
        { PaymentMethodCode: '1', IsSubaccountTaxPayer: false, Taxes: [{ TaxTypeName: '1', Tax: '1.00' }] },
        { PaymentMethodCode: '2', IsSubaccountTaxPayer: true, Taxes: [{ TaxTypeName: '1', Tax: '1.75' }] },
      ],
    );
    assert.deepEqual(feesOf([{ PaymentMethod: { Code: '6' }, Taxes: [{ TaxType: { Id: 2 }, Tax: 0.35 }] }]), [
      { method: 'pix', percentHundredths: null, fixedCentavos: 35, subaccountPaysProviderFee: false },
    ]);
    // A method the port does not model (4, debit card) or an inexact amount: unreadable, not guessed.
    assert.equal(feesOf([{ PaymentMethodCode: '4', Taxes: [{ TaxTypeName: '1', Tax: '1.00' }] }]), null);
    assert.equal(feesOf([{ PaymentMethodCode: '1', Taxes: [{ TaxTypeName: '2', Tax: '1.005' }] }]), null);
    assert.deepEqual(feesOf(undefined), []);
  });

  test('the Merchant body of a creation: required fields, the panel restricted, fees only when given', () => {
    const body = merchantBody(portSubaccount('11222333000181'));
    assert.equal(body.Identity, '11222333000181');
    assert.equal(body.ResponsibleBirthDate, '1980-05-17');
    assert.equal(body.IsPanelRestricted, true);
    assert.equal('MerchantSplit' in body, false);
    assert.deepEqual(merchantBody(portSubaccount('11222333000181', { fees: [] })).MerchantSplit, []);
  });
});

describe('ProviderSecret', () => {
  test('JSON, String, template strings and inspect show [secret]; reveal gives the value', () => {
    const s = new ProviderSecret('TOKEN-123');
    const holder = { token: s, nested: { list: [s] } };
    for (const text of [JSON.stringify(holder), String(s), `${s}`, inspect(holder, { depth: 5 })]) {
      assert.doesNotMatch(text, /TOKEN-123/);
      assert.match(text, /\[secret\]/);
    }
    assert.equal(s.reveal(), 'TOKEN-123');
    assert.deepEqual(Object.keys(s), []);
  });
});

describe('capability', () => {
  test('the simulator has no subaccounts: refused not_supported, nothing called', async () => {
    const outcome = await withCapability(createSimulatorAdapter(), 'subaccounts', (p) =>
      p.find('11222333000181', { matrixProductionKey: 'k', signal: AbortSignal.timeout(1000) }),
    );
    assert.equal(outcome.kind === 'refused' && outcome.reason, 'not_supported');
  });
});

describe('issue 28 item 6: callbacks are never truth', () => {
  test('the gateway solicits no provider callback (no CallbackUrl): a charge, a subaccount one too, is known only by reads', () => {
    const adapter = defaultProviderRegistry.external({ paymentHost: null, apiHost: null });
    const body = adapter.charges.buildRequest(
      {
        transactionId: 'txn_01JTESTSUBACCOUNT000000000',
        method: 'pix',
        amount: 1990,
        description: 'Mensalidade',
        customer: { name: 'João da Silva', document: '18978393080' },
        expiresIn: 3600,
        boleto: null,
        callbackUrl: 'https://merchant.example/webhooks',
      },
      { environment: 'sandbox' },
    );
    assert.ok(body);
    assert.equal('CallbackUrl' in body, false);
  });
});
