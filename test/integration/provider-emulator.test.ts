import assert from 'node:assert/strict';
import { isValidBoleto, isValidPixPayload } from '@brazilian-utils/brazilian-utils';
import { afterAll, beforeAll, describe, test } from 'vitest';
import { type ProviderEmulator, startProviderEmulator } from '../../src/providers/emulator/server.ts';
import { type EmulatorControl, emulatorControl } from '../support/emulator-control.ts';
import { saoPauloDate } from '../support/provider-contract/harness.ts';

// The provider emulator on its own (docs/provider-emulator.md; issue 13): wire rules and the control API,
// driven with plain HTTP requests.

let emulator: ProviderEmulator;
let control: EmulatorControl;

beforeAll(async () => {
  emulator = await startProviderEmulator({ port: 0, host: '127.0.0.1' });
  control = emulatorControl(emulator.url);
});
afterAll(async () => {
  await emulator.close();
});

function brDate(date: string): string {
  const [y, m, d] = date.split('-');
  return `${d}/${m}/${y}`;
}

/**
 * A body as the official Node SDK (npm `safe2pay` 1.1.12) sends it: its `Transaction` model with `Id: 0`,
 * `IdTransaction: 0` and `Authenticate: false`, its `Bankslip` model with a `Message` list, products of 1.99 x 10,
 * null fields removed by its `Util.RemoveObjectKeys` (recorded from the SDK's models and its PaymentTest).
 */
function sdkBankslipBody(reference: string, dueDate: string): Record<string, unknown> {
  return {
    Id: 0,
    IdTransaction: 0,
    Authenticate: false,
    IsSandbox: true,
    Application: 'Teste SDK NodeJS',
    Vendor: 'João da Silva',
    CallbackUrl: 'https://callbacks.exemplo.com.br/api/Notify',
    Reference: reference,
    PaymentMethod: '1',
    Customer: {
      Name: 'João da silva',
      Identity: '18978393080',
      Phone: '51999999999',
      Email: 'safe2pay@safe2pay.com.br',
      Address: {
        ZipCode: '90670090',
        Street: 'Logradouro',
        Number: '123',
        Complement: 'Complemento',
        District: 'Higienopolis',
        CityName: 'Porto Alegre',
        StateInitials: 'RS',
        CountryName: 'Brasil',
      },
    },
    Products: [{ Code: '001', Description: 'Teste 1', UnitPrice: 1.99, Quantity: 10 }],
    Splits: [],
    PaymentObject: {
      DueDate: brDate(dueDate),
      Instruction: 'Instrução de Exemplo',
      Message: ['Mensagem 1', 'Mensagem 2'],
      PenaltyRate: 2,
      InterestRate: 0.4,
      CancelAfterDue: false,
      IsEnablePartialPayment: false,
    },
  };
}

async function wire(path: string, init: { method?: string; key?: string | null; body?: unknown } = {}) {
  const headers: Record<string, string> = {};
  if (init.key !== null) headers['X-API-KEY'] = init.key ?? 'emu-sandbox-key';
  if (init.body !== undefined) headers['Content-Type'] = 'application/json';
  const res = await fetch(`${emulator.url}${path}`, {
    method: init.method ?? 'GET',
    headers,
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
  });
  const text = await res.text();
  let json: Record<string, unknown> | null = null;
  try {
    json = JSON.parse(text) as Record<string, unknown>;
  } catch {
    // an empty or non-JSON body (router 404, garbage fault): the test reads `text`
  }
  return { status: res.status, text, json };
}

function detail(json: Record<string, unknown> | null): Record<string, unknown> {
  const d = json?.ResponseDetail;
  if (d === null || typeof d !== 'object' || Array.isArray(d))
    throw new Error(`no detail: ${JSON.stringify(json)}`);
  return d as Record<string, unknown>;
}

describe('provider emulator wire rules', () => {
  test('a body built by the official SDK models is accepted: boleto of 10 x 1.99 = R$ 19,90', async () => {
    const due = saoPauloDate(30);
    const res = await wire('/payment/v2/Payment', { method: 'POST', body: sdkBankslipBody('sdk-1', due) });
    assert.equal(res.status, 200);
    assert.equal(res.json?.HasError, false);
    const d = detail(res.json);
    assert.equal(d.Status, 1);
    assert.equal(d.DueDate, brDate(due));
    assert.ok(isValidBoleto(String(d.DigitableLine)));
    assert.equal(String(d.Barcode).slice(9, 19), '0000001990');
    assert.ok(isValidPixPayload(String(d.KeyPix)));
    const read = detail((await wire(`/api/v2/Transaction/Get?Id=${String(d.IdTransaction)}`)).json);
    assert.equal(read.Amount, 19.9);
    assert.equal(read.Reference, 'sdk-1');
  });

  test('endpoints answer only on their own host; unknown keys get 401', async () => {
    const wrongHost = await wire('/api/v2/Payment', {
      method: 'POST',
      body: sdkBankslipBody('sdk-2', saoPauloDate(3)),
    });
    assert.equal(wrongHost.status, 404);
    assert.equal(wrongHost.text, '');
    assert.equal((await wire('/payment/v2/Transaction/Get?Id=1')).status, 404);
    const noKey = await wire('/api/v2/Transaction/Get?Id=1', { key: null });
    assert.equal(noKey.status, 401);
    assert.equal(noKey.json?.HasError, true);
    assert.equal((await wire('/api/v2/Transaction/Get?Id=1', { key: 'other' })).status, 401);
  });

  test('refusals are envelopes on HTTP 200: invalid body, IsSandbox against the key, unknown id', async () => {
    const invalid = await wire('/payment/v2/Payment', {
      method: 'POST',
      body: {
        ...sdkBankslipBody('sdk-3', saoPauloDate(3)),
        Products: [{ Code: '1', UnitPrice: 1.999, Quantity: 1 }],
      },
    });
    assert.deepEqual([invalid.status, invalid.json?.HasError, invalid.json?.ErrorCode], [200, true, '9002']);
    const production = await wire('/payment/v2/Payment', {
      method: 'POST',
      key: 'emu-production-key',
      body: sdkBankslipBody('sdk-4', saoPauloDate(3)),
    });
    assert.equal(production.json?.ErrorCode, '9001');
    const missing = await wire('/api/v2/Transaction/Get?Id=999');
    assert.equal(missing.json?.ErrorCode, '9003');
  });
});

describe('provider emulator control API', () => {
  test('a fault applies `times` times to its reference only; null lasts until cleared', async () => {
    const body = (reference: string) => sdkBankslipBody(reference, saoPauloDate(3));
    await control.fault({ reference: 'ctl-a', times: 2, fault: { type: 'http_error', status: 503 } });
    assert.equal((await wire('/payment/v2/Payment', { method: 'POST', body: body('ctl-b') })).status, 200);
    assert.equal((await wire('/payment/v2/Payment', { method: 'POST', body: body('ctl-a') })).status, 503);
    assert.equal((await wire('/payment/v2/Payment', { method: 'POST', body: body('ctl-a') })).status, 503);
    assert.equal((await wire('/payment/v2/Payment', { method: 'POST', body: body('ctl-a') })).status, 200);
    // http_error does not commit by default: only the last call created a charge for ctl-a.
    assert.equal((await control.charges('ctl-a')).length, 1);

    await control.fault({
      operation: 'query_by_reference',
      reference: 'ctl-c',
      times: null,
      fault: { type: 'garbage' },
    });
    for (let i = 0; i < 3; i++) {
      const res = await wire('/api/v2/Transaction/Reference?reference=ctl-c');
      assert.match(res.text, /<html>/);
    }
    await fetch(`${emulator.url}/_emulator/faults`, { method: 'DELETE' });
    assert.equal((await wire('/api/v2/Transaction/Reference?reference=ctl-c')).json?.HasError, false);
  });

  test('a rule fires with its probability; one that does not fire leaves the call to the next rule', async () => {
    // Draws alternate 0.1, 0.9, ...: a rule of probability 0.5 fires on every other matching call.
    let n = 0;
    const seeded = await startProviderEmulator({ random: () => (n++ % 2 === 0 ? 0.1 : 0.9) });
    try {
      const own = emulatorControl(seeded.url);
      const send = (reference: string) =>
        fetch(`${seeded.url}/payment/v2/Payment`, {
          method: 'POST',
          headers: { 'X-API-KEY': 'emu-sandbox-key', 'Content-Type': 'application/json' },
          body: JSON.stringify(sdkBankslipBody(reference, saoPauloDate(3))),
        }).then((r) => r.status);
      await own.fault({
        operation: 'create',
        times: null,
        probability: 0.5,
        fault: { type: 'http_error', status: 503 },
      });
      await own.fault({ operation: 'create', times: null, fault: { type: 'http_error', status: 500 } });
      assert.deepEqual(
        [await send('p-1'), await send('p-2'), await send('p-3'), await send('p-4')],
        [503, 500, 503, 500],
      );
      for (const probability of [0, 1.5, '0.5']) {
        const res = await fetch(`${seeded.url}/_emulator/faults`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({ probability, fault: { type: 'reset' } }),
        });
        assert.equal(res.status, 400, String(probability));
      }
    } finally {
      await seeded.close();
    }
  });

  test('commit decides whether a lost answer left a charge behind', async () => {
    await control.fault({ operation: 'create', reference: 'ctl-d', commit: false, fault: { type: 'reset' } });
    await assert.rejects(
      wire('/payment/v2/Payment', { method: 'POST', body: sdkBankslipBody('ctl-d', saoPauloDate(3)) }),
    );
    assert.equal((await control.charges('ctl-d')).length, 0);
    await control.fault({ operation: 'create', reference: 'ctl-e', fault: { type: 'reset' } });
    await assert.rejects(
      wire('/payment/v2/Payment', { method: 'POST', body: sdkBankslipBody('ctl-e', saoPauloDate(3)) }),
    );
    assert.equal((await control.charges('ctl-e')).length, 1);
  });

  test('calls are listed per reference with operation, host, environment and fault', async () => {
    const created = detail(
      (await wire('/payment/v2/Payment', { method: 'POST', body: sdkBankslipBody('ctl-f', saoPauloDate(3)) }))
        .json,
    );
    await control.fault({ operation: 'query', reference: 'ctl-f', fault: { type: 'latency', ms: 1 } });
    await wire(`/api/v2/Transaction/Get?Id=${String(created.IdTransaction)}`);
    const calls = await control.calls({ reference: 'ctl-f' });
    assert.deepEqual(
      calls.map((c) => [c.operation, c.host, c.environment, c.fault, c.httpStatus]),
      [
        ['create', 'payment', 'sandbox', null, 200],
        ['query', 'api', 'sandbox', 'latency', 200],
      ],
    );
  });

  test('moves: paid_both reads as boleto; a Pix-only move on a Pix charge is refused', async () => {
    const created = detail(
      (await wire('/payment/v2/Payment', { method: 'POST', body: sdkBankslipBody('ctl-g', saoPauloDate(3)) }))
        .json,
    );
    await control.move(String(created.IdTransaction), 'paid_both');
    const read = detail((await wire(`/api/v2/Transaction/Get?Id=${String(created.IdTransaction)}`)).json);
    assert.deepEqual([read.Status, read.PaymentMethod], [3, '1']);
    const pix = detail(
      (
        await wire('/payment/v2/Payment', {
          method: 'POST',
          body: {
            ...sdkBankslipBody('ctl-h', saoPauloDate(3)),
            PaymentMethod: '6',
            PaymentObject: { Expiration: 600 },
          },
        })
      ).json,
    );
    assert.ok(isValidPixPayload(String(pix.Key)));
    await assert.rejects(control.move(String(pix.IdTransaction), 'paid_boleto'), /409/);
  });

  test('keys can be replaced; reset forgets charges, faults and calls', async () => {
    await fetch(`${emulator.url}/_emulator/keys`, {
      method: 'POST',
      body: JSON.stringify({ sandbox: ['new-sbx'] }),
      headers: { 'content-type': 'application/json' },
    });
    assert.equal((await wire('/api/v2/Transaction/Reference?reference=x')).status, 401);
    assert.equal((await wire('/api/v2/Transaction/Reference?reference=x', { key: 'new-sbx' })).status, 200);
    await control.reset();
    assert.deepEqual(await control.calls(), []);
    assert.deepEqual(await control.charges('ctl-g'), []);
  });
});
