import assert from 'node:assert/strict';
import { isValidBoleto } from '@brazilian-utils/brazilian-utils';
import { afterAll, beforeAll, beforeEach, describe, test } from 'vitest';
import { type ProviderEmulator, startProviderEmulator } from '../../src/providers/emulator/server.ts';
import { type EmulatorControl, emulatorControl } from '../support/emulator-control.ts';
import { saoPauloDate } from '../support/provider-contract/harness.ts';

// The provider emulator's transfer API (issue 22 item 4.2; wire doc wave 2b §5.2, §7.7), spoken over a real
// socket as a client of the provider would: both funding modes, case-insensitive paths, keys, environments,
// the call log without the account, and the control moves.

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

const ACCOUNT = '55501234';

function register(identification: string, amount: number | string = 150.25) {
  return {
    ReceiverName: 'João Pagador',
    Identity: '12345678909',
    Amount: amount,
    Identification: identification,
    CompensationDate: saoPauloDate(0),
    BankData: {
      Bank: { Code: '237' },
      AccountType: { Code: 'CC' },
      BankAgency: '1234',
      BankAgencyDigit: '5',
      BankAccount: ACCOUNT,
      BankAccountDigit: '9',
    },
  };
}

async function wire(
  method: string,
  path: string,
  body?: unknown,
  key = 'emu-production-key',
): Promise<{ status: number; json: Record<string, unknown> | null }> {
  const res = await fetch(`${emulator.url}${path}`, {
    method,
    headers: { 'x-api-key': key, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, json: text === '' ? null : (JSON.parse(text) as Record<string, unknown>) };
}

const detail = (answer: { json: Record<string, unknown> | null }) =>
  answer.json?.ResponseDetail as Record<string, unknown>;

async function moveTransfer(id: unknown, body: Record<string, unknown>) {
  const res = await fetch(`${emulator.url}/_emulator/transfers/${id}/move`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

describe('POST /v2/Transfer', () => {
  test('with IsUseCheckingAccount: funded from the balance, no boleto; the lot and its one register share the id', async () => {
    const answer = await wire('POST', '/payment/v2/Transfer', {
      IsUseCheckingAccount: true,
      TransferRegisters: [register('refund:txn_a')],
    });
    assert.equal(answer.status, 200);
    assert.equal(answer.json?.HasError, false);
    const lot = detail(answer);
    assert.equal(lot.IsUseCheckingAccount, true);
    assert.equal(lot.IsRelease, true);
    assert.equal(lot.AmountLot, 150.25);
    assert.equal(lot.BankSlipUrl, undefined);
    assert.equal(lot.DigitableLine, undefined);
    const registers = lot.TransferRegisters as Array<Record<string, unknown>>;
    assert.equal(registers.length, 1);
    assert.equal(registers[0]?.Id, lot.Id);
    assert.equal(registers[0]?.Identification, 'refund:txn_a');
    assert.equal(registers[0]?.IsTransferred, false);
  });

  test('without IsUseCheckingAccount: the answer carries the funding boleto (BankSlipUrl, DigitableLine, DueDate)', async () => {
    const answer = await wire('POST', '/payment/v2/Transfer', {
      TransferRegisters: [register('refund:txn_b', 100), register('refund:txn_c', 20.5)],
    });
    const lot = detail(answer);
    assert.equal(lot.IsUseCheckingAccount, false);
    assert.equal(lot.IsRelease, false);
    assert.equal(lot.AmountLot, 120.5);
    assert.match(String(lot.BankSlipUrl), /^https:\/\//);
    assert.ok(isValidBoleto(String(lot.DigitableLine)));
    assert.equal(String(lot.Barcode).slice(9, 19), '0000012050', 'the boleto is for the lot amount');
    const [y, m, d] = saoPauloDate(0).split('-');
    assert.equal(lot.DueDate, `${d}/${m}/${y}`);
    // Two registers, two ids; the transfer cannot be confirmed until the boleto is paid.
    const registers = lot.TransferRegisters as Array<{ Id: number }>;
    assert.equal(registers.length, 2);
    const unfunded = await moveTransfer(registers[0]?.Id, { to: 'transferred' });
    assert.equal(unfunded.status, 409);
    assert.equal((await moveTransfer(registers[0]?.Id, { to: 'released' })).status, 200);
    assert.equal((await moveTransfer(registers[0]?.Id, { to: 'transferred' })).status, 200);
  });

  test('invalid registers: HasError 9002, nothing recorded; the creation answers on either host', async () => {
    for (const bad of [
      { IsUseCheckingAccount: true },
      { IsUseCheckingAccount: 'yes', TransferRegisters: [register('x')] },
      { TransferRegisters: [register('x', 10.005)] },
      { TransferRegisters: [{ ...register('x'), Identity: '123' }] },
      { TransferRegisters: [{ ...register('x'), CompensationDate: saoPauloDate(-1) }] },
      {
        TransferRegisters: [
          { ...register('x'), BankData: { ...register('x').BankData, AccountType: { Code: 'XX' } } },
        ],
      },
    ]) {
      const answer = await wire('POST', '/payment/v2/Transfer', bad);
      assert.equal(answer.json?.HasError, true, JSON.stringify(bad));
      assert.equal(answer.json?.ErrorCode, '9002');
    }
    const list = await wire('GET', '/api/v2/Transfer/List?PageNumber=1&RowsPerPage=10');
    assert.equal(detail(list).TotalItems, 0);
    // The sources disagree on the creation host (OFF-JAVA posts to the API host): both answer.
    const onApi = await wire('POST', '/api/v2/transfer', {
      IsUseCheckingAccount: true,
      TransferRegisters: [register('y')],
    });
    assert.equal(onApi.json?.HasError, false);
  });

  test('X-API-KEY: an unknown key is 401; a transfer is visible only to keys of its environment', async () => {
    const refused = await wire(
      'POST',
      '/payment/v2/Transfer',
      { TransferRegisters: [register('z')] },
      'nope',
    );
    assert.equal(refused.status, 401);
    const created = detail(
      await wire('POST', '/payment/v2/Transfer', {
        IsUseCheckingAccount: true,
        TransferRegisters: [register('z')],
      }),
    );
    const other = await wire('GET', `/api/v2/Transfer/Get?Id=${created.Id}`, undefined, 'emu-sandbox-key');
    assert.equal(other.json?.ErrorCode, '9003');
    const sandboxList = await wire(
      'GET',
      '/api/v2/Transfer/List?PageNumber=1&RowsPerPage=10',
      undefined,
      'emu-sandbox-key',
    );
    assert.equal(detail(sandboxList).TotalItems, 0);
  });
});

describe('Transfer/Get and Transfer/List', () => {
  test('paths and query names match case-insensitively; reads are on the API host only', async () => {
    const created = detail(
      await wire('POST', '/payment/V2/TRANSFER', {
        IsUseCheckingAccount: true,
        TransferRegisters: [register('refund:txn_d')],
      }),
    );
    for (const path of [`/api/v2/Transfer/Get?Id=${created.Id}`, `/api/v2/transfer/get?id=${created.Id}`]) {
      const read = await wire('GET', path);
      assert.equal(detail(read).Identification, 'refund:txn_d', path);
      assert.equal(detail(read).Amount, 150.25);
    }
    const wrongHost = await wire('GET', `/payment/v2/Transfer/Get?Id=${created.Id}`);
    assert.equal(wrongHost.status, 404);
    const list = await wire('GET', '/api/v2/transfer/list?pagenumber=1&rowsperpage=5');
    assert.equal(detail(list).TotalItems, 1);
  });

  test('control moves: transferred with a HashConfirmation, returned with a reason; a returned one is never confirmed', async () => {
    const created = detail(
      await wire('POST', '/payment/v2/Transfer', {
        IsUseCheckingAccount: true,
        TransferRegisters: [register('refund:txn_e')],
      }),
    );
    await moveTransfer(created.Id, { to: 'transferred', hash: 'HASH-1' });
    let read = detail(await wire('GET', `/api/v2/Transfer/Get?Id=${created.Id}`));
    assert.equal(read.IsTransferred, true);
    assert.equal(read.HashConfirmation, 'HASH-1');
    await moveTransfer(created.Id, { to: 'returned', reason: '03', description: 'Conta encerrada' });
    read = detail(await wire('GET', `/api/v2/Transfer/Get?Id=${created.Id}`));
    assert.equal(read.IsReturned, true);
    assert.deepEqual(read.BankingTransferOccurrenceReason, [{ Code: '03', Description: 'Conta encerrada' }]);
    assert.equal((await moveTransfer(created.Id, { to: 'transferred' })).status, 409);
    assert.equal((await moveTransfer(created.Id, { to: 'lost' })).status, 400);
    assert.equal((await moveTransfer(99, { to: 'returned' })).status, 404);
  });

  test('the call log and the control API never hold the whole account', async () => {
    await wire('POST', '/payment/v2/Transfer', {
      IsUseCheckingAccount: true,
      TransferRegisters: [register('refund:txn_f')],
    });
    await wire('POST', '/payment/v2/Transfer', { TransferRegisters: [register('refund:txn_g')] }, 'nope');
    const calls = await control.calls();
    assert.equal(calls.length, 2);
    const transfers = await (await fetch(`${emulator.url}/_emulator/transfers`)).json();
    const read = await wire('GET', '/api/v2/Transfer/List?PageNumber=1&RowsPerPage=10');
    for (const text of [JSON.stringify(calls), JSON.stringify(transfers), JSON.stringify(read.json)]) {
      assert.ok(!text.includes(ACCOUNT));
      assert.ok(text.includes('******34'), 'the last two digits tell accounts apart');
    }
  });

  test('faults name the transfer operations; a has_error creation records nothing', async () => {
    await control.fault({
      operation: 'transfer_create',
      fault: { type: 'has_error', code: '7001', message: 'Saldo insuficiente.' },
    });
    const refused = await wire('POST', '/payment/v2/Transfer', {
      IsUseCheckingAccount: true,
      TransferRegisters: [register('refund:txn_h')],
    });
    assert.equal(refused.json?.ErrorCode, '7001');
    const calls = await control.calls({ operation: 'transfer_create', reference: 'refund:txn_h' });
    assert.equal(calls[0]?.fault, 'has_error');
    assert.equal(
      detail(await wire('GET', '/api/v2/Transfer/List?PageNumber=1&RowsPerPage=10')).TotalItems,
      0,
    );
  });
});
