import assert from 'node:assert/strict';
import { describe, test } from 'vitest';
import { type TransactionView, transactionView } from '../../src/commands/transactions/view.ts';
import { dataEnvelope, errorEnvelope, listEnvelope } from '../../src/contract/envelopes.ts';
import { compiledSerializer, compiledSuccessSerializer } from '../../src/http/compiled-serializer.ts';

// Issue 14 (B3): the list routes' compiled serializer writes exactly the SPEC 2.2 Transaction fields the
// zod schema declares, as the zod serializer did, without a zod pass per field.

const serialize = compiledSerializer({
  schema: listEnvelope(transactionView),
  method: 'GET',
  url: '/v1/transactions',
  httpStatus: '200',
}) as (data: unknown) => string;

const charge: TransactionView = {
  id: 'txn_01',
  tenant_id: 'ten_01',
  amount: 1050,
  retained_amount: 0,
  currency: 'BRL',
  status: 'pending',
  method: 'boleto',
  reference: 'pedido "42"\n',
  description: 'Camiseta – azul \\ P',
  simulated: false,
  environment: 'production',
  livemode: true,
  pix_copy_paste: null,
  pix_qr_code: null,
  expires_at: null,
  provider_reference: 'ref',
  subaccount_id: null,
  failure_code: null,
  provider_error_code: null,
  provider_error_message: null,
  provider_http_status: null,
  boleto_due_date: '2026-12-01',
  boleto_url: 'https://pay.example/cobranca/txn_01/sig/boleto.pdf',
  document_url: 'https://pay.example/cobranca/txn_01/sig',
  boleto_digitable_line: '3419',
  boleto_barcode: '3419',
  boleto_pix_copy_paste: null,
  boleto_pix_expires_at: null,
  paid_with: null,
  paid_at: null,
  duplicate_payment_at: null,
  split: null,
  tenant_fee_id: null,
  fee_starts_on: null,
  cost_center_id: 'cc_01',
  cost_center_name: 'Loja',
  callback_url: null,
  refund: { status: 'pending' },
  credit_card: null,
  pix_automatic_authorization_id: null,
  scheduled_due_date: null,
  created_at: '2026-11-21T17:00:00.000Z',
  updated_at: '2026-11-21T17:00:01.000Z',
};

describe('compiled response serializer (issue 14)', () => {
  test('a page serializes to the same JSON as JSON.stringify, escapes included', () => {
    const page = {
      data: [charge, { ...charge, id: 'txn_02', refund: null }],
      meta: { limit: 2, offset: 0, count: 2 },
    };
    assert.equal(serialize(page), JSON.stringify(page));
    assert.deepEqual(JSON.parse(serialize(page)), page);
  });

  test('undeclared fields never leave: dropped from the envelope and items, refused inside a nullable object', () => {
    const leaky = {
      data: [{ ...charge, document_signature: 'secret' }],
      meta: { limit: 1, offset: 0, count: 1, total: 9 },
      debug: true,
    };
    const out = JSON.parse(serialize(leaky));
    assert.deepEqual(out, { data: [charge], meta: { limit: 1, offset: 0, count: 1 } });
    // A nullable object is matched against its branches (`anyOf`): an extra field matches none, so the
    // answer fails (a 500) instead of leaking it.
    const nested = { ...charge, refund: { status: 'pending', internal: 1 } };
    assert.throws(() => serialize({ data: [nested], meta: { limit: 1, offset: 0, count: 1 } }));
  });

  test('a missing required field is an error, not a silent omission', () => {
    const { id: _id, ...withoutId } = charge;
    assert.throws(() => serialize({ data: [withoutId], meta: { limit: 1, offset: 0, count: 1 } }));
  });

  test('the creation answer (SPEC 4.1 201 `{ data: Transaction }`) serializes to the JSON of the view', () => {
    const created = compiledSuccessSerializer({
      schema: dataEnvelope(transactionView),
      method: 'POST',
      url: '/v1/pix',
      httpStatus: '201',
    }) as (data: unknown) => string;
    const answer = { data: { ...charge, method: 'pix', boleto_due_date: null } };
    assert.equal(created(answer), JSON.stringify(answer));
    assert.deepEqual(JSON.parse(created({ ...answer, extra: 1 })), answer);
  });

  test('an error status of the creation routes keeps the checking zod serializer (SPEC 7 envelope)', () => {
    const failed = compiledSuccessSerializer({
      schema: errorEnvelope,
      method: 'POST',
      url: '/v1/pix',
      httpStatus: '502',
    }) as (data: unknown) => string;
    const envelope = { error: { code: 'provider_rejected', message: 'refused', request_id: 'req_1' } };
    assert.deepEqual(JSON.parse(failed(envelope)), envelope);
    // An undeclared error code is refused at runtime, as zod's serializer does and a compiled one would not.
    assert.throws(() => failed({ error: { code: 'no_such_code', message: 'x', request_id: 'r' } }));
  });
});
