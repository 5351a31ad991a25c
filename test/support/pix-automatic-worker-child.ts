// Child process of test/e2e/pix-automatic-chaos.test.ts: a worker as `calebe serve --role worker` builds it
// (src/app.ts createGateway, startGateway), with the jobs that schedule, poll and reconcile Pix Automatic
// debits under their real leases, but on a clock the test drives. The parent SIGKILLs it at random moments.
// Configuration comes from the environment (loadConfig), like the gateway's. Loading the sources takes
// seconds on a busy machine, so the child loads them, says `loaded`, and waits on stdin for its clock. The
// clock runs faster than real time, so the claims a killed worker held (one or two minutes) come back within
// seconds.
import { createInterface } from 'node:readline';
import { openEventStore } from '../../src/app.ts';
import { documentSigningSecret } from '../../src/charge-page/signing-secret.ts';
import { useDocumentSigningSecret } from '../../src/charge-page/stored-signature.ts';
import type { Clock } from '../../src/commands/clock.ts';
import { createEventRegistry } from '../../src/commands/index.ts';
import type { JobDeps } from '../../src/commands/job.ts';
import { debitPollerJob } from '../../src/commands/pix-automatic/debits/poll/job.ts';
import { subscriptionSchedulerJob } from '../../src/commands/subscriptions/schedule/job.ts';
import { reconcileJob } from '../../src/commands/transactions/reconcile/job.ts';
import { loadConfig } from '../../src/config.ts';
import { openDatabase } from '../../src/db/database.ts';
import { createLogger } from '../../src/logger.ts';
import { ProjectionRunner } from '../../src/projections/projection-runner.ts';
import { decorateRegistry, defaultProviderRegistry } from '../../src/providers/registry.ts';
import { JobRunner } from '../../src/workers/job-runner.ts';
import { JobLease } from '../../src/workers/lease.ts';

const env = process.env;
process.stdout.write('worker loaded\n');
// `<instant> <real epoch ms> <speed>`: the clock reads `instant` at that real moment, running `speed` times
// faster since. The first line starts the worker; later ones move its clock (as a test clock is advanced).
let time = { start: 0, anchor: 0, speed: 1 };
const clock: Clock = { now: () => new Date(time.start + (Date.now() - time.anchor) * time.speed) };
const setClock = (line: string) => {
  const [instant, anchor, speed] = line.split(' ');
  const next = { start: Date.parse(String(instant)), anchor: Number(anchor), speed: Number(speed) };
  if (!Object.values(next).every(Number.isFinite)) throw new Error(`bad clock line: ${line}`);
  time = next;
};
const lines = createInterface({ input: process.stdin });
// The test process is gone (it holds the other end): a worker left behind would run on for ever.
lines.on('close', () => process.exit(0));
await new Promise<void>((resolve) =>
  lines.on('line', (line) => {
    setClock(line);
    resolve();
  }),
);

const config = loadConfig(env);
const logger = createLogger(config.LOG_LEVEL);
const database = openDatabase({ url: config.DATABASE_URL, poolSize: config.DATABASE_POOL_SIZE });
const { store, async } = await openEventStore(config, database);
const secret = await documentSigningSecret(config).catch(() => undefined);
if (secret !== undefined) useDocumentSigningSecret(secret);
// CHAOS_KILL_BEFORE_SCHEDULE=n: the process SIGKILLs itself as its n-th debit is about to be sent, its
// reservation committed (as test/support/crash-child.ts dies inside a projection): a random kill rarely hits
// that window of a few milliseconds.
const killBefore = Number(env.CHAOS_KILL_BEFORE_SCHEDULE ?? 0);
let schedules = 0;
const providers = decorateRegistry(defaultProviderRegistry, (adapter) => {
  const pix = adapter.pixAutomatic;
  if (!pix || killBefore === 0) return adapter;
  return {
    ...adapter,
    pixAutomatic: {
      ...pix,
      scheduleDebit(...args) {
        if (++schedules === killBefore) process.kill(process.pid, 'SIGKILL');
        return pix.scheduleDebit(...args);
      },
    },
  };
});
const deps: JobDeps = {
  config,
  logger,
  db: database.db,
  store,
  events: createEventRegistry(),
  providers,
};
// The worker role's read models follow the log (async projections), as startGateway starts them.
const projections = new ProjectionRunner(database.db, store, async, {
  idleMs: config.PROJECTION_POLL_MS,
  copyFromStdin: true,
});
// The production jobs, with pauses sized for a test that lasts seconds (the pause is real time).
const interval = Number(env.CHAOS_JOB_INTERVAL_MS ?? 200);
const jobs = new JobRunner(
  [
    subscriptionSchedulerJob({ intervalMs: interval }),
    debitPollerJob({ intervalMs: interval }),
    reconcileJob(),
  ],
  deps,
  { clock, lease: (job) => new JobLease(database.db, job.name, { ttlMs: job.leaseTtlMs }) },
);
projections.start();
jobs.start();
process.stdout.write('worker ready\n');
