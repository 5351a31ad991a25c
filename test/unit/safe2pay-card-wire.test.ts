import assert from 'node:assert/strict';
import { describe, test } from 'vitest';
import { declineDiagnostics } from '../../src/providers/safe2pay/card-declines.ts';
import { mapCardStatus, mapStatus } from '../../src/providers/safe2pay/status.ts';

// The card wire's pure pieces (issue 25; wire doc wave 2b §1.3, §1.8): status mapping and decline diagnostics.

describe('card statuses (SPEC 3.1; wire doc wave 2b §1.3)', () => {
  test('3/4/5 paid, 1/2 processing, 6/13 refunded, 8 failed; 14, 7, 9-12 and unknown codes are null (uncertain)', () => {
    const expected: Record<number, string | null> = {
      1: 'processing',
      2: 'processing',
      3: 'paid',
      4: 'paid',
      5: 'paid',
      6: 'refunded',
      7: null,
      8: 'failed',
      9: null,
      10: null,
      11: null,
      12: null,
      13: 'refunded',
      14: null,
      99: null,
    };
    for (const [code, state] of Object.entries(expected))
      assert.equal(mapCardStatus(Number(code)), state, code);
    assert.equal(mapCardStatus(null), null);
  });

  test('Pix and boleto mapping is unchanged: 1 pending, 5 and 13 are not theirs', () => {
    assert.equal(mapStatus(1), 'pending');
    assert.equal(mapStatus(5), null);
    assert.equal(mapStatus(13), null);
  });
});

describe('decline diagnostics (SPEC 2.2 rules 2-3; wire doc wave 2b §1.8)', () => {
  test('a numeric return code is the provider_error_code as given, leading zero kept; Z22 numbers too', () => {
    assert.deepEqual(declineDiagnostics('05', 200), {
      provider_error_code: '05',
      provider_error_message:
        'O emissor recusou o cartão; peça outro cartão ou outro meio de pagamento. / The issuer declined the card; ask for another card or payment method.',
      provider_http_status: 200,
    });
    assert.equal(declineDiagnostics(51, null).provider_error_code, '51');
    assert.match(declineDiagnostics(51, null).provider_error_message ?? '', /Insufficient funds/);
  });

  test('an alphanumeric code never becomes provider_error_code: N7 gets its static guidance', () => {
    const n7 = declineDiagnostics('N7', 200);
    assert.equal(n7.provider_error_code, null);
    assert.match(n7.provider_error_message ?? '', /The security code was not accepted\./);
    assert.equal(declineDiagnostics('n7', 200).provider_error_message, n7.provider_error_message);
    for (const code of ['AA', 'AC', 'GA', 'Z9', '12345678901', 'código', '', null, undefined, {}]) {
      const d = declineDiagnostics(code, 200);
      assert.equal(d.provider_error_code, null, String(code));
      assert.match(d.provider_error_message ?? '', / \/ /);
    }
  });

  test('every guidance is Portuguese / English within 400 characters; an impossible HTTP status is null', () => {
    for (const code of [
      '05',
      '51',
      '54',
      '57',
      '70',
      '77',
      '78',
      '91',
      '96',
      '99',
      'N7',
      'AA',
      'AC',
      'GA',
      'XX',
    ]) {
      const message = declineDiagnostics(code, 200).provider_error_message ?? '';
      assert.ok(message.length > 0 && message.length <= 400, code);
      assert.match(message, / \/ /, code);
    }
    assert.equal(declineDiagnostics('05', 600).provider_http_status, null);
  });
});
