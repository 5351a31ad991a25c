import assert from 'node:assert/strict';
import { afterAll, beforeAll, beforeEach, describe, test } from 'vitest';
import { type ProviderEmulator, startProviderEmulator } from '../../src/providers/emulator/server.ts';
import { type EmulatorControl, emulatorControl } from '../support/emulator-control.ts';
import { saoPauloDate } from '../support/provider-contract/harness.ts';
import { INVALID_CPF, merchant } from '../support/subaccount-fixtures.ts';

// Issue 28 items 2 and 6: the provider emulator's marketplace subaccounts (wire doc §2.12-2.13, wave 2b §4.1,
// §6.1, §7.7) over a real socket: only the matrix's production key manages them (SPEC 2.8: code 301 for the
// matrix sandbox key; 300 for any other key), the observed onboarding codes, the settings for the INFERRED
// alternatives, faults and the call log, and charges attributed to the subaccount whose token issued them.

let emulator: ProviderEmulator;
let control: EmulatorControl;

beforeAll(async () => {
  emulator = await startProviderEmulator({ port: 0, host: '127.0.0.1' });
  control = emulatorControl(emulator.url);
});
afterAll(async () => {
  await emulator.close();
});
beforeEach(async () => {
  await control.reset();
});

const MATRIX = 'emu-production-key';

async function wire(
  method: string,
  path: string,
  body?: unknown,
  key = MATRIX,
): Promise<{ status: number; json: Record<string, unknown> | null }> {
  const res = await fetch(`${emulator.url}${path}`, {
    method,
    headers: { 'x-api-key': key, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, json: text === '' ? null : (JSON.parse(text) as Record<string, unknown>) };
}

async function controlApi(method: string, path: string, body?: unknown) {
  const res = await fetch(`${emulator.url}/_emulator${path}`, {
    method,
    headers: { 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

const detail = (a: { json: Record<string, unknown> | null }) =>
  a.json?.ResponseDetail as Record<string, unknown>;

async function add(identity: string, extra: Record<string, unknown> = {}) {
  const answer = await wire('POST', '/api/v2/Marketplace/Add', merchant(identity, extra));
  assert.equal(answer.json?.HasError, false, JSON.stringify(answer.json));
  return detail(answer);
}

function boleto(reference: string, sandbox: boolean) {
  return {
    IsSandbox: sandbox,
    Reference: reference,
    PaymentMethod: '1',
    Customer: { Name: 'João da Silva', Identity: '18978393080' },
    Products: [{ Code: '001', Description: 'Mensalidade', UnitPrice: 19.9, Quantity: 1 }],
    PaymentObject: { DueDate: saoPauloDate(5) },
  };
}

describe('Marketplace/Add', () => {
  test('the matrix production key creates it: id, production and sandbox tokens and secrets, fees as sent', async () => {
    const split = [
      { PaymentMethodCode: '1', IsSubaccountTaxPayer: false, Taxes: [{ TaxTypeName: '2', Tax: '1.50' }] },
    ];
    const d = await add('11222333000181', { MerchantSplit: split });
    assert.equal(typeof d.Id, 'number');
    for (const field of ['Token', 'TokenSandbox', 'SecretKey', 'SecretKeySandbox']) {
      assert.match(String(d[field]), /^[0-9A-F]{36}$/, field);
    }
    assert.notEqual(d.Token, d.TokenSandbox);
    assert.equal(d.Identity, '11222333000181');
    assert.deepEqual(d.MerchantSplit, split);
    assert.equal(d.IsRemoved, false);
  });

  test('SPEC 2.8: the matrix SANDBOX key gets code 301 and nothing is created', async () => {
    const answer = await wire(
      'POST',
      '/api/v2/Marketplace/Add',
      merchant('11222333000181'),
      'emu-matrix-sandbox-key',
    );
    assert.equal(answer.json?.HasError, true);
    assert.equal(answer.json?.ErrorCode, '301');
    const list = await wire('GET', '/api/v2/Marketplace/List?PageNumber=1&RowsPerPage=10');
    assert.equal(detail(list).TotalItems, 0);
  });

  test('wave 2b §4.1: a plain sandbox key and a subaccount token get code 300 (not a marketplace account)', async () => {
    const plain = await wire(
      'POST',
      '/api/v2/Marketplace/Add',
      merchant('11222333000181'),
      'emu-sandbox-key',
    );
    assert.equal(plain.json?.ErrorCode, '300');
    const child = await add('11222333000181');
    for (const key of [String(child.Token), String(child.TokenSandbox)]) {
      const again = await wire('GET', '/api/v2/Marketplace/List', undefined, key);
      assert.equal(again.json?.ErrorCode, '300');
    }
  });

  test('the observed onboarding codes: 1346 a required field missing, 1343 the responsible CPF, 1273 a Pix fee below R$ 0,35', async () => {
    const missing = await wire(
      'POST',
      '/api/v2/Marketplace/Add',
      merchant('11222333000181', { ResponsibleBirthDate: '' }),
    );
    assert.equal(missing.json?.ErrorCode, '1346');
    const cpf = await wire(
      'POST',
      '/api/v2/Marketplace/Add',
      merchant('11222333000181', { ResponsibleIdentity: INVALID_CPF }),
    );
    assert.equal(cpf.json?.ErrorCode, '1343');
    const pix = await wire(
      'POST',
      '/api/v2/Marketplace/Add',
      merchant('11222333000181', {
        MerchantSplit: [
          { PaymentMethodCode: '6', IsSubaccountTaxPayer: false, Taxes: [{ TaxTypeName: '2', Tax: '0.34' }] },
        ],
      }),
    );
    assert.equal(pix.json?.ErrorCode, '1273');
    const list = await wire('GET', '/api/v2/Marketplace/List');
    assert.equal(detail(list).TotalItems, 0);
  });

  test('an active document cannot be registered twice; a deleted one can (OFF-HELP)', async () => {
    const first = await add('11222333000181');
    const twice = await wire('POST', '/api/v2/Marketplace/Add', merchant('11222333000181'));
    assert.equal(twice.json?.HasError, true);
    const removed = await wire('DELETE', `/api/v2/Marketplace/Delete?Id=${first.Id}`);
    assert.equal(detail(removed), true);
    const again = await add('11222333000181');
    assert.notEqual(again.Id, first.Id);
  });

  test('settings addAnswer id_only: Add answers the id alone, Get gives the tokens', async () => {
    assert.equal((await controlApi('POST', '/subaccounts/settings', { addAnswer: 'id_only' })).status, 200);
    const d = await add('11222333000181');
    assert.deepEqual(Object.keys(d), ['Id']);
    const got = detail(await wire('GET', `/api/v2/marketplace/get?id=${d.Id}`));
    assert.match(String(got.Token), /^[0-9A-F]{36}$/);
    assert.equal((await controlApi('POST', '/subaccounts/settings', { addAnswer: 'other' })).status, 400);
  });
});

describe('Marketplace/Update, List, Delete', () => {
  const fee = (code: string, tax: string) => ({
    PaymentMethodCode: code,
    IsSubaccountTaxPayer: false,
    Taxes: [{ TaxTypeName: '2', Tax: tax }],
  });

  test('update merge (default): an omitted MerchantSplit is kept; a list replaces it whole', async () => {
    const d = await add('11222333000181', { MerchantSplit: [fee('1', '1.50'), fee('6', '0.50')] });
    const renamed = await wire('PUT', `/api/v2/Marketplace/Update?Id=${d.Id}`, { Name: 'Outra Razão Ltda' });
    assert.equal(detail(renamed).Name, 'Outra Razão Ltda');
    assert.deepEqual(detail(renamed).MerchantSplit, [fee('1', '1.50'), fee('6', '0.50')]);
    const replaced = await wire('PUT', `/api/v2/Marketplace/Update?Id=${d.Id}`, {
      MerchantSplit: [fee('2', '0.90')],
    });
    assert.deepEqual(detail(replaced).MerchantSplit, [fee('2', '0.90')]);
  });

  test('update replace setting: the body is the whole record, so an omitted MerchantSplit clears the fees', async () => {
    await controlApi('POST', '/subaccounts/settings', { update: 'replace' });
    const d = await add('11222333000181', { MerchantSplit: [fee('1', '1.50')] });
    const { MerchantSplit: _fees, ...rest } = merchant('11222333000181');
    const answer = await wire('PUT', `/api/v2/Marketplace/Update?Id=${d.Id}`, rest);
    assert.deepEqual(detail(answer).MerchantSplit, []);
    // A whole record still needs its required fields.
    const partial = await wire('PUT', `/api/v2/Marketplace/Update?Id=${d.Id}`, { Name: 'Só o nome' });
    assert.equal(partial.json?.ErrorCode, '1346');
  });

  test('List pages the matrix subaccounts; Delete answers true, flags IsRemoved and the tokens stop working', async () => {
    const a = await add('11222333000181');
    await add('12345678909');
    const page = detail(await wire('GET', '/api/v2/Marketplace/List?PageNumber=2&RowsPerPage=1'));
    assert.equal(page.TotalItems, 2);
    assert.equal((page.Objects as Record<string, unknown>[])[0]?.Identity, '12345678909');
    assert.equal(detail(await wire('DELETE', `/api/v2/Marketplace/Delete?Id=${a.Id}`)), true);
    assert.equal(detail(await wire('GET', `/api/v2/Marketplace/Get?Id=${a.Id}`)).IsRemoved, true);
    const charge = await wire('POST', '/payment/v2/Payment', boleto('txn_removed', false), String(a.Token));
    assert.equal(charge.status, 401);
    const gone = await wire('DELETE', `/api/v2/Marketplace/Delete?Id=${a.Id}`);
    assert.equal(gone.json?.HasError, true);
  });

  test('Marketplace/* answers on the API host only (the payment host gives the router 404)', async () => {
    const answer = await wire('GET', '/payment/v2/Marketplace/List');
    assert.equal(answer.status, 404);
  });
});

describe('faults, the call log, attribution and callbacks', () => {
  test('drop after commit: created remotely, answer lost; List finds it; calls are counted per operation', async () => {
    await control.fault({ operation: 'subaccount_create', fault: { type: 'reset' }, commit: true });
    await assert.rejects(wire('POST', '/api/v2/Marketplace/Add', merchant('11222333000181')));
    const list = detail(await wire('GET', '/api/v2/Marketplace/List'));
    assert.equal(list.TotalItems, 1);
    const calls = await control.calls({ operation: 'subaccount_create' });
    assert.equal(calls.length, 1);
    assert.equal(calls[0]?.reference, '11222333000181');
    assert.equal(calls[0]?.fault, 'reset');
  });

  test('HTTP 500 without commit creates nothing', async () => {
    await control.fault({ operation: 'subaccount_create', fault: { type: 'http_error', status: 500 } });
    const answer = await wire('POST', '/api/v2/Marketplace/Add', merchant('11222333000181'));
    assert.equal(answer.status, 500);
    assert.equal(detail(await wire('GET', '/api/v2/Marketplace/List')).TotalItems, 0);
  });

  test('the call log keeps no bank account number', async () => {
    await add('11222333000181');
    const [call] = await control.calls({ operation: 'subaccount_create' });
    assert.ok(call);
    assert.doesNotMatch(JSON.stringify(call.body), /4455667/);
  });

  test('a boleto issued with the subaccount sandbox token is its charge; its callback carries its own sandbox secret', async () => {
    const d = await add('11222333000181');
    const answer = await wire(
      'POST',
      '/payment/v2/Payment',
      boleto('txn_child', true),
      String(d.TokenSandbox),
    );
    assert.equal(answer.json?.HasError, false, JSON.stringify(answer.json));
    const [charge] = (await control.charges('txn_child')) as unknown as {
      id: number;
      account: number | null;
    }[];
    assert.equal(charge?.account, d.Id);
    const matrixCharge = await wire(
      'POST',
      '/payment/v2/Payment',
      boleto('txn_matrix', true),
      'emu-sandbox-key',
    );
    assert.equal(matrixCharge.json?.HasError, false);
    const [own] = (await control.charges('txn_matrix')) as unknown as { account: number | null }[];
    assert.equal(own?.account, null);
    const callback = (await controlApi('GET', `/charges/${charge?.id}/callback`)).json.callback as Record<
      string,
      unknown
    >;
    assert.equal(callback.SecretKey, d.SecretKeySandbox);
    assert.equal(callback.IdMerchant, d.Id);
    assert.equal(callback.Reference, 'txn_child');
  });
});
