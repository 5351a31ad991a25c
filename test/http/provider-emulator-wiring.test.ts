import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, test } from 'vitest';
import {
  EMULATOR_PROVIDER_ID,
  EMULATOR_RULE_ID,
  wireProviderEmulator,
} from '../../src/commands/providers/bootstrap-emulator.ts';
import { providerDeps } from '../../src/commands/providers/deps.ts';
import { createLogger } from '../../src/logger.ts';
import { type ProviderEmulator, startProviderEmulator } from '../../src/providers/emulator/server.ts';
import { ADMIN_EMAIL, ADMIN_PASSWORD, bearer, logIn, startAdminApp } from '../support/admin.ts';
import { boletoBody, pixBody } from '../support/charges.ts';
import { type EmulatorControl, emulatorControl } from '../support/emulator-control.ts';
import { type SeededKey, seedTenantAndKey } from '../support/fixtures.ts';
import type { TestApp } from '../support/http.ts';

/**
 * Issue 13 item 3, "Done when": `PROVIDER_EMULATOR_URL` wires the gateway to a provider emulator at start
 * (docs/decisions.md "The gateway against the provider emulator"). A live key's boleto is then a real-mode
 * sandbox boleto issued at the emulator (SPEC 1 table: external provider / sandbox, boleto only,
 * `simulated: false`); Pix stays with the simulator (SPEC 1: no Pix sandbox) and test keys never reach a
 * provider (SPEC 5.2). The start-time wiring is called again here with other configurations, as a restart
 * with another environment would.
 */

let app: TestApp;
let emulator: ProviderEmulator;
let other: ProviderEmulator;
let control: EmulatorControl;
let admin: Record<string, string>;
let live: SeededKey;
let testKey: SeededKey;

const silent = createLogger('silent');

beforeAll(async () => {
  emulator = await startProviderEmulator();
  other = await startProviderEmulator();
  control = emulatorControl(emulator.url);
  app = await startAdminApp({
    PROVIDER_EMULATOR_URL: emulator.url,
    CREDENTIALS_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    ENABLE_SIMULATOR: 'true',
  });
  admin = bearer(await logIn(app, ADMIN_EMAIL, ADMIN_PASSWORD));
  live = await seedTenantAndKey(app.gateway.ctx, { livemode: true });
  testKey = await seedTenantAndKey(app.gateway.ctx, { livemode: false });
});

afterAll(async () => {
  await app?.close();
  await emulator?.close();
  await other?.close();
});

function create(method: 'pix' | 'boleto', key: SeededKey) {
  const reference = `order-${randomUUID()}`;
  return app.request('POST', `/v1/${method}`, {
    headers: { 'x-api-key': key.key, 'idempotency-key': randomUUID() },
    json: method === 'pix' ? pixBody({ reference }) : boletoBody({}, { reference }),
  });
}

/** Wires as a start with this PROVIDER_EMULATOR_URL (undefined: unset) in this mode would. */
function restartWith(
  url: string | undefined,
  mode: 'development' | 'production' = 'development',
): Promise<void> {
  return wireProviderEmulator(
    providerDeps(app.gateway.ctx),
    { PROVIDER_EMULATOR_URL: url, CALEBE_ENV: mode },
    silent,
  );
}

async function emulatorRuleEnabled(): Promise<unknown> {
  const rules = await app.request('GET', '/admin/rules?method=boleto', { headers: admin });
  assert.equal(rules.status, 200, rules.text);
  return (rules.body.data as Array<Record<string, unknown>>).find((r) => r.id === EMULATOR_RULE_ID)?.enabled;
}

async function eventsOf(...streams: string[]): Promise<number> {
  let n = 0;
  for (const s of streams) n += (await app.gateway.ctx.store.read(s)).length;
  return n;
}

describe('PROVIDER_EMULATOR_URL: the gateway against the provider emulator (issue 13 item 3)', () => {
  test('the start created a sandbox external provider on the emulator hosts, with credentials, and a global boleto rule ahead of the simulator', async () => {
    const res = await app.request('GET', `/admin/providers/${EMULATOR_PROVIDER_ID}`, { headers: admin });
    assert.equal(res.status, 200, res.text);
    const p = res.body.data;
    assert.equal(p.kind, 'external');
    assert.equal(p.environment, 'sandbox');
    assert.deepEqual(p.enabled_methods, ['boleto']);
    assert.equal(p.enabled, true);
    assert.equal(p.has_credentials, true);
    assert.equal(p.payment_host, emulator.paymentUrl);
    assert.equal(p.api_host, emulator.apiUrl);
    // The key is sealed: never answered (SPEC 2.7).
    assert.ok(!res.text.includes('emu-sandbox-key'));

    const rules = await app.request('GET', '/admin/rules?method=boleto', { headers: admin });
    assert.equal(rules.status, 200, rules.text);
    const globals = (rules.body.data as Array<Record<string, unknown>>).filter((r) => r.tenant_id === null);
    const mine = globals.find((r) => r.id === EMULATOR_RULE_ID);
    const simulator = globals.find((r) => r.provider_id === 'prv_simulator');
    assert.ok(mine && simulator, rules.text);
    assert.equal(mine.provider_id, EMULATOR_PROVIDER_ID);
    assert.equal(mine.enabled, true);
    assert.ok((mine.priority as number) < (simulator.priority as number));
  });

  test('a live key boleto is issued at the emulator: simulated false, sandbox, one provider charge by reference (SPEC 1, 2.2)', async () => {
    const res = await create('boleto', live);
    assert.equal(res.status, 201, res.text);
    const t = res.body.data;
    assert.equal(t.simulated, false);
    assert.equal(t.environment, 'sandbox');
    assert.equal(t.livemode, true);
    assert.equal(t.status, 'pending');
    assert.match(t.boleto_digitable_line, /^[0-9]{47,48}$/);
    // SPEC 2.2: the transaction id is the reference sent to the provider.
    const charges = await control.charges(t.id);
    assert.equal(charges.length, 1);
    assert.equal(String(charges[0]?.id), t.provider_reference);
  });

  test('"Done when": paid by its Pix at the emulator, a refresh reads paid with paid_with pix (SPEC 3.1, 4.6)', async () => {
    const created = await create('boleto', live);
    assert.equal(created.status, 201, created.text);
    await control.move(created.body.data.provider_reference, 'paid_pix');
    const res = await app.request('POST', `/v1/transactions/${created.body.data.id}/refresh`, {
      headers: { 'x-api-key': live.key },
    });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.data.status, 'paid');
    assert.equal(res.body.data.paid_with, 'pix');
  });

  test('Pix of a live key stays on the simulator, and a test key boleto never reaches the emulator (SPEC 1, 5.2)', async () => {
    const pix = await create('pix', live);
    assert.equal(pix.status, 201, pix.text);
    assert.equal(pix.body.data.simulated, true);
    const boleto = await create('boleto', testKey);
    assert.equal(boleto.status, 201, boleto.text);
    assert.equal(boleto.body.data.simulated, true);
    assert.equal(boleto.body.data.livemode, false);
    assert.deepEqual(await control.calls({ reference: boleto.body.data.id }), []);
  });

  test('a start with the same URL changes nothing; with another URL the record follows it', async () => {
    const streams = [`provider-${EMULATOR_PROVIDER_ID}`, `routing_rule-${EMULATOR_RULE_ID}`];
    const before = await eventsOf(...streams);
    await restartWith(emulator.url);
    assert.equal(await eventsOf(...streams), before);

    await restartWith(other.url);
    const res = await app.request('GET', `/admin/providers/${EMULATOR_PROVIDER_ID}`, { headers: admin });
    assert.equal(res.body.data.payment_host, other.paymentUrl);
    assert.equal(res.body.data.api_host, other.apiUrl);
    const created = await create('boleto', live);
    assert.equal(created.status, 201, created.text);
    assert.equal((await emulatorControl(other.url).charges(created.body.data.id)).length, 1);
    assert.deepEqual(await control.charges(created.body.data.id), []);
    await restartWith(emulator.url);
  });

  test('issue 23 item 2.7: a development start without the variable leaves the rule on for the processes that have it', async () => {
    const streams = [`provider-${EMULATOR_PROVIDER_ID}`, `routing_rule-${EMULATOR_RULE_ID}`];
    const before = await eventsOf(...streams);
    await restartWith(undefined);
    assert.equal(await emulatorRuleEnabled(), true);
    assert.equal(await eventsOf(...streams), before, 'nothing appended');
    const real = await create('boleto', live);
    assert.equal(real.status, 201, real.text);
    assert.equal(real.body.data.simulated, false);
  });

  test('issue 23 item 2.7: switched off explicitly (an administrator, or a production start), boletos go back to the simulator; setting the variable again enables it', async () => {
    const off = await app.request('PATCH', `/admin/rules/${EMULATOR_RULE_ID}`, {
      headers: admin,
      json: { enabled: false },
    });
    assert.equal(off.status, 200, off.text);
    await restartWith(undefined);
    assert.equal(
      await emulatorRuleEnabled(),
      false,
      'a start without the variable does not switch it back on',
    );
    await restartWith(emulator.url);
    assert.equal(await emulatorRuleEnabled(), true);

    await restartWith(undefined, 'production');
    assert.equal(await emulatorRuleEnabled(), false);
    const simulated = await create('boleto', live);
    assert.equal(simulated.status, 201, simulated.text);
    assert.equal(simulated.body.data.simulated, true);

    await restartWith(emulator.url);
    const real = await create('boleto', live);
    assert.equal(real.status, 201, real.text);
    assert.equal(real.body.data.simulated, false);
  });

  test("an administrator's edits other than what the variable owns are kept across starts", async () => {
    const renamed = await app.request('PATCH', `/admin/providers/${EMULATOR_PROVIDER_ID}`, {
      headers: admin,
      json: { name: 'Our emulator' },
    });
    assert.equal(renamed.status, 200, renamed.text);
    const reprioritized = await app.request('PATCH', `/admin/rules/${EMULATOR_RULE_ID}`, {
      headers: admin,
      json: { priority: 500 },
    });
    assert.equal(reprioritized.status, 200, reprioritized.text);
    await restartWith(emulator.url);
    const p = await app.request('GET', `/admin/providers/${EMULATOR_PROVIDER_ID}`, { headers: admin });
    assert.equal(p.body.data.name, 'Our emulator');
    const rules = await app.request('GET', '/admin/rules?method=boleto', { headers: admin });
    const mine = (rules.body.data as Array<Record<string, unknown>>).find((r) => r.id === EMULATOR_RULE_ID);
    assert.equal(mine?.priority, 500);
    assert.equal(mine?.enabled, true);
  });
});
