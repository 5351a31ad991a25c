import { randomBytes } from 'node:crypto';
import { documentSigningSecret } from './charge-page/signing-secret.ts';
import { useDocumentSigningSecret } from './charge-page/stored-signature.ts';
import { bootstrapDemo, type DemoResult } from './commands/bootstrap-demo.ts';
import { systemClock } from './commands/clock.ts';
import type { AppContext } from './commands/context.ts';
import {
  allProjections,
  asyncProjections,
  createEventRegistry,
  jobs as featureJobs,
  inlineProjections,
  referenceProjections,
} from './commands/index.ts';
import { wireProviderEmulator } from './commands/providers/bootstrap-emulator.ts';
import { bootstrapSimulator, simulatorEnabled } from './commands/providers/bootstrap-simulator.ts';
import { providerDeps } from './commands/providers/deps.ts';
import { bootstrapAdmin } from './commands/users/bootstrap-admin/handler.ts';
import { identityDeps } from './commands/users/identity-deps.ts';
import type { Config } from './config.ts';
import { type DatabaseHandle, openDatabase, reachDatabase } from './db/database.ts';
import { migrateToLatest } from './db/migrate.ts';
import type { EventStore } from './events/event-store.ts';
import { PostgresEventStore } from './events/postgres-event-store.ts';
import type { Projection } from './events/projection.ts';
import { createApiKeyAuthenticator } from './http/api-key-auth.ts';
import { InFlight } from './http/in-flight.ts';
import { createRateLimiter } from './http/rate-limit.ts';
import { buildHttpServer, type HttpServer } from './http/server.ts';
import { createSessionAuthenticator } from './http/session-auth.ts';
import { createLogger, type Logger } from './logger.ts';
import { ProjectionRunner } from './projections/projection-runner.ts';
import { defaultProviderRegistry } from './providers/registry.ts';
import { JobRunner } from './workers/job-runner.ts';
import { JobLease } from './workers/lease.ts';
import { WebhookDeliveryWorker } from './workers/webhook-delivery.ts';

export type Role = 'api' | 'worker' | 'all';

export interface FirstAdmin {
  email: string;
  password: string;
}

export interface Gateway {
  config: Config;
  logger: Logger;
  database: DatabaseHandle;
  store: EventStore;
  ctx: AppContext;
  runner: ProjectionRunner;
  /**
   * The clock-driven jobs (the reconciler, the settler of pending refunds and due-date changes, vault
   * expiry); started with the worker role.
   */
  jobs: JobRunner;
  /** Sends the webhook outbox; started with the worker role. */
  webhooks: WebhookDeliveryWorker;
  http: HttpServer;
  /** Credentials of an administrator generated on this start (embedded database only), to show once. */
  firstAdmin?: FirstAdmin | undefined;
  /** The demo tenant and its keys, created on the first start of an empty embedded database, to show once. */
  firstDemo?: DemoResult | undefined;
  close(): Promise<void>;
}

/** The projections applied inside the append's transaction: none in async mode (DESIGN.md "Shape"). */
export function inlineProjectionsOf(config: Config): readonly Projection[] {
  return config.PROJECTIONS === 'async' ? [] : inlineProjections;
}

/**
 * The event store the configuration names, with the projections that must run inline where the store
 * allows it. Under EventStoreDB, or with PROJECTIONS=async, every projection is async (DESIGN.md).
 */
export async function openEventStore(
  config: Config,
  database: DatabaseHandle,
): Promise<{ store: EventStore; async: readonly Projection[] }> {
  if (config.EVENTSTORE_URL) {
    const { EventStoreDbEventStore } = await import('./events/eventstoredb-event-store.ts');
    return {
      store: new EventStoreDbEventStore(config.EVENTSTORE_URL),
      async: allProjections,
    };
  }
  if (config.PROJECTIONS === 'async') {
    return { store: new PostgresEventStore(database.db, []), async: allProjections };
  }
  return { store: new PostgresEventStore(database.db, inlineProjections), async: asyncProjections };
}

/** Opens the database (migrating it), the event store and the projection runner; builds the HTTP app. */
export async function createGateway(
  config: Config,
  logger: Logger = createLogger(config.LOG_LEVEL),
  opts: {
    bootstrap?: boolean;
    /** serve: the first administrator and demo come from firstStart, once the server listens (issue 23 item 1.4). */
    deferFirstStart?: boolean;
    /** CLI commands: a running gateway's embedded database is reached through it (src/db/embedded-socket.ts). */
    reachRunning?: boolean;
  } = {},
): Promise<Gateway> {
  const options = {
    url: config.DATABASE_URL,
    dataDir: config.CALEBE_DATA_DIR,
    poolSize: config.DATABASE_POOL_SIZE,
  };
  const database = opts.reachRunning ? await reachDatabase(options) : openDatabase(options);
  await migrateToLatest(database.db);
  const { store, async } = await openEventStore(config, database);
  const runner = new ProjectionRunner(database.db, store, async, {
    idleMs: config.PROJECTION_POLL_MS,
    copyFromStdin: database.kind === 'postgres',
    onError: (projection, err) => logger.error({ err, projection }, 'projection step failed'),
  });
  const ctx: AppContext = {
    config,
    logger,
    db: database.db,
    store,
    events: createEventRegistry(),
    now: () => new Date(),
    rateLimiter: createRateLimiter(config, logger),
    providers: defaultProviderRegistry,
    // Async projections: authentication, login and routing read what was committed before the request
    // (revocations, suspensions, new keys, sessions and rules count at once), as with inline projections
    // (docs/decisions.md "Hardening (issue 12)").
    referenceReadsCaughtUp:
      config.PROJECTIONS === 'async' ? () => runner.reachHead(referenceProjections) : undefined,
    readModelsCaughtUp:
      config.PROJECTIONS === 'async'
        ? (names) => runner.reachHead(runner.projections.filter((p) => names.includes(p.name)))
        : undefined,
  };
  // Every feature's clock-driven work (FEATURES in src/commands/index.ts).
  const jobs = new JobRunner(featureJobs, ctx, {
    clock: systemClock,
    // Several workers on one PostgreSQL run each tick of a job on one of them (issue 14).
    ...(database.kind === 'postgres'
      ? { lease: (job) => new JobLease(database.db, job.name, { ttlMs: job.leaseTtlMs }) }
      : {}),
  });
  // Deliveries get connections of their own: a burst of API writes queued in the main pool must not hold
  // back webhooks (BENCHMARKS.md "webhook lag"). PGlite has one connection and shares it.
  const webhookDatabase =
    database.kind === 'postgres'
      ? openDatabase({ url: config.DATABASE_URL, poolSize: config.WEBHOOK_POOL_SIZE })
      : undefined;
  const webhookCtx: AppContext = webhookDatabase
    ? {
        ...ctx,
        db: webhookDatabase.db,
        // Reads only (message bodies); appends (an endpoint disabled by a 410) go through it too, inline
        // projections included.
        store: config.EVENTSTORE_URL
          ? store
          : new PostgresEventStore(webhookDatabase.db, inlineProjectionsOf(config)),
      }
    : ctx;
  const webhooks = new WebhookDeliveryWorker(webhookCtx, {
    intervalMs: config.WEBHOOK_POLL_MS,
    concurrency: config.WEBHOOK_CONCURRENCY,
    logger,
  });
  // An in-process append may have written deliveries (inline outbox): send them without waiting a poll.
  const stopWaking = store.onAppended(() => webhooks.wake());
  const close = async () => {
    stopWaking();
    await webhooks.stop();
    await jobs.stop();
    await runner.stop();
    await webhookDatabase?.close();
    await ctx.rateLimiter.close();
    await store.close();
    await database.close();
  };
  try {
    // A gateway serving charges must sign their links; with DATABASE_URL this refuses to start without
    // DOCUMENT_SIGNING_SECRET (src/charge-page/signing-secret.ts). Maintenance commands sign nothing.
    if (opts.bootstrap !== false) await documentSigningSecret(config);
    // Projections store each charge link's signature under it (issue 14); maintenance commands (rebuild,
    // audit replay) sign as the gateway does whenever the secret resolves, and store none when it does not.
    const secret = await documentSigningSecret(config).catch(() => undefined);
    if (secret !== undefined) useDocumentSigningSecret(secret);
    // Maintenance commands (rebuild) skip it: an administrator created there would never be shown.
    const firstAdmin =
      opts.bootstrap === false || opts.deferFirstStart ? undefined : await bootstrap(ctx, logger);
    if (opts.bootstrap !== false && simulatorEnabled(config)) {
      await bootstrapSimulator(providerDeps(ctx), logger);
    }
    if (opts.bootstrap !== false) await wireProviderEmulator(providerDeps(ctx), config, logger);
    const inFlight = new InFlight();
    const http = await buildHttpServer({
      ctx,
      authenticators: { api_key: createApiKeyAuthenticator(ctx), session: createSessionAuthenticator(ctx) },
      inFlight,
    });
    return {
      config,
      logger,
      database,
      store,
      ctx,
      runner,
      jobs,
      webhooks,
      http,
      firstAdmin,
      async close() {
        await http.close();
        // A charge whose client left mid-request still finishes (and records its outcome) before the pools close.
        if (!(await inFlight.drained(config.SHUTDOWN_TIMEOUT_MS))) {
          logger.warn({ running: inFlight.size }, 'shutdown timeout: closing with requests still running');
        }
        await close();
      },
    };
  } catch (error) {
    await close();
    throw error;
  }
}

/**
 * SPEC 5: the first administrator, created while no user exists (safe with several instances starting at
 * once). With the embedded database and no BOOTSTRAP_ADMIN_* variables, a newcomer's first start gets one
 * with a random password, returned here once so the CLI can print it (it never goes to the log).
 */
async function bootstrap(ctx: AppContext, logger: Logger): Promise<FirstAdmin | undefined> {
  const { config } = ctx;
  // Async projections: "no user exists" is read from the users read model, caught up first.
  await ctx.referenceReadsCaughtUp?.();
  const generated =
    !config.BOOTSTRAP_ADMIN_EMAIL && !config.DATABASE_URL
      ? { email: 'admin@calebe.local', password: randomBytes(18).toString('base64url') }
      : undefined;
  const admin = await bootstrapAdmin(
    identityDeps(ctx),
    generated
      ? { ...config, BOOTSTRAP_ADMIN_EMAIL: generated.email, BOOTSTRAP_ADMIN_PASSWORD: generated.password }
      : config,
    logger,
  );
  return admin && generated;
}

/**
 * Issue 23 item 1.4, after the server listens (so a failed listen consumes nothing and the next start shows
 * it all): the first administrator, and on an embedded database holding no tenant yet the demo tenant of
 * `calebe bootstrap` with its keys, set on the gateway for the start banner. Later starts create neither.
 */
export async function firstStart(gateway: Gateway): Promise<void> {
  const { ctx, config } = gateway;
  gateway.firstAdmin = await bootstrap(ctx, gateway.logger);
  if (config.DATABASE_URL || config.EVENTSTORE_URL) return;
  await ctx.referenceReadsCaughtUp?.();
  const tenant = await ctx.db.selectFrom('tenants').select('id').limit(1).executeTakeFirst();
  if (tenant) return;
  gateway.firstDemo = await bootstrapDemo(
    { store: ctx.store, registry: ctx.events, now: () => ctx.now() },
    { actor: 'system:bootstrap' },
  );
}

export async function startGateway(gateway: Gateway, role: Role): Promise<void> {
  if (role !== 'api') {
    gateway.runner.start();
    gateway.jobs.start();
    gateway.webhooks.start();
  }
  if (role !== 'worker') {
    await gateway.http.listen({ port: gateway.config.PORT, host: gateway.config.HOST });
  }
}
