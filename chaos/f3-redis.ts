/**
 * F3 (issue 7): Redis stopped during load. The gateway counts its rate limits in a redis-server of this
 * scenario's own (never the shared one on 6379). Two outages while eight workers (one key each) read and
 * create: first the server is frozen with SIGSTOP (sockets open, replies never come: the worst case), then
 * it is shut down (`shutdown nosave`: connections refused). Checks: every request begun while Redis is down
 * answers `503 rate_limiter_unavailable` (fail closed: nothing served, no charge created) and fast; `/ready`
 * is `503 not_ready`; service comes back by itself within seconds of Redis returning; afterwards the limit
 * is still counted in Redis (a key's 601st request in a minute is `429`, with RATE_LIMIT_PER_MINUTE=600 here).
 */
import { randomBytes } from 'node:crypto';
import {
  type ChaosOptions,
  Counter,
  call,
  fmt,
  freePort,
  GatewayProcess,
  log,
  percentile,
  pixBody,
  printTable,
  printVerdicts,
  redisAndDatabase,
  scratchDir,
  sleep,
  type Verdict,
  withDb,
} from './support.ts';

const LIMIT = 600;
const DOWN_SECONDS = 8;
/** Requests begun this long after the outage started count as "while down" (in-flight ones may predate it). */
const GRACE_MS = 1_500;
/** Service must be back this long after Redis answers again. */
const RECOVERY_TARGET_MS = 5_000;

interface Sent {
  kind: 'list' | 'create';
  start: number;
  end: number;
  status: number;
  code: string;
  ms: number;
}

export async function runF3(opts: ChaosOptions): Promise<boolean> {
  const dir = scratchDir('f3');
  const workers = Math.min(opts.workers, 8);
  const { redis, databaseUrl, seeded, env } = await redisAndDatabase([
    {
      name: 'merchant',
      keys: [
        ...Array.from({ length: workers }, (_, i) => ({
          name: `w${i}`,
          scopes: ['pix:write', 'transactions:read'] as const,
        })),
        { name: 'limit', scopes: ['transactions:read'] as const },
      ],
    },
  ]);
  const prefix = `calebe-chaos:${randomBytes(4).toString('hex')}`;
  log(`F3: own redis-server on 127.0.0.1:${redis.port}`);
  const tenant = seeded.tenants.merchant;
  if (!tenant) throw new Error('seed failed');
  const gateway = new GatewayProcess(
    env(await freePort(), {
      REDIS_KEY_PREFIX: prefix,
      RATE_LIMIT_PER_MINUTE: String(LIMIT),
    }),
    dir,
  );
  await gateway.start();
  log(`F3: gateway on ${gateway.baseUrl}, limit ${LIMIT}/min per key in Redis`);

  const started = Date.now();
  const loadUntil = started + opts.seconds * 1000;
  const outages: { kind: string; down: number; up: number; answering: number }[] = [];
  const sent: Sent[] = [];
  const ready: { at: number; end: number; status: number; code: string }[] = [];
  const chaos = (async () => {
    for (const [fraction, kind] of [
      [0.2, 'SIGSTOP'],
      [0.6, 'shutdown'],
    ] as const) {
      const wait = started + opts.seconds * 1000 * fraction - Date.now();
      if (wait > 0) await sleep(wait);
      const down = Date.now();
      if (kind === 'SIGSTOP') redis.signal('SIGSTOP');
      else redis.stop();
      log(`F3: Redis ${kind === 'SIGSTOP' ? 'frozen (SIGSTOP)' : 'shut down'}`);
      // 8 s, shorter for short runs so the two outages never overlap (15% of the load each).
      await sleep(Math.min(DOWN_SECONDS, opts.seconds * 0.15) * 1000);
      const up = Date.now();
      if (kind === 'SIGSTOP') redis.signal('SIGCONT');
      else redis.start();
      outages.push({ kind, down, up, answering: Date.now() });
      log(`F3: Redis back`);
    }
  })();
  const prober = (async () => {
    while (Date.now() < loadUntil) {
      const at = Date.now();
      const a = await call(gateway.baseUrl, 'GET', '/ready');
      ready.push({ at, end: Date.now(), status: a.status, code: a.code });
      await sleep(250);
    }
  })();
  const worker = async (w: number) => {
    const key = tenant.keys[`w${w}`]?.key as string;
    for (let n = 0; Date.now() < loadUntil; n++) {
      const kind = n % 2 === 0 ? 'list' : 'create';
      const start = Date.now();
      const a =
        kind === 'list'
          ? await call(gateway.baseUrl, 'GET', '/v1/transactions?limit=1', { headers: { 'x-api-key': key } })
          : await call(gateway.baseUrl, 'POST', '/v1/pix', {
              headers: { 'x-api-key': key, 'idempotency-key': `f3-${w}-${n}` },
              json: pixBody(`f3-${w}-${n}`, 1000 + n),
            });
      sent.push({ kind, start, end: Date.now(), status: a.status, code: a.code, ms: a.ms });
      await sleep(150);
    }
  };
  await Promise.all([...Array.from({ length: workers }, (_, w) => worker(w)), chaos, prober]);

  // After recovery: the limit is still counted in Redis (fixed window from the key's first request).
  const limitKey = tenant.keys.limit?.key as string;
  const limitAnswers = new Counter();
  let firstLimited = -1;
  for (let i = 0; i < LIMIT + 50 && firstLimited < 0; i += 25) {
    const batch = await Promise.all(
      Array.from({ length: 25 }, () =>
        call(gateway.baseUrl, 'GET', '/v1/transactions?limit=1', { headers: { 'x-api-key': limitKey } }),
      ),
    );
    for (const a of batch) limitAnswers.add(`${a.status} ${a.code}`);
    if (batch.some((a) => a.status === 429)) firstLimited = i;
  }
  const redisKeys = redis.countKeys(prefix);
  const exits = [...gateway.unexpectedExits];
  await gateway.stop();

  const inOutage = (s: Sent) => outages.some((o) => s.start >= o.down + GRACE_MS && s.end <= o.up);
  const during = sent.filter(inOutage);
  const closed = during.filter((s) => s.status === 503 && s.code === 'rate_limiter_unavailable');
  const servedDuring = during.filter((s) => s.status >= 200 && s.status < 300).length;
  const readyDuring = ready.filter((p) => outages.some((o) => p.at >= o.down + GRACE_MS && p.end <= o.up));
  const readyDown = readyDuring.filter((p) => p.status === 503 && p.code === 'not_ready').length;
  const recoveries = outages.map((o) => {
    const first = sent
      .filter((s) => s.start >= o.up && s.status >= 200 && s.status < 300)
      .sort((a, b) => a.end - b.end)[0];
    return first ? first.end - o.up : Number.NaN;
  });
  const afterRecovery = sent.filter((s) =>
    outages.every((o) => s.start < o.down || s.start > o.up + RECOVERY_TARGET_MS),
  );
  const afterOk = afterRecovery.filter((s) => s.status >= 200 && s.status < 300).length;
  const answers = new Counter();
  for (const s of sent) answers.add(`${s.status} ${s.code}`);
  const createdDuring = await withDb(databaseUrl, async (c) => {
    let n = 0;
    for (const o of outages) {
      const { rows } = await c.query<{ n: string }>(
        `select count(*) as n from transactions where created_at >= $1 and created_at < $2`,
        [new Date(o.down + GRACE_MS), new Date(o.up)],
      );
      n += Number(rows[0]?.n);
    }
    return n;
  });
  const p99 = percentile(
    closed.map((s) => s.ms),
    99,
  );
  const limited = limitAnswers.get('429 rate_limit_exceeded');
  const limitOk = limitAnswers.get('200 -');

  console.log('\nF3: load');
  printTable(
    ['figure', 'value'],
    [
      ['load seconds', fmt(opts.seconds)],
      [
        'outages',
        outages
          .map((o) => `${o.kind} at ${fmt((o.down - started) / 1000)} s for ${fmt((o.up - o.down) / 1000)} s`)
          .join(', '),
      ],
      ['requests sent (list + create)', fmt(sent.length)],
      ['answers', answers.toString()],
      ['requests begun while Redis down', fmt(during.length)],
      [
        '503 latency while down p50 / p99 ms',
        `${fmt(
          percentile(
            closed.map((s) => s.ms),
            50,
          ),
        )} / ${fmt(p99)}`,
      ],
      ['first 2xx after Redis back, ms', recoveries.map((r) => fmt(r)).join(', ')],
      ['limit check after recovery', limitAnswers.toString()],
      ['rate-limit keys in Redis', fmt(redisKeys)],
    ],
  );

  const verdicts: Verdict[] = [
    {
      check: 'requests while Redis is down',
      target: 'all 503 rate_limiter_unavailable',
      measured: `${closed.length} / ${during.length} (${servedDuring} served)`,
      ok: during.length > 0 && closed.length === during.length,
    },
    {
      check: 'charges created while Redis is down',
      target: '0',
      measured: fmt(createdDuring),
      ok: createdDuring === 0,
    },
    {
      check: 'fail-closed answer time while down, p99',
      target: '<= 1,500 ms',
      measured: `${fmt(p99)} ms`,
      ok: p99 <= 1_500,
    },
    {
      check: '/ready while Redis is down',
      target: 'all 503 not_ready',
      measured: `${readyDown} / ${readyDuring.length}`,
      ok: readyDuring.length > 0 && readyDown === readyDuring.length,
    },
    {
      check: 'recovery after Redis returns',
      target: `first 2xx <= ${fmt(RECOVERY_TARGET_MS)} ms, no restart`,
      measured: recoveries.map((r) => `${fmt(r)} ms`).join(', '),
      ok: recoveries.every((r) => r <= RECOVERY_TARGET_MS),
    },
    {
      check: 'answers outside outages (+5 s)',
      target: 'all 2xx',
      measured: `${afterOk} / ${afterRecovery.length}`,
      ok: afterOk === afterRecovery.length,
    },
    {
      check: 'limit still counted in Redis afterwards',
      target: `${LIMIT} x 200, then 429`,
      measured: `${limitOk} x 200, ${limited} x 429`,
      ok: limitOk === LIMIT && limited > 0 && redisKeys > 0,
    },
    { check: 'gateway process exits', target: '0', measured: fmt(exits.length), ok: exits.length === 0 },
  ];
  return printVerdicts('F3 Redis stopped during load', verdicts);
}
