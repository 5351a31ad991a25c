import assert from 'node:assert/strict';
import { describe, test } from 'vitest';
import { boletoDetails } from '../../src/aggregates/transaction.ts';
import { bancoDoBrasilCheckDigit, boletoRegistration } from '../../src/providers/emulator/boleto.ts';
import { boletoDetailsOf } from '../../src/providers/safe2pay/artifacts.ts';

/**
 * Issue 23 item 1.11: the FEBRABAN fields of a Safe2Pay boleto answer (wire doc 2.6: `BankSlipNumber`,
 * `Agency`/`AgencyDV`, `CodeBeneficiary`/`CodeAssignor`, `Wallet`, `DocType`, `Accept`) kept for the PDF only
 * in the shapes a boleto prints them; free text, personal data and oversized values are dropped, not cleaned.
 */

/** A boleto answer as the official SDKs type it (Z22 `BaseBoletoResponse`, LEO `BankSlipResponseDetail`). */
const answer = {
  IdTransaction: 1000001,
  BankSlipNumber: '31285570001000001',
  Wallet: '17',
  WalletDescription: 'Cobrança Simples',
  Agency: '1234',
  AgencyDV: '3',
  Account: '56789',
  AccountDV: '2',
  CodeAssignor: '56789-2',
  DocType: 'DM',
  Accept: 'N',
  GuarantorName: 'Maria Silva',
  GuarantorIdentity: '12345678901',
};

describe('boleto details from the provider answer (wire doc 2.6)', () => {
  test('each field is read from its wire name', () => {
    assert.deepEqual(boletoDetailsOf(answer), {
      our_number: '31285570001000001',
      agency: '1234',
      agency_dv: '3',
      beneficiary_code: '56789-2',
      wallet: '17',
      document_kind: 'DM',
      accept: 'N',
    });
  });

  test('CodeBeneficiary (the newer name, LEO) wins over CodeAssignor; CodeAssignor alone is read', () => {
    assert.equal(boletoDetailsOf({ ...answer, CodeBeneficiary: '0012345-6' })?.beneficiary_code, '0012345-6');
    assert.equal(boletoDetailsOf({ CodeAssignor: 4455 })?.beneficiary_code, '4455');
  });

  test('bank formats are kept as printed: separators and a final check character (Itaú, Bradesco)', () => {
    assert.equal(boletoDetailsOf({ BankSlipNumber: '109/12345678-9' })?.our_number, '109/12345678-9');
    // The nosso número is kept as given: a lower-case check character is not the bank's, so it is dropped.
    assert.equal(boletoDetailsOf({ BankSlipNumber: '09/00000000001-p' }), null);
    assert.equal(boletoDetailsOf({ BankSlipNumber: '09/00000000001-P' })?.our_number, '09/00000000001-P');
    assert.equal(boletoDetailsOf({ BankSlipNumber: 123456 })?.our_number, '123456');
    // Codes are compared in upper case (the letters' meaning does not depend on it); spaces around are trimmed.
    assert.deepEqual(boletoDetailsOf({ AgencyDV: 'x', DocType: ' ds ', Accept: 's', Wallet: 'rg' }), {
      our_number: null,
      agency: null,
      agency_dv: 'X',
      beneficiary_code: null,
      wallet: 'RG',
      document_kind: 'DS',
      accept: 'S',
    });
  });

  test('free text, personal data, oversized and mistyped values are dropped, never stored', () => {
    const hostile = {
      BankSlipNumber: 'Maria Silva 123',
      Agency: '123456',
      AgencyDV: '12',
      CodeAssignor: `${'9'.repeat(31)}`,
      CodeBeneficiary: 'maria@example.com',
      Wallet: 'CARTEIRA',
      DocType: 'Duplicata mercantil de Maria',
      Accept: 'Sim',
    };
    assert.equal(boletoDetailsOf(hostile), null);
    for (const bad of [null, true, {}, [], '', '   ', '1 2', '1--2', '-12', '12-', '12-AB']) {
      assert.equal(boletoDetailsOf({ BankSlipNumber: bad }), null, String(bad));
    }
    // One bad field does not take the good ones with it.
    assert.deepEqual(boletoDetailsOf({ ...answer, DocType: 'Duplicata' })?.document_kind, null);
    assert.equal(boletoDetailsOf({ ...answer, DocType: 'Duplicata' })?.our_number, '31285570001000001');
  });

  test('an answer without any of them (older answers, a Pix) gives null', () => {
    assert.equal(
      boletoDetailsOf({ IdTransaction: 1, DigitableLine: '0019', BankSlipUrl: 'https://x' }),
      null,
    );
  });

  test('whatever the adapter keeps, the event schema accepts (the same patterns)', () => {
    const kept = boletoDetailsOf(answer);
    assert.ok(kept);
    assert.ok(boletoDetails.safeParse(kept).success);
  });
});

describe('the emulator’s boleto registration (Banco do Brasil, convênio of 7 digits, carteira 17)', () => {
  test('BB check digits of agency and account (módulo 11; 10 is X)', () => {
    assert.equal(bancoDoBrasilCheckDigit('1234'), '3');
    assert.equal(bancoDoBrasilCheckDigit('56789'), '2');
    // 0019: 1·3+9·2 = 21, 11 - 21 mod 11 = 1; 0051: 5·3+1·2 = 17 -> 11 - 6 = 5; 0006: 6·2 = 12, rest 1 -> X.
    assert.equal(bancoDoBrasilCheckDigit('0019'), '1');
    assert.equal(bancoDoBrasilCheckDigit('0051'), '5');
    assert.equal(bancoDoBrasilCheckDigit('0006'), 'X');
  });

  test('the nosso número is the free field’s: six zeros, convênio + sequence (17), carteira', () => {
    const r = boletoRegistration(1000001);
    assert.equal(r.ourNumber, '31285570001000001');
    assert.equal(r.freeField, '0000003128557000100000117');
    assert.equal(r.freeField.length, 25);
    assert.equal(r.answer.BankSlipNumber, r.ourNumber);
  });
});
