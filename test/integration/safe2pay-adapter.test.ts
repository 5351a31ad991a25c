import assert from 'node:assert/strict';
import { isValidPixPayload } from '@brazilian-utils/brazilian-utils';
import { afterAll, beforeAll, describe, test } from 'vitest';
import type { Fault } from '../../src/providers/emulator/faults.ts';
import { type ProviderEmulator, startProviderEmulator } from '../../src/providers/emulator/server.ts';
import type { ChargesCapability, PortCharge, ProviderContext } from '../../src/providers/port.ts';
import { createSafe2PayAdapter } from '../../src/providers/safe2pay/adapter.ts';
import { type EmulatorControl, emulatorControl } from '../support/emulator-control.ts';
import {
  assertSanitized,
  boletoCharge,
  pixCharge,
  saoPauloDate,
} from '../support/provider-contract/harness.ts';

// The Safe2Pay adapter's wire specifics over undici against the provider emulator on a real socket (issue 13);
// the contract its capabilities share with the simulator runs in provider-contract-*.test.ts.
// Keys are the emulator's: one per environment plus a marketplace matrix sandbox key (SPEC 2.8).
const KEYS = { sandbox: ['sbx-key'], production: ['prd-key'], matrixSandbox: ['matrix-sbx-key'] };

let emulator: ProviderEmulator;
let control: EmulatorControl;
let adapter: ChargesCapability;

beforeAll(async () => {
  emulator = await startProviderEmulator({ port: 0, host: '127.0.0.1', keys: KEYS });
  control = emulatorControl(emulator.url);
  adapter = createSafe2PayAdapter({ paymentHost: emulator.paymentUrl, apiHost: emulator.apiUrl }).charges;
});
afterAll(async () => {
  await emulator.close();
});

function ctx(
  environment: 'sandbox' | 'production' = 'production',
  extra: Partial<ProviderContext> = {},
): ProviderContext {
  return {
    environment,
    credentials: { api_key: environment === 'sandbox' ? 'sbx-key' : 'prd-key' },
    signal: AbortSignal.timeout(60_000),
    ...extra,
  };
}

async function create(charge: PortCharge, context: ProviderContext = ctx()) {
  return adapter.create(charge, adapter.buildRequest(charge, context), context, new Date());
}

async function issued(charge: PortCharge, context: ProviderContext = ctx()) {
  const outcome = await create(charge, context);
  if (outcome.kind !== 'issued') throw new Error(`expected issued: ${JSON.stringify(outcome)}`);
  return outcome;
}

function queryTarget(charge: PortCharge, providerReference: string, boletoDueDate: string | null = null) {
  return {
    transactionId: charge.transactionId,
    method: charge.method,
    amount: charge.amount,
    providerReference,
    boletoDueDate,
  };
}

describe('Safe2Pay wire specifics (wire doc 2.1-2.11)', () => {
  test('create sends exactly buildRequest’s body to the payment host; queries go to the API host', async () => {
    const charge = boletoCharge();
    const body = adapter.buildRequest(charge, ctx());
    const outcome = await adapter.create(charge, body, ctx(), new Date());
    assert.equal(outcome.kind, 'issued');
    if (outcome.kind !== 'issued') return;
    await adapter.query(queryTarget(charge, outcome.providerReference, outcome.boletoDueDate), ctx());
    const calls = await control.calls({ reference: charge.transactionId });
    assert.deepEqual(
      calls.map((c) => [c.host, c.method, c.operation]),
      [
        ['payment', 'POST', 'create'],
        ['api', 'GET', 'query'],
      ],
    );
    assert.deepEqual(calls[0]?.body, body);
    assert.equal(calls[0]?.environment, 'production');
  });

  test('X-API-KEY and IsSandbox follow the environment; a key of the other environment is refused', async () => {
    const charge = boletoCharge();
    const sandbox = await issued(charge, ctx('sandbox'));
    const calls = await control.calls({ reference: charge.transactionId });
    assert.equal(calls[0]?.environment, 'sandbox');
    assert.deepEqual(calls[0]?.body, adapter.buildRequest(charge, ctx('sandbox')));
    assert.equal(adapter.buildRequest(charge, ctx('sandbox'))?.IsSandbox, true);
    // The production key does not see the sandbox charge.
    const other = await adapter.query(
      queryTarget(charge, sandbox.providerReference, sandbox.boletoDueDate),
      ctx(),
    );
    assert.equal(other.kind, 'refused');
    // A sandbox body sent with the production key disagrees with the token (emulator code 9001).
    const mixed = await adapter.create(
      charge,
      adapter.buildRequest(charge, ctx('sandbox')),
      ctx('production'),
      new Date(),
    );
    assert.equal(mixed.kind === 'refused' && mixed.diagnostics.provider_error_code, '9001');
  });

  test('a subaccount token replaces the record key (SPEC 2.8); the matrix sandbox key gives code 301', async () => {
    const viaSubaccount = await create(
      pixCharge(),
      ctx('production', { credentials: {}, subaccountToken: 'prd-key' }),
    );
    assert.equal(viaSubaccount.kind, 'issued');
    const matrix = await create(
      boletoCharge(),
      ctx('sandbox', { credentials: { api_key: 'matrix-sbx-key' } }),
    );
    assert.equal(matrix.kind, 'refused');
    if (matrix.kind !== 'refused') return;
    assert.equal(matrix.diagnostics.provider_error_code, '301');
    assert.equal(matrix.diagnostics.provider_http_status, 200);
    assert.match(matrix.diagnostics.provider_error_message ?? '', /matriz/);
  });

  test('no credential for the environment: refused locally, nothing sent (SPEC 7 local block)', async () => {
    const charge = pixCharge();
    const outcome = await create(charge, ctx('production', { credentials: {} }));
    assert.equal(outcome.kind, 'refused');
    if (outcome.kind !== 'refused') return;
    assert.equal(outcome.reason, 'credentials_missing');
    assert.equal(outcome.diagnostics.provider_http_status, null);
    assert.equal((await control.calls({ reference: charge.transactionId })).length, 0);
  });

  test('an invalid key: HTTP 401, refused', async () => {
    const outcome = await create(pixCharge(), ctx('production', { credentials: { api_key: 'nope' } }));
    assert.equal(outcome.kind === 'refused' && outcome.reason, 'credentials_refused');
    assert.equal(outcome.kind === 'refused' && outcome.diagnostics.provider_http_status, 401);
  });

  test('amounts in answers: "12.5" and 12.5 read as 1250; "12.505" is never rounded (uncertain)', async () => {
    for (const [value, kind] of [
      ['12.5', 'issued'],
      [12.5, 'issued'],
      ['12.50', 'issued'],
      ['12.505', 'uncertain'],
      ['12,50', 'uncertain'],
    ] as const) {
      const charge = pixCharge(1250);
      const created = await issued(charge);
      await control.fault({
        operation: 'query',
        reference: charge.transactionId,
        fault: { type: 'override', field: 'Amount', value },
      });
      const outcome = await adapter.query(queryTarget(charge, created.providerReference), ctx());
      assert.equal(outcome.kind, kind, `Amount ${JSON.stringify(value)}`);
      if (outcome.kind === 'issued') assert.equal(outcome.charge.amount, 1250);
    }
  });

  test('both DueDate formats are accepted on input (dd/MM/yyyy from the emulator, yyyy-MM-dd injected)', async () => {
    const due = saoPauloDate(20);
    const charge = boletoCharge(5_000, due);
    await control.fault({
      operation: 'create',
      reference: charge.transactionId,
      fault: { type: 'override', field: 'DueDate', value: due },
    });
    const outcome = await issued(charge);
    assert.equal(outcome.boletoDueDate, due);
  });

  test('each provider call is logged per reference (tests count provider calls)', async () => {
    const charge = pixCharge();
    const created = await issued(charge);
    await adapter.query(queryTarget(charge, created.providerReference), ctx());
    await adapter.query(queryTarget(charge, created.providerReference), ctx());
    assert.equal((await control.calls({ reference: charge.transactionId })).length, 3);
    assert.equal((await control.calls({ reference: charge.transactionId, operation: 'query' })).length, 2);
  });
});

describe('every injectable fault maps to its outcome (SPEC 3.1, 4.2, 4.6)', () => {
  const createFaults: Array<[string, Fault, 'issued' | 'refused' | 'uncertain', string | null]> = [
    ['latency', { type: 'latency', ms: 50 }, 'issued', null],
    ['connection reset', { type: 'reset' }, 'uncertain', 'connection'],
    ['truncated body', { type: 'truncate' }, 'uncertain', 'incomplete'],
    ['unparsable body', { type: 'garbage' }, 'uncertain', 'unparsable'],
    ['500 without body', { type: 'http_error', status: 500 }, 'uncertain', 'server_error'],
    [
      '503 with envelope',
      { type: 'http_error', status: 503, body: '{"HasError":true,"ErrorCode":"503","Error":"x"}' },
      'uncertain',
      'server_error',
    ],
    [
      '502 with HTML',
      { type: 'http_error', status: 502, body: '<html>bad gateway</html>' },
      'uncertain',
      'server_error',
    ],
    [
      '400 with envelope',
      { type: 'http_error', status: 400, body: '{"HasError":true,"ErrorCode":"12","Error":"x"}' },
      'refused',
      'provider_error',
    ],
    ['400 without body', { type: 'http_error', status: 400 }, 'refused', 'provider_error'],
    ['429 without body', { type: 'http_error', status: 429 }, 'uncertain', 'unexpected_http_status'],
    ['302 redirect', { type: 'http_error', status: 302 }, 'uncertain', 'unexpected_http_status'],
    [
      'HasError on HTTP 200',
      { type: 'has_error', code: '1020', message: 'Dados inválidos' },
      'refused',
      'provider_error',
    ],
    [
      'HasError on HTTP 422',
      { type: 'has_error', code: '1020', message: 'x', httpStatus: 422 },
      'refused',
      'provider_error',
    ],
    ['status 8 with HasError false', { type: 'status', status: 8 }, 'refused', 'status_refused'],
    ['unknown status 99', { type: 'status', status: 99 }, 'uncertain', 'unknown_status'],
    ['status as text', { type: 'status', status: 'Pago' }, 'uncertain', 'unknown_status'],
    ['bad Pix CRC', { type: 'artifacts', field: 'pix' }, 'uncertain', 'invalid_artifacts'],
    [
      'no IdTransaction',
      { type: 'override', field: 'IdTransaction', value: null },
      'uncertain',
      'incomplete',
    ],
    ['no Pix Key', { type: 'override', field: 'Key', value: null }, 'uncertain', 'invalid_artifacts'],
  ];
  for (const [name, fault, kind, reason] of createFaults) {
    test(`Pix create, ${name} -> ${kind}`, async () => {
      const charge = pixCharge();
      await control.fault({ operation: 'create', reference: charge.transactionId, fault });
      const outcome = await create(charge);
      assert.equal(outcome.kind, kind, JSON.stringify(outcome));
      if (outcome.kind !== 'issued') {
        assert.equal(outcome.reason, reason);
        assertSanitized(outcome.diagnostics);
      }
      if (fault.type === 'status' && fault.status === 8 && outcome.kind === 'refused') {
        assert.match(outcome.providerReference ?? '', /^[0-9]+$/);
      }
    });
  }

  const boletoFaults: Array<[string, Fault, string]> = [
    ['http URL', { type: 'artifacts', field: 'url' }, 'invalid_artifacts'],
    ['line with a wrong check digit', { type: 'artifacts', field: 'line' }, 'invalid_artifacts'],
    ['43 digit barcode', { type: 'artifacts', field: 'barcode' }, 'invalid_artifacts'],
    ['another due date', { type: 'artifacts', field: 'due_date' }, 'mismatch'],
    ['bad boleto Pix CRC', { type: 'artifacts', field: 'pix' }, 'invalid_artifacts'],
  ];
  for (const [name, fault, reason] of boletoFaults) {
    test(`boleto create, ${name} -> uncertain ${reason} (SPEC 4.2 artifact checks)`, async () => {
      const charge = boletoCharge();
      await control.fault({ operation: 'create', reference: charge.transactionId, fault });
      const outcome = await create(charge);
      assert.equal(outcome.kind === 'uncertain' && outcome.reason, reason, JSON.stringify(outcome));
    });
  }

  const transportFaults: Fault[] = [
    { type: 'reset' },
    { type: 'truncate' },
    { type: 'garbage' },
    { type: 'http_error', status: 503 },
    { type: 'status', status: 10 },
  ];
  for (const fault of transportFaults) {
    test(`${fault.type}${fault.type === 'status' ? ' 10' : ''} on query, by reference, refund, due date and cancel -> uncertain`, async () => {
      const pix = pixCharge();
      const p = await issued(pix);
      const ref = pix.transactionId;
      await control.fault({ operation: 'query', reference: ref, fault });
      assert.equal((await adapter.query(queryTarget(pix, p.providerReference), ctx())).kind, 'uncertain');
      await control.fault({ operation: 'query_by_reference', reference: ref, fault });
      assert.equal((await adapter.queryByReference(ref, ctx())).kind, 'uncertain');
      if (fault.type !== 'status') {
        await control.move(p.providerReference, 'paid_pix');
        await control.fault({ operation: 'refund', reference: ref, fault });
        const refund = {
          transactionId: ref,
          method: 'pix' as const,
          providerReference: p.providerReference,
          paidWith: null,
          bankAccount: null,
        };
        assert.equal((await adapter.refund(refund, ctx())).kind, 'uncertain');
      }
      const boleto = boletoCharge();
      const b = await issued(boleto);
      await control.fault({ operation: 'change_due_date', reference: boleto.transactionId, fault });
      const change = {
        transactionId: boleto.transactionId,
        amount: boleto.amount,
        providerReference: b.providerReference,
        dueDate: saoPauloDate(30),
        boleto: boleto.boleto,
      };
      assert.equal((await adapter.changeDueDate(change, ctx())).kind, 'uncertain');
      if (fault.type !== 'status') {
        await control.fault({ operation: 'cancel', reference: boleto.transactionId, fault });
        const cancel = {
          transactionId: boleto.transactionId,
          method: 'boleto' as const,
          providerReference: b.providerReference,
        };
        assert.equal((await adapter.cancel(cancel, ctx())).kind, 'uncertain');
      }
    });
  }

  for (const field of ['amount', 'reference', 'id'] as const) {
    test(`a query that disagrees on ${field} is uncertain mismatch (SPEC 4.6)`, async () => {
      const charge = pixCharge();
      const created = await issued(charge);
      await control.fault({
        operation: 'query',
        reference: charge.transactionId,
        fault: { type: 'disagree', field },
      });
      const outcome = await adapter.query(queryTarget(charge, created.providerReference), ctx());
      assert.equal(outcome.kind === 'uncertain' && outcome.reason, 'mismatch', JSON.stringify(outcome));
    });
  }

  test('the boleto Pix arriving late: null at creation, present on a later query (SPEC 4.2)', async () => {
    const charge = boletoCharge();
    await control.fault({
      operation: 'create',
      reference: charge.transactionId,
      fault: { type: 'late_pix', queries: 2 },
    });
    const created = await issued(charge);
    assert.equal(created.artifacts.boleto_pix_copy_paste, null);
    assert.equal(created.artifacts.boleto_pix_expires_at, null);
    const target = queryTarget(charge, created.providerReference, created.boletoDueDate);
    const first = await adapter.query(target, ctx());
    assert.equal(first.kind === 'issued' && first.charge.artifacts?.boleto_pix_copy_paste, null);
    const second = await adapter.query(target, ctx());
    assert.equal(second.kind, 'issued');
    if (second.kind !== 'issued') return;
    assert.ok(isValidPixPayload(second.charge.artifacts?.boleto_pix_copy_paste ?? ''));
    const due = created.boletoDueDate ?? '';
    assert.equal(
      second.charge.artifacts?.boleto_pix_expires_at,
      new Date(`${due}T23:59:59-03:00`).toISOString(),
    );
  });

  test('no answer: the AbortSignal ends the call, uncertain timeout, and the charge is there by reference', async () => {
    const charge = pixCharge();
    await control.fault({
      operation: 'create',
      reference: charge.transactionId,
      fault: { type: 'no_answer' },
    });
    // The caller's deadline fires once the provider holds the request (no timing in the assertion).
    const deadline = new AbortController();
    const pending = create(charge, ctx('production', { signal: deadline.signal }));
    while ((await control.calls({ reference: charge.transactionId })).length === 0) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    deadline.abort(new DOMException('deadline', 'TimeoutError'));
    const outcome = await pending;
    assert.equal(outcome.kind === 'uncertain' && outcome.reason, 'timeout', JSON.stringify(outcome));
    const found = await adapter.queryByReference(charge.transactionId, ctx());
    assert.equal(found.kind === 'issued' && found.charges.length, 1);
  });

  test('AbortSignal.timeout on a provider that never answers: uncertain timeout', async () => {
    const charge = pixCharge();
    await control.fault({
      operation: 'query_by_reference',
      reference: charge.transactionId,
      fault: { type: 'no_answer' },
    });
    const outcome = await adapter.queryByReference(
      charge.transactionId,
      ctx('production', { signal: AbortSignal.timeout(500) }),
    );
    assert.equal(outcome.kind === 'uncertain' && outcome.reason, 'timeout', JSON.stringify(outcome));
  });

  test('an already aborted signal sends nothing and is uncertain', async () => {
    const charge = pixCharge();
    const aborted = new AbortController();
    aborted.abort();
    const outcome = await create(charge, ctx('production', { signal: aborted.signal }));
    assert.equal(outcome.kind, 'uncertain');
    assert.equal((await control.calls({ reference: charge.transactionId })).length, 0);
  });
});

describe('provider statuses and moves (wire doc 2.15 -> SPEC 3.1)', () => {
  const moves: Array<
    [
      'paid_boleto' | 'paid_pix' | 'paid_both' | 'processing' | 'written_off' | 'refunded' | 'refused',
      string,
      string | null,
    ]
  > = [
    ['paid_boleto', 'paid', 'boleto'],
    ['paid_pix', 'paid', 'pix'],
    ['paid_both', 'paid', 'boleto'],
    ['processing', 'processing', null],
    ['written_off', 'expired', null],
    ['refunded', 'refunded', null],
    ['refused', 'failed', null],
  ];
  for (const [move, status, paidWith] of moves) {
    test(`boleto moved ${move} reads ${status}${paidWith ? ` paid_with ${paidWith}` : ''}`, async () => {
      const charge = boletoCharge();
      const created = await issued(charge);
      await control.move(created.providerReference, move);
      const outcome = await adapter.query(
        queryTarget(charge, created.providerReference, created.boletoDueDate),
        ctx(),
      );
      assert.equal(outcome.kind, 'issued', JSON.stringify(outcome));
      if (outcome.kind !== 'issued') return;
      assert.equal(outcome.charge.status, status);
      assert.equal(outcome.charge.paidWith, paidWith);
    });
  }

  test('by reference, a boleto paid by its Pix still reads as a boleto paid with pix', async () => {
    const charge = boletoCharge();
    const created = await issued(charge);
    await control.move(created.providerReference, 'paid_pix');
    const outcome = await adapter.queryByReference(charge.transactionId, ctx());
    assert.equal(outcome.kind, 'issued', JSON.stringify(outcome));
    if (outcome.kind !== 'issued') return;
    assert.equal(outcome.charges[0]?.status, 'paid');
    assert.equal(outcome.charges[0]?.paidWith, 'pix');
    assert.equal(outcome.charges[0]?.boletoDueDate, created.boletoDueDate);
  });

  test('statuses without a safe meaning are uncertain, never pending or paid', async () => {
    for (const code of [0, 5, 9, 10, 11, 12, 13, 14, 99]) {
      const charge = boletoCharge();
      const created = await issued(charge);
      await control.move(created.providerReference, 'status', code);
      const outcome = await adapter.query(
        queryTarget(charge, created.providerReference, created.boletoDueDate),
        ctx(),
      );
      assert.equal(outcome.kind, 'uncertain', `status ${code}`);
      if (outcome.kind === 'uncertain') {
        assert.equal(outcome.reason, 'unknown_status');
        assert.equal(outcome.providerStatus, code);
      }
      const byReference = await adapter.queryByReference(charge.transactionId, ctx());
      assert.equal(byReference.kind, 'uncertain', `status ${code} by reference`);
    }
  });

  test('the sandbox status setter of the wire (UpdateSandboxTransaction) moves a sandbox charge', async () => {
    const charge = boletoCharge();
    const created = await issued(charge, ctx('sandbox'));
    const res = await fetch(
      `${emulator.apiUrl}/v2/Transaction/UpdateSandboxTransaction?idTransaction=${created.providerReference}&idTransactionStatus=2`,
      { method: 'PUT', headers: { 'X-API-KEY': 'sbx-key' } },
    );
    assert.equal(res.status, 200);
    const outcome = await adapter.query(
      queryTarget(charge, created.providerReference, created.boletoDueDate),
      ctx('sandbox'),
    );
    assert.equal(outcome.kind === 'issued' && outcome.charge.status, 'processing');
  });
});

describe('refunds of a boleto (SPEC 4.8, wire doc 2.11)', () => {
  test('paid by its Pix: refunded by Pix', async () => {
    const charge = boletoCharge();
    const created = await issued(charge);
    await control.move(created.providerReference, 'paid_pix');
    const outcome = await adapter.refund(
      {
        transactionId: charge.transactionId,
        method: 'boleto',
        providerReference: created.providerReference,
        paidWith: 'pix',
        bankAccount: null,
      },
      ctx(),
    );
    assert.deepEqual(outcome, { kind: 'issued', refundStatus: 'succeeded' });
  });

  test('SPEC 2.2 double payment: read as paid by boleto with duplicatePayment; the Pix refund returns only the Pix, once', async () => {
    const charge = boletoCharge();
    const created = await issued(charge);
    await control.move(created.providerReference, 'paid_both');
    const target = queryTarget(charge, created.providerReference, created.boletoDueDate);
    const read = await adapter.query(target, ctx());
    assert.equal(read.kind, 'issued', JSON.stringify(read));
    if (read.kind !== 'issued') return;
    assert.deepEqual(
      [read.charge.status, read.charge.paidWith, read.charge.duplicatePayment],
      ['paid', 'boleto', true],
    );
    const pixOfBoleto = {
      transactionId: charge.transactionId,
      method: 'boleto' as const,
      providerReference: created.providerReference,
      paidWith: 'pix' as const,
      bankAccount: null,
    };
    assert.deepEqual(await adapter.refund(pixOfBoleto, ctx()), { kind: 'issued', refundStatus: 'succeeded' });
    const after = await adapter.query(target, ctx());
    assert.ok(after.kind === 'issued');
    assert.deepEqual(
      [after.charge.status, after.charge.paidWith, after.charge.duplicatePayment],
      ['paid', 'boleto', false],
    );
    // Nothing left to return: the provider refuses a second refund.
    assert.equal((await adapter.refund(pixOfBoleto, ctx())).kind, 'refused');
  });

  test('a boleto paid once (by boleto or by its Pix) is no double payment', async () => {
    for (const move of ['paid_boleto', 'paid_pix'] as const) {
      const charge = boletoCharge();
      const created = await issued(charge);
      await control.move(created.providerReference, move);
      const read = await adapter.query(
        queryTarget(charge, created.providerReference, created.boletoDueDate),
        ctx(),
      );
      assert.equal(read.kind === 'issued' && read.charge.duplicatePayment, false, move);
    }
  });

  test('paid by boleto: the provider API has no bank-transfer refund, refused locally and nothing sent', async () => {
    const charge = boletoCharge();
    const created = await issued(charge);
    await control.move(created.providerReference, 'paid_boleto');
    const before = (await control.calls({ reference: charge.transactionId })).length;
    const outcome = await adapter.refund(
      {
        transactionId: charge.transactionId,
        method: 'boleto',
        providerReference: created.providerReference,
        paidWith: 'boleto',
        bankAccount: { bank: '001', agency: '1234', account: '56789-0' },
      },
      ctx(),
    );
    assert.equal(outcome.kind === 'refused' && outcome.reason, 'not_supported');
    assert.equal(outcome.kind === 'refused' && outcome.diagnostics.provider_http_status, null);
    assert.equal((await control.calls({ reference: charge.transactionId })).length, before);
  });

  test('an open Pix cannot be refunded (the provider refuses)', async () => {
    const charge = pixCharge();
    const created = await issued(charge);
    await control.move(created.providerReference, 'processing');
    const outcome = await adapter.refund(
      {
        transactionId: charge.transactionId,
        method: 'pix',
        providerReference: created.providerReference,
        paidWith: null,
        bankAccount: null,
      },
      ctx(),
    );
    assert.equal(outcome.kind, 'refused');
  });
});

describe('diagnostics never carry the raw provider text (SPEC 2.2 rule 3)', () => {
  const raw = 'Cliente Maria CPF 123.456.789-09 (12345678909) e-mail maria.silva@example.com recusado';
  const leaks = ['123.456.789-09', '12345678909', 'maria.silva@example.com', 'Maria', 'recusado'];
  const faults: Array<[string, Fault]> = [
    ['HasError on 200', { type: 'has_error', code: '4001', message: raw }],
    ['HasError on 400', { type: 'has_error', code: '4001', message: raw, httpStatus: 400 }],
    [
      '500 with envelope',
      {
        type: 'http_error',
        status: 500,
        body: JSON.stringify({ HasError: true, ErrorCode: raw, Error: raw }),
      },
    ],
    ['ErrorCode with text', { type: 'has_error', code: raw, message: raw }],
    ['Message beside a refused status', { type: 'override', field: 'Message', value: raw }],
  ];
  for (const [name, fault] of faults) {
    test(name, async () => {
      const charge = pixCharge();
      await control.fault({ operation: 'create', reference: charge.transactionId, fault });
      const outcome = await create(charge);
      const text = JSON.stringify(outcome);
      for (const leak of leaks) assert.ok(!text.includes(leak), `${leak} leaked in ${text}`);
      if (outcome.kind !== 'issued') assertSanitized(outcome.diagnostics);
    });
  }
});
