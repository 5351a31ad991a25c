import assert from 'node:assert/strict';
import { describe, test } from 'vitest';
import type { PortCharge } from '../../src/providers/port.ts';
import { buildPaymentBody } from '../../src/providers/safe2pay/build-request.ts';
import { endOfDueDayUtc, parseProviderDate, toProviderDate } from '../../src/providers/safe2pay/dates.ts';
import { diagnosticsFor } from '../../src/providers/safe2pay/diagnostics.ts';
import { mapStatus, statusCode } from '../../src/providers/safe2pay/status.ts';
import { portCustomer } from '../support/emulator-control.ts';

describe('Safe2Pay dates (wire doc 2.6, 2.10)', () => {
  test('both observed DueDate formats and the .NET DateTime are read as the same calendar day', () => {
    assert.equal(parseProviderDate('01/12/2026'), '2026-12-01');
    assert.equal(parseProviderDate('2026-12-01'), '2026-12-01');
    assert.equal(parseProviderDate('2026-12-01T00:00:00'), '2026-12-01');
    assert.equal(parseProviderDate('01/12/2026 10:30:00'), '2026-12-01');
  });
  test('impossible or unknown dates are null', () => {
    for (const bad of ['31/02/2026', '2026-13-01', '12/01/26', '2026/12/01', '', 1, null]) {
      assert.equal(parseProviderDate(bad), null);
    }
  });
  test('requests carry dd/MM/yyyy; the boleto Pix ends at 23:59:59 Brasilia of the due day (SPEC 2.2)', () => {
    assert.equal(toProviderDate('2026-12-01'), '01/12/2026');
    assert.equal(endOfDueDayUtc('2026-12-01'), '2026-12-02T02:59:59.000Z');
  });
});

describe('Safe2Pay status table (wire doc 2.15) -> SPEC 3.1', () => {
  test('documented codes for Pix and boleto', () => {
    assert.equal(mapStatus(1), 'pending');
    assert.equal(mapStatus(2), 'processing');
    assert.equal(mapStatus(3), 'paid');
    assert.equal(mapStatus(4), 'paid');
    assert.equal(mapStatus(6), 'refunded');
    assert.equal(mapStatus(7), 'expired');
    assert.equal(mapStatus(8), 'failed');
  });
  test('undocumented, card-only, unmapped or malformed statuses are never pending or paid', () => {
    for (const code of [0, 5, 9, 10, 11, 12, 13, 14, 15, 99, 1000, null]) assert.equal(mapStatus(code), null);
    assert.equal(statusCode('3'), 3);
    assert.equal(statusCode({ Id: 7, Code: '3', Name: 'Autorizado' }), 3);
    for (const bad of ['Pago', '3.0', 3.5, true, null, undefined, []]) assert.equal(statusCode(bad), null);
  });
});

describe('diagnostics (SPEC 2.2 rules 2-3, SPEC 8)', () => {
  test('codes of 1-10 digits pass, anything else is null; the message is always from the static table', () => {
    const d = diagnosticsFor('provider_error', '301', 200);
    assert.equal(d.provider_error_code, '301');
    assert.match(d.provider_error_message ?? '', /sandbox/);
    assert.equal(d.provider_http_status, 200);
    assert.equal(diagnosticsFor('provider_error', '12345678901', 200).provider_error_code, null);
    assert.equal(diagnosticsFor('provider_error', 'E12', 200).provider_error_code, null);
    assert.equal(diagnosticsFor('provider_error', 42, 99).provider_http_status, null);
    assert.equal(diagnosticsFor('provider_error', 42, 600).provider_http_status, null);
    assert.equal(diagnosticsFor('timeout', null, null).provider_error_code, null);
  });
  test('every reason has a static text of at most 400 characters in Portuguese and English', () => {
    const reasons = [
      'provider_error',
      'credentials_refused',
      'credentials_missing',
      'status_refused',
      'not_supported',
      'timeout',
      'connection',
      'server_error',
      'unexpected_http_status',
      'unparsable',
      'incomplete',
      'unknown_status',
      'invalid_artifacts',
      'mismatch',
      // Issue 28: the subaccount refusals (codes 301 and 300).
      'matrix_sandbox_key',
      'not_marketplace',
    ] as const;
    for (const reason of reasons) {
      const message = diagnosticsFor(reason, null, null).provider_error_message ?? '';
      assert.ok(message.length > 0 && message.length <= 400, reason);
      assert.match(message, / \/ /, `${reason}: Portuguese / English`);
    }
    // Issue 28: the codes the wire doc lists for subaccounts have their own static text, within SPEC 2.2's bound.
    for (const code of ['300', '301', '1273', '1343', '1346']) {
      const message = diagnosticsFor('provider_error', code, 200).provider_error_message ?? '';
      assert.ok(message.length > 0 && message.length <= 400, code);
      assert.notEqual(message, diagnosticsFor('provider_error', null, 200).provider_error_message, code);
    }
  });
});

describe('buildPaymentBody: SPEC 2.3 provider_request, wire doc 2.4-2.6', () => {
  const base: PortCharge = {
    transactionId: 'txn_01JTESTPIX0000000000000000',
    method: 'pix',
    amount: 1250,
    description: 'Pedido 42',
    customer: portCustomer,
    expiresIn: 3600,
    boleto: null,
    callbackUrl: null,
  };
  const options = { application: 'Calebe', notificationUrl: null };

  test('Pix: PaymentMethod "6", Expiration in seconds, products summing to the amount in reais', () => {
    const body = buildPaymentBody(base, 'production', options);
    assert.deepEqual(body, {
      IsSandbox: false,
      Application: 'Calebe',
      Reference: 'txn_01JTESTPIX0000000000000000',
      PaymentMethod: '6',
      PaymentObject: { Expiration: 3600 },
      Customer: {
        Name: 'Maria Silva',
        Identity: '12345678909',
        Phone: '51999998888',
        Email: 'maria@example.com',
        Address: {
          ZipCode: '90010000',
          Street: 'Rua dos Andradas',
          Number: '100',
          District: 'Centro',
          CityName: 'Porto Alegre',
          StateInitials: 'RS',
          CountryName: 'Brasil',
        },
      },
      Products: [{ Code: '1', Description: 'Pedido 42', UnitPrice: 12.5, Quantity: 1 }],
    });
    assert.match(JSON.stringify(body), /"UnitPrice":12\.5\b/);
  });

  test('boleto: PaymentMethod "1", DueDate dd/MM/yyyy and the SPEC 4.2 options; IsSandbox from the environment', () => {
    const body = buildPaymentBody(
      {
        ...base,
        method: 'boleto',
        amount: 100_000_000,
        expiresIn: null,
        boleto: {
          due_date: '2026-12-01',
          instruction: 'Não receber após o vencimento',
          penalty_rate: 2,
          interest_rate: 1.5,
          cancel_after_due: true,
          days_before_cancel: 10,
        },
      },
      'sandbox',
      { application: 'Calebe', notificationUrl: 'https://gateway.example/provider/safe2pay' },
    );
    assert.equal(body.IsSandbox, true);
    assert.equal(body.PaymentMethod, '1');
    assert.equal(body.CallbackUrl, 'https://gateway.example/provider/safe2pay');
    assert.deepEqual(body.PaymentObject, {
      DueDate: '01/12/2026',
      Instruction: 'Não receber após o vencimento',
      PenaltyRate: 2,
      InterestRate: 1.5,
      CancelAfterDue: true,
      DaysBeforeCancel: 10,
    });
    assert.deepEqual(body.Products, [
      { Code: '1', Description: 'Pedido 42', UnitPrice: 1000000, Quantity: 1 },
    ]);
  });
});
