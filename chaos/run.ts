/**
 * Fault scenarios (issue 7 item 3): `npm run chaos -- <name> [flags]`. Never part of `npm test`. Each one is
 * bounded in time, runs on loopback only against a fresh database (and, for F2/F3, PostgreSQL and Redis
 * servers of its own), stops by itself, prints a verdict table and exits 1 when its invariant fails.
 * RELIABILITY.md records the latest figures with the exact commands.
 */

import { parseFlags, runnerArguments } from '../bench/flags.ts';
import { runF1 } from './f1-sigkill.ts';
import { runF2 } from './f2-postgres.ts';
import { runF3 } from './f3-redis.ts';
import { runF4 } from './f4-webhooks.ts';
import { runF5 } from './f5-bad-input.ts';
import { runF6 } from './f6-provider.ts';
import { runF7 } from './f7-two-processes.ts';
import { runF8 } from './f8-pdf-load.ts';
import { runF9 } from './f9-card-crash.ts';
import { runF10 } from './f10-scheduler.ts';
import { ADMIN_URL, type ChaosOptions, runCleanups } from './support.ts';

const USAGE = `usage: npm run chaos -- <name> [flags]

names:
  f1-sigkill    SIGKILL the gateway every 3-5 s during a create load retrying with the same Idempotency-Keys;
                every acknowledged charge exactly once, none twice, audit replay 0 differences  (~2 min)
  f2-postgres   a PostgreSQL of its own stopped and started twice during load: /ready 503 not_ready while
                down, errors within SPEC 7's codes, everything acknowledged there afterwards    (~1.5 min)
  f3-redis      a Redis of its own frozen (SIGSTOP) and then shut down during load: 503
                rate_limiter_unavailable (fail closed), recovery when it returns, limits still counted (~1.5 min)
  f4-webhooks   the webhook receiver flapping for --seconds while charges are created and paid: every
                delivery received afterwards, each webhook-id at least once, signatures valid   (~3.5-5 min)
  f5-bad-input  --requests generated bad requests over real sockets: 0 5xx, 0 events appended by refused
                requests, 0 cross-tenant reads                                                  (~1 min)
  f6-provider   the provider emulator injecting timeouts, resets, 5xx, HasError and lies at random while the
                gateway is SIGKILLed every 3-6 s during a real-mode create load; every acknowledged charge
                exactly once at the emulator, every charge settled to its truth, audit replay 0   (~3-4 min)
  f7-two-processes
                two --role api and two --role worker processes, one SIGKILLed every 3-5 s: 100 identical
                creations make one charge and one provider call, no webhook-id received twice without a
                worker killed mid-attempt, the 120/min limit shared, one reconciler run per charge (~3 min)
  f8-pdf-load   --workers clients hammer one payer's boleto PDF link, from one loopback address then from
                256, while one client times the API beside them: 429 past 120/min per address, one render
                for the one version, the API's p50 within 50 ms (the finding: 647 ms)     (--seconds)
  f9-card-crash the API SIGKILLed between a card's tokenize and its charge at the emulator, twice: no card
                charged twice, replays answer the record, no card number or code on disk or in the database (~1.5 min)
  f10-scheduler three scheduler workers, one SIGKILLed every 1.5-3 s for --seconds while 3,000 cycles due
                today are issued (boleto, Pix link, card): every cycle once, none lost, one charge or link
                per reference                                                          (~2-4 min)
  all           every scenario, one after the other
  (f1 .. f10 are accepted as short names)

flags (environment variable in brackets):
  --seconds N     load (F1-F3, F6) or flapping (F4) duration        [CHAOS_SECONDS]     default 60
  --workers N     concurrent load workers                           [CHAOS_WORKERS]     default 16
  --requests N    requests of the bad-input campaign (F5)           [CHAOS_REQUESTS]    default 10000
  --seed N        fast-check seed of F5, fault draws of F6          [CHAOS_SEED]        default 7
  --retry-wait N  F4: longest wait for automatic retries, seconds   [CHAOS_RETRY_WAIT]  default 180

server: ${ADMIN_URL} (CHAOS_DATABASE_URL); each scenario creates a fresh database there and drops it.
F2 starts its own PostgreSQL 15 cluster (/usr/lib/postgresql/15/bin, CHAOS_PG_BIN) and F3 its own
redis-server; neither touches the shared servers.`;

const FLAGS: Record<string, string> = {
  seconds: 'CHAOS_SECONDS',
  workers: 'CHAOS_WORKERS',
  requests: 'CHAOS_REQUESTS',
  seed: 'CHAOS_SEED',
  'retry-wait': 'CHAOS_RETRY_WAIT',
};

const SCENARIOS: Record<string, (opts: ChaosOptions) => Promise<boolean>> = {
  'f1-sigkill': runF1,
  'f2-postgres': runF2,
  'f3-redis': runF3,
  'f4-webhooks': runF4,
  'f5-bad-input': runF5,
  'f6-provider': runF6,
  'f7-two-processes': runF7,
  'f8-pdf-load': runF8,
  'f9-card-crash': runF9,
  'f10-scheduler': runF10,
};

function parse(argv: readonly string[]): { name: string | undefined; opts: ChaosOptions } {
  const { name, int } = parseFlags(argv, FLAGS);
  return {
    name,
    opts: {
      seconds: int('seconds', 60, 10, 600),
      workers: int('workers', 16, 1, 64),
      requests: int('requests', 10_000, 100, 1_000_000),
      seed: int('seed', 7, 0, 2 ** 31 - 1),
      retryWait: int('retry-wait', 180, 0, 900),
    },
  };
}

function resolveName(name: string): string[] | undefined {
  if (name === 'all') return Object.keys(SCENARIOS);
  const full = Object.keys(SCENARIOS).find((s) => s === name || s.split('-')[0] === name);
  return full ? [full] : undefined;
}

async function main(): Promise<number> {
  const parsed = runnerArguments(USAGE, parse);
  if (typeof parsed === 'number') return parsed;
  const { name, opts } = parsed;
  const chosen = resolveName(name);
  if (!chosen) {
    console.error(`unknown scenario ${name}\n\n${USAGE}`);
    return 2;
  }
  const onSignal = (signal: NodeJS.Signals) => {
    console.error(`\n${signal}: stopping processes and dropping chaos databases`);
    void runCleanups().finally(() => process.exit(130));
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  const started = Date.now();
  console.log(`chaos ${chosen.join(', ')} on ${new Date(started).toISOString()}, ${JSON.stringify(opts)}`);
  const outcomes: [string, boolean][] = [];
  for (const scenario of chosen) {
    try {
      outcomes.push([scenario, await (SCENARIOS[scenario] as (o: ChaosOptions) => Promise<boolean>)(opts)]);
    } finally {
      await runCleanups();
    }
  }
  console.log(`\ndone in ${((Date.now() - started) / 1000).toFixed(0)} s`);
  if (outcomes.length > 1) for (const [s, ok] of outcomes) console.log(`${s}: ${ok ? 'PASS' : 'FAIL'}`);
  return outcomes.every(([, ok]) => ok) ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  async (error: unknown) => {
    console.error(error);
    await runCleanups();
    process.exit(1);
  },
);
