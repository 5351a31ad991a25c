import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { SCOPES } from '../../src/aggregates/access.ts';
import { issueApiKey } from '../../src/commands/api-keys/issue/handler.ts';
import {
  type EmulatorOptions,
  type ProviderEmulator,
  startProviderEmulator,
} from '../../src/providers/emulator/server.ts';
import { ADMIN_EMAIL, ADMIN_PASSWORD, bearer, logIn, startAdminApp } from './admin.ts';
import { boletoBody, pixBody } from './charges.ts';
import { type EmulatorControl, emulatorControl } from './emulator-control.ts';
import { commandDeps, type SeededKey, seedTenantAndKey } from './fixtures.ts';
import type { TestApp, TestResponse } from './http.ts';

/**
 * The gateway wired to the provider emulator on real sockets (issue 13): two external provider records
 * created over the panel API with the emulator's hosts and keys, one production and one sandbox, each the
 * only rule (Pix and boleto) of its own tenant. Production issuance is on and unscoped (SPEC 5.8), so the
 * controls stay out of the way unless a test switches them off.
 */

// Small enough that the no-answer fault ends in a few seconds, large enough for a loaded CI machine.
export const PROVIDER_TIMEOUT_MS = 3000;

export interface ExternalProviderWorld {
  app: TestApp;
  emulator: ProviderEmulator;
  control: EmulatorControl;
  /** Bearer headers of the bootstrap super_admin. */
  admin: Record<string, string>;
  /** Live keys of the tenant routed to the production provider, and of the one routed to the sandbox. */
  production: SeededKey;
  sandbox: SeededKey;
  /** A test key of the production tenant (SPEC 5.2), and a live key of an unrelated tenant. */
  productionTestKey: string;
  stranger: SeededKey;
  close(): Promise<void>;
}

export type ChargeCase = {
  name: string;
  method: 'pix' | 'boleto';
  environment: 'sandbox' | 'production';
};

export const CHARGE_CASES: ChargeCase[] = [
  { name: 'Pix (production)', method: 'pix', environment: 'production' },
  { name: 'boleto (production)', method: 'boleto', environment: 'production' },
  { name: 'boleto (sandbox)', method: 'boleto', environment: 'sandbox' },
];

const metadata = { actor: 'system:test', request_id: 'req_test' };

/**
 * `env`: more gateway configuration (say a higher RATE_LIMIT_PER_MINUTE for a burst of 50 requests);
 * `emulatorOptions`: the emulator's own (a seeded `random` for probabilistic faults).
 */
export async function startExternalProviderWorld(
  env: Record<string, string> = {},
  emulatorOptions: Pick<EmulatorOptions, 'random'> = {},
): Promise<ExternalProviderWorld> {
  const emulator = await startProviderEmulator({ port: 0, host: '127.0.0.1', ...emulatorOptions });
  const control = emulatorControl(emulator.url);
  const app = await startAdminApp({
    CREDENTIALS_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    ALLOW_LIVE_PAYMENTS: 'true',
    ALLOW_UNSCOPED_LIVE_PAYMENTS: 'true',
    PROVIDER_TIMEOUT_MS: String(PROVIDER_TIMEOUT_MS),
    // Issue 23 item 2.3: the production record's hosts are the emulator's, on loopback over http.
    PROVIDER_ALLOWED_PRIVATE_HOSTS: new URL(emulator.url).host,
    ...env,
  });
  const admin = bearer(await logIn(app, ADMIN_EMAIL, ADMIN_PASSWORD));

  async function externalProvider(environment: 'sandbox' | 'production', apiKey: string): Promise<string> {
    const res = await app.request('POST', '/admin/providers', {
      headers: admin,
      json: {
        name: `Safe2Pay ${environment}`,
        kind: 'external',
        environment,
        enabled_methods: ['pix', 'boleto'],
        credentials: { api_key: apiKey },
        payment_host: emulator.paymentUrl,
        api_host: emulator.apiUrl,
      },
    });
    assert.equal(res.status, 201, res.text);
    // Issue 13 item 1: the hosts are configuration of the record, answered back; the key never is.
    assert.equal(res.body.data.payment_host, emulator.paymentUrl);
    assert.equal(res.body.data.api_host, emulator.apiUrl);
    assert.ok(!res.text.includes(apiKey));
    return res.body.data.id;
  }

  async function rules(tenantId: string, providerId: string): Promise<void> {
    for (const method of ['pix', 'boleto']) {
      const res = await app.request('POST', '/admin/rules', {
        headers: admin,
        json: { method, tenant_id: tenantId, provider_id: providerId, priority: 1 },
      });
      assert.equal(res.status, 201, res.text);
    }
  }

  const ctx = app.gateway.ctx;
  const production = await seedTenantAndKey(ctx, { livemode: true });
  const sandbox = await seedTenantAndKey(ctx, { livemode: true });
  const stranger = await seedTenantAndKey(ctx, { livemode: true });
  const { key: productionTestKey } = await issueApiKey(
    commandDeps(ctx),
    {
      tenantId: production.tenantId,
      livemode: false,
      name: 'test key',
      scopes: SCOPES,
      accessProfile: 'standard',
      createdBy: 'system:test',
    },
    metadata,
  );
  await rules(production.tenantId, await externalProvider('production', 'emu-production-key'));
  await rules(sandbox.tenantId, await externalProvider('sandbox', 'emu-sandbox-key'));
  return {
    app,
    emulator,
    control,
    admin,
    production,
    sandbox,
    productionTestKey,
    stranger,
    async close() {
      await app.close();
      await emulator.close();
    },
  };
}

/**
 * The world of a test file: started before its tests, closed after them, the emulator's faults, charges and
 * calls cleared before each test. Returned before it starts, so it can be bound at the top of the file; its
 * fields are read at test time (reading one outside a test or hook throws).
 */
export function useExternalProviderWorld(env: Record<string, string> = {}): ExternalProviderWorld {
  let current: ExternalProviderWorld | undefined;
  const started = (): ExternalProviderWorld => {
    if (!current) throw new Error('the provider emulator world is read before its beforeAll ran');
    return current;
  };
  beforeAll(async () => {
    current = await startExternalProviderWorld(env);
  });
  afterAll(async () => {
    await current?.close();
  });
  beforeEach(async () => {
    await started().control.reset();
  });
  return {
    get app() {
      return started().app;
    },
    get emulator() {
      return started().emulator;
    },
    get control() {
      return started().control;
    },
    get admin() {
      return started().admin;
    },
    get production() {
      return started().production;
    },
    get sandbox() {
      return started().sandbox;
    },
    get productionTestKey() {
      return started().productionTestKey;
    },
    get stranger() {
      return started().stranger;
    },
    close: () => started().close(),
  };
}

/** The live key routed to the case's environment. */
export function keyOf(world: ExternalProviderWorld, c: ChargeCase): string {
  return (c.environment === 'production' ? world.production : world.sandbox).key;
}

/**
 * A creation with a reference and an Idempotency-Key of its own; `send` may be called again for a replay.
 * The provider sees the transaction id as its reference.
 */
export function chargeRequest(
  world: ExternalProviderWorld,
  c: ChargeCase,
  key: string = keyOf(world, c),
  idempotencyKey: string = randomUUID(),
) {
  const reference = `order-${randomUUID()}`;
  const body = c.method === 'pix' ? pixBody({ reference }) : boletoBody({}, { reference });
  const send = (): Promise<TestResponse> =>
    world.app.request('POST', `/v1/${c.method}`, {
      headers: { 'x-api-key': key, 'idempotency-key': idempotencyKey },
      json: body,
    });
  return { send };
}

/** The transaction a creation answered, from `data` or from the error (502 provider_rejected). */
export function transactionIdOf(res: TestResponse): string {
  const id = res.body.data?.id ?? res.body.error?.transaction_id;
  assert.match(String(id), /^txn_/, res.text);
  return id;
}
