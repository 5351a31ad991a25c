import assert from 'node:assert/strict';
import { inspect } from 'node:util';
import { afterAll, beforeAll, describe, test } from 'vitest';
import { type ProviderEmulator, startProviderEmulator } from '../../../src/providers/emulator/server.ts';
import type {
  MatrixContext,
  Outcome,
  RemoteSubaccount,
  SubaccountFee,
  SubaccountsCapability,
} from '../../../src/providers/port.ts';
import { createSafe2PayAdapter } from '../../../src/providers/safe2pay/adapter.ts';
import { portSubaccount } from '../subaccount-fixtures.ts';

/**
 * The `subaccounts` capability's contract (issue 28; SPEC 2.7, 2.8, 3.6, 4.14): what every adapter of a
 * marketplace provider must do. Only Safe2Pay has it today (the simulator is never a marketplace: it lacks
 * the capability, test/unit/safe2pay-subaccount-wire.test.ts); a second provider adds its subject here. Wire
 * details (bodies, codes, faults) stay in test/integration/safe2pay-subaccounts.test.ts.
 */

export interface SubaccountSubject {
  readonly name: string;
  port(): SubaccountsCapability;
  /** The matrix's production key (SPEC 2.8). */
  matrix(signal?: AbortSignal): MatrixContext;
  /** The same matrix's sandbox key, which management refuses. */
  matrixSandbox(): MatrixContext;
}

export function emulatorSubaccountSubject(): SubaccountSubject {
  let emulator: ProviderEmulator;
  let port: SubaccountsCapability;
  beforeAll(async () => {
    emulator = await startProviderEmulator({ port: 0, host: '127.0.0.1' });
    port = createSafe2PayAdapter({ paymentHost: emulator.paymentUrl, apiHost: emulator.apiUrl }).subaccounts;
  });
  afterAll(async () => {
    await emulator.close();
  });
  const ctx = (key: string, signal?: AbortSignal): MatrixContext => ({
    matrixProductionKey: key,
    signal: signal ?? AbortSignal.timeout(60_000),
  });
  return {
    name: 'Safe2Pay adapter over the emulator',
    port: () => port,
    matrix: (signal) => ctx('emu-production-key', signal),
    matrixSandbox: () => ctx('emu-matrix-sandbox-key'),
  };
}

/** A CNPJ-shaped document unique per call (14 digits), so cases never see each other's accounts. */
let counter = 0;
function document(): string {
  counter += 1;
  return `${String(Date.now() % 1e9).padStart(9, '0')}${String(counter).padStart(5, '0')}`;
}

function issued<T>(outcome: Outcome<T>): { kind: 'issued' } & T {
  assert.equal(outcome.kind, 'issued', inspect(outcome));
  return outcome as { kind: 'issued' } & T;
}

const revealed = (s: RemoteSubaccount) =>
  [s.credentials.productionToken, s.credentials.sandboxToken].map((t) => t?.reveal() ?? null);

export function subaccountsContract(subject: SubaccountSubject): void {
  const fee: SubaccountFee = {
    method: 'boleto',
    percentHundredths: null,
    fixedCentavos: 199,
    subaccountPaysProviderFee: false,
  };
  const other: SubaccountFee = {
    method: 'pix',
    percentHundredths: 50,
    fixedCentavos: null,
    subaccountPaysProviderFee: true,
  };

  describe(`subaccounts contract: ${subject.name}`, () => {
    test('created with both tokens; get by id and find by document show the same account and tokens', async () => {
      const doc = document();
      const created = issued(
        await subject.port().create(portSubaccount(doc, { fees: [fee] }), subject.matrix()),
      ).subaccount;
      const tokens = revealed(created);
      assert.ok(tokens.every((t) => t !== null && t.length > 0));
      assert.notEqual(tokens[0], tokens[1]);
      const got = issued(await subject.port().get(created.providerReference, subject.matrix())).subaccount;
      assert.equal(got.document, doc);
      assert.deepEqual(revealed(got), tokens);
      assert.deepEqual(got.fees, [fee]);
      const found = issued(await subject.port().find(doc, subject.matrix())).subaccounts;
      assert.deepEqual(
        found.map((s) => s.providerReference),
        [created.providerReference],
      );
    });

    test('find for a document never registered: none (a reason to create, after an uncertain creation)', async () => {
      assert.deepEqual(issued(await subject.port().find(document(), subject.matrix())).subaccounts, []);
    });

    test('SPEC 2.8: management with the matrix sandbox key is refused as matrix_sandbox_key, code 301', async () => {
      const out = await subject.port().create(portSubaccount(document()), subject.matrixSandbox());
      assert.equal(out.kind === 'refused' && out.reason, 'matrix_sandbox_key');
      assert.equal(out.kind === 'refused' && out.diagnostics.provider_error_code, '301');
    });

    test('SPEC 4.14: a fee list replaces all fees and methods; omitted, they are kept', async () => {
      const s = issued(
        await subject.port().create(portSubaccount(document(), { fees: [fee, other] }), subject.matrix()),
      ).subaccount;
      const kept = issued(
        await subject
          .port()
          .update({ providerReference: s.providerReference, email: 'novo@filha.example' }, subject.matrix()),
      ).subaccount;
      assert.deepEqual(kept.fees, [fee, other]);
      assert.equal(kept.email, 'novo@filha.example');
      const replaced = issued(
        await subject
          .port()
          .update({ providerReference: s.providerReference, fees: [other] }, subject.matrix()),
      ).subaccount;
      assert.deepEqual(replaced.fees, [other]);
    });

    test('removed: a read flags it removed (the link is to be disabled)', async () => {
      const s = issued(await subject.port().create(portSubaccount(document()), subject.matrix())).subaccount;
      issued(await subject.port().remove(s.providerReference, subject.matrix()));
      assert.equal(
        issued(await subject.port().get(s.providerReference, subject.matrix())).subaccount.removed,
        true,
      );
    });

    test('an aborted call is uncertain, never issued nor refused', async () => {
      const controller = new AbortController();
      controller.abort();
      const out = await subject.port().create(portSubaccount(document()), subject.matrix(controller.signal));
      assert.equal(out.kind, 'uncertain');
    });
  });
}
