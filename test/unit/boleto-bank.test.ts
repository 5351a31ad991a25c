import assert from 'node:assert/strict';
import { describe, test } from 'vitest';
import { bankCodeCheckDigit, boletoBank, boletoCurrency } from '../../src/boleto-pdf/bank.ts';

/**
 * Issue 23 item 1.11: the boleto's header names the bank of its line and prints the bank code with its check
 * digit ("001-9"). Expected pairs are the ones the banks print on their own boletos; the names are Banco
 * Central's (STR participants list).
 */
describe('the bank of a boleto line', () => {
  test('bank code check digit (módulo 11): the pairs the banks print', () => {
    const printed: Record<string, number> = { '001': 9, '033': 7, '104': 0, '237': 2, '341': 7, '756': 0 };
    for (const [code, digit] of Object.entries(printed)) assert.equal(bankCodeCheckDigit(code), digit, code);
    assert.throws(() => bankCodeCheckDigit('01'), RangeError);
  });

  test('name and code from the first three digits of a 47-digit line; none for a convênio line', () => {
    const bb = '00190000090123456789701234567897116610000123456';
    assert.deepEqual(boletoBank(bb), {
      code: '001',
      codeWithCheckDigit: '001-9',
      name: 'Banco do Brasil S.A.',
    });
    assert.equal(boletoBank(`237${bb.slice(3)}`)?.name, 'Banco Bradesco S.A.');
    assert.equal(boletoBank(`237${bb.slice(3)}`)?.codeWithCheckDigit, '237-2');
    // A code Banco Central does not list: the code and its digit (9·4 + 9·3 + 9·2 = 81, 81 mod 11 = 4, 11 − 4 = 7), no name.
    assert.deepEqual(boletoBank(`999${bb.slice(3)}`), {
      code: '999',
      codeWithCheckDigit: '999-7',
      name: null,
    });
    assert.equal(boletoBank('836200000005667800481000180975657313001589636081'), null);
  });

  test('espécie: the line’s currency code 9 is the real', () => {
    assert.equal(boletoCurrency('00190000090123456789701234567897116610000123456'), 'R$');
    assert.equal(boletoCurrency('00100000090123456789701234567897116610000123456'), null);
  });
});
