import assert from 'node:assert/strict';
import { afterAll, afterEach, beforeAll, describe, test } from 'vitest';
import { type ProviderEmulator, startProviderEmulator } from '../../src/providers/emulator/server.ts';
import type {
  AuthorizationTarget,
  DebitTarget,
  Outcome,
  PixAutomaticCapability,
  ProviderContext,
} from '../../src/providers/port.ts';
import { createSafe2PayAdapter } from '../../src/providers/safe2pay/adapter.ts';
import { type EmulatorControl, emulatorControl } from '../support/emulator-control.ts';
import { assertSanitized } from '../support/provider-contract/harness.ts';
import { PRODUCTION_KEY, portAuthorization, portDebit } from '../support/provider-contract/pix-automatic.ts';

// Safe2Pay's Pix Automatic v3 wire against the provider emulator (issue 27 item 2; SPEC 2.2, 2.3, 3.2, 4.11;
// wire doc wave 2b §3.5, §3.6, §7.3): the exact create body, every row of the mapping tables (create, query,
// revoke, schedule, debit query, find) in both answer casings, each fault (no answer after the write, 5xx
// before it, unparsable, missing Id), the mismatch checks, and sanitized diagnostics with no credential.

const TODAY = '2026-03-10';
const days = (n: number) => {
  const d = new Date(`${TODAY}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + n);
  return d.toISOString().slice(0, 10);
};

let emulator: ProviderEmulator;
let control: EmulatorControl;
let pix: PixAutomaticCapability;

beforeAll(async () => {
  emulator = await startProviderEmulator({ port: 0, host: '127.0.0.1' });
  control = emulatorControl(emulator.url);
  pix = createSafe2PayAdapter({ paymentHost: emulator.paymentUrl, apiHost: emulator.apiUrl }).pixAutomatic;
  await control.pixToday(TODAY);
});
afterEach(async () => {
  await control.reset();
  await control.pixToday(TODAY);
});
afterAll(async () => {
  await emulator.close();
});

const ctx = (signal?: AbortSignal): ProviderContext => ({
  environment: 'production',
  credentials: { api_key: PRODUCTION_KEY },
  signal: signal ?? AbortSignal.timeout(30_000),
});

/** Every outcome of this file: none may carry the key or provider text (SPEC 2.2, 8). */
const seen: unknown[] = [];
function see<T extends Outcome<unknown>>(o: T): T {
  seen.push(o);
  if (o.kind !== 'issued') assertSanitized(o.diagnostics);
  return o;
}

function reasonOf(o: Outcome<unknown>): string {
  return o.kind === 'issued' ? 'issued' : `${o.kind}:${o.reason}`;
}

async function authorization(approve = true): Promise<AuthorizationTarget> {
  const a = portAuthorization({ firstDueDate: days(5) });
  const created = see(
    await pix.createAuthorization(a, pix.buildAuthorizationRequest(a, ctx()), ctx(), new Date()),
  );
  if (created.kind !== 'issued') throw new Error(JSON.stringify(created));
  const target = { authorizationId: a.authorizationId, providerReference: created.providerReference };
  if (approve) await control.moveAuthorization(target.providerReference, 'approve');
  return target;
}

async function debit(a: AuthorizationTarget, ahead = 3): Promise<DebitTarget> {
  const d = portDebit(a, days(ahead));
  const outcome = see(await pix.scheduleDebit(d, ctx(), new Date()));
  if (outcome.kind !== 'issued') throw new Error(JSON.stringify(outcome));
  return { ...d, providerReference: outcome.providerReference };
}

const CASINGS = ['pascal', 'camel'] as const;

describe('createAuthorization (wire doc §3.5, §3.6)', () => {
  test('sends the exact PascalCase body on the payment host: no ImmediatePayment, NAO_PERMITE, Amount.Fixed in exact reais', async () => {
    const a = portAuthorization({ amount: 1_999, intervalMonths: 12, firstDueDate: days(5) });
    const body = pix.buildAuthorizationRequest(a, ctx());
    assert.deepEqual(body, {
      Application: 'Calebe',
      Contract: {
        Name: 'Plano mensal',
        Description: 'Assinatura Calebe',
        Customer: {
          Identity: '12345678909',
          Name: 'Maria Silva',
          Email: 'maria@example.com',
          Phone: '51999998888',
          Address: {
            ZipCode: '90010000',
            Street: 'Rua dos Andradas',
            Number: '100',
            District: 'Centro',
            StateInitials: 'RS',
            CityName: 'Porto Alegre',
            CountryName: 'Brasil',
          },
        },
      },
      Calendar: { StartDate: days(5), Periodicity: 'ANUAL', RetryPolicy: 'NAO_PERMITE' },
      Amount: { Fixed: 19.99 },
    });
    await pix.createAuthorization(a, body, ctx(), new Date());
    const [call] = await control.calls({ operation: 'pixauto_authorize' });
    assert.equal(call?.path, '/payment/v3/pix/automatic/authorizations');
    assert.deepEqual(call?.body, body);
    for (const [months, word] of [
      [1, 'MENSAL'],
      [3, 'TRIMESTRAL'],
      [6, 'SEMESTRAL'],
    ] as const) {
      const b = pix.buildAuthorizationRequest(
        portAuthorization({ intervalMonths: months, firstDueDate: days(5) }),
        ctx(),
      );
      assert.deepEqual(b?.Calendar, { StartDate: days(5), Periodicity: word, RetryPolicy: 'NAO_PERMITE' });
    }
    // Exact money at the edges (SPEC 1: integer centavos, reais only on the wire).
    for (const [centavos, reais] of [
      [1, 0.01],
      [10, 0.1],
      [100_000_000, 1_000_000],
    ] as const) {
      const b = pix.buildAuthorizationRequest(portAuthorization({ amount: centavos }), ctx());
      assert.deepEqual(b?.Amount, { Fixed: reais });
    }
  });

  test('2xx CRIADA with Id and copy-and-paste is issued, in both casings; the emulator records journey 2', async () => {
    for (const casing of CASINGS) {
      await control.pixCasing(casing);
      const a = portAuthorization({ firstDueDate: days(5) });
      const o = see(await pix.createAuthorization(a, null, ctx(), new Date()));
      assert.equal(o.kind, 'issued', JSON.stringify(o));
      if (o.kind !== 'issued') return;
      assert.match(o.providerReference, /^RN[0-9]{16}[0-9a-z]{11}$/);
      assert.match(o.copyPaste, /^000201/);
      assert.equal((await control.pixAuthorization(o.providerReference)).journey, 'JORNADA_2');
    }
  });

  test('a 4xx is refused with the numeric code only; a non-numeric code is dropped; 401 credentials_refused; no key: nothing sent', async () => {
    await control.fault({
      operation: 'pixauto_authorize',
      fault: {
        type: 'http_error',
        status: 422,
        body: '{"ErrorCode":"1234","Error":"CPF 12345678909 inválido"}',
      },
    });
    const r = see(
      await pix.createAuthorization(portAuthorization({ firstDueDate: days(5) }), null, ctx(), new Date()),
    );
    assert.equal(reasonOf(r), 'refused:provider_error');
    if (r.kind === 'refused') {
      assert.equal(r.diagnostics.provider_error_code, '1234');
      assert.equal(r.diagnostics.provider_http_status, 422);
      assert.ok(!JSON.stringify(r).includes('12345678909'));
    }
    await control.fault({
      operation: 'pixauto_authorize',
      fault: { type: 'http_error', status: 400, body: '{"code":"CPF_INVALIDO","detail":"Maria"}' },
    });
    const named = see(
      await pix.createAuthorization(portAuthorization({ firstDueDate: days(5) }), null, ctx(), new Date()),
    );
    assert.equal(reasonOf(named), 'refused:provider_error');
    if (named.kind === 'refused') assert.equal(named.diagnostics.provider_error_code, null);
    // An invalid body at the emulator (a past start date) is its own 400.
    const past = see(
      await pix.createAuthorization(portAuthorization({ firstDueDate: days(-1) }), null, ctx(), new Date()),
    );
    assert.equal(reasonOf(past), 'refused:provider_error');
    if (past.kind === 'refused') assert.equal(past.diagnostics.provider_error_code, '9002');
    const bad = see(
      await pix.createAuthorization(
        portAuthorization({ firstDueDate: days(5) }),
        null,
        { ...ctx(), credentials: { api_key: 'revoked-key' } },
        new Date(),
      ),
    );
    assert.equal(reasonOf(bad), 'refused:credentials_refused');
    const before = (await control.calls()).length;
    const none = see(
      await pix.createAuthorization(portAuthorization(), null, { ...ctx(), credentials: {} }, new Date()),
    );
    assert.equal(reasonOf(none), 'refused:credentials_missing');
    assert.equal((await control.calls()).length, before);
  });

  test('faults: no answer after the write is uncertain (and the authorization exists); 5xx before it; unparsable; missing Id or copy-and-paste', async () => {
    const created = async () =>
      (await fetch(`${emulator.url}/_emulator/pix-automatic/authorizations`).then((r) => r.json())) as {
        authorizations: unknown[];
      };
    const attempt = (signal?: AbortSignal) =>
      pix
        .createAuthorization(portAuthorization({ firstDueDate: days(5) }), null, ctx(signal), new Date())
        .then(see);

    await control.fault({ operation: 'pixauto_authorize', fault: { type: 'no_answer' } });
    assert.equal(reasonOf(await attempt(AbortSignal.timeout(300))), 'uncertain:timeout');
    assert.equal((await created()).authorizations.length, 1);

    await control.fault({ operation: 'pixauto_authorize', fault: { type: 'http_error', status: 503 } });
    const five = await attempt();
    assert.equal(reasonOf(five), 'uncertain:server_error');
    assert.equal((await created()).authorizations.length, 1);

    await control.fault({ operation: 'pixauto_authorize', fault: { type: 'garbage' } });
    assert.equal(reasonOf(await attempt()), 'uncertain:unparsable');
    await control.fault({ operation: 'pixauto_authorize', fault: { type: 'truncate' } });
    assert.equal(reasonOf(await attempt()), 'uncertain:incomplete');

    for (const casing of CASINGS) {
      await control.pixCasing(casing);
      await control.fault({ operation: 'pixauto_authorize', fault: { type: 'omit', field: 'Id' } });
      assert.equal(reasonOf(await attempt()), 'uncertain:incomplete');
      await control.fault({ operation: 'pixauto_authorize', fault: { type: 'omit', field: 'QrData' } });
      const noQr = await attempt();
      assert.equal(reasonOf(noQr), 'uncertain:incomplete');
      assert.match(String(noQr.kind === 'uncertain' && noQr.providerReference), /^RN/);
    }
    await control.pixCasing('pascal');
    await control.fault({
      operation: 'pixauto_authorize',
      fault: { type: 'override', field: 'QrData', value: { PixCopyAndPaste: '000201-nao-e-br-code' } },
    });
    assert.equal(reasonOf(await attempt()), 'uncertain:invalid_artifacts');
    // Anything but CRIADA at creation is not a pending authorization.
    await control.fault({ operation: 'pixauto_authorize', fault: { type: 'status', status: 'APROVADA' } });
    assert.equal(reasonOf(await attempt()), 'uncertain:unknown_status');
  });
});

describe('queryAuthorization (wire doc §3.6 authorization table)', () => {
  test('CRIADA pending, APROVADA approved, EXPIRADA expired, CANCELADA cancelled, REJEITADA failed, in both casings', async () => {
    for (const casing of CASINGS) {
      await control.pixCasing(casing);
      const cases = [
        [null, 'pending', 'CRIADA'],
        ['approve', 'approved', 'APROVADA'],
        ['expire', 'expired', 'EXPIRADA'],
        ['cancel', 'cancelled', 'CANCELADA'],
        ['reject', 'failed', 'REJEITADA'],
      ] as const;
      for (const [move, status, word] of cases) {
        const a = await authorization(false);
        if (move) await control.moveAuthorization(a.providerReference, move);
        assert.deepEqual(see(await pix.queryAuthorization(a, ctx())), {
          kind: 'issued',
          status,
          providerStatus: word,
        });
      }
    }
  });

  test('ATIVA is approved; any other string is uncertain (unknown_status), never approved; another Id is a mismatch; 404 refused', async () => {
    const a = await authorization(false);
    await control.fault({
      operation: 'pixauto_authorization_get',
      fault: { type: 'status', status: 'ATIVA' },
    });
    assert.deepEqual(see(await pix.queryAuthorization(a, ctx())), {
      kind: 'issued',
      status: 'approved',
      providerStatus: 'ATIVA',
    });
    for (const word of ['SUSPENSA', 'aprovada_parcial', 7]) {
      await control.fault({
        operation: 'pixauto_authorization_get',
        fault: { type: 'status', status: word },
      });
      assert.equal(reasonOf(see(await pix.queryAuthorization(a, ctx()))), 'uncertain:unknown_status');
    }
    await control.fault({ operation: 'pixauto_authorization_get', fault: { type: 'disagree', field: 'id' } });
    assert.equal(reasonOf(see(await pix.queryAuthorization(a, ctx()))), 'uncertain:mismatch');
    await control.fault({ operation: 'pixauto_authorization_get', fault: { type: 'omit', field: 'Id' } });
    assert.equal(reasonOf(see(await pix.queryAuthorization(a, ctx()))), 'uncertain:incomplete');
    const missing = see(
      await pix.queryAuthorization({ ...a, providerReference: 'RN0000000000000000000000000000' }, ctx()),
    );
    assert.equal(reasonOf(missing), 'refused:provider_error');
    await control.fault({
      operation: 'pixauto_authorization_get',
      fault: { type: 'http_error', status: 500 },
    });
    assert.equal(reasonOf(see(await pix.queryAuthorization(a, ctx()))), 'uncertain:server_error');
  });
});

describe('revokeAuthorization (wire doc §7.3 revoke row)', () => {
  test('2xx issued (again too); rejected or expired 4xx refused; refused while a debit is due today; 5xx and no answer uncertain', async () => {
    const a = await authorization();
    assert.deepEqual(see(await pix.revokeAuthorization(a, ctx())), { kind: 'issued', cancelled: true });
    assert.deepEqual(see(await pix.revokeAuthorization(a, ctx())), { kind: 'issued', cancelled: true });
    const r = await authorization(false);
    await control.moveAuthorization(r.providerReference, 'reject');
    const refused = see(await pix.revokeAuthorization(r, ctx()));
    assert.equal(reasonOf(refused), 'refused:provider_error');
    if (refused.kind === 'refused') assert.equal(refused.diagnostics.provider_error_code, '9015');

    const busy = await authorization();
    const d = await debit(busy, 2);
    const later = await debit(busy, 9);
    await control.pixToday(days(2));
    const attempt = see(await pix.revokeAuthorization(busy, ctx()));
    assert.equal(reasonOf(attempt), 'refused:provider_error');
    if (attempt.kind === 'refused') assert.equal(attempt.diagnostics.provider_error_code, '9014');
    await control.moveDebit(d.providerReference, 'pay');
    assert.deepEqual(see(await pix.revokeAuthorization(busy, ctx())), { kind: 'issued', cancelled: true });
    const cancelled = see(await pix.queryDebit(later, ctx(), new Date()));
    assert.deepEqual(cancelled.kind === 'issued' && [cancelled.debit.status, cancelled.debit.cancelled], [
      'failed',
      true,
    ]);

    const other = await authorization();
    await control.fault({ operation: 'pixauto_revoke', fault: { type: 'http_error', status: 502 } });
    assert.equal(reasonOf(see(await pix.revokeAuthorization(other, ctx()))), 'uncertain:server_error');
    assert.equal((await control.pixAuthorization(other.providerReference)).status, 'APROVADA');
    await control.fault({ operation: 'pixauto_revoke', fault: { type: 'no_answer' } });
    assert.equal(
      reasonOf(see(await pix.revokeAuthorization(other, ctx(AbortSignal.timeout(300))))),
      'uncertain:timeout',
    );
    assert.equal((await control.pixAuthorization(other.providerReference)).status, 'CANCELADA');
  });
});

describe('scheduleDebit (wire doc §3.5 schedule body, §3.6 debit table)', () => {
  test('sends {Application, Reference, Calendar.DueDate, Amount, AdditionalInformation}; 2xx CRIADA or ATIVA is issued pending', async () => {
    const a = await authorization();
    const d = portDebit(a, days(3));
    const o = see(await pix.scheduleDebit(d, ctx(), new Date()));
    assert.equal(o.kind, 'issued');
    if (o.kind !== 'issued') return;
    assert.equal(o.status, 'pending');
    const [call] = await control.calls({ operation: 'pixauto_schedule' });
    assert.equal(
      call?.path,
      `/payment/v3/pix/automatic/authorizations/${a.providerReference}/chargeSchedules`,
    );
    assert.deepEqual(call?.body, {
      Application: 'Calebe',
      Reference: d.transactionId,
      Calendar: { DueDate: days(3) },
      Amount: 49.9,
      AdditionalInformation: 'Mensalidade',
    });
    const [state] = await control.pixDebits(d.transactionId);
    assert.deepEqual([state?.txid, state?.amount, state?.dueDate], [o.providerReference, 4_990, days(3)]);
    await control.pixCasing('camel');
    await control.fault({ operation: 'pixauto_schedule', fault: { type: 'status', status: 'ATIVA' } });
    const ativa = see(await pix.scheduleDebit(portDebit(a, days(4)), ctx(), new Date()));
    assert.deepEqual([ativa.kind, ativa.kind === 'issued' && ativa.status], ['issued', 'pending']);
  });

  test('4xx refused (not approved, amount, window, same date); 5xx, no answer, unparsable, missing Id or another status uncertain', async () => {
    const pending = await authorization(false);
    const code = (o: Outcome<unknown>) =>
      o.kind === 'refused' ? o.diagnostics.provider_error_code : reasonOf(o);
    assert.equal(code(see(await pix.scheduleDebit(portDebit(pending, days(3)), ctx(), new Date()))), '9010');
    const a = await authorization();
    assert.equal(code(see(await pix.scheduleDebit(portDebit(a, days(3), 5_000), ctx(), new Date()))), '9012');
    assert.equal(code(see(await pix.scheduleDebit(portDebit(a, days(1)), ctx(), new Date()))), '9013');
    assert.equal(code(see(await pix.scheduleDebit(portDebit(a, days(11)), ctx(), new Date()))), '9013');
    await debit(a, 5);
    assert.equal(code(see(await pix.scheduleDebit(portDebit(a, days(5)), ctx(), new Date()))), '9011');

    const five = portDebit(a, days(6));
    await control.fault({
      operation: 'pixauto_schedule',
      reference: five.transactionId,
      fault: { type: 'http_error', status: 500 },
    });
    assert.equal(reasonOf(see(await pix.scheduleDebit(five, ctx(), new Date()))), 'uncertain:server_error');
    assert.equal((await control.pixDebits(five.transactionId)).length, 0);

    const lost = portDebit(a, days(7));
    await control.fault({
      operation: 'pixauto_schedule',
      reference: lost.transactionId,
      fault: { type: 'no_answer' },
    });
    assert.equal(
      reasonOf(see(await pix.scheduleDebit(lost, ctx(AbortSignal.timeout(300)), new Date()))),
      'uncertain:timeout',
    );
    const found = see(await pix.findDebits(a, lost.transactionId, ctx()));
    assert.deepEqual(found.kind === 'issued' && found.debits.map((x) => [x.reference, x.status]), [
      [lost.transactionId, 'pending'],
    ]);
  });

  test('uncertain answers after the write each leave one debit that findDebits reports', async () => {
    const a = await authorization();
    let ahead = 2;
    for (const [fault, reason] of [
      [{ type: 'garbage' }, 'uncertain:unparsable'],
      [{ type: 'truncate' }, 'uncertain:incomplete'],
      [{ type: 'omit', field: 'Id' }, 'uncertain:incomplete'],
      [{ type: 'status', status: 'CONCLUIDA' }, 'uncertain:unknown_status'],
    ] as const) {
      const d = portDebit(a, days(ahead++));
      await control.fault({ operation: 'pixauto_schedule', reference: d.transactionId, fault });
      assert.equal(reasonOf(see(await pix.scheduleDebit(d, ctx(), new Date()))), reason);
      const found = see(await pix.findDebits(a, d.transactionId, ctx()));
      assert.equal(found.kind === 'issued' && found.debits.length, 1);
    }
  });
});

describe('queryDebit and findDebits (wire doc §3.6 debit table)', () => {
  test('CRIADA and ATIVA pending, CONCLUIDA paid with its settlement date, EXPIRADA expired, REJEITADA failed, CANCELADA failed+cancelled; both casings', async () => {
    for (const casing of CASINGS) {
      await control.pixCasing(casing);
      const a = await authorization();
      const rows = [
        [[], 'pending', 'CRIADA', false, null],
        [['activate'], 'pending', 'ATIVA', false, null],
        [['activate', 'pay'], 'paid', 'CONCLUIDA', false, days(2)],
        [['fail'], 'expired', 'EXPIRADA', false, null],
        [['reject'], 'failed', 'REJEITADA', false, null],
        [['cancel'], 'failed', 'CANCELADA', true, null],
      ] as const;
      let ahead = 2;
      for (const [moves, status, word, cancelled, paidOn] of rows) {
        const d = await debit(a, ahead++);
        for (const m of moves)
          await control.moveDebit(d.providerReference, m, m === 'pay' ? days(2) : undefined);
        const o = see(await pix.queryDebit(d, ctx(), new Date()));
        assert.equal(o.kind, 'issued', JSON.stringify(o));
        if (o.kind !== 'issued') return;
        assert.deepEqual(o.debit, {
          providerReference: d.providerReference,
          reference: d.transactionId,
          amount: 4_990,
          dueDate: d.dueDate,
          status,
          providerStatus: word,
          cancelled,
          paidOn,
        });
      }
      await control.reset();
      await control.pixToday(TODAY);
    }
  });

  test('another Id, reference or amount is a mismatch; an unknown status is uncertain; 404 refused; 5xx uncertain', async () => {
    const a = await authorization();
    const d = await debit(a);
    for (const field of ['id', 'reference', 'amount'] as const) {
      await control.fault({ operation: 'pixauto_schedule_get', fault: { type: 'disagree', field } });
      assert.equal(reasonOf(see(await pix.queryDebit(d, ctx(), new Date()))), 'uncertain:mismatch', field);
    }
    assert.equal(
      reasonOf(see(await pix.queryDebit({ ...d, amount: 5_000 }, ctx(), new Date()))),
      'uncertain:mismatch',
    );
    assert.equal(
      reasonOf(see(await pix.queryDebit({ ...d, dueDate: days(4) }, ctx(), new Date()))),
      'uncertain:mismatch',
    );
    await control.fault({
      operation: 'pixauto_schedule_get',
      fault: { type: 'status', status: 'EM_PROCESSAMENTO' },
    });
    assert.equal(reasonOf(see(await pix.queryDebit(d, ctx(), new Date()))), 'uncertain:unknown_status');
    await control.fault({
      operation: 'pixauto_schedule_get',
      fault: { type: 'override', field: 'Amount', value: '49.905' },
    });
    assert.equal(reasonOf(see(await pix.queryDebit(d, ctx(), new Date()))), 'uncertain:mismatch');
    assert.equal(
      reasonOf(see(await pix.queryDebit({ ...d, providerReference: 'x'.repeat(32) }, ctx(), new Date()))),
      'refused:provider_error',
    );
    await control.fault({ operation: 'pixauto_schedule_get', fault: { type: 'http_error', status: 500 } });
    assert.equal(reasonOf(see(await pix.queryDebit(d, ctx(), new Date()))), 'uncertain:server_error');
  });

  test('findDebits lists by reference: [] when none was made, the one made otherwise; an unknown status is uncertain', async () => {
    const a = await authorization();
    const none = see(await pix.findDebits(a, 'txn_nenhum', ctx()));
    assert.deepEqual(none, { kind: 'issued', debits: [] });
    const d = await debit(a);
    await debit(a, 4);
    await control.pixCasing('camel');
    const one = see(await pix.findDebits(a, d.transactionId, ctx()));
    assert.deepEqual(
      one.kind === 'issued' && one.debits.map((x) => [x.providerReference, x.reference, x.amount]),
      [[d.providerReference, d.transactionId, 4_990]],
    );
    await control.fault({ operation: 'pixauto_schedule_list', fault: { type: 'status', status: 'OUTRO' } });
    assert.equal(reasonOf(see(await pix.findDebits(a, d.transactionId, ctx()))), 'uncertain:unknown_status');
    await control.fault({ operation: 'pixauto_schedule_list', fault: { type: 'garbage' } });
    assert.equal(reasonOf(see(await pix.findDebits(a, d.transactionId, ctx()))), 'uncertain:unparsable');
  });
});

describe('secrets (SPEC 2.2, 8)', () => {
  test('no outcome of this file carries the key, a provider message or the payer document', () => {
    const text = JSON.stringify(seen);
    assert.ok(seen.length > 50);
    assert.ok(!text.includes(PRODUCTION_KEY));
    assert.ok(!text.includes('revoked-key'));
    assert.ok(!text.includes('12345678909'));
    assert.ok(!/não|recorrência|cobrança/i.test(text.replace(/"provider_error_message":"[^"]*"/g, '')));
  });
});
