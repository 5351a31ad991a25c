import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { beforeAll, describe, test } from 'vitest';
import { SCOPES } from '../../src/aggregates/access.ts';
import { issueApiKey } from '../../src/commands/api-keys/issue/handler.ts';
import { boletoBody, pixBody } from '../support/charges.ts';
import { useExternalProviderWorld } from '../support/external-provider.ts';
import { commandDeps, seedTenantAndKey } from '../support/fixtures.ts';
import type { TestResponse } from '../support/http.ts';

/**
 * Issue 23 item 1.6: what the external provider refuses and the gateway can see before the call is refused
 * before reservation in both modes (SPEC 1: a test key gets the same validation), with 422 validation_error
 * naming the field (SPEC 4.1, 4.2, 7), nothing stored. The provider here is the emulator on a real socket,
 * which refuses a payer without CPF/CNPJ (`Customer.Identity`, wire doc 2.4) with its code 9002. Known
 * provider refusal codes read as static guidance naming what to fix, never the provider's text (SPEC 2.2).
 */

// ENABLE_SIMULATOR: the simulator's global rules, for a tenant without a rule of its own (the README's).
const world = useExternalProviderWorld({ ENABLE_SIMULATOR: 'true' });
let sandboxTestKey: string;

beforeAll(async () => {
  // A test key of the tenant routed to the external sandbox (the world has one for the production tenant).
  ({ key: sandboxTestKey } = await issueApiKey(
    commandDeps(world.app.gateway.ctx),
    {
      tenantId: world.sandbox.tenantId,
      livemode: false,
      name: 'sandbox test key',
      scopes: SCOPES,
      accessProfile: 'standard',
      createdBy: 'system:test',
    },
    { actor: 'system:test', request_id: 'req_test' },
  ));
});

type Method = 'pix' | 'boleto';

function bodyOf(method: Method, withDocument: boolean): Record<string, unknown> {
  const body =
    method === 'pix' ? pixBody({ reference: 'no-document' }) : boletoBody({}, { reference: 'no-document' });
  const { document: _document, ...customer } = body.customer as Record<string, unknown>;
  return withDocument ? body : { ...body, customer };
}

function send(method: Method, key: string, idempotencyKey: string, json: unknown): Promise<TestResponse> {
  return world.app.request('POST', `/v1/${method}`, {
    headers: { 'x-api-key': key, 'idempotency-key': idempotencyKey },
    json,
  });
}

const eventCount = async () =>
  Number((await sql<{ n: string }>`select count(*) as n from events`.execute(world.app.db.db)).rows[0]?.n);

const CASES = [
  {
    name: 'boleto at the production provider',
    method: 'boleto' as const,
    live: () => world.production.key,
    test: () => world.productionTestKey,
  },
  {
    name: 'Pix at the production provider',
    method: 'pix' as const,
    live: () => world.production.key,
    test: () => world.productionTestKey,
  },
  {
    name: 'boleto at the sandbox provider',
    method: 'boleto' as const,
    live: () => world.sandbox.key,
    test: () => sandboxTestKey,
  },
];

describe.each(CASES)('issue 23 item 1.6, SPEC 1: the same validation in both modes: $name', (c) => {
  test('a payer without customer.document: the same 422 validation_error naming the field for the live and the test key; nothing stored, nothing sent', async () => {
    const idempotencyKey = `no-doc-${randomUUID()}`;
    const before = await eventCount();
    const live = await send(c.method, c.live(), idempotencyKey, bodyOf(c.method, false));
    const test_ = await send(c.method, c.test(), idempotencyKey, bodyOf(c.method, false));
    for (const res of [live, test_]) {
      assert.equal(res.status, 422, res.text);
      assert.equal(res.body.error.code, 'validation_error');
      assert.equal(res.body.error.param, 'customer.document');
      assert.match(res.body.error.message, /^customer\.document is required/);
      assert.match(res.body.error.message, /CPF/);
      assert.match(res.body.error.message, /CNPJ/);
      // Before reservation: no transaction id and no provider diagnostics (SPEC 7).
      assert.equal(res.body.error.transaction_id, undefined);
      assert.equal(res.body.error.provider_error_code, undefined);
    }
    assert.deepEqual(live.body.error.message, test_.body.error.message);
    assert.equal(await eventCount(), before, 'no event, no idempotency claim');
    assert.deepEqual(await world.control.calls({ operation: 'create' }), [], 'nothing reached the provider');

    // No claim was taken: the same Idempotency-Key with the complete body is a new charge in both modes.
    const liveOk = await send(c.method, c.live(), idempotencyKey, bodyOf(c.method, true));
    assert.equal(liveOk.status, 201, liveOk.text);
    assert.equal(liveOk.body.data.simulated, false);
    const testOk = await send(c.method, c.test(), idempotencyKey, bodyOf(c.method, true));
    assert.equal(testOk.status, 201, testOk.text);
    assert.equal(testOk.body.data.simulated, true);
    assert.equal(testOk.body.data.livemode, false);
  });
});

describe('issue 23 item 1.6: the rule follows the provider the charge is routed to', () => {
  test('a test key routed to the simulator still creates a Pix without customer.document (SPEC 4.1: optional; the README walkthrough)', async () => {
    const { key } = await seedTenantAndKey(world.app.gateway.ctx);
    const res = await send('pix', key, randomUUID(), bodyOf('pix', false));
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.data.simulated, true);
  });
});

describe('issue 23 item 1.6, SPEC 2.2: known provider refusal codes read as static guidance naming what to fix', () => {
  /** A text with personal data, as a provider may write it: it must never reach the answer. */
  const RAW = 'Pagador Maria CPF 123.456.789-09 recusado';

  for (const [code, names] of [
    ['1273', /MerchantSplit/],
    ['301', /credentials\.api_key/],
    ['300', /credentials\.api_key/],
  ] as const) {
    test(`code ${code}: 502 provider_rejected whose provider_error_message names ${names.source}`, async () => {
      await world.control.fault({
        operation: 'create',
        times: 1,
        fault: { type: 'has_error', code, message: RAW },
      });
      const res = await send('boleto', world.production.key, randomUUID(), bodyOf('boleto', true));
      assert.equal(res.status, 502, res.text);
      assert.equal(res.body.error.code, 'provider_rejected');
      assert.equal(res.body.error.provider_error_code, code);
      assert.match(res.body.error.provider_error_message, names);
      assert.ok(res.body.error.provider_error_message.length <= 400);
      assert.ok(!res.text.includes('123.456.789-09'), 'the provider text never reaches the answer');
    });
  }

  test("the emulator's own code 9002 is not read as a Safe2Pay code: the generic refusal guidance, no emulator text", async () => {
    await world.control.fault({
      operation: 'create',
      times: 1,
      fault: { type: 'has_error', code: '9002', message: RAW },
    });
    const res = await send('boleto', world.production.key, randomUUID(), bodyOf('boleto', true));
    assert.equal(res.status, 502, res.text);
    assert.equal(res.body.error.provider_error_code, '9002');
    assert.match(res.body.error.provider_error_message, /see the provider code/);
    assert.ok(!res.text.includes('123.456.789-09'));
  });
});
