import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, test } from 'vitest';
import type { Gateway } from '../../src/app.ts';
import type { Fault } from '../../src/providers/emulator/faults.ts';
import { assertError } from '../support/admin.ts';
import { boletoBody, pixBody } from '../support/charges.ts';
import { externalCharges } from '../support/external-charges.ts';
import {
  CHARGE_CASES,
  type ChargeCase,
  chargeRequest,
  keyOf,
  PROVIDER_TIMEOUT_MS,
  transactionIdOf,
  useExternalProviderWorld,
} from '../support/external-provider.ts';
import { seedTenantAndKey } from '../support/fixtures.ts';
import { startTestApp, type TestApp, type TestResponse } from '../support/http.ts';
import { decorateProviders, withCharges } from '../support/provider-registry.ts';

/**
 * Issue 13 "Done when": the rows of SPEC 3.1 that involve a provider and had no test through HTTP against the
 * provider emulator (docs/spec-3.1-coverage.md maps every row to its test). Creation outcomes (SPEC 3.1, 4.1,
 * 4.2, 7), refresh outcomes per remote status (3.1, 4.6), expiry rules (3.1 "Other rules"), the modes of
 * SPEC 1 and the production controls of SPEC 5.8, including the scope that blocks financial queries to
 * another provider. Expected values come from the SPEC.
 */

const world = useExternalProviderWorld();
const h = externalCharges(world);

const [PIX, BOLETO, BOLETO_SANDBOX] = CHARGE_CASES as [ChargeCase, ChargeCase, ChargeCase];

/**
 * Another gateway process on the world's database and provider records (a restart with another
 * configuration, SPEC 5.8: the scope is server configuration read at start). `clockAheadMs` runs its clock
 * ahead, as the same server would read the charges that much later.
 */
async function anotherProcess(
  env: Record<string, string>,
  clockAheadMs = 0,
  setup?: (gw: Gateway) => void,
): Promise<TestApp> {
  const key = world.app.gateway.config.CREDENTIALS_ENCRYPTION_KEY;
  assert.ok(key);
  return startTestApp(
    {
      CREDENTIALS_ENCRYPTION_KEY: String(key),
      PROVIDER_TIMEOUT_MS: String(PROVIDER_TIMEOUT_MS),
      ...env,
    },
    (gw) => {
      if (clockAheadMs !== 0) gw.ctx.now = () => new Date(Date.now() + clockAheadMs);
      setup?.(gw);
    },
    world.app.db,
  );
}

function refreshOn(app: TestApp, key: string, id: string): Promise<TestResponse> {
  return app.request('POST', `/v1/transactions/${id}/refresh`, { headers: { 'x-api-key': key } });
}

/** SPEC 3.1, 7: the unknown answer of a creation: 202, no payable artifact, the stored body was sent once. */
function assertUnknown(res: TestResponse): void {
  assert.equal(res.status, 202, res.text);
  const data = res.body.data;
  assert.equal(data.status, 'unknown');
  for (const field of [
    'pix_copy_paste',
    'pix_qr_code',
    'boleto_url',
    'boleto_digitable_line',
    'boleto_barcode',
    'boleto_pix_copy_paste',
  ]) {
    assert.equal(data[field], null, field);
  }
}

describe('SPEC 3.1 creation outcomes at the external provider (issue 13 item 6)', () => {
  test.each(CHARGE_CASES)(
    '$name: error flag false but status 8 (refused) is a confirmed refusal: 502 provider_rejected with error.transaction_id and the direct diagnostics; failed kept; replay 200',
    async (c) => {
      await world.control.fault({ operation: 'create', fault: { type: 'status', status: 8 } });
      const { send } = chargeRequest(world, c);
      const res = await send();
      assertError(res, 502, 'provider_rejected');
      const id = transactionIdOf(res);
      const error = res.body.error;
      assert.equal(error.transaction_id, id);
      // SPEC 7: the diagnostic fields sit directly in `error` (no metadata object); HTTP 200 on a refusal.
      for (const field of ['provider_error_code', 'provider_error_message', 'provider_http_status']) {
        assert.ok(field in error, field);
      }
      assert.equal('metadata' in error, false);
      assert.equal(error.provider_http_status, 200);
      const data = await h.read(c, id);
      assert.equal(data.status, 'failed');
      assert.equal(data.failure_code, 'provider_rejected');
      assert.equal(data.provider_http_status, 200);
      assert.equal(data.pix_copy_paste, null);
      assert.equal(data.boleto_digitable_line, null);
      const replay = await send();
      assert.equal(replay.status, 200, replay.text);
      assert.equal(replay.headers.get('idempotency-replayed'), 'true');
      assert.equal(replay.body.data.status, 'failed');
      assert.equal(await h.calls(id, 'create'), 1);
    },
  );

  const incomplete: Array<{ name: string; c: ChargeCase; fault: Fault }> = [
    { name: 'an HTML body on HTTP 200', c: PIX, fault: { type: 'garbage' } },
    { name: 'a body cut in half', c: BOLETO, fault: { type: 'truncate' } },
    {
      name: 'no IdTransaction',
      c: BOLETO_SANDBOX,
      fault: { type: 'override', field: 'IdTransaction', value: null },
    },
    { name: 'an unrecognized status (99)', c: PIX, fault: { type: 'status', status: 99 } },
    { name: 'a status that is text', c: BOLETO, fault: { type: 'status', status: 'Pago' } },
    { name: 'a Pix BR Code with a wrong CRC', c: PIX, fault: { type: 'artifacts', field: 'pix' } },
    { name: 'an http boleto URL', c: BOLETO, fault: { type: 'artifacts', field: 'url' } },
    { name: 'a line with a wrong check digit', c: BOLETO, fault: { type: 'artifacts', field: 'line' } },
    { name: 'a 43-digit barcode', c: BOLETO_SANDBOX, fault: { type: 'artifacts', field: 'barcode' } },
    { name: 'another due date', c: BOLETO, fault: { type: 'artifacts', field: 'due_date' } },
    { name: "the boleto's Pix with a wrong CRC", c: BOLETO, fault: { type: 'artifacts', field: 'pix' } },
  ];
  test.each(incomplete)(
    'incomplete or unreliable answer ($name, $c.name): 202 unknown, nothing payable shown; replay 200 without a call',
    async ({ c, fault }) => {
      await world.control.fault({ operation: 'create', fault });
      const { send } = chargeRequest(world, c);
      const res = await send();
      assertUnknown(res);
      const id = transactionIdOf(res);
      // SPEC 3.1 "unknown": never failed (no confirmed refusal), never charged again automatically.
      const replay = await send();
      assert.equal(replay.status, 200, replay.text);
      assert.equal(replay.body.data.status, 'unknown');
      assert.equal(await h.calls(id, 'create'), 1);
    },
  );

  test('while the provider has not answered: the reservation is committed before the call (processing, provider_request stored, nothing sent yet), a replay is 202 processing, then 201 pending and 200', async () => {
    // A second process whose provider calls wait at a gate, so "not answered yet" lasts as long as the test needs.
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let calling: (id: string) => void = () => {};
    const called = new Promise<string>((resolve) => {
      calling = resolve;
    });
    const gated = await anotherProcess({ PROVIDER_TIMEOUT_MS: '60000' }, 0, (gw) => {
      decorateProviders(gw.ctx, (adapter) =>
        withCharges(adapter, {
          async create(charge, body, context, now) {
            calling(charge.transactionId);
            await gate;
            return adapter.charges.create(charge, body, context, now);
          },
        }),
      );
    });
    try {
      const key = world.sandbox.key;
      const idempotencyKey = randomUUID();
      const body = boletoBody({}, { reference: `order-${randomUUID()}` });
      const send = () =>
        gated.request('POST', '/v1/boleto', {
          headers: { 'x-api-key': key, 'idempotency-key': idempotencyKey },
          json: body,
        });
      const first = send();
      const id = await called;
      const during = await gated.request('GET', `/v1/transactions/${id}`, { headers: { 'x-api-key': key } });
      assert.equal(during.status, 200, during.text);
      assert.equal(during.body.data.status, 'processing');
      const snapshot = await gated.request('GET', `/v1/transactions/${id}/request`, {
        headers: { 'x-api-key': key },
      });
      assert.equal(snapshot.body.data.source, 'captured');
      assert.equal(snapshot.body.data.provider_request.Reference, id);
      assert.deepEqual(await world.control.calls(), [], 'reserved and committed before any external call');
      const replay = await send();
      assert.equal(replay.status, 202, replay.text);
      assert.equal(replay.body.data.id, id);
      assert.equal(replay.body.data.status, 'processing');

      release();
      const res = await first;
      assert.equal(res.status, 201, res.text);
      assert.equal(res.body.data.status, 'pending');
      const [call] = await world.control.calls({ reference: id, operation: 'create' });
      assert.deepEqual(call?.body, snapshot.body.data.provider_request, 'the stored body is the one sent');
      const after = await send();
      assert.equal(after.status, 200, after.text);
      assert.equal(after.headers.get('idempotency-replayed'), 'true');
      assert.equal(after.body.data.status, 'pending');
      assert.equal(await h.calls(id, 'create'), 1, 'one provider call in all');
    } finally {
      release();
      await gated.close();
    }
  });
});

describe('SPEC 3.1 refresh outcomes per remote status (SPEC 4.6)', () => {
  test('unknown WITH provider_reference (unrecognized status at creation): a refresh reads it by id and confirms pending with the artifacts; never looked up by reference', async () => {
    const { res, id } = await h.create(PIX, { fault: { type: 'status', status: 99 } });
    assertUnknown(res);
    const [remote] = await h.remote(id);
    assert.ok(remote);
    assert.equal(res.body.data.provider_reference, String(remote.id));
    const refreshed = await h.refresh(PIX, id);
    assert.equal(refreshed.status, 200, refreshed.text);
    assert.equal(refreshed.body.data.status, 'pending');
    assert.equal(typeof refreshed.body.data.pix_copy_paste, 'string');
    assert.equal(await h.calls(id, 'query'), 1);
    assert.equal(await h.calls(id, 'query_by_reference'), 0);
    assert.equal(await h.calls(id, 'create'), 1);
  });

  test('unknown with provider_reference, paid at the provider: 200 paid', async () => {
    const { res, id } = await h.create(BOLETO, { fault: { type: 'status', status: 99 } });
    assertUnknown(res);
    await world.control.move(res.body.data.provider_reference, 'paid_boleto');
    const refreshed = await h.refresh(BOLETO, id);
    assert.equal(refreshed.status, 200, refreshed.text);
    assert.equal(refreshed.body.data.status, 'paid');
    assert.equal(refreshed.body.data.paid_with, 'boleto');
  });

  test('paid, then the provider reports the refund (status 6): refresh gives refunded; a later pending or paid read is 409 provider_status_conflict', async () => {
    const { id, providerReference } = await h.pending(PIX);
    await world.control.move(providerReference, 'paid_pix');
    assert.equal((await h.refresh(PIX, id)).body.data.status, 'paid');
    await world.control.move(providerReference, 'refunded');
    const refunded = await h.refresh(PIX, id);
    assert.equal(refunded.status, 200, refunded.text);
    assert.equal(refunded.body.data.status, 'refunded');
    assert.equal(await h.calls(id, 'refund'), 0, 'read, not sent');
    for (const move of ['paid_pix', 'pending'] as const) {
      await world.control.move(providerReference, move);
      assertError(await h.refresh(PIX, id), 409, 'provider_status_conflict');
      assert.equal((await h.read(PIX, id)).status, 'refunded');
    }
  });

  test('a pending (not paid) charge the provider reports refunded is never moved: 409 provider_status_conflict ("only move allowed from paid")', async () => {
    const { id, providerReference } = await h.pending(BOLETO);
    await world.control.move(providerReference, 'refunded');
    assertError(await h.refresh(BOLETO, id), 409, 'provider_status_conflict');
    assert.equal((await h.read(BOLETO, id)).status, 'pending');
  });

  test('a real boleto is expired only by the write-off the bank reports (status 7); expired is never reopened (409 provider_status_conflict)', async () => {
    const { id, providerReference } = await h.pending(BOLETO);
    await world.control.move(providerReference, 'written_off');
    const expired = await h.refresh(BOLETO, id);
    assert.equal(expired.status, 200, expired.text);
    assert.equal(expired.body.data.status, 'expired');
    for (const move of ['paid_boleto', 'pending'] as const) {
      await world.control.move(providerReference, move);
      const res = await h.refresh(BOLETO, id);
      assertError(res, 409, 'provider_status_conflict');
      assert.equal((await h.read(BOLETO, id)).status, 'expired');
    }
  });

  test('failed is never reopened: a refused charge the provider later reports pending or paid is 409 provider_status_conflict, still failed', async () => {
    const { res, id } = await h.create(BOLETO, { fault: { type: 'status', status: 8 } });
    assertError(res, 502, 'provider_rejected');
    const [remote] = await h.remote(id);
    assert.ok(remote);
    for (const move of ['pending', 'paid_boleto'] as const) {
      await world.control.move(String(remote.id), move);
      const refreshed = await h.refresh(BOLETO, id);
      // With or without a stored external id, never reopened: a 409 and the state kept.
      assert.equal(refreshed.status, 409, refreshed.text);
      assert.ok(['provider_status_conflict', 'reconciliation_required'].includes(refreshed.body.error.code));
      assert.equal((await h.read(BOLETO, id)).status, 'failed');
    }
  });

  const unrecognized: Array<{ name: string; status: number | string }> = [
    { name: 'an unknown code (99)', status: 99 },
    { name: 'code 11 (released, no SPEC state)', status: 11 },
    { name: 'code 12 (being cancelled)', status: 12 },
    { name: 'a text status', status: 'Pago' },
  ];
  test.each(unrecognized)(
    'an unrecognized status ($name) is never pending or paid: 502 provider_refresh_failed, state kept',
    async ({ status }) => {
      const { id, providerReference } = await h.pending(BOLETO);
      await world.control.move(providerReference, 'processing');
      assert.equal((await h.refresh(BOLETO, id)).body.data.status, 'processing');
      const before = await h.read(BOLETO, id);
      await world.control.fault({ operation: 'query', fault: { type: 'status', status } });
      const res = await h.refresh(BOLETO, id);
      assertError(res, 502, 'provider_refresh_failed');
      assert.equal(res.body.error.transaction_id, id);
      assert.deepEqual(await h.read(BOLETO, id), before);
    },
  );

  test('a pending charge the provider reads as refused (8): no refresh into failed, 502 provider_refresh_failed, state kept', async () => {
    const { id, providerReference } = await h.pending(PIX);
    await world.control.move(providerReference, 'refused');
    const before = await h.read(PIX, id);
    const res = await h.refresh(PIX, id);
    assertError(res, 502, 'provider_refresh_failed');
    assert.deepEqual(await h.read(PIX, id), before);
  });

  test('a boleto whose read confirms the payment but carries a broken Pix: the boleto part is applied (200 paid), not a 502', async () => {
    const { id, providerReference } = await h.pending(BOLETO);
    await world.control.move(providerReference, 'paid_boleto');
    await world.control.fault({ operation: 'query', fault: { type: 'artifacts', field: 'pix' } });
    const res = await h.refresh(BOLETO, id);
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.data.status, 'paid');
    assert.equal(res.body.data.paid_with, 'boleto');
  });

  test('a pending boleto still without its Pix, read with a broken Pix: nothing shown, 200 unchanged; the next good read fills it', async () => {
    const { res, id } = await h.create(BOLETO, { fault: { type: 'late_pix', queries: 1 } });
    assert.equal(res.status, 201, res.text);
    await world.control.fault({ operation: 'query', fault: { type: 'artifacts', field: 'pix' } });
    const broken = await h.refresh(BOLETO, id);
    assert.equal(broken.status, 200, broken.text);
    assert.equal(broken.body.data.boleto_pix_copy_paste, null);
    const good = await h.refresh(BOLETO, id);
    assert.equal(good.status, 200, good.text);
    const [remote] = await h.remote(id);
    assert.equal(good.body.data.boleto_pix_copy_paste, remote?.boleto?.keyPix);
  });
});

describe('SPEC 3.1 "Other rules": expiry by deadline applies to Pix only', () => {
  let later: TestApp;
  beforeAll(async () => {
    // The same gateway two days later: every Pix deadline (expires_in at most 86400 s) and today's due date passed.
    later = await anotherProcess(
      { ALLOW_LIVE_PAYMENTS: 'true', ALLOW_UNSCOPED_LIVE_PAYMENTS: 'true' },
      2 * 86_400_000,
    );
  });
  afterAll(async () => {
    await later?.close();
  });

  test('an external Pix past its deadline that the provider still reads pending becomes expired', async () => {
    const { id } = await h.pending(PIX);
    const res = await refreshOn(later, keyOf(world, PIX), id);
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.data.status, 'expired');
    assert.equal(await h.calls(id, 'query'), 1, 'the provider was read first');
    await world.control.move((await h.read(PIX, id)).provider_reference, 'paid_pix');
    assertError(await refreshOn(later, keyOf(world, PIX), id), 409, 'provider_status_conflict');
  });

  test('an external Pix paid at the provider is paid, also when read after its deadline', async () => {
    const { id, providerReference } = await h.pending(PIX);
    await world.control.move(providerReference, 'paid_pix');
    const res = await refreshOn(later, keyOf(world, PIX), id);
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.data.status, 'paid');
  });

  test('a real boleto past its due date stays pending while the bank reports no write-off', async () => {
    const reference = `order-${randomUUID()}`;
    const created = await world.app.request('POST', '/v1/boleto', {
      headers: { 'x-api-key': keyOf(world, BOLETO), 'idempotency-key': randomUUID() },
      json: boletoBody({ cancel_after_due: true }, { reference }),
    });
    assert.equal(created.status, 201, created.text);
    const id = created.body.data.id;
    assert.equal(created.body.data.expires_at, null, 'no local deadline for a real boleto');
    const res = await refreshOn(later, keyOf(world, BOLETO), id);
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.data.status, 'pending');
  });
});

describe('SPEC 1 modes: test keys never reach the provider', () => {
  test('a test key of the tenant routed to the production provider: boleto and Pix are simulated; a refresh makes no provider call', async () => {
    const key = world.productionTestKey;
    for (const [method, body] of [
      ['boleto', boletoBody()],
      ['pix', pixBody()],
    ] as const) {
      const res = await world.app.request('POST', `/v1/${method}`, {
        headers: { 'x-api-key': key, 'idempotency-key': randomUUID() },
        json: body,
      });
      assert.equal(res.status, 201, res.text);
      assert.equal(res.body.data.simulated, true);
      assert.equal(res.body.data.livemode, false);
      const id = res.body.data.id;
      const refreshed = await refreshOn(world.app, key, id);
      assert.equal(refreshed.status, 200, refreshed.text);
      assert.equal(refreshed.body.data.simulated, true);
    }
    assert.deepEqual(await world.control.calls(), []);
  });
});

describe('SPEC 5.8 production controls: the scope (LIVE_PAYMENT_SCOPE_JSON)', () => {
  const SCOPED = {
    reference: `order-scoped-${randomUUID()}`,
    key: `key-scoped-${randomUUID()}`,
    amount: 1250,
  };
  let scoped: TestApp;
  let unscopedOff: TestApp;
  let productionProviderId: string;
  let other: { key: string; providerId: string };

  beforeAll(async () => {
    const rules = await world.app.request('GET', '/admin/rules?method=pix', { headers: world.admin });
    const rule = (rules.body.data as Array<Record<string, string>>).find(
      (r) => r.tenant_id === world.production.tenantId,
    );
    assert.ok(rule, rules.text);
    productionProviderId = rule.provider_id as string;
    // Another production provider (same emulator, its production key) and a tenant routed to it.
    const created = await world.app.request('POST', '/admin/providers', {
      headers: world.admin,
      json: {
        name: 'Safe2Pay production (other)',
        kind: 'external',
        environment: 'production',
        enabled_methods: ['pix', 'boleto'],
        credentials: { api_key: 'emu-production-key' },
        payment_host: world.emulator.paymentUrl,
        api_host: world.emulator.apiUrl,
      },
    });
    assert.equal(created.status, 201, created.text);
    const tenant = await seedTenantAndKey(world.app.gateway.ctx, { livemode: true });
    for (const method of ['pix', 'boleto']) {
      const res = await world.app.request('POST', '/admin/rules', {
        headers: world.admin,
        json: { method, tenant_id: tenant.tenantId, provider_id: created.body.data.id, priority: 1 },
      });
      assert.equal(res.status, 201, res.text);
    }
    other = { key: tenant.key, providerId: created.body.data.id };
    const entry = {
      tenant_id: world.production.tenantId,
      provider_id: productionProviderId,
      reference: SCOPED.reference,
      idempotency_key: SCOPED.key,
      amount: SCOPED.amount,
    };
    scoped = await anotherProcess({
      ALLOW_LIVE_PAYMENTS: 'true',
      LIVE_PAYMENT_SCOPE_JSON: JSON.stringify([
        { ...entry, method: 'pix' },
        {
          ...entry,
          reference: `${SCOPED.reference}-b`,
          idempotency_key: `${SCOPED.key}-b`,
          method: 'boleto',
        },
      ]),
    });
    // allow_live_payments on, no scope, ALLOW_UNSCOPED_LIVE_PAYMENTS at its default (false).
    unscopedOff = await anotherProcess({ ALLOW_LIVE_PAYMENTS: 'true' });
  });
  afterAll(async () => {
    await scoped?.close();
    await unscopedOff?.close();
  });

  function createOn(
    app: TestApp,
    method: 'pix' | 'boleto',
    opts: { key?: string; idempotencyKey?: string; reference?: string; amount?: number } = {},
  ): Promise<TestResponse> {
    const overrides = {
      reference: opts.reference ?? `order-${randomUUID()}`,
      amount: opts.amount ?? SCOPED.amount,
    };
    return app.request('POST', `/v1/${method}`, {
      headers: {
        'x-api-key': opts.key ?? world.production.key,
        'idempotency-key': opts.idempotencyKey ?? randomUUID(),
      },
      json: method === 'pix' ? pixBody(overrides) : boletoBody({}, overrides),
    });
  }

  test('allow_live_payments true alone does not unlock real payments: 403 live_payment_out_of_scope, nothing sent; the boleto sandbox is not consulted', async () => {
    assertError(await createOn(unscopedOff, 'pix'), 403, 'live_payment_out_of_scope');
    assertError(await createOn(unscopedOff, 'boleto'), 403, 'live_payment_out_of_scope');
    assert.deepEqual(await world.control.calls(), []);
    const sandbox = await createOn(unscopedOff, 'boleto', { key: world.sandbox.key });
    assert.equal(sandbox.status, 201, sandbox.text);
  });

  test('the exact scoped combination issues one charge; its replay recovers it; any other combination is 403 live_payment_out_of_scope with nothing sent', async () => {
    const exact = { idempotencyKey: SCOPED.key, reference: SCOPED.reference };
    const outside: Array<{ name: string; method: 'pix' | 'boleto'; opts: Parameters<typeof createOn>[2] }> = [
      { name: 'another key', method: 'pix', opts: { reference: SCOPED.reference } },
      { name: 'another reference', method: 'pix', opts: { idempotencyKey: SCOPED.key } },
      { name: 'another amount', method: 'pix', opts: { ...exact, amount: SCOPED.amount + 1 } },
      // A Pix scope does not authorize boleto (SPEC 5.8).
      { name: 'boleto on the Pix entry', method: 'boleto', opts: exact },
      { name: 'another tenant and provider', method: 'pix', opts: { ...exact, key: other.key } },
    ];
    // Checked before the key is claimed: a refused combination leaves the key unused (SPEC 4, 5.8).
    for (const o of outside) {
      const res = await createOn(scoped, o.method, o.opts);
      assert.equal(res.status, 403, `${o.name}: ${res.text}`);
      assert.equal(res.body.error.code, 'live_payment_out_of_scope', o.name);
    }
    assert.deepEqual(await world.control.calls(), []);
    const first = await createOn(scoped, 'pix', exact);
    assert.equal(first.status, 201, first.text);
    const id = first.body.data.id;
    const replay = await createOn(scoped, 'pix', exact);
    assert.equal(replay.status, 200, replay.text);
    assert.equal(replay.body.data.id, id);
    assert.equal(await h.calls(id, 'create'), 1);

    // The boleto entry authorizes exactly its boleto (method boleto, SPEC 5.8).
    const boleto = await createOn(scoped, 'boleto', {
      idempotencyKey: `${SCOPED.key}-b`,
      reference: `${SCOPED.reference}-b`,
    });
    assert.equal(boleto.status, 201, boleto.text);
    assert.equal(boleto.body.data.method, 'boleto');
    assert.equal((await world.control.calls({ operation: 'create' })).length, 2);
  });

  test("the scope blocks financial queries to another provider: its charge's refresh is 403 with no query; the scoped provider is still queried", async () => {
    // Issued earlier, while the server ran without a scope.
    const issued = await world.app.request('POST', '/v1/pix', {
      headers: { 'x-api-key': other.key, 'idempotency-key': randomUUID() },
      json: pixBody({ reference: `order-${randomUUID()}` }),
    });
    assert.equal(issued.status, 201, issued.text);
    const otherId = issued.body.data.id;
    const mine = await h.pending(PIX);

    assertError(await refreshOn(scoped, other.key, otherId), 403, 'live_payment_out_of_scope');
    assert.equal(await h.calls(otherId, 'query'), 0);

    const allowed = await refreshOn(scoped, world.production.key, mine.id);
    assert.equal(allowed.status, 200, allowed.text);
    assert.equal(await h.calls(mine.id, 'query'), 1);
  });

  test('a paid charge at another provider: its refund is 403 live_payment_out_of_scope, nothing sent, still paid', async () => {
    const issued = await world.app.request('POST', '/v1/pix', {
      headers: { 'x-api-key': other.key, 'idempotency-key': randomUUID() },
      json: pixBody({ reference: `order-${randomUUID()}` }),
    });
    assert.equal(issued.status, 201, issued.text);
    const id = issued.body.data.id;
    await world.control.move(issued.body.data.provider_reference, 'paid_pix');
    const paid = await refreshOn(world.app, other.key, id);
    assert.equal(paid.body.data.status, 'paid');
    const refund = await scoped.request('POST', `/v1/transactions/${id}/refund`, {
      headers: { 'x-api-key': other.key, 'idempotency-key': randomUUID() },
    });
    assertError(refund, 403, 'live_payment_out_of_scope');
    assert.equal(await h.calls(id, 'refund'), 0);
    await world.app.settle();
    const read = await world.app.request('GET', `/v1/transactions/${id}`, {
      headers: { 'x-api-key': other.key },
    });
    assert.equal(read.body.data.status, 'paid');
  });
});

describe('SPEC 7 rules: a local block after reservation (issue 13 item 6)', () => {
  test('the provider record loses its usable key between the reservation and the call: 502 provider_rejected with the local-block message and a null remote HTTP status; failed; nothing sent', async () => {
    // A sandbox provider and a tenant of its own, so the change below touches no other test's record.
    const created = await world.app.request('POST', '/admin/providers', {
      headers: world.admin,
      json: {
        name: 'Safe2Pay sandbox (local block)',
        kind: 'external',
        environment: 'sandbox',
        enabled_methods: ['boleto'],
        credentials: { api_key: 'emu-sandbox-key' },
        payment_host: world.emulator.paymentUrl,
        api_host: world.emulator.apiUrl,
      },
    });
    assert.equal(created.status, 201, created.text);
    const providerId = created.body.data.id;
    const tenant = await seedTenantAndKey(world.app.gateway.ctx, { livemode: true });
    const rule = await world.app.request('POST', '/admin/rules', {
      headers: world.admin,
      json: { method: 'boleto', tenant_id: tenant.tenantId, provider_id: providerId, priority: 1 },
    });
    assert.equal(rule.status, 201, rule.text);

    // A second process whose Reserved append is held once it is committed, so the record can change between
    // the reservation and the provider call (the window a concurrent panel edit would hit).
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let reserved: (id: string) => void = () => {};
    const reservedId = new Promise<string>((resolve) => {
      reserved = resolve;
    });
    const key = world.app.gateway.config.CREDENTIALS_ENCRYPTION_KEY;
    const paused = await startTestApp(
      { CREDENTIALS_ENCRYPTION_KEY: String(key), PROVIDER_TIMEOUT_MS: String(PROVIDER_TIMEOUT_MS) },
      (gw) => {
        const store = gw.ctx.store;
        const held = async (stream: string, events: readonly { type: string }[]) => {
          if (events.some((e) => e.type === 'Transaction.Reserved')) {
            reserved(stream.replace(/^transaction-/, ''));
            await gate;
          }
        };
        const append = store.append.bind(store);
        store.append = async (stream, events, expected) => {
          const result = await append(stream, events, expected);
          await held(stream, events);
          return result;
        };
        // A new charge's Reserved commits with its idempotency claim (issue 14, SPEC 3.1).
        const appendMany = store.appendMany?.bind(store);
        if (appendMany) {
          store.appendMany = async (appends) => {
            const results = await appendMany(appends);
            for (const a of appends) await held(a.stream, a.events);
            return results;
          };
        }
      },
      world.app.db,
    );
    try {
      const pending = paused.request('POST', '/v1/boleto', {
        headers: { 'x-api-key': tenant.key, 'idempotency-key': randomUUID() },
        json: boletoBody({}, { reference: `order-${randomUUID()}` }),
      });
      const id = await reservedId;
      // Credentials without an api_key: the adapter has nothing it can send with.
      const patched = await world.app.request('PATCH', `/admin/providers/${providerId}`, {
        headers: world.admin,
        json: { credentials: { token: 'not-an-api-key' } },
      });
      assert.equal(patched.status, 200, patched.text);
      release();
      const res = await pending;
      assertError(res, 502, 'provider_rejected');
      assert.equal(res.body.error.transaction_id, id);
      assert.equal(res.body.error.provider_http_status, null);
      assert.equal(res.body.error.provider_error_code, null);
      assert.match(res.body.error.provider_error_message, /nothing was sent/);
      const read = await paused.request('GET', `/v1/transactions/${id}`, {
        headers: { 'x-api-key': tenant.key },
      });
      assert.equal(read.body.data.status, 'failed');
      assert.equal(read.body.data.provider_http_status, null);
      assert.deepEqual(await world.control.calls({ reference: id }), []);
    } finally {
      release();
      await paused.close();
    }
  });
});
