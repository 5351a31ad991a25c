/**
 * `npm run bench -- create-card` (issue 25, "Performance"): `POST /v1/credit-card` on the simulator (an
 * approved test card, a fresh Idempotency-Key per request) against `POST /v1/pix` with the same customer,
 * amount and reference, and `GET /health` (the HTTP stack alone), on one gateway process, interleaved, ABBA
 * order. This VM's speed moves several-fold from hour to hour, so the figures are same-run ratios: card CPU per
 * request (gateway process + the database's PostgreSQL backends, from /proc) over Pix's; target <= 1.25.
 * A counting pass then gives each creation's round trips and write commits.
 */
import { randomBytes } from 'node:crypto';
import { TEST_CARDS } from '../src/providers/test-cards.ts';
import {
  describeRun,
  type HttpBenchOptions,
  loadRunCells,
  loadRunColumns,
  PIX_BODY,
  pixHeaders,
  startHttpBench,
} from './create-pix.ts';
import { type GatewayProcess, type LoadRun, type LoadSpec, loadRun } from './http-server.ts';
import { type BenchOptions, fmt, median, printTable, settle } from './support.ts';
import { type WireFigures, wirePass } from './wire-pass.ts';

/** The SPEC 2.2 ratio issue 25 sets: card CPU per request at most 1.25 × Pix's, in the same run. */
export const CARD_TARGET = 1.25;

const APPROVED = TEST_CARDS.find((c) => c.outcome === 'approved' && c.brand === 'visa');
if (!APPROVED) throw new Error('no approved Visa test card in src/providers/test-cards.ts');

/** The Pix body with the card (SPEC 4.9): same amount, reference and customer, so only the method differs. */
export function cardBody(now = new Date()): string {
  return JSON.stringify({
    ...(JSON.parse(PIX_BODY) as Record<string, unknown>),
    installments: 1,
    credit_card: {
      holder: 'MARIA OLIVEIRA SANTOS',
      number: APPROVED?.number,
      expiration: `12/${now.getUTCFullYear() + 3}`,
      security_code: '123',
    },
  });
}

/** Card charges seal the kept card's token (issue 25 item 2): the gateway needs a credentials key. */
export function cardEnv(): Record<string, string> {
  return { CREDENTIALS_ENCRYPTION_KEY: randomBytes(32).toString('base64') };
}

export interface CardReport {
  card: LoadRun[];
  pix: LoadRun[];
  health: LoadRun[];
  /** Median over runs of card CPU / Pix CPU per request (gateway + PostgreSQL), each run's pair. */
  ratio: number;
  /** The same for the gateway process alone. */
  gatewayRatio: number;
  medianCardCpuUs: number;
  medianPixCpuUs: number;
  medianHealthCpuUs: number;
  wire: Record<string, WireFigures>;
}

export type Side = 'card' | 'pix' | 'health';

const HEALTH_REQUESTS = 2_000;

/** The three loads of one gateway, each card and Pix request with a fresh Idempotency-Key under `keyPrefix`. */
export function sideSpecs(
  gateway: GatewayProcess,
  database: string,
  connections: number,
  keyPrefix: string,
): Record<Side, Omit<LoadSpec, 'seconds'>> {
  let seq = 0;
  const base = { url: gateway.url, connections, server: gateway, database };
  return {
    card: {
      ...base,
      method: 'POST',
      path: '/v1/credit-card',
      headers: pixHeaders(gateway),
      body: cardBody(),
      perRequestHeaders: () => ({ 'idempotency-key': `${keyPrefix}-card-${seq++}` }),
    },
    pix: {
      ...base,
      method: 'POST',
      path: '/v1/pix',
      headers: pixHeaders(gateway),
      body: PIX_BODY,
      perRequestHeaders: () => ({ 'idempotency-key': `${keyPrefix}-pix-${seq++}` }),
    },
    // /health answers thousands a second: bounded by count (issue 25 bench: a few thousand per run at most).
    health: { ...base, method: 'GET', path: '/health', headers: {}, amount: HEALTH_REQUESTS },
  };
}

export async function benchCreateCard(opts: BenchOptions, http: HttpBenchOptions): Promise<CardReport> {
  const env = cardEnv();
  const { bench, gateway } = await startHttpBench(
    'create-card (issue 25): POST /v1/credit-card vs POST /v1/pix vs GET /health',
    opts,
    http,
    env,
  );
  try {
    const keyPrefix = `b25-${randomBytes(4).toString('hex')}`;
    const specs = sideSpecs(gateway, bench.name, opts.clients, keyPrefix);
    await checkAnswers(gateway, keyPrefix);
    if (opts.warmup > 0) {
      for (const side of ['card', 'pix'] as const) {
        const w = await loadRun({ ...specs[side], seconds: opts.warmup });
        console.log(describeRun(`warm-up ${side} (discarded)`, w));
      }
    }
    const runs: Record<Side, LoadRun[]> = { card: [], pix: [], health: [] };
    for (let run = 1; run <= opts.runs; run++) {
      const order: readonly Side[] = run % 2 === 1 ? ['card', 'pix', 'health'] : ['health', 'pix', 'card'];
      for (const side of order) {
        await settle(bench);
        const r = await loadRun({ ...specs[side], seconds: opts.seconds });
        runs[side].push(r);
        console.log(describeRun(`run ${run} ${side}`, r));
      }
    }
    const pairs = runs.card.map((c, i) => ({ c, p: runs.pix[i] as LoadRun, h: runs.health[i] as LoadRun }));
    console.log('\nraw runs (latency in ms; CPU in µs per 2xx request):\n');
    printTable(
      [
        'run',
        ...loadRunColumns('card'),
        ...loadRunColumns('pix').map((c) => `pix ${c.replace(/^pix /, '')}`),
        '/health CPU/req',
        'card/pix CPU',
        'card/pix gateway CPU',
        'card/health',
        'pix/health',
      ],
      pairs.map(({ c, p, h }, i) => [
        String(i + 1),
        ...loadRunCells(c),
        ...loadRunCells(p),
        fmt(h.totalCpuUs),
        fmt(c.totalCpuUs / p.totalCpuUs, 2),
        fmt(c.serverCpuUs / p.serverCpuUs, 2),
        fmt(c.totalCpuUs / h.totalCpuUs, 2),
        fmt(p.totalCpuUs / h.totalCpuUs, 2),
      ]),
    );
    let wireSeq = 0;
    const wire = await wirePass(
      bench.url,
      {
        'POST /v1/credit-card': {
          method: 'POST',
          path: '/v1/credit-card',
          headers: pixHeaders(gateway),
          body: cardBody(),
          perRequestHeaders: () => ({ 'idempotency-key': `${keyPrefix}-wire-card-${wireSeq++}` }),
        },
        'POST /v1/pix': {
          method: 'POST',
          path: '/v1/pix',
          headers: pixHeaders(gateway),
          body: PIX_BODY,
          perRequestHeaders: () => ({ 'idempotency-key': `${keyPrefix}-wire-pix-${wireSeq++}` }),
        },
      },
      { role: http.role, env },
    );
    const m = (side: Side, f: (r: LoadRun) => number) => median(runs[side].map(f));
    const report: CardReport = {
      card: runs.card,
      pix: runs.pix,
      health: runs.health,
      ratio: median(pairs.map(({ c, p }) => c.totalCpuUs / p.totalCpuUs)),
      gatewayRatio: median(pairs.map(({ c, p }) => c.serverCpuUs / p.serverCpuUs)),
      medianCardCpuUs: m('card', (r) => r.totalCpuUs),
      medianPixCpuUs: m('pix', (r) => r.totalCpuUs),
      medianHealthCpuUs: m('health', (r) => r.totalCpuUs),
      wire,
    };
    const line = (side: Side) =>
      `${side} ${fmt(m(side, (r) => r.totalCpuUs))} µs (medians of its parts: gateway ${fmt(m(side, (r) => r.serverCpuUs))}, PostgreSQL ${fmt(
        m(side, (r) => r.pgCpuUs),
      )}; ${fmt(m(side, (r) => r.rate))} requests/s, p99 ${fmt(
        m(side, (r) => r.p99),
        2,
      )} ms)`;
    console.log(`\nmedian CPU per request: ${line('card')}; ${line('pix')}; ${line('health')}`);
    console.log(
      `card/pix CPU per request, median of the runs' ratios: ${fmt(report.ratio, 2)} (target <= ${CARD_TARGET}: ${
        report.ratio <= CARD_TARGET ? 'met' : 'missed'
      }); ratio of the medians ${fmt(
        report.medianCardCpuUs / report.medianPixCpuUs,
        2,
      )}; gateway process alone ${fmt(report.gatewayRatio, 2)}; in /health units: card ${fmt(
        report.medianCardCpuUs / report.medianHealthCpuUs,
        2,
      )}, pix ${fmt(report.medianPixCpuUs / report.medianHealthCpuUs, 2)}`,
    );
    return report;
  } finally {
    await gateway.stop();
    await bench.drop();
  }
}

/** One card charge and one Pix before any load: both must be created (201, `paid` / `pending`). */
export async function checkAnswers(gateway: GatewayProcess, keyPrefix: string): Promise<void> {
  const sizes: string[] = [];
  for (const [side, path, body] of [
    ['card', '/v1/credit-card', cardBody()],
    ['pix', '/v1/pix', PIX_BODY],
  ] as const) {
    const res = await fetch(`${gateway.url}${path}`, {
      method: 'POST',
      headers: { ...pixHeaders(gateway), 'idempotency-key': `${keyPrefix}-check-${side}` },
      body,
    });
    const text = await res.text();
    if (res.status !== 201) throw new Error(`${path} answered ${res.status}: ${text.slice(0, 300)}`);
    const status = (JSON.parse(text) as { data?: { status?: string } }).data?.status;
    sizes.push(`${side} ${res.status} ${status}, ${Buffer.byteLength(text)} bytes`);
  }
  console.log(`one creation each: ${sizes.join('; ')}`);
}
