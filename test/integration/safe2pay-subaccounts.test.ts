import assert from 'node:assert/strict';
import { inspect } from 'node:util';
import { afterAll, beforeAll, beforeEach, describe, test } from 'vitest';
import { createLogger } from '../../src/logger.ts';
import { type ProviderEmulator, startProviderEmulator } from '../../src/providers/emulator/server.ts';
import {
  type ChargesCapability,
  type MatrixContext,
  type Outcome,
  ProviderSecret,
  type Refused,
  type RemoteSubaccount,
  type SubaccountFee,
  type SubaccountsCapability,
  type Uncertain,
} from '../../src/providers/port.ts';
import { createSafe2PayAdapter } from '../../src/providers/safe2pay/adapter.ts';
import { type EmulatorControl, emulatorControl } from '../support/emulator-control.ts';
import { assertSanitized, boletoCharge } from '../support/provider-contract/harness.ts';
import { INVALID_CPF, portSubaccount } from '../support/subaccount-fixtures.ts';

// Issue 28 items 2 and 6: the Safe2Pay adapter's subaccounts (`Marketplace/*`, wire doc §2.12-2.13, wave 2b
// §4, §7.4) over undici against the provider emulator on a real socket. Expected values come from SPEC 2.7
// (sanitized code and static message), 2.8 (matrix production key; 301 for its sandbox key), 3.6 (uncertain
// creations found again) and 4.14 (a fee list replaces all fees; omitted, they are kept).

let emulator: ProviderEmulator;
let control: EmulatorControl;
let port: SubaccountsCapability;
let charges: ChargesCapability;

beforeAll(async () => {
  emulator = await startProviderEmulator({ port: 0, host: '127.0.0.1' });
  control = emulatorControl(emulator.url);
  const adapter = createSafe2PayAdapter({ paymentHost: emulator.paymentUrl, apiHost: emulator.apiUrl });
  port = adapter.subaccounts;
  charges = adapter.charges;
});
afterAll(async () => {
  await emulator.close();
});
beforeEach(async () => {
  await control.reset();
});

const CNPJ = '11222333000181';

function ctx(key: string | null = 'emu-production-key', signal = AbortSignal.timeout(60_000)): MatrixContext {
  return { matrixProductionKey: key, signal };
}

async function settings(body: Record<string, unknown>): Promise<void> {
  const res = await fetch(`${emulator.url}/_emulator/subaccounts/settings`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  assert.equal(res.status, 200);
}

function issued<T>(outcome: Outcome<T>): { kind: 'issued' } & T {
  assert.equal(outcome.kind, 'issued', inspect(outcome));
  return outcome as { kind: 'issued' } & T;
}

const boletoFee: SubaccountFee = {
  method: 'boleto',
  percentHundredths: null,
  fixedCentavos: 150,
  subaccountPaysProviderFee: false,
};
const pixFee: SubaccountFee = {
  method: 'pix',
  percentHundredths: 99,
  fixedCentavos: 35,
  subaccountPaysProviderFee: true,
};
const cardFee: SubaccountFee = {
  method: 'credit_card',
  percentHundredths: 175,
  fixedCentavos: null,
  subaccountPaysProviderFee: false,
};

function notIssued<T>(outcome: Outcome<T>): Refused | Uncertain {
  assert.notEqual(outcome.kind, 'issued', inspect(outcome));
  return outcome as Refused | Uncertain;
}

function tokensOf(s: RemoteSubaccount): string[] {
  const c = s.credentials;
  return [c.productionToken, c.sandboxToken, c.productionSecretKey, c.sandboxSecretKey].map((x) => {
    assert.ok(x instanceof ProviderSecret);
    return x.reveal();
  });
}

describe('create', () => {
  test('created with the matrix production key: id, document, fees, and the four credentials as secrets', async () => {
    const out = issued(await port.create(portSubaccount(CNPJ, { fees: [boletoFee, pixFee] }), ctx()));
    const s = out.subaccount;
    assert.match(s.providerReference, /^[0-9]+$/);
    assert.equal(s.document, CNPJ);
    assert.equal(s.removed, false);
    assert.deepEqual(s.fees, [boletoFee, pixFee]);
    for (const t of tokensOf(s)) assert.match(t, /^[0-9A-F]{36}$/);
    // Wire: the fee list as decimals, the bank data sent, the matrix production key used.
    const [call] = await control.calls({ operation: 'subaccount_create' });
    assert.equal(call?.environment, 'production');
    const body = call?.body as Record<string, unknown>;
    assert.deepEqual(body.MerchantSplit, [
      { PaymentMethodCode: '1', IsSubaccountTaxPayer: false, Taxes: [{ TaxTypeName: '2', Tax: '1.50' }] },
      {
        PaymentMethodCode: '6',
        IsSubaccountTaxPayer: true,
        Taxes: [
          { TaxTypeName: '1', Tax: '0.99' },
          { TaxTypeName: '2', Tax: '0.35' },
        ],
      },
    ]);
    assert.equal(body.ResponsibleBirthDate, '1980-05-17');
  });

  test('an Add answer without tokens (INFERRED alternative): the adapter reads them by Get', async () => {
    await settings({ addAnswer: 'id_only' });
    const s = issued(await port.create(portSubaccount(CNPJ), ctx())).subaccount;
    for (const t of tokensOf(s)) assert.match(t, /^[0-9A-F]{36}$/);
    assert.equal((await control.calls({ operation: 'subaccount_get' })).length, 1);
  });

  test('SPEC 2.8: the matrix SANDBOX key is refused as matrix_sandbox_key with code 301 and a static message', async () => {
    const out = notIssued(await port.create(portSubaccount(CNPJ), ctx('emu-matrix-sandbox-key')));
    assert.equal(out.kind, 'refused');
    assert.equal(out.reason, 'matrix_sandbox_key');
    assert.equal(out.diagnostics.provider_error_code, '301');
    assert.match(out.diagnostics.provider_error_message ?? '', /matrix production key/);
    assert.equal((await control.calls({ operation: 'subaccount_create' })).length, 1);
    assertSanitized(out.diagnostics);
  });

  test('a key that is not a marketplace matrix (code 300) is refused as not_marketplace', async () => {
    const out = notIssued(await port.create(portSubaccount(CNPJ), ctx('emu-sandbox-key')));
    assert.equal(out.kind === 'refused' && out.reason, 'not_marketplace');
    assert.equal(out.diagnostics.provider_error_code, '300');
  });

  test('SPEC 2.7: an onboarding refusal keeps the code (digits) and a static message, never the provider text', async () => {
    const cpf = notIssued(
      await port.create(
        portSubaccount(CNPJ, { responsible: { ...portSubaccount(CNPJ).responsible, document: INVALID_CPF } }),
        ctx(),
      ),
    );
    assert.equal(cpf.kind === 'refused' && cpf.reason, 'provider_error');
    assert.equal(cpf.diagnostics.provider_error_code, '1343');
    // The emulator's own text ("não confere na Receita Federal") is replaced by the static guidance.
    assert.doesNotMatch(cpf.diagnostics.provider_error_message ?? '', /não confere/);
    assert.match(cpf.diagnostics.provider_error_message ?? '', /responsible CPF/);
    const pix = notIssued(
      await port.create(portSubaccount(CNPJ, { fees: [{ ...pixFee, fixedCentavos: 34 }] }), ctx()),
    );
    assert.equal(pix.diagnostics.provider_error_code, '1273');
    // A provider text carrying personal data and a non-numeric code: neither survives.
    await control.fault({
      operation: 'subaccount_create',
      fault: { type: 'has_error', code: 'E-12', message: `CPF ${INVALID_CPF} maria@exemplo.com inválido` },
    });
    const odd = notIssued(await port.create(portSubaccount(CNPJ), ctx()));
    assert.equal(odd.kind, 'refused');
    assert.equal(odd.diagnostics.provider_error_code, null);
    assert.doesNotMatch(JSON.stringify(odd), new RegExp(`${INVALID_CPF}|maria@`));
    assertSanitized(odd.diagnostics);
  });

  test('without a key or with invalid data nothing is sent', async () => {
    const none = await port.create(portSubaccount(CNPJ), ctx(null));
    assert.equal(none.kind === 'refused' && none.reason, 'credentials_missing');
    const bad = await port.create(portSubaccount('123'), ctx());
    assert.equal(bad.kind === 'refused' && bad.reason, 'not_supported');
    const dup = await port.create(portSubaccount(CNPJ, { fees: [boletoFee, boletoFee] }), ctx());
    assert.equal(dup.kind, 'refused');
    assert.equal((await control.calls({ operation: 'subaccount_create' })).length, 0);
  });
});

describe('SPEC 3.6: an uncertain creation is found again, never created twice', () => {
  test('answer lost after the provider created it (drop after commit): uncertain, then find by document gives it with its tokens', async () => {
    await control.fault({ operation: 'subaccount_create', fault: { type: 'reset' }, commit: true });
    const out = await port.create(portSubaccount(CNPJ), ctx());
    assert.equal(out.kind, 'uncertain');
    const found = issued(await port.find(CNPJ, ctx())).subaccounts;
    assert.equal(found.length, 1);
    const [s] = found;
    assert.ok(s);
    for (const t of tokensOf(s)) assert.match(t, /^[0-9A-F]{36}$/);
    const again = issued(await port.get(s.providerReference, ctx())).subaccount;
    assert.equal(again.document, CNPJ);
  });

  test('HTTP 500 before the work: uncertain (server_error), and find answers none', async () => {
    await control.fault({ operation: 'subaccount_create', fault: { type: 'http_error', status: 500 } });
    const out = await port.create(portSubaccount(CNPJ), ctx());
    assert.equal(out.kind === 'uncertain' && out.reason, 'server_error');
    assert.deepEqual(issued(await port.find(CNPJ, ctx())).subaccounts, []);
  });

  test('timeout: uncertain (timeout); the account made meanwhile is found', async () => {
    await control.fault({ operation: 'subaccount_create', fault: { type: 'no_answer' }, commit: true });
    const out = await port.create(portSubaccount(CNPJ), ctx('emu-production-key', AbortSignal.timeout(300)));
    assert.equal(out.kind === 'uncertain' && out.reason, 'timeout');
    assert.equal(issued(await port.find(CNPJ, ctx())).subaccounts.length, 1);
  });

  test('find pages through List and matches the document only', async () => {
    for (let i = 0; i < 3; i++) issued(await port.create(portSubaccount(`1234567890${i}`), ctx()));
    issued(await port.create(portSubaccount(CNPJ), ctx()));
    const found = issued(await port.find(CNPJ, ctx())).subaccounts;
    assert.deepEqual(
      found.map((s) => s.document),
      [CNPJ],
    );
    assert.equal(issued(await port.find('98765432100', ctx())).subaccounts.length, 0);
  });
});

describe('SPEC 4.14: update', () => {
  for (const mode of ['merge', 'replace'] as const) {
    test(`provider ${mode}s an update: a fee list replaces all fees and methods; omitted, they are kept`, async () => {
      await settings({ update: mode });
      const s = issued(
        await port.create(portSubaccount(CNPJ, { fees: [boletoFee, pixFee] }), ctx()),
      ).subaccount;
      const renamed = issued(
        await port.update({ providerReference: s.providerReference, name: 'Outra Razão Ltda' }, ctx()),
      ).subaccount;
      assert.equal(renamed.name, 'Outra Razão Ltda');
      assert.deepEqual(renamed.fees, [boletoFee, pixFee]);
      const replaced = issued(
        await port.update({ providerReference: s.providerReference, fees: [cardFee] }, ctx()),
      ).subaccount;
      assert.deepEqual(replaced.fees, [cardFee]);
      assert.equal(replaced.name, 'Outra Razão Ltda');
      const cleared = issued(
        await port.update({ providerReference: s.providerReference, fees: [] }, ctx()),
      ).subaccount;
      assert.deepEqual(cleared.fees, []);
      // The tokens do not change with an update.
      assert.deepEqual(tokensOf(cleared), tokensOf(s));
    });
  }

  test('an update refused by the provider (1273) changes nothing', async () => {
    const s = issued(await port.create(portSubaccount(CNPJ, { fees: [boletoFee] }), ctx())).subaccount;
    const out = notIssued(
      await port.update(
        { providerReference: s.providerReference, fees: [{ ...pixFee, fixedCentavos: 10 }] },
        ctx(),
      ),
    );
    assert.equal(out.diagnostics.provider_error_code, '1273');
    assert.deepEqual(issued(await port.get(s.providerReference, ctx())).subaccount.fees, [boletoFee]);
  });

  test('matrix sandbox key on update and get: matrix_sandbox_key', async () => {
    const s = issued(await port.create(portSubaccount(CNPJ), ctx())).subaccount;
    const up = await port.update(
      { providerReference: s.providerReference, name: 'X' },
      ctx('emu-matrix-sandbox-key'),
    );
    assert.equal(up.kind === 'refused' && up.reason, 'matrix_sandbox_key');
  });
});

describe('remove', () => {
  test('Delete answers true; a read shows it removed', async () => {
    const s = issued(await port.create(portSubaccount(CNPJ), ctx())).subaccount;
    issued(await port.remove(s.providerReference, ctx()));
    assert.equal(issued(await port.get(s.providerReference, ctx())).subaccount.removed, true);
    const twice = await port.remove(s.providerReference, ctx());
    assert.equal(twice.kind, 'refused');
  });
});

describe('SPEC 2.7: tokens never in a log line, a serialized outcome or an error', () => {
  test('logged outcomes, inspected ones and a thrown error show [secret], never the token', async () => {
    const s = issued(await port.create(portSubaccount(CNPJ, { fees: [boletoFee] }), ctx())).subaccount;
    const secrets = tokensOf(s);
    const found = issued(await port.find(CNPJ, ctx()));
    const lines: string[] = [];
    const logger = createLogger('info', { write: (line: string) => void lines.push(line) });
    logger.info({ outcome: s }, 'subaccount created');
    logger.info({ found }, 'subaccount found');
    logger.error({ err: new Error(`subaccount ${String(s.credentials.productionToken)}`) }, 'failed');
    const texts = [
      ...lines,
      JSON.stringify(s),
      inspect(found, { depth: 10 }),
      `${s.credentials.sandboxToken}`,
      String(s.credentials.productionSecretKey),
    ];
    for (const t of texts) for (const secret of secrets) assert.ok(!t.includes(secret), `leaked in ${t}`);
    assert.match(lines.join('\n'), /\[secret\]/);
    // The emulator's call log (the provider's side) holds no bank account either.
    const calls = await control.calls({ operation: 'subaccount_create' });
    assert.doesNotMatch(JSON.stringify(calls), /4455667/);
  });
});

describe('SPEC 2.8: charges of a subaccount', () => {
  for (const environment of ['sandbox', 'production'] as const) {
    test(`a ${environment} boleto sent with the subaccount's ${environment} token is the subaccount's at the provider`, async () => {
      const s = issued(await port.create(portSubaccount(CNPJ), ctx())).subaccount;
      const token = (
        environment === 'sandbox' ? s.credentials.sandboxToken : s.credentials.productionToken
      )?.reveal();
      assert.ok(token);
      // The record's own key is there too: the subaccount token replaces it (the matrix key is never used).
      const context = {
        environment,
        credentials: { api_key: 'emu-matrix-sandbox-key' },
        subaccountToken: token,
        signal: AbortSignal.timeout(60_000),
      };
      const charge = boletoCharge();
      const out = issued(
        await charges.create(charge, charges.buildRequest(charge, context), context, new Date()),
      );
      const res = await fetch(`${emulator.url}/_emulator/charges?reference=${charge.transactionId}`);
      const [remote] = (
        (await res.json()) as { charges: { id: number; account: number | null; sandbox: boolean }[] }
      ).charges;
      assert.equal(String(remote?.id), out.providerReference);
      assert.equal(String(remote?.account), s.providerReference);
      assert.equal(remote?.sandbox, environment === 'sandbox');
      // Its refresh with the same token reads it.
      const read = await charges.query(
        {
          transactionId: charge.transactionId,
          method: 'boleto',
          amount: charge.amount,
          providerReference: out.providerReference,
          boletoDueDate: out.boletoDueDate,
        },
        context,
      );
      assert.equal(read.kind, 'issued');
    });
  }
});
