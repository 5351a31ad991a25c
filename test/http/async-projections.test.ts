import assert from 'node:assert/strict';
import { afterAll, beforeAll, describe, test } from 'vitest';
import { createCostCenter } from '../../src/commands/cost-centers/create/handler.ts';
import { boletoBody, pixBody } from '../support/charges.ts';
import { commandDeps, type SeededKey, seedTenantAndKey } from '../support/fixtures.ts';
import { startTestApp, type TestApp } from '../support/http.ts';

/**
 * Issue 12 item 3, DESIGN.md "A command answers from its own fold": with PROJECTIONS=async (every projection
 * by catch-up, as under EventStoreDB) a command's answer and a read by id never depend on a read model. The
 * runner is stopped here, so the read models stay behind until the test settles them: an answer built from
 * a read model would be a 500 or a 404, never a race that happens to pass.
 */

let app: TestApp;
let key: SeededKey;
let n = 0;
const headers = (idem?: string) => ({ 'x-api-key': key.key, ...(idem ? { 'idempotency-key': idem } : {}) });

async function projectedRow(id: string) {
  return app.gateway.ctx.db.selectFrom('transactions').select('id').where('id', '=', id).executeTakeFirst();
}

beforeAll(async () => {
  app = await startTestApp({ PROJECTIONS: 'async', ENABLE_SIMULATOR: 'true' });
  await app.gateway.runner.stop();
  // Authentication catches the identity read models up itself (docs/decisions.md, issue 12).
  key = await seedTenantAndKey(app.gateway.ctx, { livemode: false });
});
afterAll(() => app.close());

describe('PROJECTIONS=async: commands answer from the fold (issue 12 item 3)', () => {
  test('POST /v1/pix is 201 with the charge, its replay 200, and GET by id 200 before any projection ran', async () => {
    const idem = `async-pix-${++n}`;
    const created = await app.request('POST', '/v1/pix', { headers: headers(idem), json: pixBody() });
    assert.equal(created.status, 201, created.text);
    const t = created.body.data;
    assert.match(t.id, /^txn_/);
    assert.equal(t.status, 'pending');
    assert.equal(t.amount, 1250);
    assert.equal(t.livemode, false);
    assert.equal(t.simulated, true);
    assert.equal(await projectedRow(t.id), undefined, 'the transactions read model is still behind');

    const replay = await app.request('POST', '/v1/pix', { headers: headers(idem), json: pixBody() });
    assert.equal(replay.status, 200, replay.text);
    assert.equal(replay.headers.get('idempotency-replayed'), 'true');
    assert.deepEqual(replay.body.data, t);

    const got = await app.request('GET', `/v1/transactions/${t.id}`, { headers: headers() });
    assert.equal(got.status, 200, got.text);
    assert.deepEqual(got.body.data, t);
    const snapshot = await app.request('GET', `/v1/transactions/${t.id}/request`, { headers: headers() });
    assert.equal(snapshot.status, 200, snapshot.text);
    assert.equal(snapshot.body.data.source, 'captured');
    assert.equal(snapshot.body.data.request.amount, 1250);
    assert.equal(snapshot.body.data.request.expires_in, 3600);

    // Once settled, the list (a read model, eventually consistent) shows the same record.
    await app.settle();
    const list = await app.request('GET', '/v1/transactions?limit=100', { headers: headers() });
    assert.equal(list.status, 200, list.text);
    assert.deepEqual(
      list.body.data.find((x: { id: string }) => x.id === t.id),
      t,
    );
  });

  test('boleto with a cost center, simulate and refund answer from the stream', async () => {
    const { record: center } = await createCostCenter(
      commandDeps(app.gateway.ctx),
      { tenantId: key.tenantId, name: 'Vendas', idempotencyKey: `cc-${++n}`, route: '/v1/cost-centers' },
      { actor: 'system:test', request_id: 'req_test' },
    );
    const boleto = await app.request('POST', '/v1/boleto', {
      headers: headers(`async-boleto-${++n}`),
      json: boletoBody({}, { cost_center_id: center.id }),
    });
    assert.equal(boleto.status, 201, boleto.text);
    assert.equal(boleto.body.data.cost_center_id, center.id);
    assert.equal(boleto.body.data.cost_center_name, 'Vendas', 'named from the center stream');

    const pix = await app.request('POST', '/v1/pix', {
      headers: headers(`async-pix-${++n}`),
      json: pixBody(),
    });
    assert.equal(pix.status, 201, pix.text);
    const id = pix.body.data.id;
    const paid = await app.request('POST', `/v1/transactions/${id}/simulate`, {
      headers: headers(),
      json: { status: 'paid' },
    });
    assert.equal(paid.status, 200, paid.text);
    assert.equal(paid.body.data.status, 'paid');
    assert.equal(paid.body.data.paid_with, 'pix');

    const refunded = await app.request('POST', `/v1/transactions/${id}/refund`, {
      headers: headers(`async-refund-${++n}`),
    });
    assert.equal(refunded.status, 200, refunded.text);
    assert.equal(refunded.body.data.status, 'refunded');
    assert.deepEqual(refunded.body.data.refund, { status: 'succeeded' });
    assert.equal(await projectedRow(id), undefined, 'the transactions read model is still behind');
  });
});
