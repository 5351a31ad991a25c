import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, beforeEach, describe, test } from 'vitest';
import { SCOPES } from '../../src/aggregates/access.ts';
import { issueApiKey } from '../../src/commands/api-keys/issue/handler.ts';
import type { Operation } from '../../src/providers/emulator/faults.ts';
import { assertError, idem } from '../support/admin.ts';
import { cardBody } from '../support/cards.ts';
import { addDays, boletoBody, pixBody, today } from '../support/charges.ts';
import { type ExternalProviderWorld, startExternalProviderWorld } from '../support/external-provider.ts';
import { commandDeps, type SeededKey, seedChildTenant, seedTenantAndKey } from '../support/fixtures.ts';
import type { TestResponse } from '../support/http.ts';
import { COMPANY_PARTS, emulatorProvider, freshDocument } from '../support/subaccount-fixtures.ts';
import { subscriptionBody, subscriptionCard } from '../support/subscriptions.ts';

// Issue 28 item 3: charges routed through a marketplace subaccount (SPEC 2.8 last paragraph, 2.2
// `subaccount_id`, 7 `422 subaccount_not_configured` / `422 subaccount_credentials_missing`), over the real
// HTTP stack, PostgreSQL and the provider emulator on a socket. Which key a call used is shown by the
// emulator: with the matrix production key revoked there (`/_emulator/keys`), only a subaccount token can
// issue, read or refund; the matrix sandbox key refuses every charge (code 301); and the emulator
// attributes each charge to the account whose token issued it (`account`: the subaccount's remote id).

let world: ExternalProviderWorld;
let market: string;
let marketSandbox: string;
let parent: SeededKey;
let parentTest: string;
let child: SeededKey;
let childTest: string;
let sandboxTenant: SeededKey;
let parentLink: { id: string; provider_reference: string };
let sandboxLink: { id: string; provider_reference: string };

const MATRIX_PRODUCTION_KEY = 'emu-production-key';

const marketplaceProvider = (environment: string, credentials: Record<string, string>) =>
  emulatorProvider(world, environment, credentials);

async function rules(tenantId: string, providerId: string, methods = ['pix', 'boleto']) {
  for (const method of methods) {
    const res = await world.app.request('POST', '/admin/rules', {
      headers: world.admin,
      json: { method, tenant_id: tenantId, provider_id: providerId, priority: 1 },
    });
    assert.equal(res.status, 201, res.text);
  }
}

const document = () => freshDocument('81');

async function link(providerId: string, tenantId: string) {
  const res = await world.app.request('POST', '/admin/subaccounts', {
    headers: { ...world.admin, ...idem() },
    json: {
      provider_id: providerId,
      tenant_id: tenantId,
      name: 'Loja Cliente Ltda',
      commercial_name: 'Loja Cliente',
      document: document(),
      email: 'financeiro@lojacliente.example',
      ...COMPANY_PARTS,
    },
  });
  assert.equal(res.status, 201, res.text);
  assert.equal(res.body.data.status, 'active', res.text);
  await world.app.settle();
  return res.body.data as {
    id: string;
    provider_reference: string;
    has_production_token: boolean;
    has_sandbox_token: boolean;
    updated_at: string;
  };
}

/** A tenant routed for cards to a marketplace of its own, with one link there and a test key. */
async function cardMarketplaceTenant() {
  const cards = await emulatorProvider(world, 'production', { api_key: MATRIX_PRODUCTION_KEY }, true, [
    'credit_card',
  ]);
  const { tenantId } = await seedTenantAndKey(world.app.gateway.ctx, { livemode: true });
  await rules(tenantId, cards, ['credit_card']);
  const first = await link(cards, tenantId);
  return { cards, tenantId, first, key: await testKeyOf(tenantId) };
}

/** Disables or enables a link by the panel, and lets the read models see it. */
async function switchLink(id: string, verb: 'disable' | 'enable'): Promise<void> {
  const res = await world.app.request('POST', `/admin/subaccounts/${id}/${verb}`, { headers: world.admin });
  assert.equal(res.status, 200, res.text);
  await world.app.settle();
}

async function testKeyOf(tenantId: string): Promise<string> {
  const { key } = await issueApiKey(
    commandDeps(world.app.gateway.ctx),
    {
      tenantId,
      livemode: false,
      name: 'test key',
      scopes: SCOPES,
      accessProfile: 'standard',
      createdBy: 'system:test',
    },
    { actor: 'system:test', request_id: 'req_test' },
  );
  return key;
}

function charge(method: 'pix' | 'boleto', key: string, idempotencyKey: string = randomUUID()) {
  const reference = `order-${randomUUID()}`;
  const json = method === 'pix' ? pixBody({ reference }) : boletoBody({}, { reference });
  return world.app.request('POST', `/v1/${method}`, {
    headers: { 'x-api-key': key, 'idempotency-key': idempotencyKey },
    json,
  });
}

const refresh = (key: string, id: string) =>
  world.app.request('POST', `/v1/transactions/${id}/refresh`, { headers: { 'x-api-key': key } });

const refund = (key: string, id: string) =>
  world.app.request('POST', `/v1/transactions/${id}/refund`, {
    headers: { 'x-api-key': key, 'idempotency-key': randomUUID() },
  });

async function eventCount(): Promise<number> {
  const { rows } = await sql<{ n: string }>`select count(*)::text as n from events`.execute(world.app.db.db);
  return Number(rows[0]?.n);
}

async function emulator(method: string, path: string, body?: unknown): Promise<unknown> {
  const res = await fetch(`${world.emulator.url}/_emulator${path}`, {
    method,
    ...(body === undefined
      ? {}
      : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
  });
  assert.ok(res.ok, `emulator ${method} ${path}: ${res.status}`);
  return res.json();
}

/** The provider no longer takes the matrix production key: only a subaccount's own token can act. */
async function withMatrixKeyRevoked(run: () => Promise<void>): Promise<void> {
  await emulator('POST', '/keys', { production: [] });
  try {
    await run();
  } finally {
    await emulator('POST', '/keys', { production: [MATRIX_PRODUCTION_KEY] });
  }
}

/** The emulator's charge of a transaction: the account whose token issued it (null: the key's own account). */
async function remoteCharge(transactionId: string) {
  const [c] = (await world.control.charges(transactionId)) as unknown as Array<{
    account: number | null;
    sandbox: boolean;
    status: number;
  }>;
  assert.ok(c, 'the emulator holds the charge');
  return c;
}

const calls = async (reference: string, operation?: Operation) =>
  world.control.calls(operation === undefined ? { reference } : { reference, operation });

async function allCalls(): Promise<number> {
  return (await world.control.calls()).length;
}

beforeAll(async () => {
  world = await startExternalProviderWorld({ RATE_LIMIT_PER_MINUTE: '100000' });
  const ctx = world.app.gateway.ctx;
  market = await marketplaceProvider('production', { api_key: MATRIX_PRODUCTION_KEY });
  marketSandbox = await marketplaceProvider('sandbox', {
    api_key: 'emu-matrix-sandbox-key',
    matrix_production_api_key: MATRIX_PRODUCTION_KEY,
  });
  parent = await seedTenantAndKey(ctx, { livemode: true });
  child = await seedChildTenant(ctx, parent.tenantId, { livemode: true });
  parentTest = await testKeyOf(parent.tenantId);
  childTest = await testKeyOf(child.tenantId);
  sandboxTenant = await seedTenantAndKey(ctx, { livemode: true });
  // The child has no rule of its own: the parent's rules route it (SPEC 2.8 step 2), its link does not.
  await rules(parent.tenantId, market);
  await rules(sandboxTenant.tenantId, marketSandbox, ['boleto']);
  parentLink = await link(market, parent.tenantId);
  sandboxLink = await link(marketSandbox, sandboxTenant.tenantId);
}, 60_000);

afterAll(async () => {
  await world?.close();
});

beforeEach(async () => {
  // Calls and faults only: the emulated subaccounts (and their tokens) live for the whole file.
  await emulator('DELETE', '/calls');
  await world.control.clearFaults();
});

describe('issuance through the tenant’s subaccount (SPEC 2.8)', () => {
  test('boleto: 201 with subaccount_id, issued with the subaccount token and attributed to it, never the matrix key; refresh uses it too', async () => {
    await withMatrixKeyRevoked(async () => {
      const res = await charge('boleto', parent.key);
      assert.equal(res.status, 201, res.text);
      const d = res.body.data;
      assert.equal(d.subaccount_id, parentLink.id);
      assert.equal(d.simulated, false);
      assert.equal(d.status, 'pending');
      const remote = await remoteCharge(d.id);
      assert.equal(remote.account, Number(parentLink.provider_reference), 'the subaccount issued it');
      const [create] = await calls(d.id, 'create');
      assert.equal(create?.httpStatus, 200);
      await world.control.move(d.provider_reference, 'paid_boleto');
      const read = await refresh(parent.key, d.id);
      assert.equal(read.status, 200, read.text);
      assert.equal(read.body.data.status, 'paid');
      assert.equal(read.body.data.subaccount_id, parentLink.id);
      await world.app.settle();
      const got = await world.app.request('GET', `/v1/transactions/${d.id}`, {
        headers: { 'x-api-key': parent.key },
      });
      assert.equal(got.body.data.subaccount_id, parentLink.id);
      const row = await world.app.db.db
        .selectFrom('transactions')
        .select(['provider_id', 'subaccount_id'])
        .where('id', '=', d.id)
        .executeTakeFirstOrThrow();
      assert.deepEqual(row, { provider_id: market, subaccount_id: parentLink.id });
    });
  });

  test('Pix: issued, read and refunded with the subaccount token (matrix key revoked at the provider)', async () => {
    await withMatrixKeyRevoked(async () => {
      const res = await charge('pix', parent.key);
      assert.equal(res.status, 201, res.text);
      const d = res.body.data;
      assert.equal(d.subaccount_id, parentLink.id);
      assert.equal((await remoteCharge(d.id)).account, Number(parentLink.provider_reference));
      await world.control.move(d.provider_reference, 'paid_pix');
      const read = await refresh(parent.key, d.id);
      assert.equal(read.status, 200, read.text);
      assert.equal(read.body.data.status, 'paid');
      const back = await refund(parent.key, d.id);
      assert.equal(back.status, 200, back.text);
      assert.equal(back.body.data.status, 'refunded');
      assert.equal((await remoteCharge(d.id)).status, 6);
      // Every call about the charge was taken (a matrix key would be 401 here): one creation, one refund.
      const log = await calls(d.id);
      assert.deepEqual(
        log.filter((c) => c.httpStatus !== 200),
        [],
      );
      assert.equal(log.filter((c) => c.operation === 'create').length, 1);
      assert.equal(log.filter((c) => c.operation === 'refund').length, 1);
      assert.ok(log.some((c) => c.operation === 'query'));
    });
  });

  test('a boleto’s due-date change goes through the subaccount too (matrix key revoked at the provider)', async () => {
    await withMatrixKeyRevoked(async () => {
      const res = await charge('boleto', parent.key);
      assert.equal(res.status, 201, res.text);
      const due = addDays(today(), 20);
      const moved = await world.app.request('PATCH', `/v1/transactions/${res.body.data.id}/boleto`, {
        headers: { 'x-api-key': parent.key, 'idempotency-key': randomUUID() },
        json: { due_date: due },
      });
      assert.equal(moved.status, 200, moved.text);
      assert.equal(moved.body.data.boleto_due_date, due);
      assert.deepEqual(
        (await calls(res.body.data.id)).filter((c) => c.httpStatus !== 200),
        [],
      );
    });
  });

  test('scopes first: a key without boleto:write is 403 insufficient_scope, nothing stored or sent', async () => {
    const { key } = await issueApiKey(
      commandDeps(world.app.gateway.ctx),
      {
        tenantId: parent.tenantId,
        livemode: true,
        name: 'read only',
        scopes: ['transactions:read'],
        accessProfile: 'standard',
        createdBy: 'system:test',
      },
      { actor: 'system:test', request_id: 'req_test' },
    );
    const events = await eventCount();
    assertError(await charge('boleto', key), 403, 'insufficient_scope');
    assert.equal(await eventCount(), events);
    assert.equal(await allCalls(), 0);
  });

  test('the fees the matrix retains are the charge’s split (SPEC 2.2), fixed at issuance', async () => {
    const t = await seedTenantAndKey(world.app.gateway.ctx, { livemode: true });
    await rules(t.tenantId, market, ['boleto']);
    await link(market, t.tenantId);
    const fee = await world.app.request('POST', '/admin/fee-schedules', {
      headers: world.admin,
      json: {
        tenant_id: t.tenantId,
        method: 'boleto',
        percent_bps: 250,
        fixed_amount: 100,
        starts_on: today(),
      },
    });
    assert.equal(fee.status, 201, fee.text);
    const res = await charge('boleto', t.key);
    assert.equal(res.status, 201, res.text);
    // 9990 x 2.5% = 249.75 -> 250 (half up), plus 100 fixed.
    assert.equal(res.body.data.retained_amount, 350);
    assert.deepEqual(res.body.data.split, { total_fee_amount: 350, merchant_amount: 9640, on: 'boleto' });
  });

  test('a sandbox marketplace issues with the subaccount’s sandbox token (the matrix sandbox key would be 301)', async () => {
    const res = await charge('boleto', sandboxTenant.key);
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.data.environment, 'sandbox');
    assert.equal(res.body.data.subaccount_id, sandboxLink.id);
    const remote = await remoteCharge(res.body.data.id);
    assert.equal(remote.sandbox, true);
    assert.equal(remote.account, Number(sandboxLink.provider_reference));
  });

  test('N concurrent creations with one Idempotency-Key: one reservation, one provider call', async () => {
    await world.control.fault({ operation: 'create', fault: { type: 'latency', ms: 300 } });
    const key = randomUUID();
    const reference = `order-${randomUUID()}`;
    const send = () =>
      world.app.request('POST', '/v1/boleto', {
        headers: { 'x-api-key': parent.key, 'idempotency-key': key },
        json: boletoBody({}, { reference }),
      });
    const answers = await Promise.all(Array.from({ length: 8 }, send));
    for (const a of answers) assert.ok([200, 201, 202].includes(a.status), a.text);
    assert.equal(answers.filter((a) => a.status === 201).length, 1);
    const ids = new Set(answers.map((a) => a.body.data.id));
    assert.equal(ids.size, 1);
    const [id] = [...ids] as [string];
    assert.equal((await calls(id, 'create')).length, 1);
    await world.app.settle();
    const txns = await world.app.db.db
      .selectFrom('transactions')
      .select(['id', 'subaccount_id'])
      .where('reference', '=', reference)
      .execute();
    assert.deepEqual(txns, [{ id, subaccount_id: parentLink.id }]);
  });
});

describe('refusals before anything is stored (SPEC 2.8, 7)', () => {
  async function refusedWithNothingStored(res: Promise<TestResponse>, code: string): Promise<void> {
    const events = await eventCount();
    const sent = await allCalls();
    assertError(await res, 422, code);
    assert.equal(await eventCount(), events, 'nothing stored');
    assert.equal(await allCalls(), sent, 'nothing sent');
  }

  test('a child without its own link: 422 subaccount_not_configured while its parent has one (no inheritance), both modes', async () => {
    await refusedWithNothingStored(charge('boleto', child.key), 'subaccount_not_configured');
    await refusedWithNothingStored(charge('pix', child.key), 'subaccount_not_configured');
    await refusedWithNothingStored(charge('boleto', childTest), 'subaccount_not_configured');
  });

  test('another tenant’s link is never used: a tenant routed to the marketplace without its own link is refused; with one, its charges are its own', async () => {
    const other = await seedTenantAndKey(world.app.gateway.ctx, { livemode: true });
    await rules(other.tenantId, market, ['boleto']);
    await refusedWithNothingStored(charge('boleto', other.key), 'subaccount_not_configured');
    const own = await link(market, other.tenantId);
    const res = await charge('boleto', other.key);
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.data.subaccount_id, own.id);
    assert.equal((await remoteCharge(res.body.data.id)).account, Number(own.provider_reference));
    // And the other way: the parent's charges stay on the parent's subaccount.
    const mine = await charge('boleto', parent.key);
    assert.equal(mine.body.data.subaccount_id, parentLink.id);
    // Another tree's charge is not visible (SPEC 5.5).
    const peek = await world.app.request('GET', `/v1/transactions/${res.body.data.id}`, {
      headers: { 'x-api-key': parent.key },
    });
    assertError(peek, 404, 'not_found');
  });

  test('a disabled link does not count (422 subaccount_not_configured); the charges it issued are still refreshed with its token', async () => {
    const t = await seedTenantAndKey(world.app.gateway.ctx, { livemode: true });
    await rules(t.tenantId, market, ['boleto']);
    const own = await link(market, t.tenantId);
    const issued = await charge('boleto', t.key);
    assert.equal(issued.status, 201, issued.text);
    const off = await world.app.request('POST', `/admin/subaccounts/${own.id}/disable`, {
      headers: world.admin,
    });
    assert.equal(off.status, 200, off.text);
    assert.equal(off.body.data.status, 'disabled');
    await refusedWithNothingStored(charge('boleto', t.key), 'subaccount_not_configured');
    await withMatrixKeyRevoked(async () => {
      await world.control.move(issued.body.data.provider_reference, 'paid_boleto');
      const read = await refresh(t.key, issued.body.data.id);
      assert.equal(read.status, 200, read.text);
      assert.equal(read.body.data.status, 'paid');
    });
    const on = await world.app.request('POST', `/admin/subaccounts/${own.id}/enable`, {
      headers: world.admin,
    });
    assert.equal(on.status, 200, on.text);
    assert.equal((await charge('boleto', t.key)).status, 201);
  });

  test('a link without the token of the provider’s environment: 422 subaccount_credentials_missing', async () => {
    const t = await seedTenantAndKey(world.app.gateway.ctx, { livemode: true });
    await rules(t.tenantId, marketSandbox, ['boleto']);
    // The provider's answers (the creation's and the read-back it triggers) carry no sandbox token: the link
    // is active with its production token only.
    for (const operation of ['subaccount_create', 'subaccount_get'] as const) {
      await world.control.fault({
        operation,
        fault: { type: 'override', field: 'TokenSandbox', value: null },
      });
    }
    const own = await link(marketSandbox, t.tenantId);
    assert.equal(own.has_production_token, true);
    assert.equal(own.has_sandbox_token, false);
    await refusedWithNothingStored(charge('boleto', t.key), 'subaccount_credentials_missing');
    // Test keys: the same validation (SPEC 1).
    await refusedWithNothingStored(
      charge('boleto', await testKeyOf(t.tenantId)),
      'subaccount_credentials_missing',
    );
  });

  test('a kept card is charged only through the link that kept it: through another link of the tenant, 422 on credit_card.card_id', async () => {
    // SPEC 2.8 (a marketplace's charges go through the tenant's oldest active link), 4.9 (`card_id`), wire doc
    // wave 2b §1.2 (a token opens only in the account that made it). Test keys get the same checks (SPEC 1).
    const { cards, tenantId, first, key } = await cardMarketplaceTenant();
    const byCard = (body: Record<string, unknown>) =>
      world.app.request('POST', '/v1/credit-card', {
        headers: { 'x-api-key': key, 'idempotency-key': randomUUID() },
        json: body,
      });
    const paid = await byCard(cardBody());
    assert.equal(paid.status, 201, paid.text);
    assert.equal(paid.body.data.status, 'paid');
    assert.equal(paid.body.data.subaccount_id, first.id);
    const cardId = paid.body.data.credit_card.card_id as string;
    assert.match(cardId, /^card_/);
    const again = () => byCard({ ...cardBody(), credit_card: { card_id: cardId } });
    // A second link is younger: the first still serves, and the card is charged.
    const second = await link(cards, tenantId);
    const same = await again();
    assert.equal(same.status, 201, same.text);
    assert.equal(same.body.data.subaccount_id, first.id);
    // The first disabled, the second serves: its account cannot open the card's token.
    await switchLink(first.id, 'disable');
    const refused = again();
    await refusedWithNothingStored(refused, 'validation_error');
    assert.equal((await refused).body.error.param, 'credit_card.card_id');
    // Card data goes through the second link and keeps a card of its own there.
    const fresh = await byCard(cardBody());
    assert.equal(fresh.status, 201, fresh.text);
    assert.equal(fresh.body.data.subaccount_id, second.id);
    await switchLink(first.id, 'enable');
    assert.equal((await again()).status, 201);
  });

  test('a card subscription: registered and charged through the link; after the link changes, the next cycle waits', async () => {
    // SPEC 2.8 (through the tenant's oldest active link), 3.3 and 4.10 (cycles), 2.4 `last_error` (an emission
    // stopped before reservation), with a test key and a test clock (issue 26 item 6): SPEC 1's same checks.
    const { cards, tenantId, first, key } = await cardMarketplaceTenant();
    const send = (path: string, json: unknown, idempotent = true) =>
      world.app.request('POST', path, {
        headers: { 'x-api-key': key, ...(idempotent ? { 'idempotency-key': randomUUID() } : {}) },
        json,
      });
    const read = async (path: string) => {
      await world.app.settle();
      const res = await world.app.request('GET', path, { headers: { 'x-api-key': key } });
      assert.equal(res.status, 200, res.text);
      return res.body.data;
    };
    const clock = await send('/v1/test_clocks', { frozen_time: '2027-01-15T12:00:00Z' });
    assert.equal(clock.status, 201, clock.text);
    const advance = async (frozenTime: string) => {
      const res = await send(
        `/v1/test_clocks/${clock.body.data.id}/advance`,
        { frozen_time: frozenTime },
        false,
      );
      assert.equal(res.status, 200, res.text);
    };
    const created = await send(
      '/v1/subscriptions',
      subscriptionBody({
        method: 'credit_card',
        credit_card: subscriptionCard(),
        first_due_date: '2027-01-15',
        test_clock_id: clock.body.data.id,
      }),
    );
    assert.equal(created.status, 201, created.text);
    const id = created.body.data.id as string;
    const charged = async (cycle: number) => {
      const row = (await read(`/v1/subscriptions/${id}/cycles?limit=100`)).find(
        (c: { cycle: number }) => c.cycle === cycle,
      );
      return row?.transaction_id ? await read(`/v1/transactions/${row.transaction_id}`) : null;
    };
    const one = await charged(1);
    assert.ok(one, 'cycle 1 is charged on its due date');
    assert.equal(one.status, 'paid');
    assert.equal(one.subaccount_id, first.id);
    // The tenant's link changes: a second one serves once the first is disabled.
    await link(cards, tenantId);
    await switchLink(first.id, 'disable');
    await advance('2027-02-15T12:00:00Z');
    assert.equal(await charged(2), null, 'no charge through an account the card token does not open in');
    assert.equal((await read(`/v1/subscriptions/${id}`)).last_error, 'validation_error');
    // The first link back: the next attempt (SPEC 8: every 15 minutes) charges cycle 2 through it.
    await switchLink(first.id, 'enable');
    await advance('2027-02-15T12:16:00Z');
    const two = await charged(2);
    assert.ok(two, 'cycle 2 is charged once the link is back');
    assert.equal(two.subaccount_id, first.id);
    assert.equal((await read(`/v1/subscriptions/${id}`)).last_error, null);
  });

  test('a token that no longer opens after issuance: refresh and refund are 422 subaccount_credentials_missing, nothing sent; new charges too', async () => {
    const t = await seedTenantAndKey(world.app.gateway.ctx, { livemode: true });
    await rules(t.tenantId, market, ['pix']);
    const own = await link(market, t.tenantId);
    const issued = await charge('pix', t.key);
    assert.equal(issued.status, 201, issued.text);
    const id = issued.body.data.id as string;
    await world.control.move(issued.body.data.provider_reference, 'paid_pix');
    assert.equal((await refresh(t.key, id)).body.data.status, 'paid');
    // Another record's sealed set (bound to that record's id, so it does not open here), in the event and
    // in the read model: what a token lost to a key change looks like.
    const { rows } = await sql<{ data: { tokens_ciphertext: string } }>`
      select data from events where stream_id = ${`subaccount-${sandboxLink.id}`} and type = 'Subaccount.Created'`.execute(
      world.app.db.db,
    );
    const foreign = rows[0]?.data.tokens_ciphertext;
    assert.ok(foreign);
    await sql`update events set data = jsonb_set(data, '{tokens_ciphertext}', to_jsonb(${foreign}::text))
      where stream_id = ${`subaccount-${own.id}`} and type = 'Subaccount.Created'`.execute(world.app.db.db);
    await sql`update subaccounts set tokens_ciphertext = ${foreign} where id = ${own.id}`.execute(
      world.app.db.db,
    );
    const sent = await allCalls();
    assertError(await refresh(t.key, id), 422, 'subaccount_credentials_missing');
    assertError(await refund(t.key, id), 422, 'subaccount_credentials_missing');
    assert.equal(await allCalls(), sent, 'nothing sent');
    await refusedWithNothingStored(charge('pix', t.key), 'subaccount_credentials_missing');
  });
});

describe('test keys, checkouts and Pix Automatic on a marketplace route', () => {
  test('a test key gets the same checks, then the simulator: subaccount_id stored, nothing reaches the provider', async () => {
    const res = await charge('boleto', parentTest);
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.data.simulated, true);
    assert.equal(res.body.data.livemode, false);
    assert.equal(res.body.data.subaccount_id, parentLink.id);
    assert.equal(await allCalls(), 0);
    // Cross-mode: the test charge is not visible to the live key (SPEC 5.2).
    assertError(
      await world.app.request('GET', `/v1/transactions/${res.body.data.id}`, {
        headers: { 'x-api-key': parent.key },
      }),
      404,
      'not_found',
    );
  });

  test('a checkout link: created for the tenant with a link, 422 subaccount_not_configured for its child', async () => {
    const body = {
      methods: ['boleto'],
      amount: 15990,
      reference: 'pedido-1',
      description: 'Pedido 1',
      customer: pixBody().customer,
    };
    const post = (key: string) =>
      world.app.request('POST', '/v1/checkouts', { headers: { 'x-api-key': key, ...idem() }, json: body });
    const ok = await post(parent.key);
    assert.equal(ok.status, 201, ok.text);
    const events = await eventCount();
    assertError(await post(child.key), 422, 'subaccount_not_configured');
    assert.equal(await eventCount(), events);
  });

  test('the payer page’s pay step issues through the tenant’s link (matrix key revoked at the provider)', async () => {
    // SPEC 2.7 (the payer picks a method; the charge is created for the checkout's tenant), 2.8 (through its
    // link): the page's form post, over a real socket, makes a charge the subaccount's token issues.
    const made = await world.app.request('POST', '/v1/checkouts', {
      headers: { 'x-api-key': parent.key, ...idem() },
      json: {
        methods: ['boleto'],
        amount: 15990,
        reference: `pedido-${randomUUID()}`,
        description: 'Pedido 1',
        customer: pixBody().customer,
      },
    });
    assert.equal(made.status, 201, made.text);
    const path = new URL(made.body.data.url).pathname;
    const page = await world.app.request('GET', path);
    assert.equal(page.status, 200, page.text);
    const nonce = /name="method" value="boleto">\s*<input type="hidden" name="nonce" value="([^"]+)"/.exec(
      page.text,
    )?.[1];
    assert.ok(nonce, 'the boleto form');
    await withMatrixKeyRevoked(async () => {
      const chosen = await fetch(`${world.app.baseUrl}${path}/pay`, {
        method: 'POST',
        body: new URLSearchParams({ method: 'boleto', nonce }),
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded', origin: world.app.baseUrl },
      });
      assert.equal(chosen.status, 303);
    });
    await world.app.settle();
    const checkout = await world.app.request('GET', `/v1/checkouts/${made.body.data.id}`, {
      headers: { 'x-api-key': parent.key },
    });
    const [id] = checkout.body.data.transaction_ids as string[];
    assert.ok(id, 'the payer’s choice made a charge');
    const txn = await world.app.request('GET', `/v1/transactions/${id}`, {
      headers: { 'x-api-key': parent.key },
    });
    assert.equal(txn.body.data.status, 'pending', txn.text);
    assert.equal(txn.body.data.subaccount_id, parentLink.id);
    const remote = await remoteCharge(id);
    assert.equal(remote.account, Number(parentLink.provider_reference), 'the subaccount issued it');
  });

  test('Pix Automatic is not offered through a subaccount: 422 provider_method_disabled after the link checks', async () => {
    const body = {
      name: 'Assinatura',
      description: 'Plano mensal',
      amount: 4990,
      first_due_date: addDays(today(), 5),
      interval_months: 1,
      customer: pixBody().customer,
    };
    const post = (key: string) =>
      world.app.request('POST', '/v1/pix-automatic/authorizations', {
        headers: { 'x-api-key': key, ...idem() },
        json: body,
      });
    const events = await eventCount();
    assertError(await post(parent.key), 422, 'provider_method_disabled');
    assertError(await post(child.key), 422, 'subaccount_not_configured');
    assert.equal(await eventCount(), events);
    assert.equal(await allCalls(), 0);
  });
});
