import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, test } from 'vitest';
import { SCOPES } from '../../src/aggregates/access.ts';
import { issueApiKey } from '../../src/commands/api-keys/issue/handler.ts';
import {
  claimIdempotencyKey,
  idempotencyStream,
  type JsonValue,
  readClaim,
} from '../../src/commands/idempotency.ts';
import { createProvider } from '../../src/commands/providers/create/handler.ts';
import { providerDeps } from '../../src/commands/providers/deps.ts';
import { createRoutingRule } from '../../src/commands/routing-rules/create/handler.ts';
import { createUser } from '../../src/commands/users/create/handler.ts';
import { identityDeps } from '../../src/commands/users/identity-deps.ts';
import { sha256Hex } from '../../src/crypto/secrets.ts';
import { newId } from '../../src/ids.ts';
import type { AdapterDecorator } from '../../src/providers/registry.ts';
import {
  ADMIN_EMAIL,
  ADMIN_PASSWORD,
  adminClient,
  assertError,
  bearer,
  idem,
  logIn,
  PASSWORD,
  startAdminApp,
} from '../support/admin.ts';
import { addDays, boletoBody, pixBody, today } from '../support/charges.ts';
import { commandDeps, type SeededKey, seedChildTenant, seedTenantAndKey } from '../support/fixtures.ts';
import { startTestApp, type TestApp, type TestResponse } from '../support/http.ts';
import { decorateProviders, withCharges } from '../support/provider-registry.ts';

/**
 * Issue 12 (external review): idempotency per mode (SPEC 4 common rules, 5.2), replays that answer the
 * stored result without re-applying it (SPEC 4, 4.8), writes only for the key's own tenant (SPEC 5.5), and
 * keys carrying only scopes their creator could exercise (SPEC 5.3).
 */

let app: TestApp;
let superAdmin: Record<string, string>;
/** One tenant with a test key and a live key, and a child with both. */
let test_: SeededKey;
let live: SeededKey;
let childTest: SeededKey;
let outsider: SeededKey;

const metadata = { actor: 'system:test', request_id: 'req_test' };

async function secondKey(tenantId: string, livemode: boolean): Promise<SeededKey> {
  const { keyId, key } = await issueApiKey(
    commandDeps(app.gateway.ctx),
    {
      tenantId,
      livemode,
      name: 'second key',
      scopes: SCOPES,
      accessProfile: 'standard',
      createdBy: 'system:test',
    },
    metadata,
  );
  return { tenantId, keyId, key };
}

const post = (key: string, path: string, idemKey: string, json: unknown) =>
  app.request('POST', path, { headers: { 'x-api-key': key, 'idempotency-key': idemKey }, json });

async function streamLength(stream: string): Promise<number> {
  const { rows } = await sql<{
    n: string;
  }>`select count(*) as n from events where stream_id = ${stream}`.execute(app.gateway.ctx.db);
  return Number(rows[0]?.n);
}

/** Calls that reach the (simulated) provider for changes of a charge (SPEC 4.8). */
const providerCalls = { refund: 0, dueDate: 0 };
/** Counts the simulator's refunds and due-date changes, for every adapter this app resolves. */
const counting: AdapterDecorator = (adapter, kind) =>
  kind !== 'simulator'
    ? adapter
    : withCharges(adapter, {
        async refund(target, ctx) {
          providerCalls.refund++;
          return adapter.charges.refund(target, ctx);
        },
        async changeDueDate(target, ctx) {
          providerCalls.dueDate++;
          return adapter.charges.changeDueDate(target, ctx);
        },
      });

async function allEvents(): Promise<number> {
  const { rows } = await sql<{ n: string }>`select count(*) as n from events`.execute(app.gateway.ctx.db);
  return Number(rows[0]?.n);
}

function created(res: TestResponse): string {
  assert.equal(res.status, 201, res.text);
  return res.body.data.id;
}

function replayed(res: TestResponse): void {
  assert.equal(res.status, 200, res.text);
  assert.equal(res.headers.get('idempotency-replayed'), 'true');
}

beforeAll(async () => {
  app = await startAdminApp({
    ENABLE_SIMULATOR: 'true',
    CREDENTIALS_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
  });
  decorateProviders(app.gateway.ctx, counting);
  superAdmin = bearer(await logIn(app, ADMIN_EMAIL, ADMIN_PASSWORD));
  test_ = await seedTenantAndKey(app.gateway.ctx, { livemode: false });
  live = await secondKey(test_.tenantId, true);
  childTest = await seedChildTenant(app.gateway.ctx, test_.tenantId, { livemode: false });
  outsider = await seedTenantAndKey(app.gateway.ctx, { livemode: false });
});
afterAll(() => app.close());

describe('issue 12 item 1: test and live keep apart idempotency records (SPEC 4 common rules, 5.2)', () => {
  test('SPEC 5.2: a live key reusing a test key’s Idempotency-Key and body gets a new live charge, not the test one', async () => {
    const key = `modes-${randomUUID()}`;
    const body = pixBody();
    const first = await post(test_.key, '/v1/pix', key, body);
    const testId = created(first);
    assert.equal(first.body.data.livemode, false);

    const other = await post(live.key, '/v1/pix', key, body);
    assert.equal(other.status, 201, other.text);
    assert.equal(other.headers.get('idempotency-replayed'), null);
    assert.equal(other.body.data.livemode, true);
    assert.notEqual(other.body.data.id, testId);

    // Each mode still replays its own record.
    const testAgain = await post(test_.key, '/v1/pix', key, body);
    replayed(testAgain);
    assert.equal(testAgain.body.data.id, testId);
    const liveAgain = await post(live.key, '/v1/pix', key, body);
    replayed(liveAgain);
    assert.equal(liveAgain.body.data.id, other.body.data.id);
  });

  test('SPEC 5.2: a test key reusing a live key’s Idempotency-Key and body gets a new test charge, not the live one', async () => {
    const key = `modes-${randomUUID()}`;
    const body = boletoBody();
    const liveId = created(await post(live.key, '/v1/boleto', key, body));
    const other = await post(test_.key, '/v1/boleto', key, body);
    assert.equal(other.status, 201, other.text);
    assert.equal(other.body.data.livemode, false);
    assert.notEqual(other.body.data.id, liveId);
    // Another body in the other mode is a new request too, never a conflict with the live record.
    const third = await post(test_.key, '/v1/pix', `${key}-x`, pixBody());
    assert.equal(third.status, 201, third.text);
  });

  test('issue 12, 14, SPEC 5.2: a test claim stored at the mode-less id before issue 12 is completed and replayed by the test key; the live key gets 409', async () => {
    // The claim a pre-issue-12 gateway left: the mode-less (live) id, a test reservation, no Reserved yet.
    const body = pixBody();
    const donorKey = `donor-${randomUUID()}`;
    created(await post(test_.key, '/v1/pix', donorKey, body));
    const donor = await readClaim(commandDeps(app.gateway.ctx), test_.tenantId, donorKey, false);
    assert.ok(donor);
    const reserve = donor.payload.reserve as Record<string, JsonValue>;
    const key = `legacy-${randomUUID()}`;
    const transactionId = newId('txn');
    await claimIdempotencyKey(
      commandDeps(app.gateway.ctx),
      {
        scope: test_.tenantId,
        key,
        method: 'POST',
        route: '/v1/pix',
        body: reserve.request,
        resourceId: transactionId,
        payload: { reserve: { ...reserve, transactionId, idempotencyKeySha256: sha256Hex(key) } },
      },
      { actor: 'system:test', livemode: false },
    );
    const completed = await post(test_.key, '/v1/pix', key, body);
    assert.equal(completed.status, 201, completed.text);
    assert.equal(completed.body.data.id, transactionId);
    const again = await post(test_.key, '/v1/pix', key, body);
    replayed(again);
    assert.equal(again.body.data.id, transactionId);
    // Nothing was claimed at the test-mode id: the legacy claim is the record.
    assert.equal(await streamLength(idempotencyStream(test_.tenantId, key, false)), 0);
    const liveTry = await post(live.key, '/v1/pix', key, body);
    assert.equal(liveTry.status, 409, liveTry.text);
    assert.equal(liveTry.body.error.code, 'idempotency_conflict');
  });

  test('SPEC 4 common rules: 20 concurrent requests alternating test and live keys with one Idempotency-Key make one charge per mode', async () => {
    const key = `modes-${randomUUID()}`;
    const body = pixBody();
    const responses = await Promise.all(
      Array.from({ length: 20 }, (_, i) => post(i % 2 === 0 ? test_.key : live.key, '/v1/pix', key, body)),
    );
    const byMode = new Map<boolean, Set<string>>([
      [false, new Set()],
      [true, new Set()],
    ]);
    responses.forEach((res, i) => {
      assert.ok([200, 201, 202].includes(res.status), res.text);
      assert.equal(res.body.data.livemode, i % 2 !== 0, res.text);
      byMode.get(res.body.data.livemode)?.add(res.body.data.id);
    });
    assert.equal(byMode.get(false)?.size, 1);
    assert.equal(byMode.get(true)?.size, 1);
    assert.equal(responses.filter((r) => r.status === 201).length, 2);
  });

  test('SPEC 4.8, 5.2: a due date change under a test key’s Idempotency-Key does not block the same key in live', async () => {
    const key = `modes-${randomUUID()}`;
    const testBoleto = created(await post(test_.key, '/v1/boleto', randomUUID(), boletoBody()));
    const liveBoleto = created(await post(live.key, '/v1/boleto', randomUUID(), boletoBody()));
    const due = addDays(today(), 9);
    const move = (k: string, id: string) =>
      app.request('PATCH', `/v1/transactions/${id}/boleto`, {
        headers: { 'x-api-key': k, 'idempotency-key': key },
        json: { due_date: due },
      });
    assert.equal((await move(test_.key, testBoleto)).status, 200);
    const liveMove = await move(live.key, liveBoleto);
    assert.equal(liveMove.status, 200, liveMove.text);
    assert.equal(liveMove.headers.get('idempotency-replayed'), null);
    assert.equal(liveMove.body.data.boleto_due_date, due);
  });
});

describe('issue 12 item 2: a replay answers the stored result and appends nothing (SPEC 4 common rules, 4.8)', () => {
  test('SPEC 4.8: replaying an older due date change after a newer one keeps the newer date and appends no event', async () => {
    const id = created(await post(test_.key, '/v1/boleto', randomUUID(), boletoBody()));
    const [keyA, keyB] = [randomUUID(), randomUUID()];
    const [dateX, dateY] = [addDays(today(), 10), addDays(today(), 20)];
    const move = (k: string, due_date: string) =>
      app.request('PATCH', `/v1/transactions/${id}/boleto`, {
        headers: { 'x-api-key': test_.key, 'idempotency-key': k },
        json: { due_date },
      });
    assert.equal((await move(keyA, dateX)).status, 200);
    const b = await move(keyB, dateY);
    assert.equal(b.status, 200, b.text);
    const before = await streamLength(`transaction-${id}`);
    const calls = providerCalls.dueDate;

    const again = await move(keyA, dateX);
    replayed(again);
    assert.equal(await streamLength(`transaction-${id}`), before);
    assert.equal(providerCalls.dueDate, calls, 'a replay never calls the provider again');
    const request = await app.request('GET', `/v1/transactions/${id}`, {
      headers: { 'x-api-key': test_.key },
    });
    assert.equal(request.status, 200);
    assert.deepEqual(again.body.data, request.body.data);
    const events = await app.request('GET', `/admin/transactions/${id}/events`, { headers: superAdmin });
    assert.equal(events.status, 200, events.text);
    const dueChanges = (events.body.data as { type: string; data: { boleto_due_date?: string } }[]).filter(
      (e) => e.type === 'Transaction.DueDateChanged',
    );
    assert.deepEqual(
      dueChanges.map((e) => e.data.boleto_due_date),
      [dateX, dateY],
    );
    assert.equal(again.body.data.boleto_due_date, dateY);
  });

  test('SPEC 4.8: a change applied but never marked completed (crash between the appends) is not applied again', async () => {
    const id = created(await post(test_.key, '/v1/boleto', randomUUID(), boletoBody()));
    const [keyA, keyB] = [randomUUID(), randomUUID()];
    const [dateX, dateY] = [addDays(today(), 11), addDays(today(), 21)];
    const move = (k: string, due_date: string) =>
      app.request('PATCH', `/v1/transactions/${id}/boleto`, {
        headers: { 'x-api-key': test_.key, 'idempotency-key': k },
        json: { due_date },
      });
    // The database refuses the completion marker: the due date is appended, the marker never is.
    const db = app.gateway.ctx.db;
    await sql`create function refuse_completion() returns trigger language plpgsql as $$
      begin raise exception 'completion refused by the test'; end $$`.execute(db);
    await sql`create trigger refuse_completion before insert on events for each row
      when (new.type = 'Idempotency.Completed') execute function refuse_completion()`.execute(db);
    try {
      const crashed = await move(keyA, dateX);
      assert.equal(crashed.status, 500, crashed.text);
      assert.equal(crashed.body.error.code, 'internal_error');
    } finally {
      await sql`drop trigger refuse_completion on events`.execute(db);
      await sql`drop function refuse_completion()`.execute(db);
    }
    assert.equal((await move(keyB, dateY)).status, 200);
    const before = await streamLength(`transaction-${id}`);
    const calls = providerCalls.dueDate;

    const again = await move(keyA, dateX);
    replayed(again);
    assert.equal(again.body.data.boleto_due_date, dateY, 'the newer change stays');
    assert.equal(await streamLength(`transaction-${id}`), before);
    assert.equal(providerCalls.dueDate, calls, 'a replay never calls the provider again');
  });

  test('SPEC 4.8: replaying a refund appends no event and keeps the refunded state', async () => {
    const id = created(await post(test_.key, '/v1/pix', randomUUID(), pixBody()));
    const sim = await app.request('POST', `/v1/transactions/${id}/simulate`, {
      headers: { 'x-api-key': test_.key },
      json: { status: 'paid' },
    });
    assert.equal(sim.status, 200, sim.text);
    const key = randomUUID();
    const refund = () =>
      app.request('POST', `/v1/transactions/${id}/refund`, {
        headers: { 'x-api-key': test_.key, 'idempotency-key': key },
      });
    const first = await refund();
    assert.equal(first.status, 200, first.text);
    assert.equal(first.body.data.status, 'refunded');
    const before = await streamLength(`transaction-${id}`);
    const calls = providerCalls.refund;
    const again = await refund();
    replayed(again);
    assert.equal(providerCalls.refund, calls, 'a replay never calls the provider again');
    assert.equal(again.body.data.status, 'refunded');
    assert.equal(await streamLength(`transaction-${id}`), before);
  });

  test('SPEC 4.8: replaying a due date change after the boleto was paid answers the paid record and appends no event', async () => {
    const id = created(await post(test_.key, '/v1/boleto', randomUUID(), boletoBody()));
    const key = randomUUID();
    const move = () =>
      app.request('PATCH', `/v1/transactions/${id}/boleto`, {
        headers: { 'x-api-key': test_.key, 'idempotency-key': key },
        json: { due_date: addDays(today(), 5) },
      });
    assert.equal((await move()).status, 200);
    const paid = await app.request('POST', `/v1/transactions/${id}/simulate`, {
      headers: { 'x-api-key': test_.key },
      json: { status: 'paid' },
    });
    assert.equal(paid.status, 200, paid.text);
    const before = await streamLength(`transaction-${id}`);
    const again = await move();
    replayed(again);
    assert.equal(again.body.data.status, 'paid');
    assert.equal(await streamLength(`transaction-${id}`), before);
  });

  test('SPEC 4.12: replaying a cost center creation after a rename answers the renamed center and appends no event', async () => {
    const key = randomUUID();
    const first = await post(test_.key, '/v1/cost-centers', key, { name: `Vendas ${key}` });
    const id = created(first);
    const renamed = await app.request('PATCH', `/v1/cost-centers/${id}`, {
      headers: { 'x-api-key': test_.key },
      json: { name: 'Renamed', active: false },
    });
    assert.equal(renamed.status, 200, renamed.text);
    const before = await allEvents();
    const again = await post(test_.key, '/v1/cost-centers', key, { name: `Vendas ${key}` });
    replayed(again);
    assert.equal(again.body.data.id, id);
    assert.equal(again.body.data.name, 'Renamed');
    assert.equal(again.body.data.active, false);
    assert.equal(await allEvents(), before);
  });

  test('SPEC 5.3: replaying an API key issuance after its revocation answers the revoked key and appends no event', async () => {
    const key = randomUUID();
    const body = { tenant_id: test_.tenantId, mode: 'test', scopes: ['transactions:read'], name: 'replayed' };
    const res = await app.request('POST', '/admin/api-keys', {
      headers: { ...superAdmin, ...idem(key) },
      json: body,
    });
    const id = created(res);
    const revoked = await app.request('DELETE', `/admin/api-keys/${id}`, { headers: superAdmin });
    assert.ok(revoked.status < 300, revoked.text);
    const before = await allEvents();
    const again = await app.request('POST', '/admin/api-keys', {
      headers: { ...superAdmin, ...idem(key) },
      json: body,
    });
    replayed(again);
    assert.equal(again.body.data.id, id);
    assert.equal(again.body.data.status, 'revoked');
    assert.equal(again.body.data.key, undefined);
    assert.equal(await allEvents(), before);
  });

  test('SPEC 6: replaying a webhook endpoint creation after it was disabled answers the disabled endpoint and appends no event', async () => {
    const key = randomUUID();
    const body = { tenant_id: test_.tenantId, url: 'https://hooks.example.com/calebe', mode: 'test' };
    const res = await app.request('POST', '/admin/webhook-endpoints', {
      headers: { ...superAdmin, ...idem(key) },
      json: body,
    });
    const id = created(res);
    const off = await app.request('PATCH', `/admin/webhook-endpoints/${id}`, {
      headers: superAdmin,
      json: { enabled: false },
    });
    assert.equal(off.status, 200, off.text);
    const before = await allEvents();
    const again = await app.request('POST', '/admin/webhook-endpoints', {
      headers: { ...superAdmin, ...idem(key) },
      json: body,
    });
    replayed(again);
    assert.equal(again.body.data.id, id);
    assert.equal(again.body.data.enabled, false);
    assert.equal(await allEvents(), before);
  });

  test('SPEC 5.7: replaying tenant and user creations after a suspension answers the suspended record and appends no event', async () => {
    const typeKey = randomUUID();
    const typeBody = { name: `type ${typeKey}`, allows_children: true };
    const typeId = created(
      await app.request('POST', '/admin/tenant-types', {
        headers: { ...superAdmin, ...idem(typeKey) },
        json: typeBody,
      }),
    );
    const tenantKey = randomUUID();
    const tenantBody = { name: 'Replayed tenant', type_id: typeId, parent_id: null };
    const tenantId = created(
      await app.request('POST', '/admin/tenants', {
        headers: { ...superAdmin, ...idem(tenantKey) },
        json: tenantBody,
      }),
    );
    const userKey = randomUUID();
    const userBody = {
      email: `u-${userKey}@example.com`,
      password: PASSWORD,
      role: 'viewer',
      tenant_id: tenantId,
    };
    const userId = created(
      await app.request('POST', '/admin/users', {
        headers: { ...superAdmin, ...idem(userKey) },
        json: userBody,
      }),
    );
    assert.ok(
      (await app.request('POST', `/admin/users/${userId}/suspend`, { headers: superAdmin })).status < 300,
    );
    assert.ok(
      (await app.request('POST', `/admin/tenants/${tenantId}/suspend`, { headers: superAdmin })).status < 300,
    );
    const before = await allEvents();

    const t = await app.request('POST', '/admin/tenant-types', {
      headers: { ...superAdmin, ...idem(typeKey) },
      json: typeBody,
    });
    replayed(t);
    assert.equal(t.body.data.id, typeId);
    const tn = await app.request('POST', '/admin/tenants', {
      headers: { ...superAdmin, ...idem(tenantKey) },
      json: tenantBody,
    });
    replayed(tn);
    assert.equal(tn.body.data.id, tenantId);
    assert.equal(tn.body.data.status, 'suspended');
    const u = await app.request('POST', '/admin/users', {
      headers: { ...superAdmin, ...idem(userKey) },
      json: userBody,
    });
    replayed(u);
    assert.equal(u.body.data.id, userId);
    assert.equal(u.body.data.status, 'suspended');
    assert.equal(await allEvents(), before);
  });

  test('SPEC 4.2: replaying POST /admin/boleto after the boleto was paid answers the paid record and appends no event', async () => {
    const key = randomUUID();
    const body = { ...boletoBody(), tenant_id: test_.tenantId };
    const id = created(
      await app.request('POST', '/admin/boleto', { headers: { ...superAdmin, ...idem(key) }, json: body }),
    );
    const paid = await app.request('POST', `/admin/transactions/${id}/simulate`, {
      headers: superAdmin,
      json: { status: 'paid' },
    });
    assert.equal(paid.status, 200, paid.text);
    const before = await allEvents();
    const again = await app.request('POST', '/admin/boleto', {
      headers: { ...superAdmin, ...idem(key) },
      json: body,
    });
    replayed(again);
    assert.equal(again.body.data.id, id);
    assert.equal(again.body.data.status, 'paid');
    assert.equal(await allEvents(), before);
  });
});

describe('issue 12 item 3: simulate and refresh write only for the key’s own tenant (SPEC 5.5, 5.7, 7)', () => {
  let childPix: string;
  beforeAll(async () => {
    childPix = created(await post(childTest.key, '/v1/pix', randomUUID(), pixBody()));
  });

  test('SPEC 5.5: a parent’s key simulating a child’s charge is 403 forbidden and the charge stays pending', async () => {
    const res = await app.request('POST', `/v1/transactions/${childPix}/simulate`, {
      headers: { 'x-api-key': test_.key },
      json: { status: 'paid' },
    });
    assertError(res, 403, 'forbidden');
    const read = await app.request('GET', `/v1/transactions/${childPix}`, {
      headers: { 'x-api-key': childTest.key },
    });
    assert.equal(read.body.data.status, 'pending');
  });

  test('SPEC 5.5: a parent’s key refreshing a child’s charge is 403 forbidden', async () => {
    const before = await streamLength(`transaction-${childPix}`);
    const res = await app.request('POST', `/v1/transactions/${childPix}/refresh`, {
      headers: { 'x-api-key': test_.key },
    });
    assertError(res, 403, 'forbidden');
    assert.equal(await streamLength(`transaction-${childPix}`), before);
  });

  test('SPEC 7: outside the tree or of the other mode, simulate and refresh are 404 not_found', async () => {
    for (const k of [outsider.key, live.key]) {
      assertError(
        await app.request('POST', `/v1/transactions/${childPix}/refresh`, { headers: { 'x-api-key': k } }),
        404,
        'not_found',
      );
    }
    assertError(
      await app.request('POST', `/v1/transactions/${childPix}/simulate`, {
        headers: { 'x-api-key': outsider.key },
        json: { status: 'paid' },
      }),
      404,
      'not_found',
    );
  });

  test('SPEC 5.7: a viewer cannot simulate in the panel (403 forbidden)', async () => {
    await createUser(
      identityDeps(app.gateway.ctx),
      { email: 'viewer-h12@example.com', password: PASSWORD, role: 'viewer', tenant_id: childTest.tenantId },
      metadata,
    );
    const viewer = bearer(await logIn(app, 'viewer-h12@example.com'));
    assertError(
      await app.request('POST', `/admin/transactions/${childPix}/simulate`, {
        headers: viewer,
        json: { status: 'paid' },
      }),
      403,
      'forbidden',
    );
  });
});

describe('issue 12 item 4: keys carry only scopes their creator could exercise (SPEC 5.3, 5.7)', () => {
  test('SPEC 5.3: a tenant_admin cannot issue subtenants:write or subtenants:keys:write (403 forbidden); a super_admin can', async () => {
    const admin = adminClient(app, superAdmin.authorization?.slice('Bearer '.length) ?? '');
    const tenantAdmin = await admin.user('tenant_admin', test_.tenantId);
    const token = bearer(await logIn(app, tenantAdmin.email));
    for (const scope of ['subtenants:write', 'subtenants:keys:write']) {
      const before = await allEvents();
      const res = await app.request('POST', '/admin/api-keys', {
        headers: { ...token, ...idem() },
        json: {
          tenant_id: test_.tenantId,
          mode: 'live',
          scopes: ['transactions:read', scope],
          name: 'too much',
        },
      });
      assertError(res, 403, 'forbidden');
      assert.equal(await allEvents(), before);
    }
    const ok = await app.request('POST', '/admin/api-keys', {
      headers: { ...token, ...idem() },
      json: {
        tenant_id: test_.tenantId,
        mode: 'live',
        scopes: ['transactions:read', 'subtenants:read'],
        name: 'fine',
      },
    });
    assert.equal(ok.status, 201, ok.text);
    const bySuper = await app.request('POST', '/admin/api-keys', {
      headers: { ...superAdmin, ...idem() },
      json: {
        tenant_id: test_.tenantId,
        mode: 'live',
        scopes: ['subtenants:write', 'subtenants:keys:write'],
        name: 'super',
      },
    });
    assert.equal(bySuper.status, 201, bySuper.text);
  });
});

describe('issue 12 item 5: POST /v1/cost-centers takes an Idempotency-Key but does not require it (SPEC 4 common rules, 4.12)', () => {
  test('SPEC 4 common rules: without Idempotency-Key a cost center is created (201)', async () => {
    const res = await app.request('POST', '/v1/cost-centers', {
      headers: { 'x-api-key': test_.key },
      json: { name: `No key ${randomUUID()}` },
    });
    assert.equal(res.status, 201, res.text);
    assert.equal(res.headers.get('idempotency-replayed'), null);
  });

  test('SPEC 4 common rules: with Idempotency-Key a replay is 200 with Idempotency-Replayed and another body is 409', async () => {
    const key = randomUUID();
    const id = created(await post(test_.key, '/v1/cost-centers', key, { name: `Keyed ${key}` }));
    const again = await post(test_.key, '/v1/cost-centers', key, { name: `Keyed ${key}` });
    replayed(again);
    assert.equal(again.body.data.id, id);
    assertError(
      await post(test_.key, '/v1/cost-centers', key, { name: 'Another' }),
      409,
      'idempotency_conflict',
    );
  });

  test('SPEC 4 common rules: a malformed Idempotency-Key is still 400 idempotency_key_required', async () => {
    const res = await post(test_.key, '/v1/cost-centers', 'bad key!', { name: 'Bad key' });
    assertError(res, 400, 'idempotency_key_required');
  });
});

describe('issue 12 item 6: test keys are routed like live keys, then served by the simulator (SPEC 1, 2.8, 5.8)', () => {
  let bare: TestApp;
  let bareTest: SeededKey;
  beforeAll(async () => {
    // No simulator: no global rule exists (SPEC 2.8 last line), so nothing routes until a rule is added.
    bare = await startTestApp({ ENABLE_SIMULATOR: 'false' });
    bareTest = await seedTenantAndKey(bare.gateway.ctx, { livemode: false });
  });
  afterAll(() => bare.close());

  const charge = (key: string, path: '/v1/pix' | '/v1/boleto', json: unknown) =>
    bare.request('POST', path, { headers: { 'x-api-key': key, 'idempotency-key': randomUUID() }, json });

  test('SPEC 2.8, 7: a test key with no rule for the method is 422 provider_not_configured and nothing is stored', async () => {
    const before = await bare.gateway.ctx.db
      .selectFrom('transactions')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .executeTakeFirstOrThrow();
    const res = await charge(bareTest.key, '/v1/pix', pixBody());
    assertError(res, 422, 'provider_not_configured');
    const after = await bare.gateway.ctx.db
      .selectFrom('transactions')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .executeTakeFirstOrThrow();
    assert.equal(after.n, before.n);
  });

  test('SPEC 2.8, 7: a test key whose rule’s provider does not list the method is 422 provider_method_disabled', async () => {
    const deps = providerDeps(bare.gateway.ctx);
    const provider = await createProvider(
      deps,
      {
        name: 'Boleto only',
        kind: 'simulator',
        environment: 'sandbox',
        enabledMethods: ['boleto'],
        isMarketplace: false,
      },
      metadata,
    );
    for (const method of ['pix', 'boleto'] as const) {
      await createRoutingRule(
        deps,
        {
          method,
          tenantId: bareTest.tenantId,
          providerId: provider.provider.id,
          priority: 1,
          maxAmount: 10000,
          enabled: true,
        },
        metadata,
      );
    }
    assertError(await charge(bareTest.key, '/v1/pix', pixBody()), 422, 'provider_method_disabled');
    assertError(
      await charge(bareTest.key, '/v1/boleto', boletoBody({}, { amount: 10001 })),
      422,
      'amount_limit_exceeded',
    );
    // SPEC 5.8 production controls are not consulted for test keys; the simulator serves the charge.
    const ok = await charge(bareTest.key, '/v1/boleto', boletoBody());
    assert.equal(ok.status, 201, ok.text);
    assert.equal(ok.body.data.simulated, true);
    assert.equal(ok.body.data.livemode, false);
    assert.equal(ok.body.data.environment, 'sandbox');
  });
});
