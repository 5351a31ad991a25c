import assert from 'node:assert/strict';
import { ulid } from 'ulid';
import { afterAll, afterEach, beforeAll, describe, test } from 'vitest';
import type { Fault } from '../../src/providers/emulator/faults.ts';
import { type ProviderEmulator, startProviderEmulator } from '../../src/providers/emulator/server.ts';
import {
  type CardData,
  type PortCardCharge,
  type ProviderContext,
  REDACTED,
} from '../../src/providers/port.ts';
import { createSafe2PayAdapter, type Safe2PayAdapter } from '../../src/providers/safe2pay/adapter.ts';
import { type EmulatorControl, emulatorControl, portCustomer } from '../support/emulator-control.ts';
import { assertSanitized } from '../support/provider-contract/harness.ts';

// The Safe2Pay card wire (issue 25; wire doc wave 2b §1.1-1.3, §1.7-1.9, §7.1) over undici against the
// provider emulator on a real socket: tokenize, the redacted SPEC 2.3 body, the charge by token and every
// outcome of it (SPEC 3.1: paid, processing, failed, unknown), card reads (SPEC 3.1 rows 5, 6, 13) and the
// integral refund (SPEC 4.8). The emulator's test cards follow Cielo's last-digit rule (wire doc §1.9).

const KEYS = { sandbox: ['sbx-key'], production: ['prd-key'], matrixSandbox: ['matrix-sbx-key'] };
const NOTIFY = 'https://gateway.example.com/v1/providers/safe2pay/notifications';
const SECURITY_CODE = '737';

let emulator: ProviderEmulator;
let control: EmulatorControl;
let adapter: Safe2PayAdapter;

/** Every outcome and thrown value of this file: none may hold a card number, a security code or a token. */
const seen: unknown[] = [];
const numbersUsed = new Set<string>();
const tokensIssued = new Set<string>();

beforeAll(async () => {
  emulator = await startProviderEmulator({ port: 0, host: '127.0.0.1', keys: KEYS });
  control = emulatorControl(emulator.url);
  adapter = createSafe2PayAdapter({
    paymentHost: emulator.paymentUrl,
    apiHost: emulator.apiUrl,
    notificationUrl: NOTIFY,
  });
});
afterEach(async () => {
  await control.cards({ sandboxTokens: 'returned', cancelAnswer: 'boolean' });
});
afterAll(async () => {
  await emulator.close();
});

function ctx(
  environment: 'sandbox' | 'production' = 'production',
  extra: Partial<ProviderContext> = {},
): ProviderContext {
  return {
    environment,
    credentials: { api_key: environment === 'sandbox' ? 'sbx-key' : 'prd-key' },
    signal: AbortSignal.timeout(60_000),
    ...extra,
  };
}

function card(number: string): CardData {
  numbersUsed.add(number);
  return { holder: 'MARIA SILVA', number, expiration: '12/2031', securityCode: SECURITY_CODE };
}

function cardCharge(amount = 12_590, installments = 1): PortCardCharge {
  return {
    transactionId: `txn_${ulid()}`,
    amount,
    installments,
    description: 'Pedido 42',
    customer: portCustomer,
    callbackUrl: 'https://merchant.example.com/webhooks',
  };
}

/** Keeps an outcome for the final check; an issued tokenization is the token itself, handed over to be encrypted. */
function keep<T>(value: T): T {
  const token = value !== null && typeof value === 'object' && 'token' in value;
  if (!token) seen.push(value);
  return value;
}

async function token(number: string, context = ctx()): Promise<string> {
  const outcome = keep(await adapter.cards.tokenize(card(number), context));
  assert.equal(outcome.kind, 'issued', JSON.stringify(outcome));
  if (outcome.kind !== 'issued') throw new Error('unreachable');
  tokensIssued.add(outcome.token);
  return outcome.token;
}

async function chargeWith(number: string, charge = cardCharge(), context = ctx()) {
  const t = await token(number, context);
  const body = adapter.cards.buildChargeRequest(charge, context);
  return keep(await adapter.cards.charge(charge, body, t, context, new Date()));
}

/** A charged card's provider reference (an approved test card). */
async function paidCharge(charge = cardCharge(), context = ctx()): Promise<string> {
  const outcome = await chargeWith('4024007153763191', charge, context);
  assert.equal(outcome.kind, 'issued', JSON.stringify(outcome));
  if (outcome.kind !== 'issued') throw new Error('unreachable');
  return outcome.providerReference;
}

function queryTarget(charge: PortCardCharge, providerReference: string) {
  return {
    transactionId: charge.transactionId,
    method: 'credit_card' as const,
    amount: charge.amount,
    providerReference,
    boletoDueDate: null,
  };
}

/** A sandbox status forced as the wire doc says (§1.9: `UpdateSandboxTransaction`, for 3 -> 5, 6, 13). */
async function forceSandboxStatus(providerReference: string, status: number): Promise<void> {
  const res = await fetch(
    `${emulator.apiUrl}/v2/Transaction/UpdateSandboxTransaction?idTransaction=${providerReference}&idTransactionStatus=${status}`,
    { method: 'PUT', headers: { 'X-API-KEY': 'sbx-key' } },
  );
  assert.deepEqual(await res.json(), { HasError: false, ErrorCode: '0', Error: '', ResponseDetail: true });
}

describe('the redacted charge body (SPEC 2.3; wire doc wave 2b §1.3, §7 snapshot rule)', () => {
  test('buildChargeRequest: PaymentMethod "2", the token redacted, installments, no pre-authorization, decimal reais', () => {
    const charge = cardCharge(12_590, 3);
    assert.deepEqual(adapter.cards.buildChargeRequest(charge, ctx()), {
      IsSandbox: false,
      Application: 'Calebe',
      CallbackUrl: NOTIFY,
      Reference: charge.transactionId,
      PaymentMethod: '2',
      PaymentObject: {
        Token: REDACTED,
        InstallmentQuantity: 3,
        IsPreAuthorization: false,
        IsApplyInterest: false,
      },
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
      Products: [{ Code: '1', Description: 'Pedido 42', UnitPrice: 125.9, Quantity: 1 }],
    });
    assert.equal(adapter.cards.buildChargeRequest(charge, ctx('sandbox'))?.IsSandbox, true);
  });

  test('charge sends a copy with the token: the kept body stays redacted and the provider charged that card', async () => {
    const charge = cardCharge(5_000, 2);
    const t = await token('4024007153763191');
    const body = adapter.cards.buildChargeRequest(charge, ctx());
    const before = structuredClone(body);
    const outcome = keep(await adapter.cards.charge(charge, body, t, ctx(), new Date()));
    assert.equal(outcome.kind, 'issued', JSON.stringify(outcome));
    assert.deepEqual(body, before);
    assert.doesNotMatch(JSON.stringify(body), new RegExp(t));
    const [remote] = await control.charges(charge.transactionId);
    assert.deepEqual(remote?.card, { last4: '3191', brand: 'visa', installments: 2, returnCode: '00' });
    const calls = await control.calls({ reference: charge.transactionId });
    assert.deepEqual(
      calls.map((c) => [c.host, c.method, c.operation]),
      [['payment', 'POST', 'create']],
    );
  });

  test('a body that is not this charge’s redacted card body is refused unsent', async () => {
    const charge = cardCharge();
    const t = await token('4024007153763191');
    const other = adapter.cards.buildChargeRequest(cardCharge(), ctx());
    const unredacted = {
      ...adapter.cards.buildChargeRequest(charge, ctx()),
      PaymentObject: { Token: t, InstallmentQuantity: 1 },
    };
    for (const body of [null, other, unredacted]) {
      const outcome = keep(await adapter.cards.charge(charge, body, t, ctx(), new Date()));
      assert.equal(outcome.kind === 'refused' && outcome.reason, 'not_supported');
    }
    assert.equal((await control.calls({ reference: charge.transactionId })).length, 0);
  });
});

describe('tokenize (wire doc wave 2b §1.2)', () => {
  test('POST /v2/token on the payment host: a token, the brand null when the answer names none', async () => {
    const outcome = keep(await adapter.cards.tokenize(card('4024007153763191'), ctx()));
    assert.equal(outcome.kind, 'issued');
    if (outcome.kind !== 'issued') return;
    tokensIssued.add(outcome.token);
    assert.match(outcome.token, /^[0-9a-f]{32}$/);
    assert.equal(outcome.brand, null);
    const [call] = (await control.calls({ operation: 'tokenize' })).slice(-1);
    assert.equal(call?.host, 'payment');
    assert.equal(call?.path, '/payment/v2/token');
    // The emulator's call log keeps the last four digits only (its own secrets rule).
    assert.deepEqual(call?.body, {
      Holder: 'MARIA SILVA',
      CardNumber: '************3191',
      ExpirationDate: '12/2031',
      SecurityCode: '<masked>',
      IsSandbox: false,
    });
  });

  test('the brand as the answer gives it, not decoded (wire doc wave 2b §1.8)', async () => {
    for (const [value, brand] of [
      ['Visa', 'Visa'],
      [1, '1'],
      ['<script>', null],
    ] as const) {
      await control.fault({ operation: 'tokenize', fault: { type: 'override', field: 'Brand', value } });
      const outcome = keep(await adapter.cards.tokenize(card('4024007153763191'), ctx()));
      assert.equal(outcome.kind === 'issued' && outcome.brand, brand, String(value));
      if (outcome.kind === 'issued') tokensIssued.add(outcome.token);
    }
  });

  test('HasError is refused with its numeric code only; the provider text never', async () => {
    await control.fault({
      operation: 'tokenize',
      fault: { type: 'has_error', code: '1029', message: 'Cartão 4024007153763191 inválido' },
    });
    const outcome = keep(await adapter.cards.tokenize(card('4024007153763191'), ctx()));
    assert.equal(outcome.kind, 'refused');
    if (outcome.kind !== 'refused') return;
    assert.equal(outcome.reason, 'provider_error');
    assert.equal(outcome.diagnostics.provider_error_code, '1029');
    assert.doesNotMatch(outcome.diagnostics.provider_error_message ?? '', /inválido/);
    const invalid = keep(
      await adapter.cards.tokenize({ ...card('4024007153763191'), securityCode: '1' }, ctx()),
    );
    assert.equal(invalid.kind === 'refused' && invalid.diagnostics.provider_error_code, '9002');
  });

  test('a sandbox answer without a token (reported, §1.2) is refused with static guidance', async () => {
    await control.cards({ sandboxTokens: 'withheld' });
    const outcome = keep(await adapter.cards.tokenize(card('4024007153763191'), ctx('sandbox')));
    assert.equal(outcome.kind, 'refused');
    if (outcome.kind !== 'refused') return;
    assert.equal(outcome.reason, 'incomplete');
    assert.equal(outcome.diagnostics.provider_error_code, null);
    assert.equal(outcome.diagnostics.provider_http_status, 200);
    assert.match(outcome.diagnostics.provider_error_message ?? '', /returned no token/);
    await control.cards({ sandboxTokens: 'returned' });
    await token('4024007153763191', ctx('sandbox'));
  });

  test('a 500, an unreadable answer or no answer is uncertain (no money moved)', async () => {
    const faults: Fault[] = [{ type: 'http_error', status: 500 }, { type: 'garbage' }, { type: 'reset' }];
    for (const fault of faults) {
      await control.fault({ operation: 'tokenize', fault });
      const outcome = keep(await adapter.cards.tokenize(card('4024007153763191'), ctx()));
      assert.equal(outcome.kind, 'uncertain', fault.type);
    }
    await control.fault({ operation: 'tokenize', fault: { type: 'no_answer' } });
    const late = keep(
      await adapter.cards.tokenize(
        card('4024007153763191'),
        ctx('production', { signal: AbortSignal.timeout(300) }),
      ),
    );
    assert.equal(late.kind === 'uncertain' && late.reason, 'timeout');
  });

  test('a token works only in the environment that made it', async () => {
    const charge = cardCharge();
    const t = await token('4024007153763191', ctx('sandbox'));
    const outcome = keep(
      await adapter.cards.charge(
        charge,
        adapter.cards.buildChargeRequest(charge, ctx()),
        t,
        ctx(),
        new Date(),
      ),
    );
    assert.equal(outcome.kind === 'refused' && outcome.diagnostics.provider_error_code, '9003');
  });
});

describe('charge by token: outcomes (SPEC 3.1; wire doc wave 2b §1.3, §1.8, §1.9)', () => {
  test('authorized (status 3): issued paid, the only artifact is the provider reference', async () => {
    const charge = cardCharge();
    const outcome = await chargeWith('4000000000000010', charge);
    assert.equal(outcome.kind, 'issued');
    if (outcome.kind !== 'issued') return;
    assert.equal(outcome.status, 'paid');
    assert.match(outcome.providerReference, /^[0-9]+$/);
    assert.equal(outcome.boletoDueDate, null);
    assert.deepEqual(outcome.artifacts, {
      provider_reference: outcome.providerReference,
      pix_copy_paste: null,
      pix_qr_code: null,
      expires_at: null,
      boleto_url: null,
      boleto_digitable_line: null,
      boleto_barcode: null,
      boleto_pix_copy_paste: null,
      boleto_pix_expires_at: null,
    });
  });

  test('status 1 or 2 at creation: issued processing, never paid', async () => {
    for (const status of [1, 2, '2']) {
      const charge = cardCharge();
      await control.fault({
        operation: 'create',
        reference: charge.transactionId,
        fault: { type: 'status', status },
      });
      const outcome = await chargeWith('4000000000000044', charge);
      assert.equal(outcome.kind === 'issued' && outcome.status, 'processing', String(status));
    }
  });

  test('declined (status 8): refused with the provider reference and the numeric return code (SPEC 2.2)', async () => {
    for (const [number, code, guidance] of [
      ['4000000000000002', '05', /issuer declined/],
      ['4000000000000093', '57', /does not allow/],
      ['4000000000000085', '78', /blocked/],
      ['4000000000000077', '77', /cancelled/],
      ['4000000000000028', '70', /Problem with the card/],
    ] as const) {
      const charge = cardCharge();
      const outcome = await chargeWith(number, charge);
      assert.equal(outcome.kind, 'refused', number);
      if (outcome.kind !== 'refused') continue;
      assert.equal(outcome.reason, 'status_refused');
      const [remote] = await control.charges(charge.transactionId);
      assert.equal(outcome.providerReference, String(remote?.id));
      assert.equal(remote?.status, 8);
      assert.equal(outcome.diagnostics.provider_error_code, code);
      assert.equal(outcome.diagnostics.provider_http_status, 200);
      assert.match(outcome.diagnostics.provider_error_message ?? '', guidance);
      assertSanitized(outcome.diagnostics);
    }
  });

  test('an alphanumeric return code (N7) is never a provider_error_code: static guidance instead', async () => {
    const outcome = await chargeWith('5555000000000057');
    assert.equal(outcome.kind, 'refused');
    if (outcome.kind !== 'refused') return;
    assert.equal(outcome.diagnostics.provider_error_code, null);
    assert.match(outcome.diagnostics.provider_error_message ?? '', /The security code was not accepted\./);
    assert.match(outcome.providerReference ?? '', /^[0-9]+$/);
  });

  test('no answer (the timeout card): uncertain, sent once; the charge exists and the reference finds it paid', async () => {
    const charge = cardCharge();
    const t = await token('4000000000000036');
    const context = ctx('production', { signal: AbortSignal.timeout(500) });
    const body = adapter.cards.buildChargeRequest(charge, context);
    const outcome = keep(await adapter.cards.charge(charge, body, t, context, new Date()));
    assert.equal(outcome.kind, 'uncertain');
    if (outcome.kind !== 'uncertain') return;
    assert.equal(outcome.reason, 'timeout');
    assert.equal(outcome.providerReference, null);
    assert.equal((await control.calls({ reference: charge.transactionId, operation: 'create' })).length, 1);
    const found = keep(await adapter.charges.queryByReference(charge.transactionId, ctx()));
    assert.equal(found.kind, 'issued');
    if (found.kind !== 'issued') return;
    assert.equal(found.charges.length, 1);
    assert.equal(found.charges[0]?.status, 'paid');
    assert.equal(found.charges[0]?.paidWith, 'credit_card');
    assert.equal(found.charges[0]?.amount, charge.amount);
  });

  test('status 14, 5, 6, 13 or an unknown code at creation: uncertain with the provider reference and status', async () => {
    for (const status of [14, 5, 6, 13, 99]) {
      const charge = cardCharge();
      await control.fault({
        operation: 'create',
        reference: charge.transactionId,
        fault: { type: 'status', status },
      });
      const outcome = await chargeWith('4024007153763191', charge);
      assert.equal(outcome.kind, 'uncertain', String(status));
      if (outcome.kind !== 'uncertain') continue;
      assert.equal(outcome.reason, 'unknown_status');
      assert.equal(outcome.providerStatus, status);
      assert.match(outcome.providerReference ?? '', /^[0-9]+$/);
    }
  });

  const faults: Array<[string, Fault, 'refused' | 'uncertain', string]> = [
    [
      'HasError on HTTP 200',
      { type: 'has_error', code: '1001', message: 'Erro' },
      'refused',
      'provider_error',
    ],
    [
      'a 4xx with the v2 envelope',
      { type: 'has_error', code: '1002', message: 'Erro', httpStatus: 400 },
      'refused',
      'provider_error',
    ],
    ['HTTP 500', { type: 'http_error', status: 500 }, 'uncertain', 'server_error'],
    ['an unparsable body', { type: 'garbage' }, 'uncertain', 'unparsable'],
    ['a lost answer (the charge made)', { type: 'reset' }, 'uncertain', 'connection'],
    ['a truncated answer', { type: 'truncate' }, 'uncertain', 'incomplete'],
    [
      'a mismatching Reference',
      { type: 'override', field: 'Reference', value: 'txn_other' },
      'uncertain',
      'mismatch',
    ],
    [
      'no IdTransaction',
      { type: 'override', field: 'IdTransaction', value: null },
      'uncertain',
      'incomplete',
    ],
  ];
  for (const [name, fault, kind, reason] of faults) {
    test(`${name}: ${kind} (${reason}), sent once`, async () => {
      const charge = cardCharge();
      await control.fault({ operation: 'create', reference: charge.transactionId, fault });
      const outcome = await chargeWith('4024007153763191', charge);
      assert.equal(outcome.kind, kind);
      if (outcome.kind !== 'refused' && outcome.kind !== 'uncertain') return;
      assert.equal(outcome.reason, reason);
      assertSanitized(outcome.diagnostics);
      assert.equal((await control.calls({ reference: charge.transactionId })).length, 1);
    });
  }

  test('no credential: refused locally, nothing sent', async () => {
    const charge = cardCharge();
    const outcome = keep(
      await adapter.cards.charge(
        charge,
        adapter.cards.buildChargeRequest(charge, ctx()),
        'abc',
        ctx('production', { credentials: {} }),
        new Date(),
      ),
    );
    assert.equal(outcome.kind === 'refused' && outcome.reason, 'credentials_missing');
    assert.equal((await control.calls({ reference: charge.transactionId })).length, 0);
  });
});

describe('card reads (SPEC 3.1, 4.6; wire doc wave 2b §1.3 status table)', () => {
  test('each provider status of a card read maps to its SPEC state; paid_with credit_card when paid', async () => {
    const expected: Array<[number, string | null]> = [
      [3, 'paid'],
      [4, 'paid'],
      [5, 'paid'],
      [6, 'refunded'],
      [13, 'refunded'],
      [8, 'failed'],
      [1, 'processing'],
      [2, 'processing'],
      [14, null],
      [7, null],
      [12, null],
    ];
    const charge = cardCharge();
    const reference = await paidCharge(charge, ctx('sandbox'));
    for (const [status, state] of expected) {
      await forceSandboxStatus(reference, status);
      const byId = keep(await adapter.charges.query(queryTarget(charge, reference), ctx('sandbox')));
      const byRef = keep(await adapter.charges.queryByReference(charge.transactionId, ctx('sandbox')));
      if (state === null) {
        assert.equal(byId.kind === 'uncertain' && byId.providerStatus, status, String(status));
        assert.equal(byRef.kind === 'uncertain' && byRef.providerStatus, status, String(status));
        continue;
      }
      assert.equal(byId.kind, 'issued', String(status));
      assert.equal(byRef.kind, 'issued', String(status));
      if (byId.kind !== 'issued' || byRef.kind !== 'issued') continue;
      assert.deepEqual(byRef.charges, [byId.charge]);
      assert.equal(byId.charge.status, state, String(status));
      assert.equal(byId.charge.providerStatus, status);
      assert.equal(byId.charge.paidWith, state === 'paid' ? 'credit_card' : null);
      assert.equal(byId.charge.amount, charge.amount);
      assert.equal(byId.charge.reference, charge.transactionId);
      assert.equal(byId.charge.artifacts, null);
      assert.equal(byId.charge.duplicatePayment, false);
    }
  });

  test('a read of another amount or reference is uncertain (SPEC 4.6)', async () => {
    const charge = cardCharge();
    const reference = await paidCharge(charge);
    for (const field of ['amount', 'reference'] as const) {
      await control.fault({
        operation: 'query',
        reference: charge.transactionId,
        fault: { type: 'disagree', field },
      });
      const outcome = keep(await adapter.charges.query(queryTarget(charge, reference), ctx()));
      assert.equal(outcome.kind === 'uncertain' && outcome.reason, 'mismatch', field);
    }
  });
});

describe('card refund (SPEC 4.8; wire doc wave 2b §1.7)', () => {
  function refundTarget(charge: PortCardCharge, providerReference: string) {
    return {
      transactionId: charge.transactionId,
      method: 'credit_card' as const,
      providerReference,
      paidWith: 'credit_card' as const,
      bankAccount: null,
    };
  }

  for (const shape of ['boolean', 'object'] as const) {
    test(`DELETE /v2/CreditCard/Cancel/{id} answering ${shape === 'boolean' ? 'true' : '{isCancelled: true}'}: succeeded, then read refunded; again: refused`, async () => {
      await control.cards({ cancelAnswer: shape });
      const charge = cardCharge();
      const reference = await paidCharge(charge);
      const outcome = keep(await adapter.charges.refund(refundTarget(charge, reference), ctx()));
      assert.deepEqual(outcome, { kind: 'issued', refundStatus: 'succeeded' });
      const [call] = await control.calls({ reference: charge.transactionId, operation: 'refund' });
      assert.equal(call?.host, 'api');
      assert.equal(call?.method, 'DELETE');
      assert.equal(call?.path, `/api/v2/CreditCard/Cancel/${reference}`);
      const read = keep(await adapter.charges.query(queryTarget(charge, reference), ctx()));
      assert.equal(read.kind === 'issued' && read.charge.status, 'refunded');
      // Nothing left to cancel: `false` / `{isCancelled: false}`.
      const again = keep(await adapter.charges.refund(refundTarget(charge, reference), ctx()));
      assert.equal(again.kind === 'refused' && again.reason, 'status_refused');
      assert.equal(again.kind === 'refused' && again.providerReference, reference);
    });
  }

  test('any other answer is uncertain; a 500 too; HasError is refused', async () => {
    const charge = cardCharge();
    const reference = await paidCharge(charge);
    const cases: Array<[Fault, string, string]> = [
      [
        { type: 'http_error', status: 200, body: '{"HasError":false,"ResponseDetail":"ok"}' },
        'uncertain',
        'incomplete',
      ],
      [
        {
          type: 'http_error',
          status: 200,
          body: '{"HasError":false,"ResponseDetail":{"isCancelled":"yes"}}',
        },
        'uncertain',
        'incomplete',
      ],
      [{ type: 'http_error', status: 500 }, 'uncertain', 'server_error'],
      [{ type: 'has_error', code: '1101', message: 'Prazo expirado' }, 'refused', 'provider_error'],
    ];
    for (const [fault, kind, reason] of cases) {
      await control.fault({ operation: 'refund', reference: charge.transactionId, fault });
      const outcome = keep(await adapter.charges.refund(refundTarget(charge, reference), ctx()));
      assert.equal(outcome.kind, kind, JSON.stringify(fault));
      if (outcome.kind !== 'issued') assert.equal(outcome.reason, reason);
    }
    const read = keep(await adapter.charges.query(queryTarget(charge, reference), ctx()));
    assert.equal(read.kind === 'issued' && read.charge.status, 'paid');
  });

  test('a due date change or a cancellation of a card is refused as not supported, nothing sent', async () => {
    const charge = cardCharge();
    const reference = await paidCharge(charge);
    const changed = keep(
      await adapter.charges.changeDueDate(
        {
          transactionId: charge.transactionId,
          amount: charge.amount,
          providerReference: reference,
          dueDate: '2030-01-01',
          boleto: null,
        },
        ctx(),
      ),
    );
    assert.equal(changed.kind === 'refused' && changed.reason, 'not_supported');
    const cancelled = keep(
      await adapter.charges.cancel(
        { transactionId: charge.transactionId, method: 'credit_card', providerReference: reference },
        ctx(),
      ),
    );
    assert.equal(cancelled.kind === 'refused' && cancelled.reason, 'not_supported');
    assert.equal((await control.calls({ reference: charge.transactionId })).length, 1);
  });
});

describe('card data never leaves through the adapter or rests in the emulator (SPEC 8; issue 25 item 2)', () => {
  test('no outcome of this file, no emulator call log entry and no emulator charge holds a number, the code or a token', async () => {
    assert.ok(seen.length > 40, `${seen.length} outcomes seen`);
    assert.ok(numbersUsed.size >= 8 && tokensIssued.size >= 8);
    const outcomes = JSON.stringify(seen);
    const calls = JSON.stringify(await control.calls());
    const res = await fetch(`${emulator.url}/_emulator/charges`);
    const charges = await res.text();
    for (const secret of [...numbersUsed, ...tokensIssued]) {
      assert.ok(!outcomes.includes(secret), 'an outcome holds a card number or token');
      assert.ok(!calls.includes(secret), 'the call log holds a card number or token');
      assert.ok(!charges.includes(secret), 'an emulator charge holds a card number or token');
    }
    assert.doesNotMatch(calls, new RegExp(`"SecurityCode":"${SECURITY_CODE}"`));
  });
});
