/**
 * F7 (issue 14 "Two processes, one database"): two `--role api` and two `--role worker` processes on one
 * fresh PostgreSQL database and one Redis (a throwaway redis-server of its own, as F3), behind a round-robin
 * client (chaos/cluster.ts). For `--seconds` (default 60) one of them, alternating api / worker and A / B,
 * is SIGKILLed every 3 to 5 s (never both of one role at once) and restarted at once, while:
 *
 * (a) rounds of 100 concurrent identical boleto creations (same Idempotency-Key, same body), split across
 *     both API processes, go to an external provider in sandbox served by the provider emulator: each round
 *     must make one charge and one provider creation call, counted at the emulator (`/_emulator/calls`);
 * (b) Pix charges of a tenant with a webhook endpoint are created and simulated `paid`; a receiver socket
 *     records every delivery. SPEC 6 promises signed events; the gateway's contract (docs/decisions.md
 *     "Webhooks") is at-least-once under a stable `webhook-id`. So: every delivery arrives at least once,
 *     verified, a repeated webhook-id carries the same body, and a (destination, webhook-id) arrives twice
 *     only when a worker was SIGKILLed between the send and its record (the claim's lease then ends and
 *     the delivery is sent again): no repeat without such a kill;
 * (c) 200 requests of one key, split across both API processes, inside one minute: at most 120 succeed and
 *     the rest get `429 rate_limit_exceeded` (SPEC 8), from both processes (a per-process limit would let
 *     about 100 through each and answer no 429 at all). The burst lasts a few seconds and starts with both
 *     API processes up; no API process is killed during it (a dead one would take no share), workers are;
 * (d) charges left `processing` by an API process SIGKILLed during its provider call are marked `unknown`
 *     by the reconciler of one worker: exactly one `Transaction.Unconfirmed` each (and never two on any
 *     charge), under the lease of src/workers/lease.ts, sampled from `pg_locks`; each then stays `unknown`
 *     or is settled by that reconciler's query (issue 13 item 7: the emulator holds the charge, so it ends
 *     `pending`), never `processing`.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import pg from 'pg';
import { Webhook } from 'standardwebhooks';
import { median } from '../bench/support.ts';
import { startProviderEmulator } from '../src/providers/emulator/server.ts';
import { boletoBody } from '../test/support/charges.ts';
import { emulatorControl } from '../test/support/emulator-control.ts';
import { RoleProcess, RoundRobin, type RoutedAnswer } from './cluster.ts';
import {
  ADMIN_EMAIL,
  ADMIN_PASSWORD,
  auditReplay,
  background,
  type ChaosOptions,
  Counter,
  call,
  fmt,
  freePort,
  log,
  onCleanup,
  pixBody,
  printTable,
  printVerdicts,
  redisAndDatabase,
  scratchDir,
  sleep,
  type Verdict,
  withDb,
} from './support.ts';

/** Identical creations per round (issue 14). */
const ROUND_SIZE = 100;
/** Rounds at most (each has two API keys of its own: 100 requests plus retries stay under 2 x 120/min). */
const MAX_ROUNDS = 40;
/** Charges staged in `processing` for the reconciler. */
const STALE = 6;
/** Requests of the rate-limit burst (SPEC 8: 120 per minute per key). */
const BURST = 200;
const LIMIT = 120;
/** Keys the webhook load rotates over (each stays well under 120/min). */
const HOOK_KEYS = 8;
/** The delivery worker's attempt timeout; its claim lease is twice this plus 30 s. */
const WEBHOOK_TIMEOUT_MS = 3_000;
/** How long the receiver takes to answer 204 after reading a delivery. */
const RECEIVER_DELAY_MS = 250;
/** After the chaos, how long deliveries and `processing` charges may take to settle. */
const SETTLE_MS = 90_000;

interface Receipt {
  path: string;
  id: string;
  bodyHash: string;
  verified: boolean;
  at: number;
}

interface Kill {
  at: number;
  name: string;
  role: 'api' | 'worker';
}

interface Round {
  n: number;
  key: string;
  answers: RoutedAnswer[];
  /** Transaction ids named by the 2xx answers. */
  ids: Set<string>;
  /** Requests that never got a 2xx before the round's deadline. */
  unanswered: number;
  sent: number;
}

const txnIdOf = (a: RoutedAnswer) =>
  (a.body as { data?: { id?: string } } | null)?.data?.id ??
  (a.body as { error?: { transaction_id?: string } } | null)?.error?.transaction_id;

export async function runF7(opts: ChaosOptions): Promise<boolean> {
  const dir = scratchDir('f7');
  const emulator = await startProviderEmulator({ port: 0, host: '127.0.0.1' });
  onCleanup(() => emulator.close());
  const control = emulatorControl(emulator.url);

  // The webhook receiver: always 204, records everything.
  const receipts: Receipt[] = [];
  const secrets: { hook?: string } = {};
  const receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const id = String(req.headers['webhook-id']);
      let verified = false;
      try {
        new Webhook(secrets.hook as string).verify(body, {
          'webhook-id': id,
          'webhook-timestamp': String(req.headers['webhook-timestamp']),
          'webhook-signature': String(req.headers['webhook-signature']),
        });
        verified = true;
      } catch {
        verified = false;
      }
      const path = (req.url ?? '').split('?')[0] as string;
      const bodyHash = createHash('sha256').update(body).digest('hex');
      receipts.push({ path, id, bodyHash, verified, at: Date.now() });
      // A receiver that takes a moment to answer: a worker SIGKILLed meanwhile has sent but not recorded.
      setTimeout(() => {
        res.statusCode = 204;
        res.end();
      }, RECEIVER_DELAY_MS);
    });
  });
  const receiverPort = await freePort();
  await new Promise<void>((r) => receiver.listen(receiverPort, '127.0.0.1', r));
  onCleanup(async () => {
    receiver.closeAllConnections();
    await new Promise((r) => receiver.close(r));
  });

  const roundKeys = Array.from({ length: MAX_ROUNDS * 2 }, (_, i) => ({
    name: `round${i}`,
    scopes: ['boleto:write', 'transactions:read'] as const,
    livemode: true,
  }));
  const {
    databaseUrl,
    seeded,
    env: redisEnv,
  } = await redisAndDatabase([
    { name: 'shop', keys: roundKeys.map((k) => ({ ...k, scopes: [...k.scopes] })) },
    {
      name: 'stale',
      keys: [{ name: 'writer', scopes: ['boleto:write', 'transactions:read'], livemode: true }],
    },
    {
      name: 'hooks',
      keys: Array.from({ length: HOOK_KEYS }, (_, i) => ({
        name: `hook${i}`,
        scopes: ['pix:write', 'transactions:read'] as ['pix:write', 'transactions:read'],
      })),
      webhookUrl: `http://127.0.0.1:${receiverPort}/hook`,
    },
    { name: 'limit', keys: [{ name: 'reader', scopes: ['transactions:read'] }] },
  ]);
  const shop = seeded.tenants.shop;
  const stale = seeded.tenants.stale;
  const hooks = seeded.tenants.hooks;
  const limited = seeded.tenants.limit;
  secrets.hook = seeded.endpointSecrets.hooks;
  if (!shop || !stale?.keys.writer || !hooks || !limited?.keys.reader || !secrets.hook) {
    throw new Error('seed failed');
  }
  const staleKey = stale.keys.writer.key;

  const shared = {
    RATE_LIMIT_PER_MINUTE: String(LIMIT),
    RECONCILE_AFTER_SECONDS: '30',
    RECONCILE_INTERVAL_MS: '250',
    PROVIDER_TIMEOUT_MS: '20000',
    WEBHOOK_ALLOWED_PRIVATE_HOSTS: `127.0.0.1:${receiverPort}`,
    WEBHOOK_CONNECT_TIMEOUT_MS: '1000',
    WEBHOOK_TIMEOUT_MS: String(WEBHOOK_TIMEOUT_MS),
    // Four processes on a shared server: modest pools.
    DATABASE_POOL_SIZE: '8',
    WEBHOOK_POOL_SIZE: '2',
  };
  const env = async () => redisEnv(await freePort(), shared);
  const apiA = new RoleProcess('api-A', 'api', await env(), dir);
  const apiB = new RoleProcess('api-B', 'api', await env(), dir);
  const workerA = new RoleProcess('worker-A', 'worker', await env(), dir);
  const workerB = new RoleProcess('worker-B', 'worker', await env(), dir);
  const all: RoleProcess[] = [apiA, apiB, workerA, workerB];
  // All four at once: the first administrator is bootstrapped by whichever wins (SPEC 5).
  const firstStarts = await Promise.all(all.map((p) => p.start()));
  log(`F7: ${all.map((p) => `${p.name} ${p.role === 'api' ? p.baseUrl : '(no HTTP)'}`).join(', ')}`);
  const lb = new RoundRobin([apiA, apiB]);

  // The external provider in sandbox (the emulator) and boleto rules for the two tenants that use it.
  const login = await call(apiA.baseUrl, 'POST', '/admin/sessions', {
    json: { email: ADMIN_EMAIL, password: ADMIN_PASSWORD },
  });
  if (login.status !== 201) throw new Error(`login: ${login.status} ${JSON.stringify(login.body)}`);
  const admin = { authorization: `Bearer ${(login.body as { data: { token: string } }).data.token}` };
  const provider = await call(apiB.baseUrl, 'POST', '/admin/providers', {
    headers: admin,
    json: {
      name: 'Safe2Pay sandbox (emulator)',
      kind: 'external',
      environment: 'sandbox',
      enabled_methods: ['boleto'],
      credentials: { api_key: 'emu-sandbox-key' },
      payment_host: emulator.paymentUrl,
      api_host: emulator.apiUrl,
    },
  });
  if (provider.status !== 201)
    throw new Error(`provider: ${provider.status} ${JSON.stringify(provider.body)}`);
  const providerId = (provider.body as { data: { id: string } }).data.id;
  for (const tenantId of [shop.tenantId, stale.tenantId]) {
    const rule = await call(apiA.baseUrl, 'POST', '/admin/rules', {
      headers: admin,
      json: { method: 'boleto', tenant_id: tenantId, provider_id: providerId, priority: 1 },
    });
    if (rule.status !== 201) throw new Error(`rule: ${rule.status} ${JSON.stringify(rule.body)}`);
  }

  // (d) staging: creations whose provider call never answers, and the API process making them dies.
  const kills: Kill[] = [];
  await control.fault({ operation: 'create', times: STALE, fault: { type: 'no_answer' } });
  const staged = Array.from({ length: STALE }, (_, i) =>
    call(apiA.baseUrl, 'POST', '/v1/boleto', {
      headers: { 'x-api-key': staleKey, 'idempotency-key': `f7-stale-${i}` },
      json: boletoBody({}, { reference: `f7-stale-${i}`, amount: 5_000 + i }),
    }),
  );
  for (let i = 0; ; i++) {
    const hung = (await control.calls({ operation: 'create' })).filter((c) => c.fault === 'no_answer');
    if (hung.length >= STALE) break;
    if (i > 600) throw new Error(`only ${hung.length} of ${STALE} staged creations reached the emulator`);
    await sleep(50);
  }
  // Not one of the chaos's kills (counted apart): it only leaves the charges behind.
  await apiA.kill('SIGKILL');
  await Promise.all(staged);
  const restarts: number[] = [await apiA.start()];
  const staleIds = await withDb(databaseUrl, async (c) =>
    (
      await c.query<{ id: string; status: string }>(
        'select id, status from transactions where tenant_id = $1',
        [stale.tenantId],
      )
    ).rows.filter((r) => r.status === 'processing'),
  );
  log(`F7: ${staleIds.length} charges left processing by the SIGKILLed ${apiA.name}`);

  // The reconciler's lease, sampled from pg_locks: who holds it, never two at once.
  const holderSamples = new Counter();
  let mostHolders = 0;
  let sampling = true;
  const probe = new pg.Client({ connectionString: databaseUrl });
  await probe.connect();
  onCleanup(() => probe.end().catch(() => {}));
  const sampler = background(async () => {
    while (sampling) {
      const holders = await (async (c: pg.Client) => {
        const { rows } = await c.query<{ application_name: string }>(
          `select a.application_name from pg_locks l join pg_stat_activity a on a.pid = l.pid
           where l.locktype = 'advisory' and l.granted and l.objsubid = 1
             and ((l.classid::bigint << 32) | l.objid::bigint) = hashtext($1)::bigint`,
          ['calebe:job:reconciler'],
        );
        return rows.map((r) => r.application_name);
      })(probe).catch(() => [] as string[]);
      mostHolders = Math.max(mostHolders, holders.length);
      for (const h of holders) {
        const pid = Number(/pid=(\d+)/.exec(h)?.[1]);
        // pg_stat_activity is a snapshot: a backend caught between two of its statements may read unnamed.
        holderSamples.add(all.find((p) => p.pids.includes(pid))?.name ?? (h ? `other (${h})` : 'unnamed'));
      }
      await sleep(25);
    }
  });

  // The chaos: one process SIGKILLed every 3-5 s, alternating api / worker and A / B, and restarted at
  // once in the background (restarts take longer than that on a busy machine): at most one process of each
  // role is down at a time, so the service stays up while it is degraded.
  const started = Date.now();
  const chaosUntil = started + opts.seconds * 1000;
  const victims = [workerA, apiB, workerB, apiA];
  const siblingOf = (p: RoleProcess) => all.find((q) => q.role === p.role && q !== p) as RoleProcess;
  let burstRunning = false;
  const restarting: Promise<void>[] = [];
  const killer = background(async () => {
    for (let n = 0; ; n++) {
      await sleep(3_000 + Math.random() * 2_000);
      const victim = victims[n % victims.length] as RoleProcess;
      // Both of the victim's role ready; (c) counts answers per API process, so no API kill during it.
      while (
        Date.now() < chaosUntil &&
        (!victim.ready || !siblingOf(victim).ready || (victim.role === 'api' && burstRunning))
      ) {
        await sleep(20);
      }
      if (Date.now() >= chaosUntil) return;
      kills.push({ at: Date.now(), name: victim.name, role: victim.role });
      await victim.kill('SIGKILL');
      restarting.push(
        victim.start().then((ms) => {
          restarts.push(ms);
        }),
      );
    }
  });

  // (a) rounds of identical creations.
  const rounds: Round[] = [];
  const roundsDone = background(async () => {
    for (let n = 0; n < MAX_ROUNDS && Date.now() < chaosUntil; n++) {
      const key = `f7-round-${n}-${started.toString(36)}`;
      const body = boletoBody({}, { reference: key, amount: 10_000 + n });
      const apiKeys = [shop.keys[`round${2 * n}`]?.key, shop.keys[`round${2 * n + 1}`]?.key] as string[];
      const round: Round = { n, key, answers: [], ids: new Set(), unanswered: 0, sent: 0 };
      const deadline = Date.now() + 45_000;
      await Promise.all(
        Array.from({ length: ROUND_SIZE }, async (_, i) => {
          // Same key and body; a reset mid-request (the process died) is repeated, as SPEC 7 asks.
          for (let backoff = 100; Date.now() < deadline; backoff = Math.min(1_000, backoff * 2)) {
            const a = await lb.call('POST', '/v1/boleto', {
              headers: { 'x-api-key': apiKeys[i % 2] as string, 'idempotency-key': key },
              json: body,
            });
            round.sent++;
            round.answers.push(a);
            if (a.status >= 200 && a.status < 300) {
              const id = txnIdOf(a);
              if (id) round.ids.add(id);
              return;
            }
            if (a.status !== 0 && a.status < 500) return;
            await sleep(backoff * (0.5 + Math.random()));
          }
          round.unanswered++;
        }),
      );
      rounds.push(round);
      await sleep(300);
    }
  });

  // (b) webhook load: Pix charges created and simulated paid through the balancer.
  const created: string[] = [];
  const paid: string[] = [];
  const leftProcessing: string[] = [];
  const hookErrors = new Counter();
  const hookLoad = background(async () => {
    let charge = 0;
    const loop = async (w: number) => {
      for (let n = 0; Date.now() < chaosUntil; n++) {
        const c = charge++;
        const apiKey = hooks.keys[`hook${c % HOOK_KEYS}`]?.key as string;
        const ref = `f7-hook-${w}-${n}`;
        let id: string | undefined;
        for (let tries = 0; !id && tries < 20; tries++) {
          const a = await lb.call('POST', '/v1/pix', {
            headers: { 'x-api-key': apiKey, 'idempotency-key': ref },
            json: pixBody(ref, 700 + n),
          });
          if (a.status === 200 || a.status === 201) id = txnIdOf(a);
          else if (a.status === 202) {
            // SPEC 3.1: the first attempt's process died before recording the outcome; the charge stays
            // `processing` until the reconciler marks it `unknown`: created (and announced), not payable.
            const left = txnIdOf(a);
            if (left) {
              created.push(left);
              leftProcessing.push(left);
            }
            break;
          } else if (a.status !== 0 && a.status < 500) {
            hookErrors.add(`create ${a.status} ${a.code}`);
            break;
          } else await sleep(200);
        }
        if (!id) continue;
        created.push(id);
        for (let tries = 0; tries < 20; tries++) {
          const s = await lb.call('POST', `/v1/transactions/${id}/simulate`, {
            headers: { 'x-api-key': apiKey },
            json: { status: 'paid' },
          });
          if (s.status === 200) {
            paid.push(id);
            break;
          }
          if (s.status === 409) {
            // A repeat after a lost answer: the first attempt may have applied it; read it back.
            const g = await lb.call('GET', `/v1/transactions/${id}`, { headers: { 'x-api-key': apiKey } });
            if ((g.body as { data?: { status?: string } } | null)?.data?.status === 'paid') paid.push(id);
            else hookErrors.add(`simulate 409 ${s.code}`);
            break;
          }
          if (s.status !== 0 && s.status < 500) {
            hookErrors.add(`simulate ${s.status} ${s.code}`);
            break;
          }
          await sleep(200);
        }
        await sleep(250);
      }
    };
    await Promise.all([loop(0), loop(1)]);
  });

  // (c) the shared limit: one key, BURST requests across both API processes, 15 s into the chaos.
  const burst: RoutedAnswer[] = [];
  let burstMs = 0;
  const burstDone = background(async () => {
    await sleep(15_000);
    while (!apiA.ready || !apiB.ready) await sleep(20);
    burstRunning = true;
    const t = Date.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: 4 }, async () => {
        while (next < BURST) {
          next++;
          burst.push(
            await lb.call('GET', '/v1/transactions?limit=1', {
              headers: { 'x-api-key': limited.keys.reader?.key as string },
            }),
          );
        }
      }),
    );
    burstMs = Date.now() - t;
    burstRunning = false;
  });

  await Promise.all([roundsDone.join(), hookLoad.join(), burstDone.join(), killer.join()]);
  await Promise.all(restarting);
  log(`F7: chaos over after ${fmt((Date.now() - started) / 1000)} s: ${kills.length} SIGKILLs`);
  // Every process up again (the killer restarts each victim before its next pick).
  for (const p of all) if (!p.running) restarts.push(await p.start());

  // Settle: deliveries sent (a SIGKILLed worker's claims wait out their lease), `processing` resolved.
  const settleUntil = Date.now() + SETTLE_MS;
  const unsettled = () =>
    withDb(databaseUrl, async (c) => {
      const { rows } = await c.query<{ pending: string; processing: string }>(
        `select (select count(*) from webhook_deliveries where status = 'pending') as pending,
                (select count(*) from transactions where status = 'processing') as processing`,
      );
      return { pending: Number(rows[0]?.pending), processing: Number(rows[0]?.processing) };
    });
  let left = await unsettled();
  while ((left.pending > 0 || left.processing > 0) && Date.now() < settleUntil) {
    await sleep(1_000);
    left = await unsettled();
  }
  const settledSeconds = (Date.now() - chaosUntil) / 1000;
  sampling = false;
  await sampler.join();
  const exits = all.flatMap((p) => p.unexpectedExits.map((e) => `${p.name} ${e}`));
  for (const p of all) await p.kill('SIGTERM');

  // ---------------------------------------------------------------- post-mortem
  const db = await withDb(databaseUrl, async (c) => {
    const txns = (
      await c.query<{ id: string; tenant_id: string; reference: string; status: string }>(
        'select id, tenant_id, reference, status from transactions',
      )
    ).rows;
    const unconfirmed = (
      await c.query<{ stream_id: string; n: string; actor: string }>(
        `select stream_id, count(*) as n, min(metadata->>'actor') as actor from events
          where type = 'Transaction.Unconfirmed' group by stream_id`,
      )
    ).rows;
    const deliveries = (
      await c.query<{
        id: string;
        message_id: string;
        destination: string;
        status: string;
        recorded: string;
        delivered: string;
      }>(
        `select d.id, d.message_id, d.destination, d.status,
           (select count(*) from webhook_attempts a where a.delivery_id = d.id) as recorded,
           (select count(*) from webhook_attempts a where a.delivery_id = d.id and a.outcome = 'delivered')
             as delivered
         from webhook_deliveries d`,
      )
    ).rows;
    const messages = (
      await c.query<{ id: string; type: string; transaction_id: string; status: string }>(
        'select id, type, transaction_id, status from webhook_messages',
      )
    ).rows;
    return { txns, unconfirmed, deliveries, messages };
  });
  const audit = auditReplay(databaseUrl);
  const calls = await control.calls({ operation: 'create' });

  // (a)
  const byReference = new Map<string, typeof db.txns>();
  for (const t of db.txns.filter((t) => t.tenant_id === shop.tenantId)) {
    byReference.set(t.reference, [...(byReference.get(t.reference) ?? []), t]);
  }
  const callsByRef = new Counter();
  for (const c of calls) if (c.reference) callsByRef.add(c.reference);
  const roundAnswers = new Counter();
  let roundsSplit = 0;
  let roundsOneId = 0;
  let roundsOneCharge = 0;
  let roundsOneCall = 0;
  let roundsNoCallUnknown = 0;
  const roundProblems: string[] = [];
  let created201 = 0;
  for (const r of rounds) {
    for (const a of r.answers) roundAnswers.add(String(a.status));
    created201 += r.answers.filter((a) => a.status === 201).length;
    const answeredBy = new Set(
      r.answers.filter((a) => a.status >= 200 && a.status < 300).map((a) => a.backend),
    );
    if (answeredBy.size === 2) roundsSplit++;
    if (r.ids.size === 1) roundsOneId++;
    const rows = byReference.get(r.key) ?? [];
    if (rows.length === 1) roundsOneCharge++;
    const row = rows[0];
    const n = row ? callsByRef.get(row.id) : 0;
    if (n === 1) roundsOneCall++;
    // A process killed after the reservation and before its provider call: no call, the charge `unknown`.
    if (n === 0 && row?.status === 'unknown') roundsNoCallUnknown++;
    if (r.ids.size !== 1 || rows.length !== 1 || !(n === 1 || (n === 0 && row?.status === 'unknown'))) {
      roundProblems.push(`round ${r.n}: ids ${[...r.ids].join(',')}, rows ${rows.length}, calls ${n}`);
    }
  }
  const refused = rounds.flatMap((r) => r.answers.filter((a) => a.status >= 400 && a.status < 500));
  const unanswered = rounds.reduce((sum, r) => sum + r.unanswered, 0);
  const roundStatuses = new Counter();
  for (const r of rounds) roundStatuses.add(byReference.get(r.key)?.[0]?.status ?? 'none');
  const roundCharges = new Set(rounds.flatMap((r) => (byReference.get(r.key) ?? []).map((t) => t.id)));
  const callsForRounds = calls.filter((c) => c.reference && roundCharges.has(c.reference)).length;

  // (b)
  const received = new Map<string, Receipt[]>();
  for (const r of receipts)
    received.set(`${r.path} ${r.id}`, [...(received.get(`${r.path} ${r.id}`) ?? []), r]);
  const workerKills = kills.filter((k) => k.role === 'worker');
  const missing: string[] = [];
  for (const d of db.deliveries) {
    if (d.destination !== 'endpoint') continue;
    if (!(received.get(`/hook ${d.message_id}`) ?? []).some((r) => r.verified)) missing.push(d.id);
  }
  // Every send the receiver saw is either a recorded attempt (`webhook_attempts`) or the send of a worker
  // SIGKILLed before its poll recorded it; only the latter lets the claim's lease lapse and the delivery go
  // out again. So, per delivery: recorded as delivered exactly once (two live workers never both sent it),
  // and any receipt beyond the recorded attempts has a worker kill within its record window (the send, the
  // rest of that poll's sends, the record: a few seconds).
  let repeats = 0;
  let unexplained = 0;
  let recordedTwice = 0;
  let bodyChanged = 0;
  const recordWindowMs = 5_000;
  for (const d of db.deliveries) {
    if (d.destination !== 'endpoint') continue;
    const list = received.get(`/hook ${d.message_id}`) ?? [];
    if (Number(d.delivered) > 1) recordedTwice++;
    if (list.length < 2) continue;
    repeats += list.length - 1;
    if (new Set(list.map((r) => r.bodyHash)).size > 1) bodyChanged++;
    const unrecorded = list.length - Number(d.recorded);
    const killedAfter = list.some((r) =>
      workerKills.some((k) => k.at >= r.at - 500 && k.at <= r.at + recordWindowMs),
    );
    if (unrecorded > 0 && !killedAfter) unexplained++;
  }
  const deliveryStatuses = new Counter();
  for (const d of db.deliveries) deliveryStatuses.add(d.status);
  const createdMessages = new Set(
    db.messages.filter((m) => m.type === 'transaction.created').map((m) => m.transaction_id),
  );
  const paidMessages = new Set(
    db.messages
      .filter((m) => m.type === 'transaction.updated' && m.status === 'paid')
      .map((m) => m.transaction_id),
  );
  const uncovered =
    created.filter((id) => !createdMessages.has(id)).length +
    paid.filter((id) => !paidMessages.has(id)).length;

  // (c)
  const burstBy = new Counter();
  for (const a of burst) burstBy.add(`${a.backend} ${a.status}`);
  const burstOk = burst.filter((a) => a.status === 200);
  const burst429 = burst.filter((a) => a.status === 429 && a.code === 'rate_limit_exceeded');
  const burstLost = burst.filter((a) => a.status === 0).length;
  const burstOther = burst.length - burstOk.length - burst429.length - burstLost;
  const firstLimited = burst.findIndex((a) => a.status === 429);

  // (d)
  const unconfirmedBy = new Map(db.unconfirmed.map((u) => [u.stream_id, u]));
  const staleMarkedOnce = staleIds.filter((s) => {
    const u = unconfirmedBy.get(`transaction-${s.id}`);
    return u && Number(u.n) === 1 && u.actor === 'system:reconciler';
  }).length;
  // Marked unknown, then either still unknown or settled by the reconciler's query (issue 13 item 7).
  const staleAccounted = staleIds.filter((s) =>
    ['unknown', 'pending'].includes(db.txns.find((t) => t.id === s.id)?.status ?? ''),
  ).length;
  const twice = db.unconfirmed.filter((u) => Number(u.n) > 1).length;
  // Who marked them: the reconciler logs one line per charge it marked (both workers' logs, all starts).
  const markedBy = new Counter();
  const markedLines = new Counter();
  for (const w of [workerA, workerB]) {
    let text = '';
    try {
      text = readFileSync(w.logFile, 'utf8');
    } catch {
      // no log yet
    }
    for (const line of text.split('\n')) {
      if (!line.includes('marked unknown')) continue;
      const id = /"transaction_id":"([^"]+)"/.exec(line)?.[1];
      if (!id) continue;
      markedBy.add(w.name);
      markedLines.add(id);
    }
  }
  const loggedTwice = [...markedLines.counts.values()].filter((n) => n > 1).length;

  console.log('\nF7: two API and two worker processes');
  printTable(
    ['figure', 'value'],
    [
      ['chaos seconds', fmt(opts.seconds)],
      [
        'SIGKILLs during the chaos (api / worker), besides the staging one',
        `${kills.filter((k) => k.role === 'api').length} / ${workerKills.length}`,
      ],
      [
        'SIGKILLs by process',
        (() => {
          const c = new Counter();
          for (const k of kills) c.add(k.name);
          return c.toString();
        })(),
      ],
      ['first start, all four at once, max ms', fmt(Math.max(...firstStarts))],
      ['restart to ready, median / max ms', `${fmt(median(restarts))} / ${fmt(Math.max(...restarts))}`],
      ['(a) rounds of 100 identical creations', fmt(rounds.length)],
      ['(a) requests sent (with repeats after resets)', fmt(rounds.reduce((s, r) => s + r.sent, 0))],
      ['(a) answers by status (0 = connection reset)', roundAnswers.toString()],
      ['(a) 201 answers / rounds', `${created201} / ${rounds.length}`],
      ['(a) rounds answered 2xx by both API processes', `${roundsSplit} / ${rounds.length}`],
      ['(a) final round charge statuses', roundStatuses.toString()],
      ['(a) provider creation calls for the rounds', `${callsForRounds} for ${rounds.length} rounds`],
      ['(b) Pix charges created / simulated paid', `${created.length} / ${paid.length}`],
      ['(b) load errors', hookErrors.toString() || 'none'],
      ['(b) creations answered 202 (process died mid-creation)', fmt(leftProcessing.length)],
      [
        '(b) webhook messages / endpoint deliveries',
        `${db.messages.length} / ${db.deliveries.filter((d) => d.destination === 'endpoint').length}`,
      ],
      ['(b) final delivery statuses', deliveryStatuses.toString()],
      ['(b) receipts / distinct (path, webhook-id)', `${receipts.length} / ${received.size}`],
      ['(b) repeated receipts (after a worker SIGKILL mid-attempt)', fmt(repeats)],
      [
        '(b) recorded attempts (all delivered) / receipts',
        `${db.deliveries.reduce((n, d) => n + Number(d.recorded), 0)} / ${receipts.length}`,
      ],
      ['(c) burst: requests in ms', `${burst.length} in ${fmt(burstMs)}`],
      ['(c) burst answers by process and status', burstBy.toString()],
      ['(c) first 429 at request #', fmt(firstLimited + 1)],
      [
        '(d) charges staged processing / now unknown or settled pending',
        `${staleIds.length} / ${staleAccounted}`,
      ],
      ['(d) charges marked, by the worker that logged it', markedBy.toString() || 'none'],
      ['(d) reconciler lease samples by holder', holderSamples.toString() || 'none sampled'],
      [
        'settled after the chaos',
        `${fmt(settledSeconds)} s (pending deliveries ${left.pending}, processing ${left.processing})`,
      ],
      ['audit replay', `exit ${audit.code}: ${audit.summary}`],
    ],
  );
  if (roundProblems.length > 0) console.log('round problems:', roundProblems.slice(0, 10));
  if (missing.length > 0) console.log('deliveries never received:', missing.slice(0, 10));
  if (exits.length > 0) console.log('unexpected exits:', exits);

  const verdicts: Verdict[] = [
    {
      check: 'one process SIGKILLed every 3-5 s, api and worker',
      target: '>= 2 of each',
      measured: `${kills.length - workerKills.length} api, ${workerKills.length} worker`,
      ok: workerKills.length >= 2 && kills.length - workerKills.length >= 2,
    },
    {
      check: '(a) rounds: every answer names one charge',
      target: `all rounds (>= 5)`,
      measured: `${roundsOneId} / ${rounds.length}`,
      ok: rounds.length >= 5 && roundsOneId === rounds.length,
    },
    {
      check: '(a) rounds: one charge per Idempotency-Key',
      target: 'all rounds',
      measured: `${roundsOneCharge} / ${rounds.length}`,
      ok: roundsOneCharge === rounds.length,
    },
    {
      check: '(a) rounds: one provider call at the emulator',
      target: 'all (0 only if unknown)',
      measured: `${roundsOneCall} one call, ${roundsNoCallUnknown} none + unknown, of ${rounds.length}`,
      ok: roundsOneCall + roundsNoCallUnknown === rounds.length && callsForRounds <= rounds.length,
    },
    {
      check: '(a) requests refused (4xx) or never answered 2xx',
      target: '0',
      measured: `${refused.length} refused, ${unanswered} unanswered`,
      ok: refused.length === 0 && unanswered === 0,
    },
    {
      check: '(b) deliveries received (webhook-id at least once, verified)',
      target: 'all',
      measured: `${db.deliveries.length - missing.length} / ${db.deliveries.length}`,
      ok:
        missing.length === 0 &&
        db.deliveries.length > 0 &&
        deliveryStatuses.get('delivered') === db.deliveries.length,
    },
    {
      check: '(b) charges whose created/paid message is missing',
      target: '0',
      measured: fmt(uncovered),
      ok: uncovered === 0 && created.length > 0 && paid.length > 0 && hookErrors.total() === 0,
    },
    {
      check: '(b) deliveries recorded as delivered twice (sent by two live workers)',
      target: '0',
      measured: fmt(recordedTwice),
      ok: recordedTwice === 0,
    },
    {
      check: '(b) a webhook-id received twice with no worker SIGKILL mid-attempt',
      target: '0',
      measured: `${unexplained} (repeats: ${repeats})`,
      ok: unexplained === 0,
    },
    {
      check: '(b) a repeated webhook-id with another body',
      target: '0',
      measured: fmt(bodyChanged),
      ok: bodyChanged === 0,
    },
    {
      check: `(c) shared limit: 2xx of ${BURST} in one minute, one key`,
      target: `<= ${LIMIT} (>= ${LIMIT} with lost answers)`,
      measured: `${burstOk.length} ok, ${burstLost} lost, ${burstOther} other`,
      ok:
        burstOk.length <= LIMIT &&
        burstOk.length + burstLost >= LIMIT &&
        burstOther === 0 &&
        burstMs < 60_000 &&
        burst.length === BURST,
    },
    {
      check: '(c) 429 rate_limit_exceeded from both API processes',
      target: 'both',
      measured: `${burst429.length} (A ${burst429.filter((a) => a.backend === apiA.name).length}, B ${burst429.filter((a) => a.backend === apiB.name).length})`,
      ok:
        burst429.some((a) => a.backend === apiA.name) &&
        burst429.some((a) => a.backend === apiB.name) &&
        burstOk.some((a) => a.backend === apiA.name) &&
        burstOk.some((a) => a.backend === apiB.name),
    },
    {
      check: '(d) staged stale reservations: one Transaction.Unconfirmed each',
      target: `${STALE}, by system:reconciler`,
      measured: `${staleMarkedOnce} / ${staleIds.length}`,
      ok: staleIds.length === STALE && staleMarkedOnce === STALE && staleAccounted === STALE,
    },
    {
      check: '(d) charges with two Transaction.Unconfirmed',
      target: '0',
      measured: `${twice} of ${db.unconfirmed.length} marked`,
      ok: twice === 0,
    },
    {
      check: '(d) a charge marked by both workers (worker logs)',
      target: '0',
      measured: `${loggedTwice} of ${markedLines.counts.size} logged`,
      ok: loggedTwice === 0 && markedLines.counts.size === db.unconfirmed.length,
    },
    {
      check: '(d) reconciler lease holders at one instant (pg_locks)',
      target: '<= 1',
      measured: `${mostHolders} (${holderSamples.total()} samples held)`,
      ok: mostHolders <= 1,
    },
    {
      check: 'charges still processing / deliveries pending after settling',
      target: '0 / 0',
      measured: `${left.processing} / ${left.pending}`,
      ok: left.processing === 0 && left.pending === 0,
    },
    {
      check: 'calebe audit replay --all',
      target: 'exit 0, 0 differences',
      measured: `exit ${audit.code}, ${audit.differences} differences in ${audit.checked} streams`,
      ok: audit.code === 0 && audit.differences === 0,
    },
    {
      check: 'process exits other than the SIGKILLs',
      target: '0',
      measured: fmt(exits.length),
      ok: exits.length === 0,
    },
  ];
  return printVerdicts('F7 two processes, one database', verdicts);
}
