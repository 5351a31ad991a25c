/**
 * `npm run bench -- marketplace-issuance` (issue 28 item 7, "Scale"): `POST /v1/boleto` issued through a
 * marketplace subaccount (an `is_marketplace` sandbox provider, the tenant's active link, the subaccount's
 * sandbox token; SPEC 2.8) against the same request on a plain external sandbox provider (no marketplace),
 * and `GET /health`, on one gateway process, interleaved, ABBA order. Both go to the provider emulator, run
 * in this (the bench) process on loopback, so the gateway's CPU holds only the gateway's own work: routing,
 * the link lookup and the token, the reservation, the provider call and its record. Each side's CPU per
 * request (gateway + the database's PostgreSQL backends, from /proc) and their ratio, medians of --runs;
 * target marketplace/plain <= 1.2. Then a counting pass: round trips per creation of each side.
 */

import { randomBytes } from 'node:crypto';
import { startProviderEmulator } from '../src/providers/emulator/server.ts';
import { COMPANY_PARTS } from '../test/support/subaccount-fixtures.ts';
import { BENCH_CUSTOMER, type HttpBenchOptions, startHttpBench } from './create-pix.ts';
import type { GatewayProcess, LoadRun } from './http-server.ts';
import { pairedCreationRuns, postData } from './paired-creation.ts';
import { type BenchOptions, fmt } from './support.ts';
import type { WireFigures } from './wire-pass.ts';

const ADMIN = { email: 'bench-admin@example.com', password: 'bench admin password 0123' };

/** A boleto a week ahead; its payer as the external provider requires (document, phone, address). */
function boletoBody(): string {
  const due = new Date(Date.now() + 7 * 86_400_000).toISOString().slice(0, 10);
  return JSON.stringify({
    amount: 12_990,
    reference: 'fatura-48213',
    description: 'Fatura 48213 - plano mensal',
    customer: BENCH_CUSTOMER,
    boleto: { due_date: due },
  });
}

export interface MarketplaceIssuanceReport {
  marketplace: LoadRun[];
  plain: LoadRun[];
  health: LoadRun[];
  /** Median over runs of marketplace CPU / plain CPU per request (gateway + PostgreSQL). */
  ratio: number;
  gatewayRatio: number;
  medianMarketplaceCpuUs: number;
  medianPlainCpuUs: number;
  medianHealthCpuUs: number;
  wire: Record<string, WireFigures>;
}

/**
 * Through the panel API: the two sandbox providers on the emulator, two tenants each routed to one of them
 * for boleto, the marketplace tenant's subaccount created at the emulator and linked, a live key each.
 */
async function seed(
  gateway: GatewayProcess,
  emulator: { paymentUrl: string; apiUrl: string },
): Promise<{ marketplaceKey: string; plainKey: string; subaccountId: string }> {
  // The administrator is created as the gateway starts; its read model may trail the first request a little.
  let session: Record<string, unknown> | undefined;
  for (let attempt = 1; session === undefined; attempt++) {
    try {
      session = await postData(gateway, '/admin/sessions', ADMIN, {});
    } catch (error) {
      if (attempt >= 40) throw error;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
  const auth = { authorization: `Bearer ${String(session.token)}` };
  const type = await postData(
    gateway,
    '/admin/tenant-types',
    { name: 'bench marketplace', allows_children: true },
    auth,
  );
  const provider = async (name: string, isMarketplace: boolean, credentials: Record<string, string>) =>
    String(
      (
        await postData(
          gateway,
          '/admin/providers',
          {
            name,
            kind: 'external',
            environment: 'sandbox',
            enabled_methods: ['boleto'],
            is_marketplace: isMarketplace,
            credentials,
            payment_host: emulator.paymentUrl,
            api_host: emulator.apiUrl,
          },
          auth,
        )
      ).id,
    );
  const market = await provider('bench marketplace', true, {
    api_key: 'emu-matrix-sandbox-key',
    matrix_production_api_key: 'emu-production-key',
  });
  const plain = await provider('bench plain', false, { api_key: 'emu-sandbox-key' });
  const tenant = async (name: string, providerId: string) => {
    const t = String((await postData(gateway, '/admin/tenants', { name, type_id: type.id }, auth)).id);
    await postData(
      gateway,
      '/admin/rules',
      { method: 'boleto', tenant_id: t, provider_id: providerId, priority: 1 },
      auth,
    );
    return t;
  };
  const marketTenant = await tenant('bench client company', market);
  const plainTenant = await tenant('bench plain company', plain);
  const link = await postData(
    gateway,
    '/admin/subaccounts',
    {
      provider_id: market,
      tenant_id: marketTenant,
      name: 'Mercado Bench Ltda',
      commercial_name: 'Mercado Bench',
      document: '11222333000181',
      email: 'financeiro@mercado.example',
      ...COMPANY_PARTS,
    },
    auth,
  );
  if (link.status !== 'active') throw new Error(`the subaccount is ${String(link.status)}, not active`);
  const key = async (tenantId: string) =>
    String(
      (
        await postData(
          gateway,
          '/admin/api-keys',
          { tenant_id: tenantId, mode: 'live', scopes: ['boleto:write', 'transactions:read'], name: 'bench' },
          auth,
        )
      ).key,
    );
  return {
    marketplaceKey: await key(marketTenant),
    plainKey: await key(plainTenant),
    subaccountId: String(link.id),
  };
}

export async function benchMarketplaceIssuance(
  opts: BenchOptions,
  http: HttpBenchOptions,
): Promise<MarketplaceIssuanceReport> {
  const emulator = await startProviderEmulator({ port: 0, host: '127.0.0.1' });
  const env = {
    BOOTSTRAP_ADMIN_EMAIL: ADMIN.email,
    BOOTSTRAP_ADMIN_PASSWORD: ADMIN.password,
    CREDENTIALS_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    PROVIDER_TIMEOUT_MS: '10000',
  };
  const { bench, gateway } = await startHttpBench(
    'marketplace-issuance (issue 28 item 7): POST /v1/boleto through a marketplace subaccount vs a plain external provider vs GET /health',
    opts,
    http,
    env,
  ).catch(async (error: unknown) => {
    await emulator.close();
    throw error;
  });
  try {
    const { marketplaceKey, plainKey, subaccountId } = await seed(gateway, emulator);
    const body = boletoBody();
    // One creation each before any load: issued at the emulator, the marketplace one through its subaccount.
    for (const [side, key] of [
      ['marketplace', marketplaceKey],
      ['plain', plainKey],
    ] as const) {
      const t = await postData(gateway, '/v1/boleto', body, { 'x-api-key': key });
      const expected = side === 'marketplace' ? subaccountId : null;
      if (t.simulated !== false || t.status !== 'pending' || t.subaccount_id !== expected) {
        throw new Error(`${side}: ${JSON.stringify(t).slice(0, 300)}`);
      }
      console.log(
        `${side}: one creation, status ${String(t.status)}, subaccount_id ${String(t.subaccount_id)}`,
      );
    }
    const paired = await pairedCreationRuns(
      { opts, http, bench, gateway, env },
      { path: '/v1/boleto', body },
      [
        { name: 'marketplace', key: marketplaceKey },
        { name: 'plain', key: plainKey },
      ],
    );
    const report: MarketplaceIssuanceReport = {
      marketplace: paired.runs[0],
      plain: paired.runs[1],
      health: paired.health,
      ratio: paired.ratio,
      gatewayRatio: paired.gatewayRatio,
      medianMarketplaceCpuUs: paired.medianCpuUs[0],
      medianPlainCpuUs: paired.medianCpuUs[1],
      medianHealthCpuUs: paired.medianHealthCpuUs,
      wire: paired.wire,
    };
    const trips = (k: string) => paired.wire[k]?.roundTrips ?? Number.NaN;
    console.log(
      `\nmedian CPU per request: marketplace ${fmt(report.medianMarketplaceCpuUs)} µs; plain ${fmt(
        report.medianPlainCpuUs,
      )} µs; /health ${fmt(report.medianHealthCpuUs)} µs; marketplace/plain median of the runs' ratios ${fmt(
        report.ratio,
        2,
      )} (gateway alone ${fmt(report.gatewayRatio, 2)}; target <= 1.2); round trips per creation: marketplace ${fmt(
        trips('POST /v1/boleto marketplace'),
        2,
      )}, plain ${fmt(trips('POST /v1/boleto plain'), 2)}`,
    );
    return report;
  } finally {
    await gateway.stop();
    await bench.drop();
    await emulator.close();
  }
}
