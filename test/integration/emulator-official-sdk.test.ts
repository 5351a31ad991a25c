import assert from 'node:assert/strict';
import https from 'node:https';
import { createRequire } from 'node:module';
import net from 'node:net';
import { isValidBoleto, isValidPixPayload } from '@brazilian-utils/brazilian-utils';
import { afterAll, beforeAll, describe, test } from 'vitest';
import { type ProviderEmulator, startProviderEmulator } from '../../src/providers/emulator/server.ts';
import { type EmulatorControl, emulatorControl } from '../support/emulator-control.ts';
import { saoPauloDate } from '../support/provider-contract/harness.ts';

// Issue 22 item 3.1: the emulator speaks the wire the official Node SDK (npm `safe2pay` 1.1.12, an exact dev
// dependency) sends. The SDK's own request functions and models run unchanged; only the socket is redirected:
// its HttpClient hard-codes https://api.safe2pay.com.br/v2/ and https://payment.safe2pay.com.br/v2/ and sends
// through `request`, which uses https.globalAgent, so that agent's connections go to the emulator (plain HTTP).
// The request line, headers (Host included) and body are the SDK's bytes. docs/provider-emulator.md
// "The official Node SDK" lists what is emulated and what is not.

interface SdkRequestModule {
  readonly [name: string]: unknown;
}
interface Sdk {
  api: Record<string, SdkRequestModule>;
  model: {
    transaction: { Transaction: new () => Record<string, unknown> };
    payment: Record<string, new () => Record<string, unknown>>;
    general: {
      Customer: new () => Record<string, unknown>;
      Product: new (code: string, description: string, unitPrice: number, quantity: number) => unknown;
    };
  };
  environment: { setApiKey(key: string): void };
}
type SdkCall = (...args: unknown[]) => Promise<unknown>;

const sdk = createRequire(import.meta.url)('safe2pay') as Sdk;

/** An SDK request function by `Module.name`, as shipped. */
function sdkFn(module: string, name: string): SdkCall {
  const fn = sdk.api[module]?.[name];
  assert.equal(typeof fn, 'function', `${module}.${name} in the SDK`);
  return fn as SdkCall;
}

/**
 * The SDK's operations, read from the SDK itself: every function of every request module, with
 * `PaymentRequest.Payment` split by the payment object it carries (its `model.payment` classes) and
 * `PaymentRequest.Refund` by its `CancelType` (each goes to its own endpoint).
 */
function sdkOperations(): string[] {
  // Models that are not a payment object of `Payment`: a descriptor and the bodies of the Carnet operations.
  const notPaymentObjects = new Set(['PaymentMethod', 'Carnet', 'CarnetItems', 'CarnetLot']);
  const operations: string[] = [];
  for (const [module, members] of Object.entries(sdk.api)) {
    for (const [name, member] of Object.entries(members)) {
      if (typeof member !== 'function') continue;
      if (module === 'PaymentRequest' && name === 'Payment') {
        for (const model of Object.keys(sdk.model.payment)) {
          if (!notPaymentObjects.has(model)) operations.push(`PaymentRequest.Payment:${model}`);
        }
      } else if (module === 'PaymentRequest' && name === 'Refund') {
        for (const type of Object.keys(members.CancelType as Record<string, string>)) {
          operations.push(`PaymentRequest.Refund:${type}`);
        }
      } else operations.push(`${module}.${name}`);
    }
  }
  return operations.sort();
}

/** SDK operations the emulator does not speak yet (cards, carnets, marketplace, tokens, deposits, lists). */
const NOT_EMULATED_YET = [
  'AccountDepositRequest.DetailList',
  'AccountDepositRequest.GetBankAccount',
  'AccountDepositRequest.List',
  'MarketplaceRequest.Add',
  'MarketplaceRequest.Delete',
  'MarketplaceRequest.Get',
  'MarketplaceRequest.List',
  'MarketplaceRequest.Update',
  'PaymentRequest.CancelCarnet',
  'PaymentRequest.CancelCarnetLot',
  'PaymentRequest.Carnet',
  'PaymentRequest.CarnetGet',
  'PaymentRequest.CarnetGetLot',
  'PaymentRequest.CarnetLot',
  'PaymentRequest.GetPaymentMethods',
  'PaymentRequest.Payment:BankTransfer',
  'PaymentRequest.Payment:Bitcoin',
  'PaymentRequest.Payment:CreditCard',
  'PaymentRequest.Payment:DebbitAccount',
  'PaymentRequest.Payment:DebitCard',
  'PaymentRequest.Refund:CREDIT',
  'PaymentRequest.Refund:DEBIT',
  'PaymentRequest.ResendCarnet',
  'SingleSaleRequest.Add',
  'SingleSaleRequest.Delete',
  'SingleSaleRequest.Get',
  'SingleSaleRequest.Resend',
  'SingleSaleRequest.Update',
  'TokenizationRequest.Create',
  'TokenizationRequest.Delete',
  'TokenizationRequest.List',
  'TransactionRequest.GetList',
];

let emulator: ProviderEmulator;
let control: EmulatorControl;

beforeAll(async () => {
  emulator = await startProviderEmulator({ port: 0, host: '127.0.0.1' });
  control = emulatorControl(emulator.url);
  const { port } = new URL(emulator.url);
  // An own property shadows https.Agent.prototype.createConnection: a plain socket to the emulator, no TLS.
  Object.assign(https.globalAgent, { createConnection: () => net.connect(Number(port), '127.0.0.1') });
  sdk.environment.setApiKey('emu-sandbox-key');
});
afterAll(async () => {
  delete (https.globalAgent as { createConnection?: unknown }).createConnection;
  https.globalAgent.destroy();
  await emulator.close();
});

type Envelope = { HasError: boolean; ErrorCode: string; Error: string; ResponseDetail: unknown };

/** The SDK resolves the parsed body on HTTP 200 and the raw response otherwise (its HttpClient). */
function envelope(result: unknown): Envelope {
  const status = (result as { statusCode?: number } | null)?.statusCode;
  assert.equal(status, undefined, `the SDK got HTTP ${String(status)} instead of an answer`);
  const e = result as Envelope;
  assert.equal(e.HasError, false, `refused: ${e.ErrorCode} ${e.Error}`);
  return e;
}

function detail(result: unknown): Record<string, unknown> {
  return envelope(result).ResponseDetail as Record<string, unknown>;
}

function brDate(date: string): string {
  const [y, m, d] = date.split('-');
  return `${d}/${m}/${y}`;
}

/** A charge body built with the SDK's models, the way its PaymentTest builds one. */
function sdkTransaction(reference: string, paymentMethod: string, paymentObject: unknown) {
  const { Transaction } = sdk.model.transaction;
  const { Customer, Product } = sdk.model.general;
  const payload = new Transaction();
  payload.IsSandbox = true;
  payload.Application = 'Calebe SDK test';
  payload.Reference = reference;
  payload.PaymentMethod = paymentMethod;
  payload.PaymentObject = paymentObject;
  (payload.Products as unknown[]).push(new Product('001', 'Pedido', 1.99, 10));
  const customer = new Customer();
  customer.Name = 'João da Silva';
  customer.Identity = '18978393080';
  payload.Customer = customer;
  return payload;
}

async function sdkBoleto(reference: string, dueDate: string): Promise<Record<string, unknown>> {
  const bankslip = new (sdk.model.payment.Bankslip as new () => Record<string, unknown>)();
  bankslip.DueDate = brDate(dueDate);
  bankslip.CancelAfterDue = false;
  return detail(await sdkFn('PaymentRequest', 'Payment')(sdkTransaction(reference, '1', bankslip)));
}

/** The emulator's log of the calls on one reference: how the SDK's requests arrived. */
async function arrived(reference: string) {
  return (await control.calls({ reference })).map((c) => [c.method, c.host, c.path, c.httpStatus]);
}

/** One check per emulated SDK operation, each through the SDK's own function. */
const EMULATED: Record<string, () => Promise<void>> = {
  'PaymentRequest.Payment:Pix': async () => {
    const pix = new (sdk.model.payment.Pix as new () => Record<string, unknown>)();
    pix.Expiration = 3600;
    const created = detail(await sdkFn('PaymentRequest', 'Payment')(sdkTransaction('sdk-pix', '6', pix)));
    assert.equal(created.Status, 1);
    assert.ok(isValidPixPayload(String(created.Key)));
    assert.deepEqual(await arrived('sdk-pix'), [['POST', 'payment', '/v2/Payment', 200]]);
  },
  'PaymentRequest.Payment:Bankslip': async () => {
    const created = await sdkBoleto('sdk-boleto', saoPauloDate(10));
    assert.equal(created.DueDate, brDate(saoPauloDate(10)));
    assert.ok(isValidBoleto(String(created.DigitableLine)));
    assert.equal(String(created.Barcode).slice(9, 19), '0000001990'); // 10 x R$ 1,99
    // Wire doc 2.7: the same SDK call with the charge's `Id` and `Command 1` changes the due date.
    const { Transaction } = sdk.model.transaction;
    const change = new Transaction();
    change.Id = created.IdTransaction;
    change.PaymentMethod = '1';
    const bankslip = new (sdk.model.payment.Bankslip as new () => Record<string, unknown>)();
    bankslip.DueDate = brDate(saoPauloDate(20));
    Object.assign(bankslip, { Command: 1 });
    change.PaymentObject = bankslip;
    const changed = detail(await sdkFn('PaymentRequest', 'Payment')(change));
    assert.equal(changed.DueDate, brDate(saoPauloDate(20)));
    assert.notEqual(changed.DigitableLine, created.DigitableLine);
    assert.deepEqual(await arrived('sdk-boleto'), [
      ['POST', 'payment', '/v2/Payment', 200],
      ['POST', 'payment', '/v2/Payment', 200],
    ]);
  },
  'TransactionRequest.Get': async () => {
    const created = await sdkBoleto('sdk-get', saoPauloDate(5));
    const read = detail(await sdkFn('TransactionRequest', 'Get')(created.IdTransaction));
    assert.deepEqual(
      [read.IdTransaction, read.Reference, read.Amount],
      [created.IdTransaction, 'sdk-get', 19.9],
    );
    assert.deepEqual((await arrived('sdk-get'))[1], [
      'GET',
      'api',
      `/v2/transaction/Get?Id=${String(created.IdTransaction)}`,
      200,
    ]);
  },
  'TransactionRequest.GetByReference': async () => {
    const created = await sdkBoleto('sdk-reference', saoPauloDate(5));
    const found = detail(await sdkFn('TransactionRequest', 'GetByReference')('sdk-reference'));
    assert.equal(found.TotalItems, 1);
    assert.equal((found.Objects as Array<Record<string, unknown>>)[0]?.IdTransaction, created.IdTransaction);
    assert.deepEqual((await arrived('sdk-reference'))[1], [
      'GET',
      'api',
      '/v2/transaction/Reference?reference=sdk-reference',
      200,
    ]);
  },
  'PaymentRequest.Refund:BANKSLIP': async () => {
    // The SDK's "refund" of a boleto is the write-off of a pending one (wire doc 2.11).
    const created = await sdkBoleto('sdk-write-off', saoPauloDate(5));
    const { CancelType } = sdk.api.PaymentRequest as { CancelType: Record<string, string> };
    const cancelType = CancelType.BANKSLIP;
    assert.equal(
      envelope(await sdkFn('PaymentRequest', 'Refund')(created.IdTransaction, cancelType)).ResponseDetail,
      true,
    );
    const [charge] = await control.charges('sdk-write-off');
    assert.equal(charge?.status, 12);
    assert.deepEqual((await arrived('sdk-write-off'))[1], [
      'DELETE',
      'api',
      `/v2/BankSlip/WriteOffBankSlip?idTransaction=${String(created.IdTransaction)}`,
      200,
    ]);
  },
};

describe('the official Node SDK (safe2pay 1.1.12) against the emulator (issue 22 item 3.1)', () => {
  test('every SDK operation is either emulated (checked below) or listed as not emulated yet', () => {
    const emulated = Object.keys(EMULATED);
    assert.deepEqual(
      emulated.filter((op) => NOT_EMULATED_YET.includes(op)),
      [],
    );
    assert.deepEqual([...emulated, ...NOT_EMULATED_YET].sort(), sdkOperations());
  });

  for (const [operation, check] of Object.entries(EMULATED)) {
    test(`${operation} gets a proper answer`, check);
  }
});
