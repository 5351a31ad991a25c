import assert from 'node:assert/strict';
import { afterAll, afterEach, beforeAll, describe, test } from 'vitest';
import { type ProviderEmulator, startProviderEmulator } from '../../src/providers/emulator/server.ts';
import { type EmulatorControl, emulatorControl } from '../support/emulator-control.ts';

// The provider emulator's card endpoints on their own (issue 25; wire doc wave 2b §1.1-1.3, §1.7, §1.9,
// §7.7; docs/provider-emulator.md "Cards"), driven with plain HTTP requests: tokenize, card charges by token
// or raw card with the last-digit test cards, the refund in both answer shapes, sandbox status moves, faults
// and call counting on the card routes, and the rule that the emulator keeps no card number nor code.

let emulator: ProviderEmulator;
let control: EmulatorControl;

beforeAll(async () => {
  emulator = await startProviderEmulator({ port: 0, host: '127.0.0.1' });
  control = emulatorControl(emulator.url);
});
afterEach(async () => {
  await control.cards({ sandboxTokens: 'returned', cancelAnswer: 'boolean' });
});
afterAll(async () => {
  await emulator.close();
});

const SANDBOX = 'emu-sandbox-key';
const PRODUCTION = 'emu-production-key';

async function wire(
  path: string,
  init: { method?: string; key?: string; body?: unknown; signal?: AbortSignal } = {},
) {
  const res = await fetch(`${emulator.url}${path}`, {
    method: init.method ?? 'GET',
    headers: {
      'X-API-KEY': init.key ?? SANDBOX,
      ...(init.body === undefined ? {} : { 'Content-Type': 'application/json' }),
    },
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
    ...(init.signal ? { signal: init.signal } : {}),
  });
  const text = await res.text();
  return {
    status: res.status,
    text,
    json: text === '' ? null : (JSON.parse(text) as Record<string, unknown>),
  };
}

function detail(json: Record<string, unknown> | null): Record<string, unknown> {
  const d = json?.ResponseDetail;
  if (d === null || typeof d !== 'object' || Array.isArray(d))
    throw new Error(`no detail: ${JSON.stringify(json)}`);
  return d as Record<string, unknown>;
}

/** The raw card fields (wire doc wave 2b §1.2), as the official Woo plugin posts them. */
function rawCard(number: string) {
  return { Holder: 'JOAO DA SILVA', CardNumber: number, ExpirationDate: '12/2030', SecurityCode: '123' };
}

function tokenBody(number: string, sandbox = true) {
  return { ...rawCard(number), IsSandbox: sandbox };
}

/** A `/v2/Payment` card body (wire doc wave 2b §1.3): R$ 100,00 in 2 installments. */
function cardPayment(reference: string, paymentObject: Record<string, unknown>, sandbox = true) {
  return {
    IsSandbox: sandbox,
    Application: 'Teste',
    Reference: reference,
    PaymentMethod: '2',
    Customer: { Name: 'João da Silva', Identity: '18978393080' },
    Products: [{ Code: '1', Description: 'Curso', UnitPrice: 100, Quantity: 1 }],
    PaymentObject: { InstallmentQuantity: 2, ...paymentObject },
  };
}

async function tokenOf(number: string, key = SANDBOX): Promise<string> {
  const res = await wire('/payment/v2/token', {
    method: 'POST',
    key,
    body: tokenBody(number, key === SANDBOX),
  });
  const token = detail(res.json).Token;
  assert.equal(typeof token, 'string');
  return token as string;
}

async function read(id: unknown, key = SANDBOX): Promise<Record<string, unknown>> {
  return detail((await wire(`/api/v2/Transaction/Get?Id=${String(id)}`, { key })).json);
}

describe('tokenize: POST /v2/token (wire doc wave 2b §1.2)', () => {
  test('a valid card gives a 32-hex token on the payment host only; invalid fields and IsSandbox are refused', async () => {
    const ok = await wire('/payment/v2/token', { method: 'POST', body: tokenBody('4024007153763191') });
    assert.equal(ok.status, 200);
    assert.equal(ok.json?.HasError, false);
    assert.match(String(detail(ok.json).Token), /^[0-9a-f]{32}$/);
    assert.equal(
      (await wire('/api/v2/token', { method: 'POST', body: tokenBody('4024007153763191') })).status,
      404,
    );
    for (const body of [
      { ...tokenBody('4024007153763191'), CardNumber: '4024 0071 5376 3191' },
      { ...tokenBody('4024007153763191'), SecurityCode: '12' },
      { ...tokenBody('4024007153763191'), ExpirationDate: '12/30' },
      { ...tokenBody('4024007153763191'), Holder: '' },
    ]) {
      const res = await wire('/payment/v2/token', { method: 'POST', body });
      assert.deepEqual([res.status, res.json?.HasError, res.json?.ErrorCode], [200, true, '9002']);
    }
    const mixed = await wire('/payment/v2/token', {
      method: 'POST',
      body: tokenBody('4024007153763191', false),
    });
    assert.equal(mixed.json?.ErrorCode, '9001');
  });

  test('a sandbox key can be set to get no token (the reported behaviour); production always gets one', async () => {
    await control.cards({ sandboxTokens: 'withheld' });
    const sandbox = await wire('/payment/v2/token', { method: 'POST', body: tokenBody('4024007153763191') });
    assert.deepEqual(sandbox.json, {
      HasError: false,
      ErrorCode: '0',
      Error: '',
      ResponseDetail: { Token: null },
    });
    await tokenOf('4024007153763191', PRODUCTION);
  });
});

describe('card charges: POST /v2/Payment with PaymentMethod "2" (wire doc wave 2b §1.3, §1.9)', () => {
  test('the last digit decides (Cielo sandbox rule), and one N7 card; reads show method 2 and a masked card', async () => {
    const table: Array<[string, number, string]> = [
      ['4000000000000010', 3, '00'],
      ['4024007153763191', 3, '00'],
      ['4000000000000044', 3, '00'],
      ['4000000000000069', 3, '00'],
      ['4000000000000002', 8, '05'],
      ['4000000000000093', 8, '57'],
      ['4000000000000085', 8, '78'],
      ['4000000000000077', 8, '77'],
      ['4000000000000028', 8, '70'],
      ['5555000000000057', 8, 'N7'],
    ];
    for (const [number, status, returnCode] of table) {
      const reference = `card-${number}`;
      const res = await wire('/payment/v2/Payment', {
        method: 'POST',
        body: cardPayment(reference, rawCard(number)),
      });
      const d = detail(res.json);
      assert.equal(d.Status, status, number);
      const creditCard = d.CreditCard as Record<string, unknown>;
      assert.equal(creditCard.ReturnCode, returnCode, number);
      assert.equal(creditCard.CardNumber, `************${number.slice(-4)}`);
      assert.equal(creditCard.Installments, 2);
      assert.equal(typeof creditCard.Brand, 'number');
      // A raw-card charge answers the card's reusable token too (§1.2).
      assert.match(String(d.Token), /^[0-9a-f]{32}$/);
      const r = await read(d.IdTransaction);
      assert.deepEqual(
        [r.Status, r.PaymentMethod, r.Amount, r.Reference, r.AmountPayment],
        [status, '2', 100, reference, status === 3 ? 100 : null],
      );
      assert.equal(
        (r.PaymentObject as Record<string, unknown>).CardNumber,
        `************${number.slice(-4)}`,
      );
    }
  });

  test('by token: the token’s card decides; a token of the other environment or unknown is refused (9003)', async () => {
    const approved = await tokenOf('4111111111111111');
    const declined = await tokenOf('4000000000000002');
    const paid = detail(
      (await wire('/payment/v2/Payment', { method: 'POST', body: cardPayment('tok-1', { Token: approved }) }))
        .json,
    );
    assert.equal(paid.Status, 3);
    assert.equal(paid.Token, approved);
    const refused = detail(
      (await wire('/payment/v2/Payment', { method: 'POST', body: cardPayment('tok-2', { Token: declined }) }))
        .json,
    );
    assert.deepEqual([refused.Status, (refused.CreditCard as Record<string, unknown>).ReturnCode], [8, '05']);
    const other = await wire('/payment/v2/Payment', {
      method: 'POST',
      key: PRODUCTION,
      body: cardPayment('tok-3', { Token: approved }, false),
    });
    assert.equal(other.json?.ErrorCode, '9003');
    const unknown = await wire('/payment/v2/Payment', {
      method: 'POST',
      body: cardPayment('tok-4', { Token: 'f'.repeat(32) }),
    });
    assert.equal(unknown.json?.ErrorCode, '9003');
    assert.equal((await control.charges('tok-3')).length + (await control.charges('tok-4')).length, 0);
  });

  test('1 to 12 installments; a pre-authorization is status 14; IsSandbox must match the key', async () => {
    const t = await tokenOf('4111111111111111');
    for (const InstallmentQuantity of [0, 13, 1.5, '2']) {
      const res = await wire('/payment/v2/Payment', {
        method: 'POST',
        body: cardPayment('inst', { Token: t, InstallmentQuantity }),
      });
      assert.equal(res.json?.ErrorCode, '9002', String(InstallmentQuantity));
    }
    const pre = await wire('/payment/v2/Payment', {
      method: 'POST',
      body: cardPayment('pre', { Token: t, IsPreAuthorization: true }),
    });
    assert.equal(detail(pre.json).Status, 14);
    const mixed = await wire('/payment/v2/Payment', {
      method: 'POST',
      body: cardPayment('mixed', { Token: t }, false),
    });
    assert.equal(mixed.json?.ErrorCode, '9001');
  });

  test('the timeout card: no answer, but the charge is made (status 3 on Transaction/Get); the call is logged', async () => {
    await assert.rejects(
      wire('/payment/v2/Payment', {
        method: 'POST',
        body: cardPayment('timeout-card', rawCard('4000000000000036')),
        signal: AbortSignal.timeout(300),
      }),
    );
    const [charge] = await control.charges('timeout-card');
    assert.equal(charge?.status, 3);
    assert.equal((await read(charge?.id)).Status, 3);
    const calls = await control.calls({ reference: 'timeout-card', operation: 'create' });
    assert.deepEqual(
      calls.map((c) => [c.operation, c.httpStatus]),
      [['create', null]],
    );
  });
});

describe('refund: DELETE /v2/CreditCard/Cancel/{id} (wire doc wave 2b §1.7)', () => {
  async function paid(reference: string): Promise<number> {
    const d = detail(
      (
        await wire('/payment/v2/Payment', {
          method: 'POST',
          body: cardPayment(reference, rawCard('4111111111111111')),
        })
      ).json,
    );
    return d.IdTransaction as number;
  }

  test('answers true, then false once refunded (status 6); the object shape is selectable', async () => {
    const id = await paid('cancel-bool');
    const first = await wire(`/api/v2/CreditCard/Cancel/${id}`, { method: 'DELETE' });
    assert.deepEqual(first.json, { HasError: false, ErrorCode: '0', Error: '', ResponseDetail: true });
    assert.equal((await read(id)).Status, 6);
    const second = await wire(`/api/v2/CreditCard/Cancel/${id}`, { method: 'DELETE' });
    assert.equal(second.json?.ResponseDetail, false);
    await control.cards({ cancelAnswer: 'object' });
    const other = await paid('cancel-object');
    const asObject = await wire(`/api/v2/CreditCard/Cancel/${other}`, { method: 'DELETE' });
    assert.deepEqual(asObject.json?.ResponseDetail, { IdTransaction: other, isCancelled: true });
    const again = await wire(`/api/v2/CreditCard/Cancel/${other}`, { method: 'DELETE' });
    assert.deepEqual(again.json?.ResponseDetail, { IdTransaction: other, isCancelled: false });
  });

  test('an unknown id is 9003, a Pix charge 9004; only on the API host', async () => {
    assert.equal(
      (await wire('/api/v2/CreditCard/Cancel/424242', { method: 'DELETE' })).json?.ErrorCode,
      '9003',
    );
    const pix = await wire('/payment/v2/Payment', {
      method: 'POST',
      body: { ...cardPayment('pix-1', {}), PaymentMethod: '6', PaymentObject: { Expiration: 600 } },
    });
    const pixId = detail(pix.json).IdTransaction;
    assert.equal(
      (await wire(`/api/v2/CreditCard/Cancel/${pixId}`, { method: 'DELETE' })).json?.ErrorCode,
      '9004',
    );
    const id = await paid('cancel-host');
    assert.equal((await wire(`/payment/v2/CreditCard/Cancel/${id}`, { method: 'DELETE' })).status, 404);
  });

  test('UpdateSandboxTransaction drives 3 -> 5 -> 13 and 3 -> 6, read by id and by reference', async () => {
    const id = await paid('sandbox-moves');
    for (const status of [5, 13, 6]) {
      const res = await wire(
        `/api/v2/Transaction/UpdateSandboxTransaction?idTransaction=${id}&idTransactionStatus=${status}`,
        { method: 'PUT' },
      );
      assert.equal(res.json?.ResponseDetail, true);
      assert.equal((await read(id)).Status, status);
      const list = detail((await wire('/api/v2/Transaction/Reference?reference=sandbox-moves')).json);
      assert.deepEqual(
        (list.Objects as Record<string, unknown>[]).map((o) => [o.Status, o.PaymentMethod]),
        [[status, '2']],
      );
    }
  });
});

describe('faults, call counting and kept data on the card routes', () => {
  test('HasError, a 4xx with the v2 envelope, a 500 and a lost answer after the charge; every call counted', async () => {
    await control.fault({
      operation: 'tokenize',
      fault: { type: 'has_error', code: '1029', message: 'Erro' },
    });
    assert.equal(
      (await wire('/payment/v2/token', { method: 'POST', body: tokenBody('4111111111111111') })).json
        ?.ErrorCode,
      '1029',
    );
    const reference = 'fault-card';
    const body = cardPayment(reference, rawCard('4111111111111111'));
    await control.fault({
      operation: 'create',
      reference,
      fault: { type: 'has_error', code: '1002', message: 'Erro', httpStatus: 400 },
    });
    const rejected = await wire('/payment/v2/Payment', { method: 'POST', body });
    assert.deepEqual([rejected.status, rejected.json?.HasError], [400, true]);
    await control.fault({ operation: 'create', reference, fault: { type: 'http_error', status: 500 } });
    assert.equal((await wire('/payment/v2/Payment', { method: 'POST', body })).status, 500);
    // Neither made a charge (errors do not commit by default); a lost answer does.
    assert.equal((await control.charges(reference)).length, 0);
    await control.fault({ operation: 'create', reference, fault: { type: 'no_answer' } });
    await assert.rejects(
      wire('/payment/v2/Payment', { method: 'POST', body, signal: AbortSignal.timeout(300) }),
    );
    assert.equal((await control.charges(reference))[0]?.status, 3);
    const calls = await control.calls({ reference, operation: 'create' });
    assert.deepEqual(
      calls.map((c) => c.fault),
      ['has_error', 'http_error', 'no_answer'],
    );
    const id = (await control.charges(reference))[0]?.id;
    await control.fault({ operation: 'refund', reference, fault: { type: 'http_error', status: 503 } });
    assert.equal((await wire(`/api/v2/CreditCard/Cancel/${id}`, { method: 'DELETE' })).status, 503);
    assert.equal((await control.calls({ reference, operation: 'refund' })).length, 1);
  });

  test('the emulator keeps no card number, no security code and no token: call log and charges', async () => {
    const t = await tokenOf('4000000000000051');
    await wire('/payment/v2/Payment', { method: 'POST', body: cardPayment('kept-1', { Token: t }) });
    await wire('/payment/v2/Payment', {
      method: 'POST',
      body: cardPayment('kept-2', rawCard('4000000000000051')),
    });
    const calls = JSON.stringify(await control.calls());
    const charges = await (await fetch(`${emulator.url}/_emulator/charges`)).text();
    for (const text of [calls, charges]) {
      assert.ok(!text.includes('4000000000000051'));
      assert.ok(!text.includes(t));
      assert.doesNotMatch(text, /"SecurityCode":"123"/);
    }
    const [kept] = await control.charges('kept-2');
    assert.deepEqual(kept?.card, { last4: '0051', brand: 'visa', installments: 2, returnCode: '00' });
    const [logged] = await control.calls({ reference: 'kept-2' });
    assert.deepEqual((logged?.body as Record<string, unknown> | undefined)?.PaymentObject, {
      InstallmentQuantity: 2,
      Holder: 'JOAO DA SILVA',
      CardNumber: '************0051',
      ExpirationDate: '12/2030',
      SecurityCode: '<masked>',
    });
  });

  test('control: GET/POST /_emulator/cards, invalid values 400, reset restores the defaults', async () => {
    const url = `${emulator.url}/_emulator/cards`;
    assert.deepEqual(await (await fetch(url)).json(), {
      cards: { sandboxTokens: 'returned', cancelAnswer: 'boolean' },
    });
    const bad = await fetch(url, { method: 'POST', body: JSON.stringify({ cancelAnswer: 'maybe' }) });
    assert.equal(bad.status, 400);
    await control.cards({ sandboxTokens: 'withheld', cancelAnswer: 'object' });
    assert.deepEqual(await (await fetch(url)).json(), {
      cards: { sandboxTokens: 'withheld', cancelAnswer: 'object' },
    });
    await control.reset();
    assert.deepEqual(await (await fetch(url)).json(), {
      cards: { sandboxTokens: 'returned', cancelAnswer: 'boolean' },
    });
  });
});
