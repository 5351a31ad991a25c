import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, test } from 'vitest';
import { type ProviderEmulator, startProviderEmulator } from '../../src/providers/emulator/server.ts';
import {
  type PayoutRequest,
  type PayoutsCapability,
  type ProviderContext,
  payoutBankAccount,
  payoutCompensationDate,
} from '../../src/providers/port.ts';
import { createSafe2PayAdapter } from '../../src/providers/safe2pay/adapter.ts';
import { type EmulatorControl, emulatorControl } from '../support/emulator-control.ts';
import { assertSanitized, saoPauloDate } from '../support/provider-contract/harness.ts';

// Issue 22 item 4.2: the Safe2Pay adapter's payouts (`v2/Transfer`, wire doc wave 2b §5.2-5.3, §7.5) over
// undici against the provider emulator on a real socket. The emulator plays the provider; its control API
// drives a transfer to transferred or returned as the bank would.

let emulator: ProviderEmulator;
let control: EmulatorControl;
let adapter: PayoutsCapability;

beforeAll(async () => {
  emulator = await startProviderEmulator({ port: 0, host: '127.0.0.1' });
  control = emulatorControl(emulator.url);
  adapter = createSafe2PayAdapter({ paymentHost: emulator.paymentUrl, apiHost: emulator.apiUrl }).payouts;
});
afterAll(async () => {
  await emulator.close();
});
beforeEach(async () => {
  await control.reset();
});

function ctx(extra: Partial<ProviderContext> = {}): ProviderContext {
  return {
    environment: 'production',
    credentials: { api_key: 'emu-production-key' },
    signal: AbortSignal.timeout(60_000),
    ...extra,
  };
}

/** The payer's account as SPEC 4.8 takes it (src/http/contract/transactions.ts `bank_account`). */
const SPEC_ACCOUNT = {
  bank_code: '341',
  branch: '0937',
  account: '98765432-1',
  account_type: 'checking' as const,
  holder_name: 'Maria Silva',
  holder_document: '12345678909',
};
const ACCOUNT_NUMBER = '98765432';

function request(amount = 1999, identification = `refund:txn_${randomUUID()}`): PayoutRequest {
  return {
    transactionId: identification.replace('refund:', ''),
    identification,
    amount,
    receiverName: SPEC_ACCOUNT.holder_name,
    receiverDocument: SPEC_ACCOUNT.holder_document,
    bankAccount: payoutBankAccount(SPEC_ACCOUNT),
    compensationDate: saoPauloDate(0),
  };
}

/** The emulator's control API for transfers (docs/provider-emulator.md "Transfers"). */
async function transferControl(method: string, path: string, body?: unknown) {
  const res = await fetch(`${emulator.url}/_emulator${path}`, {
    method,
    ...(body === undefined
      ? {}
      : { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }),
  });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

async function transfersOf(identification: string): Promise<Array<Record<string, unknown>>> {
  const res = await transferControl('GET', `/transfers?identification=${encodeURIComponent(identification)}`);
  return res.json.transfers as Array<Record<string, unknown>>;
}

async function move(transferId: string, body: Record<string, unknown>): Promise<void> {
  const res = await transferControl('POST', `/transfers/${transferId}/move`, body);
  assert.equal(res.status, 200, JSON.stringify(res.json));
}

async function issuedPayout(input: PayoutRequest): Promise<string> {
  const outcome = await adapter.payout(input, ctx());
  assert.equal(outcome.kind, 'issued', JSON.stringify(outcome));
  return outcome.kind === 'issued' ? outcome.transferId : '';
}

/** Every outcome a test saw, to show the bank account never leaves through one. */
const outcomes: unknown[] = [];
async function payout(input: PayoutRequest, context = ctx()) {
  const outcome = await adapter.payout(input, context);
  outcomes.push(outcome);
  return outcome;
}

describe('payout: POST payment/v2/Transfer (wire doc §5.2-5.3)', () => {
  test('SPEC 4.8 bank_account maps to the wire: account and its check digit apart, branch as given', () => {
    assert.deepEqual(payoutBankAccount(SPEC_ACCOUNT), {
      bank_code: '341',
      branch: '0937',
      account: '98765432',
      account_digit: '1',
      account_type: 'checking',
    });
    assert.deepEqual(payoutBankAccount({ ...SPEC_ACCOUNT, account: '12345x', account_type: 'savings' }), {
      bank_code: '341',
      branch: '0937',
      account: '12345',
      account_digit: 'X',
      account_type: 'savings',
    });
  });

  test('issued: one balance-funded register, 1999 centavos sent as 19.99, on the payment host', async () => {
    const input = request(1999);
    const outcome = await payout(input);
    assert.equal(outcome.kind, 'issued', JSON.stringify(outcome));
    if (outcome.kind !== 'issued') return;
    const calls = await control.calls({ reference: input.identification });
    assert.deepEqual(
      calls.map((c) => [c.host, c.method, c.operation, c.httpStatus]),
      [['payment', 'POST', 'transfer_create', 200]],
    );
    const body = calls[0]?.body as {
      IsUseCheckingAccount: unknown;
      TransferRegisters: Record<string, unknown>[];
    };
    assert.equal(body.IsUseCheckingAccount, true);
    assert.equal(body.TransferRegisters.length, 1);
    const register = body.TransferRegisters[0] ?? {};
    assert.equal(register.Amount, 19.99);
    assert.equal(register.Identification, input.identification);
    assert.equal(register.Identity, '12345678909');
    assert.equal(register.ReceiverName, 'Maria Silva');
    assert.equal(register.CompensationDate, saoPauloDate(0));
    const bank = register.BankData as Record<string, unknown>;
    assert.deepEqual(bank.Bank, { Code: '341' });
    assert.deepEqual(bank.AccountType, { Code: 'CC' });
    assert.equal(bank.BankAgency, '0937');
    // The call log keeps the account masked (its last two digits), never whole.
    assert.equal(bank.BankAccount, '******32');
    assert.ok(!JSON.stringify(calls).includes(ACCOUNT_NUMBER));
    // The provider holds it at exactly R$ 19,99, under the id the adapter answered.
    const [held] = await transfersOf(input.identification);
    assert.equal(held?.amount, 1999);
    assert.equal(String(held?.id), outcome.transferId);
  });

  test('the compensation date is the day in São Paulo (UTC-3)', () => {
    assert.equal(payoutCompensationDate(new Date('2026-11-27T02:59:59Z')), '2026-11-26');
    assert.equal(payoutCompensationDate(new Date('2026-11-27T03:00:00Z')), '2026-11-27');
  });

  test('the register id comes from the register list of the answer; without one, the lot id (one-register lot)', async () => {
    const listed = request();
    const lot = await issuedPayout(listed);
    const [held] = await transfersOf(listed.identification);
    assert.equal(lot, String(held?.id));
    // Without `TransferRegisters` the lot's Id is taken; the emulator numbers a one-register lot as its register.
    const bare = request();
    await control.fault({
      operation: 'transfer_create',
      reference: bare.identification,
      fault: { type: 'override', field: 'TransferRegisters', value: null },
    });
    const bareId = await issuedPayout(bare);
    const polled = await adapter.queryPayout(
      { transferId: bareId, identification: bare.identification, amount: bare.amount },
      ctx(),
    );
    assert.equal(polled.kind === 'issued' && polled.state, 'processing');
    // A listed register for another amount, or none of ours listed: not the payout asked for (uncertain).
    for (const value of [[{ Id: 7, Identification: 'refund:txn_x', Amount: 19.99 }], 'other']) {
      const input = request(1999);
      const registers =
        value === 'other' ? [{ Id: 7, Identification: input.identification, Amount: 20 }] : value;
      await control.fault({
        operation: 'transfer_create',
        reference: input.identification,
        fault: { type: 'override', field: 'TransferRegisters', value: registers },
      });
      const outcome = await payout(input);
      assert.equal(outcome.kind, 'uncertain', JSON.stringify(outcome));
    }
  });

  test('savings accounts are sent as PP, a branch digit when there is one', async () => {
    const input = {
      ...request(),
      bankAccount: {
        ...payoutBankAccount(SPEC_ACCOUNT),
        account_type: 'savings' as const,
        branch_digit: '7',
      },
    };
    await issuedPayout(input);
    const [call] = await control.calls({ reference: input.identification });
    assert.ok(call);
    const body = call.body as { TransferRegisters: Array<{ BankData: Record<string, unknown> }> };
    const register = body.TransferRegisters[0];
    assert.deepEqual(register?.BankData.AccountType, { Code: 'PP' });
    assert.equal(register?.BankData.BankAgencyDigit, '7');
  });

  test('an answer carrying a funding BankSlipUrl is refused (not_supported), never issued', async () => {
    const input = request();
    await control.fault({
      operation: 'transfer_create',
      reference: input.identification,
      fault: {
        type: 'override',
        field: 'BankSlipUrl',
        value: 'https://emulador.safe2pay.test/transfer/1.pdf',
      },
    });
    const outcome = await payout(input);
    assert.equal(outcome.kind, 'refused', JSON.stringify(outcome));
    if (outcome.kind !== 'refused') return;
    assert.equal(outcome.reason, 'not_supported');
    assertSanitized(outcome.diagnostics);
    assert.match(outcome.diagnostics.provider_error_message ?? '', /boleto/);
    assert.ok(!(outcome.diagnostics.provider_error_message ?? '').includes('https://'));
    // An answer saying the lot is not balance-funded is the same refusal.
    const other = request();
    await control.fault({
      operation: 'transfer_create',
      reference: other.identification,
      fault: { type: 'override', field: 'IsUseCheckingAccount', value: false },
    });
    const second = await payout(other);
    assert.equal(second.kind === 'refused' && second.reason, 'not_supported');
  });

  test('HasError: refused with the sanitized code and a static message; nothing recorded', async () => {
    const input = request();
    await control.fault({
      operation: 'transfer_create',
      reference: input.identification,
      fault: { type: 'has_error', code: '4321', message: `Conta ${ACCOUNT_NUMBER} inválida para Maria` },
    });
    const outcome = await payout(input);
    assert.equal(outcome.kind, 'refused');
    if (outcome.kind !== 'refused') return;
    assert.equal(outcome.reason, 'provider_error');
    assert.equal(outcome.diagnostics.provider_error_code, '4321');
    assert.equal(outcome.diagnostics.provider_http_status, 200);
    assert.ok(!JSON.stringify(outcome).includes('Maria'));
    assert.deepEqual(await transfersOf(input.identification), []);
  });

  test('a refused key (401) is refused; a request the provider cannot take is refused before sending', async () => {
    const revoked = await payout(request(), ctx({ credentials: { api_key: 'revoked' } }));
    assert.equal(revoked.kind === 'refused' && revoked.reason, 'credentials_refused');
    const before = (await control.calls()).length;
    for (const bad of [
      request(0),
      request(19.5),
      { ...request(), identification: 'x'.repeat(101) },
      { ...request(), bankAccount: { ...payoutBankAccount(SPEC_ACCOUNT), bank_code: '34' } },
    ]) {
      const outcome = await payout(bad);
      assert.equal(outcome.kind === 'refused' && outcome.reason, 'not_supported', JSON.stringify(bad.amount));
    }
    assert.equal((await control.calls()).length, before, 'nothing sent');
  });

  test('timeout after the provider recorded it: uncertain; findPayout finds it by Identification, not another', async () => {
    const ours = request();
    const another = request();
    await issuedPayout(another);
    await control.fault({
      operation: 'transfer_create',
      reference: ours.identification,
      fault: { type: 'no_answer' },
    });
    const outcome = await payout(ours, ctx({ signal: AbortSignal.timeout(500) }));
    assert.equal(outcome.kind, 'uncertain', JSON.stringify(outcome));
    assert.equal(outcome.kind === 'uncertain' && outcome.reason, 'timeout');
    const [held] = await transfersOf(ours.identification);
    assert.ok(held, 'the provider recorded the transfer whose answer was lost');
    const found = await adapter.findPayout(ours.identification, ctx());
    assert.deepEqual(found, { kind: 'issued', transferIds: [String(held.id)] });
    const none = await adapter.findPayout(`refund:txn_${randomUUID()}`, ctx());
    assert.deepEqual(none, { kind: 'issued', transferIds: [] });
    assert.equal(
      (await control.calls({ operation: 'transfer_create', reference: ours.identification })).length,
      1,
    );
  });

  test('5xx and a reset connection are uncertain', async () => {
    const a = request();
    await control.fault({
      operation: 'transfer_create',
      reference: a.identification,
      fault: { type: 'http_error', status: 503 },
    });
    const five = await payout(a);
    assert.equal(five.kind === 'uncertain' && five.reason, 'server_error');
    assert.equal(five.kind === 'uncertain' && five.diagnostics.provider_http_status, 503);
    const b = request();
    await control.fault({
      operation: 'transfer_create',
      reference: b.identification,
      fault: { type: 'reset' },
    });
    const reset = await payout(b);
    assert.equal(reset.kind, 'uncertain');
    // The reset came after the work (commit): the reconciliation finds the one register.
    const found = await adapter.findPayout(b.identification, ctx());
    assert.equal(found.kind === 'issued' && found.transferIds.length, 1);
  });

  test('the provider has no idempotency: two creations with one Identification under latency are two lots, both found', async () => {
    const input = request();
    await control.fault({
      operation: 'transfer_create',
      reference: input.identification,
      times: 2,
      fault: { type: 'latency', ms: 300 },
    });
    const [first, second] = await Promise.all([payout(input), payout(input)]);
    assert.equal(first.kind, 'issued');
    assert.equal(second.kind, 'issued');
    const ids = [first, second].map((o) => (o.kind === 'issued' ? o.transferId : ''));
    assert.notEqual(ids[0], ids[1]);
    assert.equal((await transfersOf(input.identification)).length, 2);
    const found = await adapter.findPayout(input.identification, ctx());
    assert.deepEqual(found, { kind: 'issued', transferIds: [...ids].sort((a, b) => Number(a) - Number(b)) });
  });

  test('findPayout reads every page of Transfer/List (more than one page of 100 registers)', async () => {
    const filler = Array.from({ length: 130 }, (_, i) => ({
      ReceiverName: 'Outro Recebedor',
      Identity: '98765432100',
      Amount: 1,
      Identification: `other-${i}`,
      CompensationDate: saoPauloDate(0),
      BankData: { Bank: { Code: '001' }, AccountType: { Code: 'CC' }, BankAgency: '1', BankAccount: '1' },
    }));
    const res = await fetch(`${emulator.paymentUrl}/v2/Transfer`, {
      method: 'POST',
      headers: { 'x-api-key': 'emu-production-key', 'content-type': 'application/json' },
      body: JSON.stringify({ IsUseCheckingAccount: true, TransferRegisters: filler }),
    });
    assert.equal(res.status, 200);
    const input = request();
    const id = await issuedPayout(input);
    const found = await adapter.findPayout(input.identification, ctx());
    assert.deepEqual(found, { kind: 'issued', transferIds: [id] });
    assert.equal((await control.calls({ operation: 'transfer_list' })).length, 2);
  });
});

describe('queryPayout: GET api/v2/Transfer/Get (wire doc §5.3 step 3)', () => {
  test('processing, then transferred with its HashConfirmation after the bank confirms', async () => {
    const input = request(1999);
    const transferId = await issuedPayout(input);
    const target = { transferId, identification: input.identification, amount: 1999 };
    assert.deepEqual(await adapter.queryPayout(target, ctx()), {
      kind: 'issued',
      state: 'processing',
      confirmation: null,
      returnReason: null,
    });
    await move(transferId, { to: 'transferred', hash: 'E00000000202611270315abcdef12345' });
    assert.deepEqual(await adapter.queryPayout(target, ctx()), {
      kind: 'issued',
      state: 'transferred',
      confirmation: 'E00000000202611270315abcdef12345',
      returnReason: null,
    });
    const calls = await control.calls({ reference: input.identification, operation: 'transfer_get' });
    assert.deepEqual(
      calls.map((c) => [c.host, c.method]),
      [
        ['api', 'GET'],
        ['api', 'GET'],
      ],
    );
  });

  test('returned by the bank, with its occurrence code (never its text); returned also after a confirmation', async () => {
    const input = request();
    const transferId = await issuedPayout(input);
    const target = { transferId, identification: input.identification, amount: input.amount };
    await move(transferId, {
      to: 'returned',
      reason: '02',
      description: `Conta ${ACCOUNT_NUMBER} encerrada`,
    });
    const outcome = await adapter.queryPayout(target, ctx());
    assert.deepEqual(outcome, { kind: 'issued', state: 'returned', confirmation: null, returnReason: '02' });
    outcomes.push(outcome);

    const later = request();
    const laterId = await issuedPayout(later);
    await move(laterId, { to: 'transferred' });
    await move(laterId, { to: 'returned' });
    const back = await adapter.queryPayout(
      { transferId: laterId, identification: later.identification, amount: later.amount },
      ctx(),
    );
    assert.deepEqual(back, { kind: 'issued', state: 'returned', confirmation: null, returnReason: null });
  });

  test('an answer about another reference or amount, or transferred without a confirmation, proves nothing (uncertain)', async () => {
    const input = request(1999);
    const transferId = await issuedPayout(input);
    const wrongAmount = await adapter.queryPayout(
      { transferId, identification: input.identification, amount: 2000 },
      ctx(),
    );
    assert.equal(wrongAmount.kind === 'uncertain' && wrongAmount.reason, 'mismatch');
    const wrongReference = await adapter.queryPayout(
      { transferId, identification: 'refund:txn_other', amount: 1999 },
      ctx(),
    );
    assert.equal(wrongReference.kind === 'uncertain' && wrongReference.reason, 'mismatch');
    await control.fault({
      operation: 'transfer_get',
      reference: input.identification,
      fault: { type: 'override', field: 'IsTransferred', value: true },
    });
    const unproven = await adapter.queryPayout(
      { transferId, identification: input.identification, amount: 1999 },
      ctx(),
    );
    assert.equal(unproven.kind === 'uncertain' && unproven.reason, 'incomplete');
  });

  test('an unknown transfer is refused (provider error), a 5xx uncertain', async () => {
    const unknown = await adapter.queryPayout(
      { transferId: '999999', identification: 'refund:txn_x', amount: 1 },
      ctx(),
    );
    assert.equal(unknown.kind === 'refused' && unknown.reason, 'provider_error');
    const input = request();
    const transferId = await issuedPayout(input);
    await control.fault({ operation: 'transfer_get', fault: { type: 'http_error', status: 500 } });
    const failed = await adapter.queryPayout(
      { transferId, identification: input.identification, amount: input.amount },
      ctx(),
    );
    assert.equal(failed.kind === 'uncertain' && failed.reason, 'server_error');
  });
});

test('the bank account never appears in an outcome or its diagnostics', () => {
  assert.ok(outcomes.length >= 10);
  const text = JSON.stringify(outcomes);
  assert.ok(!text.includes(ACCOUNT_NUMBER));
  for (const o of outcomes as Array<{ kind: string; diagnostics?: Parameters<typeof assertSanitized>[0] }>) {
    if (o.diagnostics) assertSanitized(o.diagnostics);
  }
});
