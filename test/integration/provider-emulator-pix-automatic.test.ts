import assert from 'node:assert/strict';
import { afterAll, afterEach, beforeAll, describe, test } from 'vitest';
import { type ProviderEmulator, startProviderEmulator } from '../../src/providers/emulator/server.ts';
import { type EmulatorControl, emulatorControl } from '../support/emulator-control.ts';

// The provider emulator's Pix Automatic on its own (issue 27 item 5; wire doc wave 2b §3.2-3.5, §7.7;
// docs/provider-emulator.md "Pix Automatic"), driven with plain HTTP requests: the v3 routes with both
// casings, journeys 2 and 3, the authorization and debit states and their drivers, the BCB refusals (one
// debit per date, the window, the fixed amount, revoke from the first attempt date), the BCB view over the
// same state both ways, faults and the call log.

let emulator: ProviderEmulator;
let control: EmulatorControl;

const KEY = 'emu-production-key';
const TODAY = '2026-03-10';
const V3 = '/payment/v3/pix/automatic/authorizations';

beforeAll(async () => {
  emulator = await startProviderEmulator({ port: 0, host: '127.0.0.1' });
  control = emulatorControl(emulator.url);
  // The window rules count from the emulator's today, pinned so every date below is fixed.
  await control.pixToday(TODAY);
});
afterEach(async () => {
  await control.reset();
  await control.pixToday(TODAY);
});
afterAll(async () => {
  await emulator.close();
});

async function wire(
  path: string,
  init: { method?: string; key?: string; body?: unknown; signal?: AbortSignal } = {},
) {
  const res = await fetch(`${emulator.url}${path}`, {
    method: init.method ?? 'GET',
    headers: {
      'X-API-KEY': init.key ?? KEY,
      ...(init.body === undefined ? {} : { 'Content-Type': 'application/json' }),
    },
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
    ...(init.signal ? { signal: init.signal } : {}),
  });
  const text = await res.text();
  let json: Record<string, unknown> | null = null;
  try {
    json = text === '' ? null : (JSON.parse(text) as Record<string, unknown>);
  } catch {
    json = null;
  }
  return { status: res.status, text, json };
}

function data(json: Record<string, unknown> | null): Record<string, unknown> {
  const d = json?.data;
  if (d === null || typeof d !== 'object' || Array.isArray(d))
    throw new Error(`no data: ${JSON.stringify(json)}`);
  return d as Record<string, unknown>;
}

function listOf(json: Record<string, unknown> | null): unknown[] {
  if (!Array.isArray(json?.data)) throw new Error(`no list: ${JSON.stringify(json)}`);
  return json.data;
}

function record(value: unknown): Record<string, unknown> {
  if (value === null || typeof value !== 'object') throw new Error(`not an object: ${JSON.stringify(value)}`);
  return value as Record<string, unknown>;
}

const days = (n: number) => {
  const d = new Date(`${TODAY}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + n);
  return d.toISOString().slice(0, 10);
};

/** The v3 create body (wire doc §3.5) the adapter sends: R$ 49,90 a month, no immediate payment. */
function createBody(extra: Record<string, unknown> = {}) {
  return {
    Application: 'Calebe',
    Contract: {
      Name: 'Plano mensal',
      Description: 'Assinatura Calebe',
      Customer: {
        Identity: '12345678909',
        Name: 'Maria Silva',
        Email: 'maria@example.com',
        Phone: '51999998888',
      },
    },
    Calendar: { StartDate: days(5), Periodicity: 'MENSAL', RetryPolicy: 'NAO_PERMITE' },
    Amount: { Fixed: 49.9 },
    ...extra,
  };
}

async function created(extra: Record<string, unknown> = {}): Promise<string> {
  const res = await wire(V3, { method: 'POST', body: createBody(extra) });
  assert.equal(res.status, 201, res.text);
  return String(data(res.json).Id);
}

async function approved(): Promise<string> {
  const id = await created();
  await control.moveAuthorization(id, 'approve');
  return id;
}

function scheduleBody(reference: string, dueDate: string, amount: unknown = 49.9) {
  return {
    Application: 'Calebe',
    Reference: reference,
    Calendar: { DueDate: dueDate },
    Amount: amount,
    AdditionalInformation: 'Mensalidade',
  };
}

async function schedule(id: string, reference: string, dueDate: string, amount: unknown = 49.9) {
  return wire(`${V3}/${id}/chargeSchedules`, {
    method: 'POST',
    body: scheduleBody(reference, dueDate, amount),
  });
}

describe('authorizations over v3 (wire doc §3.5)', () => {
  test('create answers 201 {traceId, data} in PascalCase with a 29-character idRec, CRIADA and a BR Code; no HasError', async () => {
    const res = await wire(V3, { method: 'POST', body: createBody() });
    assert.equal(res.status, 201);
    assert.equal(res.json?.HasError, undefined);
    assert.match(String(res.json?.traceId), /^[0-9a-f-]{36}$/);
    const d = data(res.json);
    assert.match(String(d.Id), /^RN12345678[0-9]{8}[0-9a-z]{11}$/);
    assert.equal(String(d.Id).length, 29);
    assert.equal(d.Status, 'CRIADA');
    assert.match(String((d.QrData as Record<string, unknown>).PixCopyAndPaste), /^000201/);
    assert.equal(d.Journey, 'JORNADA_2');
    assert.equal(d.ImmediatePayment, undefined);
    assert.deepEqual(d.Amount, { Fixed: 49.9 });
    const read = await wire(`${V3}/${String(d.Id)}`);
    assert.equal(read.status, 200);
    assert.equal(data(read.json).Status, 'CRIADA');
  });

  test('camelCase answers when the control switch says so: id, status, qrData.pixCopyAndPaste; errors code/message', async () => {
    await control.pixCasing('camel');
    const res = await wire(V3, { method: 'POST', body: createBody() });
    const d = data(res.json);
    assert.equal(d.Id, undefined);
    assert.match(String(d.id), /^RN/);
    assert.equal(d.status, 'CRIADA');
    assert.match(String((d.qrData as Record<string, unknown>).pixCopyAndPaste), /^000201/);
    const missing = await wire(`${V3}/RN0000000000000000000000000000`);
    assert.equal(missing.status, 404);
    assert.equal(missing.json?.code, '9003');
    assert.equal(typeof missing.json?.message, 'string');
    await control.pixCasing('pascal');
    const again = await wire(`${V3}/RN0000000000000000000000000000`);
    assert.equal(again.json?.ErrorCode, '9003');
  });

  test('journey 3: a body with ImmediatePayment is accepted and recorded as charging a first payment at authorization', async () => {
    const id = await created({ ImmediatePayment: { Amount: 49.9, Reference: 'primeira' } });
    const read = data((await wire(`${V3}/${id}`)).json);
    assert.equal(read.Journey, 'JORNADA_3');
    assert.equal((read.ImmediatePayment as Record<string, unknown>).Amount, 49.9);
    const state = await control.pixAuthorization(id);
    assert.equal(state.journey, 'JORNADA_3');
    assert.deepEqual(
      state.immediatePayment && [state.immediatePayment.amount, state.immediatePayment.reference],
      [4990, 'primeira'],
    );
    // Without it: journey 2, nothing charged at authorization.
    assert.equal((await control.pixAuthorization(await created())).immediatePayment, null);
  });

  test('invalid bodies are 400 with the field named and a numeric code; a bad key is 401; env keys see only their own', async () => {
    for (const body of [
      createBody({ Amount: { Fixed: 49.905 } }),
      createBody({ Calendar: { StartDate: days(5), Periodicity: 'QUINZENAL', RetryPolicy: 'NAO_PERMITE' } }),
      createBody({ Calendar: { StartDate: days(-1), Periodicity: 'MENSAL', RetryPolicy: 'NAO_PERMITE' } }),
      createBody({ Contract: { Name: 'x', Customer: { Identity: '123', Name: 'Maria' } } }),
    ]) {
      const res = await wire(V3, { method: 'POST', body });
      assert.deepEqual([res.status, res.json?.ErrorCode], [400, '9002'], res.text);
    }
    assert.equal((await wire(V3, { method: 'POST', key: 'revoked', body: createBody() })).status, 401);
    const id = await created();
    assert.equal((await wire(`${V3}/${id}`, { key: 'emu-sandbox-key' })).status, 404);
    // v3 lives on the payment host.
    assert.equal((await wire(`/api/v3/pix/automatic/authorizations/${id}`)).status, 404);
  });

  test('drivers: CRIADA → APROVADA | REJEITADA | EXPIRADA; CRIADA|APROVADA → CANCELADA by the payer; others refused', async () => {
    const status = async (id: string) => data((await wire(`${V3}/${id}`)).json).Status;
    const a = await created();
    await control.moveAuthorization(a, 'approve');
    assert.equal(await status(a), 'APROVADA');
    await control.moveAuthorization(a, 'cancel');
    assert.equal(await status(a), 'CANCELADA');
    assert.equal((await control.pixAuthorization(a)).cancellation?.solicitante, 'USUARIO_PAGADOR');
    const r = await created();
    await control.moveAuthorization(r, 'reject');
    assert.equal(await status(r), 'REJEITADA');
    await assert.rejects(control.moveAuthorization(r, 'approve'), /409/);
    const e = await created();
    await control.moveAuthorization(e, 'expire');
    assert.equal(await status(e), 'EXPIRADA');
    await assert.rejects(control.moveAuthorization(e, 'cancel'), /409/);
    const c = await created();
    await control.moveAuthorization(c, 'cancel');
    assert.equal(await status(c), 'CANCELADA');
  });

  test('revoke (DELETE): CANCELADA by the receiver; again: success; rejected or expired: 4xx', async () => {
    const id = await approved();
    const res = await wire(`${V3}/${id}`, { method: 'DELETE' });
    assert.equal(res.status, 200);
    assert.equal(data(res.json).Status, 'CANCELADA');
    assert.equal((await control.pixAuthorization(id)).cancellation?.solicitante, 'USUARIO_RECEBEDOR');
    assert.equal((await wire(`${V3}/${id}`, { method: 'DELETE' })).status, 200);
    for (const move of ['reject', 'expire'] as const) {
      const other = await created();
      await control.moveAuthorization(other, move);
      const refused = await wire(`${V3}/${other}`, { method: 'DELETE' });
      assert.deepEqual([refused.status, refused.json?.ErrorCode], [422, '9015']);
    }
  });
});

describe('debits: chargeSchedules (wire doc §3.4, §3.5)', () => {
  test('schedule answers 201 {data:{Id, Status:"CRIADA"}}; reads by id and by reference; CRIADA → ATIVA → CONCLUIDA', async () => {
    const id = await approved();
    const res = await schedule(id, 'txn_01', days(3));
    assert.equal(res.status, 201, res.text);
    const d = data(res.json);
    assert.equal(d.Status, 'CRIADA');
    assert.match(String(d.Id), /^[0-9a-z]{32}$/);
    const one = await wire(`${V3}/${id}/chargeSchedules/${String(d.Id)}`);
    assert.equal(one.status, 200);
    assert.deepEqual(
      [
        data(one.json).Reference,
        data(one.json).Amount,
        (data(one.json).Calendar as Record<string, unknown>).DueDate,
      ],
      ['txn_01', 49.9, days(3)],
    );
    const list = await wire(`${V3}/${id}/chargeSchedules?reference=txn_01`);
    assert.equal(listOf(list.json).length, 1);
    assert.equal(listOf((await wire(`${V3}/${id}/chargeSchedules?reference=txn_02`)).json).length, 0);
    await control.moveDebit(String(d.Id), 'activate');
    assert.equal(data((await wire(`${V3}/${id}/chargeSchedules/${String(d.Id)}`)).json).Status, 'ATIVA');
    await control.moveDebit(String(d.Id), 'pay');
    const paid = data((await wire(`${V3}/${id}/chargeSchedules/${String(d.Id)}`)).json);
    assert.deepEqual([paid.Status, paid.SettlementDate], ['CONCLUIDA', TODAY]);
    // Another authorization's path does not show it.
    const other = await approved();
    assert.equal((await wire(`${V3}/${other}/chargeSchedules/${String(d.Id)}`)).status, 404);
  });

  test('drivers: fail (EXPIRADA, no retry), reject (REJEITADA), cancel by the payer (CANCELADA); a final debit does not move', async () => {
    const id = await approved();
    const expectations = [
      ['fail', 'EXPIRADA', 3],
      ['reject', 'REJEITADA', 4],
      ['cancel', 'CANCELADA', 5],
    ] as const;
    for (const [move, status, ahead] of expectations) {
      const d = data((await schedule(id, `txn_${move}`, days(ahead))).json);
      await control.moveDebit(String(d.Id), move);
      assert.equal(data((await wire(`${V3}/${id}/chargeSchedules/${String(d.Id)}`)).json).Status, status);
      await assert.rejects(control.moveDebit(String(d.Id), 'pay'), /409/);
    }
  });

  test('refusals: not APROVADA, amount other than the fixed one, due date outside 2..10 days of today (Sao Paulo)', async () => {
    const pending = await created();
    assert.deepEqual(
      [
        (await schedule(pending, 'txn_a', days(3))).status,
        (await schedule(pending, 'txn_a', days(3))).json?.ErrorCode,
      ],
      [422, '9010'],
    );
    const id = await approved();
    assert.equal((await schedule(id, 'txn_b', days(3), 49.91)).json?.ErrorCode, '9012');
    for (const ahead of [0, 1, 11])
      assert.equal((await schedule(id, 'txn_c', days(ahead))).json?.ErrorCode, '9013');
    for (const ahead of [2, 10]) assert.equal((await schedule(id, `txn_${ahead}`, days(ahead))).status, 201);
    // Moving the emulator's clock moves the window.
    await control.pixToday(days(1));
    assert.equal((await schedule(id, 'txn_d', days(11))).status, 201);
    assert.equal((await schedule(id, 'txn_e', days(2))).json?.ErrorCode, '9013');
  });

  test('one debit per authorization and due date, unless the earlier one is REJEITADA or CANCELADA (CobROperacaoInvalida)', async () => {
    const id = await approved();
    const first = data((await schedule(id, 'txn_1', days(4))).json);
    const again = await schedule(id, 'txn_2', days(4));
    assert.deepEqual([again.status, again.json?.ErrorCode], [422, '9011']);
    await control.moveDebit(String(first.Id), 'reject');
    const second = data((await schedule(id, 'txn_3', days(4))).json);
    await control.moveDebit(String(second.Id), 'cancel');
    assert.equal((await schedule(id, 'txn_4', days(4))).status, 201);
    // An expired (no funds) or paid one still holds its date.
    const held = data((await schedule(id, 'txn_5', days(6))).json);
    await control.moveDebit(String(held.Id), 'fail');
    assert.equal((await schedule(id, 'txn_6', days(6))).json?.ErrorCode, '9011');
  });

  test('revoke is refused while a debit due today or earlier is CRIADA/ATIVA; it cancels the later ones with it', async () => {
    const id = await approved();
    const soon = data((await schedule(id, 'txn_soon', days(3))).json);
    const later = data((await schedule(id, 'txn_later', days(8))).json);
    await control.moveDebit(String(soon.Id), 'activate');
    await control.pixToday(days(3));
    const refused = await wire(`${V3}/${id}`, { method: 'DELETE' });
    assert.deepEqual([refused.status, refused.json?.ErrorCode], [422, '9014']);
    assert.equal((await control.pixAuthorization(id)).status, 'APROVADA');
    await control.moveDebit(String(soon.Id), 'pay');
    const done = await wire(`${V3}/${id}`, { method: 'DELETE' });
    assert.equal(done.status, 200);
    const debits = await control.pixDebits();
    const byRef = Object.fromEntries(debits.map((d) => [d.reference, d]));
    assert.equal(byRef.txn_soon?.status, 'CONCLUIDA');
    assert.equal(byRef.txn_later?.status, 'CANCELADA');
    assert.equal(byRef.txn_later?.cancellation?.solicitante, 'USUARIO_RECEBEDOR');
    assert.equal(byRef.txn_later?.txid, later.Id);
  });
});

describe('the Banco Central view of the same state (wire doc §3.2-3.4)', () => {
  test('an authorization made over v3 reads on GET /rec/{idRec} with BCB names: valorRec string, dadosQR.pixCopiaECola', async () => {
    const id = await created();
    const rec = await wire(`/rec/${id}`);
    assert.equal(rec.status, 200);
    const r = rec.json as Record<string, unknown>;
    assert.equal(r.idRec, id);
    assert.equal(r.status, 'CRIADA');
    assert.deepEqual(r.valor, { valorRec: '49.90' });
    assert.equal(r.politicaRetentativa, 'NAO_PERMITE');
    assert.deepEqual(r.calendario, { dataInicial: days(5), periodicidade: 'MENSAL' });
    const v3Qr = (data((await wire(`${V3}/${id}`)).json).QrData as Record<string, unknown>).PixCopyAndPaste;
    assert.equal((r.dadosQR as Record<string, unknown>).pixCopiaECola, v3Qr);
    assert.equal((r.ativacao as Record<string, unknown>).tipoJornada, 'JORNADA_2');
  });

  test('a recurrence made by POST /rec reads over v3; PUT /cobr schedules, GET /cobr reads; PATCH cancels both', async () => {
    const res = await wire('/rec', {
      method: 'POST',
      body: {
        vinculo: {
          contrato: 'pxa_01',
          objeto: 'Plano',
          devedor: { cpf: '12345678909', nome: 'Maria Silva' },
        },
        calendario: { dataInicial: days(5), periodicidade: 'TRIMESTRAL' },
        valor: { valorRec: '120.00' },
        politicaRetentativa: 'NAO_PERMITE',
      },
    });
    assert.equal(res.status, 201, res.text);
    const idRec = String(res.json?.idRec);
    assert.equal(idRec.length, 29);
    const v3 = data((await wire(`${V3}/${idRec}`)).json);
    assert.deepEqual(
      [v3.Status, v3.Amount, (v3.Calendar as Record<string, unknown>).Periodicity],
      ['CRIADA', { Fixed: 120 }, 'TRIMESTRAL'],
    );
    const txid = 'a'.repeat(30);
    const early = await wire(`/cobr/${txid}`, {
      method: 'PUT',
      body: { idRec, calendario: { dataDeVencimento: days(4) }, valor: { original: '120.00' } },
    });
    assert.equal(early.status, 400);
    assert.equal(early.json?.type, 'https://pix.bcb.gov.br/api/v2/error/CobROperacaoInvalida');
    await control.moveAuthorization(idRec, 'approve');
    const put = await wire(`/cobr/${txid}`, {
      method: 'PUT',
      body: {
        idRec,
        calendario: { dataDeVencimento: days(4) },
        valor: { original: '120.00' },
        ajusteDiaUtil: true,
      },
    });
    assert.equal(put.status, 201, put.text);
    assert.deepEqual([put.json?.txid, put.json?.status], [txid, 'CRIADA']);
    const dup = await wire(`/cobr/${'b'.repeat(30)}`, {
      method: 'PUT',
      body: { idRec, calendario: { dataDeVencimento: days(4) }, valor: { original: '120.00' } },
    });
    assert.equal(dup.json?.type, 'https://pix.bcb.gov.br/api/v2/error/CobROperacaoInvalida');
    assert.equal(dup.json?.status, 400);
    // The v3 view of the BCB charge.
    assert.equal(data((await wire(`${V3}/${idRec}/chargeSchedules/${txid}`)).json).Status, 'CRIADA');
    const cancelled = await wire(`/cobr/${txid}`, { method: 'PATCH', body: { status: 'CANCELADA' } });
    assert.equal(cancelled.json?.status, 'CANCELADA');
    const revoked = await wire(`/rec/${idRec}`, { method: 'PATCH', body: { status: 'CANCELADA' } });
    assert.equal(revoked.json?.status, 'CANCELADA');
    assert.equal(data((await wire(`${V3}/${idRec}`)).json).Status, 'CANCELADA');
  });

  test('journey 3 by ativacao.dadosJornada.txid; a paid charge shows pix[] and a PAGA attempt; PATCH refused on its due date', async () => {
    const res = await wire('/rec', {
      method: 'POST',
      body: {
        vinculo: { contrato: 'pxa_02', devedor: { cnpj: '12345678000195', nome: 'Loja' } },
        calendario: { dataInicial: days(5), periodicidade: 'MENSAL' },
        valor: { valorRec: '10.00' },
        politicaRetentativa: 'NAO_PERMITE',
        ativacao: { dadosJornada: { txid: 'cobimediata01' } },
      },
    });
    const idRec = String(res.json?.idRec);
    assert.equal(record(res.json?.ativacao).tipoJornada, 'JORNADA_3');
    await control.moveAuthorization(idRec, 'approve');
    const id = data(
      (
        await wire(`${V3}/${idRec}/chargeSchedules`, {
          method: 'POST',
          body: scheduleBody('txn_9', days(2), 10),
        })
      ).json,
    ).Id;
    await control.pixToday(days(2));
    const refused = await wire(`/cobr/${String(id)}`, { method: 'PATCH', body: { status: 'CANCELADA' } });
    assert.equal(refused.status, 400);
    const revoke = await wire(`/rec/${idRec}`, { method: 'PATCH', body: { status: 'CANCELADA' } });
    assert.equal(revoke.json?.type, 'https://pix.bcb.gov.br/api/v2/error/RecOperacaoInvalida');
    await control.moveDebit(String(id), 'pay');
    const cobr = (await wire(`/cobr/${String(id)}`)).json as Record<string, unknown>;
    assert.equal(cobr.status, 'CONCLUIDA');
    assert.equal((cobr.pix as Record<string, unknown>[])[0]?.valor, '10.00');
    assert.equal((cobr.tentativas as Record<string, unknown>[])[0]?.status, 'PAGA');
    assert.equal(
      (await wire('/rec/RN0000', {})).json?.type,
      'https://pix.bcb.gov.br/api/v2/error/RecNaoEncontrada',
    );
  });
});

describe('faults and the call log (docs/provider-emulator.md "Faults")', () => {
  test('no answer after the write: the schedule exists and a later list shows it', async () => {
    const id = await approved();
    await control.fault({
      operation: 'pixauto_schedule',
      reference: 'txn_lost',
      fault: { type: 'no_answer' },
    });
    await assert.rejects(
      wire(`${V3}/${id}/chargeSchedules`, {
        method: 'POST',
        body: scheduleBody('txn_lost', days(3)),
        signal: AbortSignal.timeout(300),
      }),
    );
    const list = await wire(`${V3}/${id}/chargeSchedules?reference=txn_lost`);
    assert.equal(listOf(list.json).length, 1);
  });

  test('a 5xx before applying leaves nothing; unparsable body; an answer without Id (either casing)', async () => {
    await control.fault({ operation: 'pixauto_authorize', fault: { type: 'http_error', status: 503 } });
    assert.equal((await wire(V3, { method: 'POST', body: createBody() })).status, 503);
    assert.equal((await control.calls({ operation: 'pixauto_authorize' })).length, 1);
    const before = (await fetch(`${emulator.url}/_emulator/pix-automatic/authorizations`).then((r) =>
      r.json(),
    )) as {
      authorizations: unknown[];
    };
    assert.equal(before.authorizations.length, 0);
    await control.fault({ operation: 'pixauto_authorize', fault: { type: 'garbage' } });
    const garbage = await wire(V3, { method: 'POST', body: createBody() });
    assert.deepEqual([garbage.status, garbage.json], [200, null]);
    for (const casing of ['pascal', 'camel'] as const) {
      await control.pixCasing(casing);
      await control.fault({ operation: 'pixauto_authorize', fault: { type: 'omit', field: 'Id' } });
      const d = data((await wire(V3, { method: 'POST', body: createBody() })).json);
      assert.equal(d.Id ?? d.id, undefined);
      assert.ok(d.Status ?? d.status);
    }
  });

  test('the call log records each call with its operation, reference and status', async () => {
    const id = await approved();
    await schedule(id, 'txn_log', days(3));
    await wire(`${V3}/${id}`);
    await wire(`/rec/${id}`);
    const calls = await control.calls();
    assert.deepEqual(
      calls.map((c) => [c.operation, c.reference, c.httpStatus]),
      [
        ['pixauto_authorize', null, 201],
        ['pixauto_schedule', 'txn_log', 201],
        ['pixauto_authorization_get', id, 200],
        ['pixauto_authorization_get', id, 200],
      ],
    );
  });
});
