import assert from 'node:assert/strict';
import {
  getBoletoInfo,
  getPixPayloadInfo,
  isValidBoleto,
  isValidPixPayload,
} from '@brazilian-utils/brazilian-utils';
import fc from 'fast-check';
import { describe, test } from 'vitest';
import { wireCentavos, wireDate, wireReais } from '../../src/providers/emulator/amounts.ts';
import { boletoNumbers, dueFactor, mod10, mod11 } from '../../src/providers/emulator/boleto.ts';
import { dynamicPixPayload } from '../../src/providers/emulator/pix.ts';
import { pixCopyPaste, sameBoleto } from '../../src/providers/safe2pay/artifacts.ts';

// A published valid line (Banco do Brasil example of @brazilian-utils): 001900000 9 0114971860 1 6852452211 4 6 75860000102656
const PUBLISHED_LINE = '00190000090114971860168524522114675860000102656';
// The Pix example of the BCB "Manual do BR Code" (static key, CRC 1D3D).
const BCB_EXAMPLE =
  '00020126580014br.gov.bcb.pix0136123e4567-e12b-12d1-a456-4266554400005204000053039865802BR5913Fulano de Tal6008BRASILIA62070503***63041D3D';

describe('emulator boleto numbers (Carta-Circular BCB 2.926)', () => {
  test('the check digit rules reproduce a published line', () => {
    assert.equal(mod10('001900000'), 9);
    assert.equal(mod10('0114971860'), 1);
    assert.equal(mod10('6852452211'), 4);
    assert.equal(mod11(`0019${'75860000102656'}${'00000'}${'0114971860'}${'6852452211'}`), 6);
  });

  test('the due factor restarted at 1000 on 2025-02-22 (FEBRABAN)', () => {
    assert.equal(dueFactor('2025-02-22'), '1000');
    assert.equal(dueFactor('2025-02-23'), '1001');
  });

  test('generated boletos are valid for an independent validator, with the chosen amount and due date', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 100_000_000 }),
        fc.integer({ min: 0, max: 3000 }),
        fc.stringMatching(/^[0-9]{25}$/),
        (amount, offset, free) => {
          const due = new Date(Date.UTC(2026, 0, 1 + offset)).toISOString().slice(0, 10);
          const { barcode, digitableLine } = boletoNumbers('001', amount, due, free);
          assert.match(barcode, /^[0-9]{44}$/);
          assert.match(digitableLine, /^[0-9]{47}$/);
          // The validator checks a bank line's three módulo-10 fields and the módulo-11 digit of the barcode
          // it rebuilds from the line; sameBoleto ties our barcode to that one.
          assert.ok(isValidBoleto(digitableLine));
          assert.ok(sameBoleto(digitableLine, barcode));
          const info = getBoletoInfo(digitableLine, { referenceDate: new Date(`${due}T12:00:00Z`) });
          assert.equal(info?.amount, amount);
          assert.equal(info?.expirationDate?.toISOString().slice(0, 10), due);
        },
      ),
      { numRuns: 300 },
    );
    assert.ok(isValidBoleto(PUBLISHED_LINE));
  });
});

describe('emulator Pix copy-and-paste (BCB Manual do BR Code)', () => {
  test('a dynamic BR Code with a correct CRC16', () => {
    const { key, location } = dynamicPixPayload();
    assert.ok(key.startsWith('000201'));
    assert.ok(isValidPixPayload(key));
    const info = getPixPayloadInfo(key);
    assert.equal(info?.pointOfInitiation, 'dynamic');
    assert.equal(info?.url, location);
  });

  test('the adapter check accepts the BCB example and refuses a wrong CRC', () => {
    assert.equal(pixCopyPaste(BCB_EXAMPLE), BCB_EXAMPLE);
    assert.equal(pixCopyPaste(`${BCB_EXAMPLE.slice(0, -4)}1D3E`), null);
    assert.equal(pixCopyPaste('SIMULADOR-TESTE-NAO-PAGAVEL:txn_1'), null);
  });
});

describe('emulator money and dates, independent of the adapter’s', () => {
  test('centavos -> JSON reais -> centavos is the identity; inexact amounts are refused', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 100_000_000 }), (c) => {
        assert.equal(wireCentavos(JSON.parse(JSON.stringify(wireReais(c)))), c);
      }),
      { numRuns: 5_000 },
    );
    assert.equal(wireReais(1990), 19.9);
    assert.equal(wireCentavos(1.99), 199);
    assert.equal(wireCentavos('1.999'), null);
  });
  test('both request date formats', () => {
    assert.equal(wireDate('30/12/2026'), '2026-12-30');
    assert.equal(wireDate('2026-12-30'), '2026-12-30');
    assert.equal(wireDate('31/02/2026'), null);
  });
});
