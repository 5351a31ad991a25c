import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, test } from 'vitest';
import { type ProviderEmulator, startProviderEmulator } from '../../src/providers/emulator/server.ts';
import { type EmulatorControl, emulatorControl } from '../support/emulator-control.ts';
import { saoPauloDate } from '../support/provider-contract/harness.ts';

// Issue 22 item 3.2: the emulator is the oracle of every provider test, so its state changes are atomic per
// charge. A write checks and changes the charge on arrival; a `latency` fault only delays the answer
// (docs/provider-emulator.md "Faults"). Driven with raw HTTP, as the provider would be.

let emulator: ProviderEmulator;
let control: EmulatorControl;

beforeAll(async () => {
  emulator = await startProviderEmulator({ port: 0, host: '127.0.0.1' });
  control = emulatorControl(emulator.url);
});
afterAll(async () => {
  await emulator.close();
});

type Envelope = { HasError: boolean; ErrorCode: string; ResponseDetail: unknown };

async function wire(method: string, path: string, body?: unknown): Promise<Envelope> {
  const res = await fetch(`${emulator.url}${path}`, {
    method,
    headers: {
      'X-API-KEY': 'emu-sandbox-key',
      ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  assert.equal(res.status, 200, `${method} ${path}`);
  return (await res.json()) as Envelope;
}

function brDate(date: string): string {
  const [y, m, d] = date.split('-');
  return `${d}/${m}/${y}`;
}

async function create(reference: string, method: 'pix' | 'boleto', dueDate?: string): Promise<number> {
  const answer = await wire('POST', '/payment/v2/Payment', {
    IsSandbox: true,
    Reference: reference,
    PaymentMethod: method === 'pix' ? '6' : '1',
    Customer: { Name: 'Maria Silva', Identity: '12345678909' },
    Products: [{ Code: '1', Description: 'Pedido', UnitPrice: 19.99, Quantity: 1 }],
    PaymentObject: method === 'pix' ? { Expiration: 1800 } : { DueDate: brDate(dueDate ?? saoPauloDate(5)) },
  });
  assert.equal(answer.HasError, false);
  return (answer.ResponseDetail as { IdTransaction: number }).IdTransaction;
}

describe('emulator writes are atomic per charge under a latency fault (issue 22 item 3.2)', () => {
  test('two Pix/Cancel 100 ms apart on one paid Pix: one refund, one 9004 refusal, both calls logged', async () => {
    const id = await create('atomic-refund', 'pix');
    await control.move(String(id), 'paid_pix');
    // Both returns are slow, so both are in flight at once.
    await control.fault({ operation: 'refund', times: 2, fault: { type: 'latency', ms: 400 } });

    const first = wire('DELETE', `/api/v2/Pix/Cancel/${id}`);
    await sleep(100);
    const second = wire('DELETE', `/api/v2/Pix/Cancel/${id}`);
    const answers = await Promise.all([first, second]);

    assert.deepEqual(
      answers.map((a) => [a.HasError, a.ErrorCode]),
      [
        [false, '0'],
        [true, '9004'],
      ],
    );
    assert.equal(answers[0]?.ResponseDetail, true);
    const calls = (await control.calls({ reference: 'atomic-refund' })).filter((c) => c.method === 'DELETE');
    assert.deepEqual(
      calls.map((c) => [c.path, c.operation, c.fault, c.httpStatus]),
      [
        [`/api/v2/Pix/Cancel/${id}`, 'refund', 'latency', 200],
        [`/api/v2/Pix/Cancel/${id}`, 'refund', 'latency', 200],
      ],
    );
    const [charge] = await control.charges('atomic-refund');
    assert.equal(charge?.status, 6); // Devolvido, once
  });

  test('two write-offs in flight on one pending boleto: one succeeds, the other answers 9004', async () => {
    const id = await create('atomic-write-off', 'boleto');
    await control.fault({ operation: 'cancel', times: 2, fault: { type: 'latency', ms: 300 } });
    const writeOff = () => wire('DELETE', `/api/v2/BankSlip/WriteOffBankSlip?idTransaction=${id}`);
    const first = writeOff();
    await sleep(100);
    const answers = await Promise.all([first, writeOff()]);
    assert.deepEqual(
      answers.map((a) => [a.HasError, a.ErrorCode]),
      [
        [false, '0'],
        [true, '9004'],
      ],
    );
    const calls = await control.calls({ reference: 'atomic-write-off', operation: 'cancel' });
    assert.deepEqual(
      calls.map((c) => c.fault),
      ['latency', 'latency'],
    );
  });

  test('two due-date changes in flight: both succeed, each answer shows its own date, the last received stays', async () => {
    const id = await create('atomic-due', 'boleto', saoPauloDate(5));
    const [sooner, later] = [saoPauloDate(20), saoPauloDate(12)];
    // The first change is slower than the second: it must not land after the second one.
    await control.fault({
      reference: 'atomic-due',
      operation: 'change_due_date',
      fault: { type: 'latency', ms: 400 },
    });
    await control.fault({
      reference: 'atomic-due',
      operation: 'change_due_date',
      fault: { type: 'latency', ms: 50 },
    });
    const change = (dueDate: string) =>
      wire('POST', '/payment/v2/Payment', {
        Id: id,
        PaymentMethod: '1',
        PaymentObject: { Command: 1, DueDate: brDate(dueDate) },
      });

    const first = change(sooner);
    await sleep(100);
    const second = change(later);
    const [a, b] = await Promise.all([first, second]);

    const dueOf = (e: Envelope) => (e.ResponseDetail as { DueDate: string }).DueDate;
    const lineOf = (e: Envelope) => (e.ResponseDetail as { DigitableLine: string }).DigitableLine;
    assert.deepEqual(
      [a.HasError, dueOf(a), b.HasError, dueOf(b)],
      [false, brDate(sooner), false, brDate(later)],
    );
    assert.notEqual(lineOf(a), lineOf(b));
    const read = await wire('GET', `/api/v2/Transaction/Get?Id=${id}`);
    const po = (read.ResponseDetail as { PaymentObject: { DueDate: string; DigitableLine: string } })
      .PaymentObject;
    assert.deepEqual([po.DueDate, po.DigitableLine], [brDate(later), lineOf(b)]);
    const calls = await control.calls({ reference: 'atomic-due', operation: 'change_due_date' });
    assert.deepEqual(
      calls.map((c) => c.fault),
      ['latency', 'latency'],
    );
  });
});
