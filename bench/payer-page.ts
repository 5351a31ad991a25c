/**
 * Issue 25 "Performance": `GET` of the checkout payer page (`GET /checkout/{id}/{signature}`, the `url` of a
 * Checkout; src/http/routes/checkout-page.ts). Target: CPU per request (gateway process + PostgreSQL
 * backends) <= 1.5 × an authenticated `GET /v1/transactions/{id}` in the same run, p99 <= 20 ms at 16
 * connections. One open checkout (test key, pix + boleto) and one Pix are created through the API of a real
 * gateway process; then the page, the Pix's GET and `GET /health` (the HTTP stack alone) run interleaved
 * (ABC, CBA, …), each a bounded run of --requests requests; medians of --runs are quoted.
 *
 * The payer pages are limited to 120 requests a minute per client address (src/http/payer-page-limit.ts),
 * which a load generator on one address passes in a second. The limit stays on and is paid by every
 * request: the gateway runs behind a trusted proxy (TRUST_PROXY=loopback, issue 23 item 2.2) and each
 * page request carries its own `X-Forwarded-For` address (10.0.0.0/8, a fresh one per request, as distinct
 * payers would), so every answer is the page served (200), never a 429; a run with any non-2xx fails.
 */
import { randomBytes } from 'node:crypto';
import {
  describeRun,
  type HttpBenchOptions,
  loadRunCells,
  loadRunColumns,
  PIX_BODY,
  pixHeaders,
  startHttpBench,
} from './create-pix.ts';
import { type LoadRun, type LoadSpec, loadRun } from './http-server.ts';
import { type ProfileSummary, profileHttpLoad } from './profile-create.ts';
import { type BenchOptions, fmt, median, printTable, settle } from './support.ts';
import { type WireFigures, wirePass } from './wire-pass.ts';

/** The checkout the payer opens: pix and boleto, the customer known (SPEC 4.9; bodies as in the API tests). */
const CHECKOUT_BODY = JSON.stringify({
  methods: ['pix', 'boleto'],
  amount: 15_990,
  reference: 'pedido-48213',
  description: 'Pedido 48213 - plano mensal',
  customer: JSON.parse(PIX_BODY).customer,
});

/** The gateway behind a proxy on loopback: X-Forwarded-For names the payer (issue 23 item 2.2). */
const PROXY_ENV = { TRUST_PROXY: 'loopback' };

export interface PayerPageReport {
  page: LoadRun[];
  read: LoadRun[];
  health: LoadRun[];
  /** Median CPU per request, µs (gateway + PostgreSQL). */
  medianPageCpuUs: number;
  medianReadCpuUs: number;
  medianHealthCpuUs: number;
  /** medianPageCpuUs / medianReadCpuUs; target <= 1.5. */
  cpuRatio: number;
  /** Median of the runs' page p99, ms; target <= 20 at 16 connections. */
  p99: number;
  pageBytes: number;
  wire?: Record<string, WireFigures>;
}

/** A fresh payer address per request: 10.0.0.1, 10.0.0.2, … (16 million before any repeats). */
function payerAddresses(): () => Record<string, string> {
  let n = 0;
  return () => {
    n = (n % 0xff_ff_fe) + 1;
    return { 'x-forwarded-for': `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}` };
  };
}

async function expectStatus(res: Response, status: number, what: string): Promise<string> {
  const text = await res.text();
  if (res.status !== status) throw new Error(`${what} answered ${res.status}: ${text.slice(0, 300)}`);
  return text;
}

type Gateway = Awaited<ReturnType<typeof startHttpBench>>['gateway'];

/** One open checkout (test key, pix + boleto) created through the API; the path of its `url`. */
async function openCheckout(
  gateway: Gateway,
): Promise<{ checkout: { data: { id: string; url: string; status: string } }; pagePath: string }> {
  const checkout = JSON.parse(
    await expectStatus(
      await fetch(`${gateway.url}/v1/checkouts`, {
        method: 'POST',
        headers: {
          ...pixHeaders(gateway),
          'idempotency-key': `bpage-checkout-${randomBytes(6).toString('hex')}`,
        },
        body: CHECKOUT_BODY,
      }),
      201,
      'POST /v1/checkouts',
    ),
  ) as { data: { id: string; url: string; status: string } };
  return { checkout, pagePath: new URL(checkout.data.url).pathname };
}

/** `profile-page`: the page load alone for --seconds against a gateway under node --cpu-prof. */
export function benchProfilePage(opts: BenchOptions, http: HttpBenchOptions): Promise<ProfileSummary> {
  return profileHttpLoad(
    'profile-page: GET /checkout/{id}/{signature} under --cpu-prof',
    opts,
    http,
    async (gateway) => ({
      headers: {},
      perRequestHeaders: payerAddresses(),
      request: { method: 'GET', path: (await openCheckout(gateway)).pagePath },
    }),
    PROXY_ENV,
  );
}

export async function benchPayerPage(
  opts: BenchOptions,
  http: HttpBenchOptions,
  requests: number,
): Promise<PayerPageReport> {
  const { bench, gateway } = await startHttpBench(
    `payer page (issue 25): GET /checkout/{id}/{signature}, ${requests} requests per bounded run`,
    opts,
    http,
    PROXY_ENV,
  );
  try {
    const { checkout, pagePath } = await openCheckout(gateway);
    const key = randomBytes(6).toString('hex');
    const pix = JSON.parse(
      await expectStatus(
        await fetch(`${gateway.url}/v1/pix`, {
          method: 'POST',
          headers: { ...pixHeaders(gateway), 'idempotency-key': `bpage-pix-${key}` },
          body: PIX_BODY,
        }),
        201,
        'POST /v1/pix',
      ),
    ) as { data: { id: string } };
    const nextPayer = payerAddresses();
    const page = await expectStatus(
      await fetch(`${gateway.url}${pagePath}`, { headers: nextPayer() }),
      200,
      'the payer page',
    );
    const pageBytes = Buffer.byteLength(page);
    console.log(
      `checkout ${checkout.data.id} (${checkout.data.status}), page ${pagePath} (${pageBytes} bytes); ` +
        `reference: GET /v1/transactions/${pix.data.id}; TRUST_PROXY=loopback, one X-Forwarded-For address per page request`,
    );
    const common = {
      url: gateway.url,
      connections: opts.clients,
      seconds: 600,
      amount: requests,
      server: gateway,
      database: bench.name,
    };
    const specs: Record<'page' | 'read' | 'health', LoadSpec> = {
      page: { ...common, method: 'GET', path: pagePath, headers: {}, perRequestHeaders: nextPayer },
      read: {
        ...common,
        method: 'GET',
        path: `/v1/transactions/${pix.data.id}`,
        headers: { 'x-api-key': gateway.testKey },
      },
      health: { ...common, method: 'GET', path: '/health', headers: {} },
    };
    const labels = {
      page: 'GET /checkout/{id}/{signature}',
      read: 'GET /v1/transactions/{id}',
      health: 'GET /health',
    };
    const checked = (side: keyof typeof specs, r: LoadRun, label: string): LoadRun => {
      console.log(describeRun(label, r));
      if (r.non2xx > 0 || r.errors > 0 || r.timeouts > 0) {
        throw new Error(`${labels[side]}: ${r.non2xx} non-2xx, ${r.errors} errors, ${r.timeouts} timeouts`);
      }
      return r;
    };
    // Warm-up for --warmup seconds per side, discarded (the JIT compiles the render and the folds).
    if (opts.warmup > 0) {
      for (const side of ['page', 'read'] as const) {
        const { amount: _bounded, ...timed } = specs[side];
        checked(
          side,
          await loadRun({ ...timed, seconds: opts.warmup }),
          `warm-up ${labels[side]} (discarded)`,
        );
      }
    }
    const runs: Record<keyof typeof specs, LoadRun[]> = { page: [], read: [], health: [] };
    for (let run = 1; run <= opts.runs; run++) {
      const order =
        run % 2 === 1 ? (['page', 'read', 'health'] as const) : (['health', 'read', 'page'] as const);
      for (const side of order) {
        await settle(bench);
        runs[side].push(checked(side, await loadRun(specs[side]), `run ${run} ${labels[side]}`));
      }
    }
    const cpu = (rs: LoadRun[]) => median(rs.map((r) => r.totalCpuUs));
    const report: PayerPageReport = {
      page: runs.page,
      read: runs.read,
      health: runs.health,
      medianPageCpuUs: cpu(runs.page),
      medianReadCpuUs: cpu(runs.read),
      medianHealthCpuUs: cpu(runs.health),
      cpuRatio: cpu(runs.page) / cpu(runs.read),
      p99: median(runs.page.map((r) => r.p99)),
      pageBytes,
    };
    console.log('\nraw runs (latency in ms; CPU in µs per 2xx request):\n');
    printTable(
      [
        'run',
        ...loadRunColumns('page'),
        'GET txn 2xx/s',
        'GET txn p99',
        'GET txn CPU/req',
        'page/GET txn CPU',
        '/health 2xx/s',
        '/health CPU/req',
        'page/health CPU',
      ],
      runs.page.map((p, i) => {
        const g = runs.read[i] as LoadRun;
        const h = runs.health[i] as LoadRun;
        return [
          String(i + 1),
          ...loadRunCells(p),
          fmt(g.rate),
          fmt(g.p99, 2),
          fmt(g.totalCpuUs),
          fmt(p.totalCpuUs / g.totalCpuUs, 2),
          fmt(h.rate),
          fmt(h.totalCpuUs),
          fmt(p.totalCpuUs / h.totalCpuUs, 2),
        ];
      }),
    );
    report.wire = await wirePass(
      bench.url,
      {
        'GET /checkout/{id}/{signature}': {
          method: 'GET',
          path: pagePath,
          headers: {},
          perRequestHeaders: nextPayer,
        },
        'GET /v1/transactions/{id}': {
          method: 'GET',
          path: `/v1/transactions/${pix.data.id}`,
          headers: { 'x-api-key': gateway.testKey },
        },
      },
      { role: http.role, env: PROXY_ENV },
    );
    const m = (rs: LoadRun[], f: (r: LoadRun) => number) => fmt(median(rs.map(f)), 2);
    console.log(
      `\nmedian CPU per request (gateway + PostgreSQL): page ${fmt(report.medianPageCpuUs)} µs ` +
        `(gateway ${fmt(median(runs.page.map((r) => r.serverCpuUs)))} + PostgreSQL ${fmt(median(runs.page.map((r) => r.pgCpuUs)))}), ` +
        `GET /v1/transactions/{id} ${fmt(report.medianReadCpuUs)} µs, /health ${fmt(report.medianHealthCpuUs)} µs; ` +
        `page/GET ${fmt(report.cpuRatio, 2)} (target <= 1.5: ${report.cpuRatio <= 1.5 ? 'met' : 'missed'})`,
    );
    console.log(
      `median page p50 ${m(runs.page, (r) => r.p50)} ms, p99 ${fmt(report.p99, 2)} ms at ${opts.clients} connections ` +
        `(target <= 20 ms: ${report.p99 <= 20 ? 'met' : 'missed'}); ${m(runs.page, (r) => r.rate)} pages/s, ` +
        `GET ${m(runs.read, (r) => r.rate)}/s (p99 ${m(runs.read, (r) => r.p99)} ms), /health ${m(runs.health, (r) => r.rate)}/s`,
    );
    return report;
  } finally {
    await gateway.stop();
    await bench.drop();
  }
}
