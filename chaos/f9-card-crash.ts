/**
 * F9 (issue 25 "Done when"): the API process is SIGKILLed in the middle of a card charge at a production
 * provider (the emulator), between tokenize and charge, then restarted:
 *
 * - round `tokenized`: the emulator holds its answer to `POST /v2/token` (the card is tokenized there, the
 *   answer late); the process is killed once the call is in the emulator's log, so the charge is never sent;
 * - round `charge held`: the emulator holds its answer to the card's `POST /v2/Payment` (a write: the
 *   emulator makes the charge at once and answers late); the process is killed once that call is logged.
 *
 * After the restart the reconciler (RECONCILE_AFTER_SECONDS=30, every second) settles both reservations:
 * the first to `unknown` or `failed` with no charge at the emulator, the second to the emulator's truth
 * (`paid` with exactly one charge, or `unknown`); SPEC 3.1: never sent again. The same requests replayed
 * (same Idempotency-Key and body) answer the stored record and never reach the emulator's charge endpoint.
 * Finally the data directory (logs included) and a dump of every table are searched for the card numbers
 * and security codes (random Luhn-valid numbers and unusual codes of this run): none (issue 25 item 2).
 */
import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { createGateway } from '../src/app.ts';
import { createProvider } from '../src/commands/providers/create/handler.ts';
import { providerDeps } from '../src/commands/providers/deps.ts';
import { createRoutingRule } from '../src/commands/routing-rules/create/handler.ts';
import { loadConfig } from '../src/config.ts';
import { createLogger } from '../src/logger.ts';
import type { Operation } from '../src/providers/emulator/faults.ts';
import { type ProviderEmulator, startProviderEmulator } from '../src/providers/emulator/server.ts';
import { cardBody, uniqueCardNumber } from '../test/support/cards.ts';
import { emulatorControl } from '../test/support/emulator-control.ts';
import {
  type Answer,
  type ChaosOptions,
  call,
  createChaosDatabase,
  fmt,
  freePort,
  GatewayProcess,
  gatewayEnv,
  log,
  onCleanup,
  printTable,
  printVerdicts,
  scratchDir,
  seed,
  sleep,
  type Verdict,
  withDb,
} from './support.ts';

/** Longer than a kill and a restart: the held answer never reaches the killed process. */
const HOLD_MS = 20_000;
/** The reconciler's shortest wait (30 s) plus its interval and a margin. */
const SETTLE_MS = 75_000;
const PROVIDER_TIMEOUT_MS = 5_000;

interface Round {
  name: string;
  held: Operation;
  number: string;
  code: string;
  idem: string;
  body: Record<string, unknown>;
  id?: string;
  /** ms from the request to the kill. */
  killedAfterMs?: number;
  firstReplay?: Answer;
  final?: Answer;
  lastReplay?: Answer;
  /** SPEC 4.6: a refresh after settling reads the provider (by reference) and never charges. */
  refreshed?: Answer;
}

/** A production provider on the emulator for the tenant's cards, with its own rule (issue 25). */
async function productionCards(databaseUrl: string, tenantId: string, emulator: ProviderEmulator) {
  const config = loadConfig({ ...gatewayEnv(databaseUrl, 0), DATABASE_POOL_SIZE: '4' });
  const gateway = await createGateway(config, createLogger('warn'), { bootstrap: false });
  const metadata = { actor: 'system:chaos', request_id: 'req_chaos_seed' };
  try {
    const deps = providerDeps(gateway.ctx);
    const { provider } = await createProvider(
      deps,
      {
        name: 'Emulator cards (production)',
        kind: 'external',
        environment: 'production',
        enabledMethods: ['credit_card'],
        isMarketplace: false,
        credentials: { api_key: 'emu-production-key' },
        paymentHost: emulator.paymentUrl,
        apiHost: emulator.apiUrl,
      },
      metadata,
    );
    await createRoutingRule(
      deps,
      { method: 'credit_card', tenantId, providerId: provider.id, priority: 1, enabled: true },
      metadata,
    );
  } finally {
    await gateway.close();
  }
}

/** Every file under `dir`, as text (logs, keys, anything the process wrote). */
function readTree(dir: string): string {
  const parts: string[] = [];
  for (const entry of readdirSync(dir)) {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) parts.push(readTree(path));
    else parts.push(readFileSync(path).toString('latin1'));
  }
  return parts.join('\n');
}

/** Every row of every user table (test/support/database-dump.ts, over a plain client). */
async function dumpDatabase(databaseUrl: string): Promise<string> {
  return withDb(databaseUrl, async (c) => {
    const { rows: tables } = await c.query<{ schema: string; name: string }>(
      `select table_schema as schema, table_name as name from information_schema.tables
       where table_type = 'BASE TABLE' and table_schema not in ('pg_catalog', 'information_schema')`,
    );
    const parts: string[] = [];
    for (const t of tables) {
      const { rows } = await c.query<{ line: string }>(
        `select r::text as line from "${t.schema}"."${t.name}" r`,
      );
      parts.push(...rows.map((r) => r.line));
    }
    return parts.join('\n');
  });
}

export async function runF9(_opts: ChaosOptions): Promise<boolean> {
  const dir = scratchDir('f9');
  const dataDir = join(dir, 'data');
  const emulator = await startProviderEmulator({ port: 0, host: '127.0.0.1' });
  onCleanup(() => emulator.close());
  const control = emulatorControl(emulator.url);
  const databaseUrl = await createChaosDatabase();
  const seeded = await seed(databaseUrl, [
    {
      name: 'merchant',
      keys: [{ name: 'live', scopes: ['credit_card:write', 'transactions:read'], livemode: true }],
    },
  ]);
  const tenant = seeded.tenants.merchant;
  const liveKey = tenant?.keys.live?.key;
  if (!tenant || !liveKey) throw new Error('seed failed');
  await productionCards(databaseUrl, tenant.tenantId, emulator);

  const port = await freePort();
  const gateway = new GatewayProcess(
    gatewayEnv(databaseUrl, port, {
      CALEBE_DATA_DIR: dataDir,
      LOG_LEVEL: 'info',
      PROVIDER_TIMEOUT_MS: String(PROVIDER_TIMEOUT_MS),
      RECONCILE_AFTER_SECONDS: '30',
      RECONCILE_INTERVAL_MS: '1000',
      ALLOW_LIVE_PAYMENTS: 'true',
      ALLOW_UNSCOPED_LIVE_PAYMENTS: 'true',
    }),
    dir,
  );
  await gateway.start();
  log(`F9: gateway on ${gateway.baseUrl}, emulator on ${emulator.url}`);
  const headers = (idem: string) => ({ 'x-api-key': liveKey, 'idempotency-key': idem });

  const rounds: Round[] = (
    [
      ['tokenized, charge never sent', 'tokenize', 0, '7319'],
      ['charge held at the provider', 'create', 0, '8462'],
    ] as const
  ).map(([name, held, last, code]) => {
    const number = uniqueCardNumber(last, [code]);
    return {
      name,
      held,
      number,
      code,
      idem: randomUUID(),
      body: cardBody(
        { number, security_code: code, holder: 'CHAOS PAYER' },
        { reference: `f9-${randomUUID()}` },
      ),
    };
  });

  const restarts: number[] = [];
  for (const round of rounds) {
    await control.fault({ operation: round.held, times: 1, fault: { type: 'latency', ms: HOLD_MS } });
    const before = (await control.calls({ operation: round.held })).length;
    const started = Date.now();
    const inFlight = call(gateway.baseUrl, 'POST', '/v1/credit-card', {
      headers: headers(round.idem),
      json: round.body,
    });
    // Kill as soon as the held call reached the emulator.
    while ((await control.calls({ operation: round.held })).length === before) {
      if (Date.now() - started > HOLD_MS) throw new Error(`F9: the ${round.held} call never arrived`);
      await sleep(5);
    }
    await gateway.kill('SIGKILL');
    round.killedAfterMs = Date.now() - started;
    const lost = await inFlight;
    if (lost.status !== 0) log(`F9: the killed request was answered ${lost.status} (expected none)`);
    restarts.push(await gateway.start());
    // SPEC 3.1: a replay that finds the reservation still processing is 202 processing, no provider call.
    round.firstReplay = await call(gateway.baseUrl, 'POST', '/v1/credit-card', {
      headers: headers(round.idem),
      json: round.body,
    });
    round.id = (round.firstReplay.body as { data?: { id?: string } } | null)?.data?.id;
    log(`F9: ${round.name}: killed after ${round.killedAfterMs} ms; replay ${round.firstReplay.status}`);
  }

  // Let the reconciler settle both reservations.
  const deadline = Date.now() + SETTLE_MS;
  const settledStatus = (a: Answer | undefined) =>
    (a?.body as { data?: { status?: string } } | null)?.data?.status ?? '-';
  for (;;) {
    for (const round of rounds) {
      if (!round.id) continue;
      round.final = await call(gateway.baseUrl, 'GET', `/v1/transactions/${round.id}`, {
        headers: { 'x-api-key': liveKey },
      });
    }
    if (rounds.every((r) => settledStatus(r.final) !== 'processing') || Date.now() > deadline) break;
    await sleep(1_000);
  }
  for (const round of rounds) {
    if (round.id)
      round.refreshed = await call(gateway.baseUrl, 'POST', `/v1/transactions/${round.id}/refresh`, {
        headers: { 'x-api-key': liveKey },
      });
    round.lastReplay = await call(gateway.baseUrl, 'POST', '/v1/credit-card', {
      headers: headers(round.idem),
      json: round.body,
    });
  }
  await gateway.stop();

  const allCalls = await control.calls();
  const emulated = new Map<string, Awaited<ReturnType<typeof control.charges>>>();
  for (const round of rounds) if (round.id) emulated.set(round.id, await control.charges(round.id));
  const creates = (id: string | undefined) =>
    allCalls.filter((c) => c.operation === 'create' && c.reference === id).length;
  const disk = readTree(dir);
  const dump = await dumpDatabase(databaseUrl);
  const leaks: string[] = [];
  for (const round of rounds) {
    for (const [where, text] of [
      ['data dir and logs', disk],
      ['database', dump],
    ] as const) {
      if (text.includes(round.number)) leaks.push(`${where}: number …${round.number.slice(-4)}`);
      if (new RegExp(`(?<![0-9A-Za-z.])${round.code}(?![0-9A-Za-z.])`).test(text))
        leaks.push(`${where}: code ${round.code}`);
    }
  }

  console.log('\nF9: rounds');
  printTable(
    [
      'round',
      'killed after ms',
      'replay after restart',
      'final status',
      'refresh after',
      'last replay',
      'charges at emulator',
      'charge calls',
    ],
    rounds.map((r) => [
      r.name,
      fmt(r.killedAfterMs ?? 0),
      `${r.firstReplay?.status} ${settledStatus(r.firstReplay)}`,
      settledStatus(r.final),
      `${r.refreshed?.status} ${settledStatus(r.refreshed) === '-' ? r.refreshed?.code : settledStatus(r.refreshed)}`,
      `${r.lastReplay?.status} ${settledStatus(r.lastReplay)}`,
      fmt(r.id ? (emulated.get(r.id)?.length ?? 0) : -1),
      fmt(creates(r.id)),
    ]),
  );
  console.log(`restart to /health ms: ${restarts.map((m) => fmt(m)).join(', ')}`);
  console.log(`searched: ${fmt(disk.length)} bytes on disk, ${fmt(dump.length)} bytes of database dump`);

  const [tokenized, held] = rounds as [Round, Round];
  const heldCharges = held.id ? (emulated.get(held.id) ?? []) : [];
  const verdicts: Verdict[] = [
    {
      check: 'every round killed between tokenize and the charge answer',
      target: 'held call logged, then SIGKILL; replay after restart 202 processing',
      measured: rounds.map((r) => `${r.firstReplay?.status} ${settledStatus(r.firstReplay)}`).join(', '),
      ok: rounds.every((r) => r.id !== undefined && r.firstReplay?.status === 202),
    },
    {
      check: 'killed before the charge: no card charge at the emulator, unknown or failed',
      target: '0 charges, unknown/failed',
      measured: `${tokenized.id ? (emulated.get(tokenized.id)?.length ?? 0) : '-'} charges, ${settledStatus(tokenized.final)}`,
      ok:
        tokenized.id !== undefined &&
        (emulated.get(tokenized.id)?.length ?? 0) === 0 &&
        creates(tokenized.id) === 0 &&
        ['unknown', 'failed'].includes(settledStatus(tokenized.final)) &&
        settledStatus(tokenized.refreshed) !== 'paid',
    },
    {
      check: 'killed while the charge was held: exactly one charge, the local state its truth',
      target: '1 charge; settled paid or unknown, a refresh reads it paid',
      measured: `${heldCharges.length} charges (status ${heldCharges.map((c) => c.status).join(',')}), ${settledStatus(held.final)}, refresh ${held.refreshed?.status} ${settledStatus(held.refreshed)}`,
      ok:
        heldCharges.length === 1 &&
        creates(held.id) === 1 &&
        (settledStatus(held.final) === 'unknown' ||
          (settledStatus(held.final) === 'paid' && heldCharges[0]?.status === 3)) &&
        settledStatus(held.refreshed) === 'paid',
    },
    {
      check: 'replays after settling: the stored record, no new charge call',
      target: '200 Idempotency-Replayed, charge calls unchanged',
      measured: rounds
        .map((r) => `${r.lastReplay?.status} ${String(r.lastReplay?.headers['idempotency-replayed'])}`)
        .join(', '),
      ok: rounds.every(
        (r) =>
          r.lastReplay?.status === 200 &&
          r.lastReplay.headers['idempotency-replayed'] === 'true' &&
          creates(r.id) <= 1,
      ),
    },
    {
      check: 'card numbers and security codes on disk or in the database',
      target: '0',
      measured: leaks.length === 0 ? '0' : leaks.join('; '),
      ok: leaks.length === 0,
    },
    {
      check: 'gateway exits other than the SIGKILLs',
      target: '0',
      measured: fmt(gateway.unexpectedExits.length),
      ok: gateway.unexpectedExits.length === 0,
    },
  ];
  return printVerdicts('F9 SIGKILL between tokenize and charge', verdicts);
}
