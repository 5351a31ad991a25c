import { isIP } from 'node:net';
import { z } from 'zod';
import { CHARGE_METHODS } from './aggregates/transaction/vocabulary.ts';
import { weakKeyReason, weakSecretReason } from './crypto/secrets.ts';

/** An exact browser origin as browsers send it: scheme, host and optional port; no path, no trailing slash. */
const origin = z
  .string()
  .refine(
    (value) => URL.canParse(value) && new URL(value).origin === value,
    'each CORS origin must be exact, like https://panel.example.com (no path, no trailing slash, lower case)',
  );

/**
 * A webhook allowlist entry: `host` or `host:port` (IPv6 in brackets), compared with the parsed URL, so it
 * must already be in the WHATWG normal form (`127.0.0.1`, not `0x7f.1`).
 */
const allowedHost = z.string().refine((entry) => {
  const m = /^(\[[0-9a-f:.]+\]|[a-z0-9._-]+)(?::(\d{1,5}))?$/.exec(entry);
  if (!m || !URL.canParse(`http://${entry}/`)) return false;
  const port = m[2] === undefined ? undefined : Number(m[2]);
  return (
    new URL(`http://${entry}/`).hostname === m[1] && (port === undefined || (port >= 1 && port <= 65535))
  );
}, 'each entry must be a lower-case host or host:port, like localhost:8080 or 127.0.0.1');

/** A comma-separated list of {@link allowedHost} entries (the development exceptions); empty allows none. */
const allowedHostList = z
  .string()
  .default('')
  .transform((list) =>
    list
      .split(',')
      .map((h) => h.trim().toLowerCase())
      .filter(Boolean),
  )
  .pipe(z.array(allowedHost));

/** Names proxy-addr (fastify's `trustProxy`) reads as ranges: 127.0.0.0/8 and ::1, 169.254/16 and fe80::/10, private. */
const PROXY_RANGE_NAMES = ['loopback', 'linklocal', 'uniquelocal'];

/** One trusted-proxy entry: an address, an address/prefix-length range, or a range name of PROXY_RANGE_NAMES. */
function isProxyEntry(entry: string): boolean {
  if (PROXY_RANGE_NAMES.includes(entry)) return true;
  const [address = '', bits, ...rest] = entry.split('/');
  const family = isIP(address);
  if (family === 0 || rest.length > 0) return false;
  if (bits === undefined) return true;
  return /^\d{1,3}$/.test(bits) && Number(bits) <= (family === 4 ? 32 : 128);
}

/**
 * Issue 23 item 2.2: `TRUST_PROXY`, the proxies whose `X-Forwarded-For` sets the client address (fastify's
 * `trustProxy`, proxy-addr). Unset, empty or `false`: none, the connection's own address counts (SPEC 8).
 * Otherwise a comma-separated list of the proxies' addresses or ranges. `true` (trust whoever connects) and
 * hop counts (which cannot tell a proxy from a client reaching the gateway directly; fastify 5 ignores
 * them) are refused: any client could then choose the address its failures are counted under.
 */
const trustProxy = z
  .string()
  .default('')
  .transform((text, ctx): false | string[] => {
    const value = text.trim();
    if (value === '' || value === 'false') return false;
    const entries = value
      .split(',')
      .map((entry) => entry.trim())
      .filter(Boolean);
    if (entries.length === 0 || !entries.every(isProxyEntry)) {
      ctx.addIssue({
        code: 'custom',
        message:
          'must be false or the comma-separated addresses or ranges of the proxies in front of the gateway (10.0.0.5, 10.0.0.0/8, loopback); `true` and hop counts are refused: any client could choose its address',
      });
      return z.NEVER;
    }
    return entries;
  });

/** A boolean variable: exactly `true` or `false` (a typo must not silently mean either). */
const envBoolean = z
  .enum(['true', 'false'], { error: 'must be true or false' })
  .default('false')
  .transform((v) => v === 'true');

/**
 * SPEC 5.8: one authorized live-charge combination. Every field is required except `method` (default pix);
 * extra fields are refused so a misspelled key cannot widen or silently void the scope.
 */
export const liveScopeEntry = z.strictObject({
  tenant_id: z.string().startsWith('ten_'),
  provider_id: z.string().startsWith('prv_'),
  reference: z.string().min(1).max(255),
  idempotency_key: z.string().regex(/^[A-Za-z0-9._:-]{1,128}$/),
  amount: z.number().int().positive().max(Number.MAX_SAFE_INTEGER),
  method: z.enum(CHARGE_METHODS).default('pix'),
});
export type LiveScopeEntry = z.infer<typeof liveScopeEntry>;

/**
 * `LIVE_PAYMENT_SCOPE_JSON`: one combination object or a non-empty list of them (docs/decisions.md "Admin").
 * Unset or blank means no scope. Invalid JSON or an incomplete combination stops the start.
 */
const liveScope = z
  .string()
  .optional()
  .transform((text, ctx): unknown => {
    if (text === undefined || text.trim() === '') return undefined;
    try {
      return JSON.parse(text);
    } catch {
      ctx.addIssue({ code: 'custom', message: 'is not valid JSON' });
      return z.NEVER;
    }
  })
  .transform((value): unknown => (value === undefined || Array.isArray(value) ? value : [value]))
  .pipe(z.array(liveScopeEntry).min(1, 'must list at least one combination').optional());

/**
 * Issue 23 item 2.8: a secret that a person typed or left as a placeholder (32 spaces, `aaaa…`, the
 * .env.example stand-in) stops the start, naming the variable (SECRET_RULE in src/crypto/secrets.ts).
 */
function refuseWeakSecret(value: string, ctx: z.RefinementCtx): void {
  const reason = weakSecretReason(value);
  if (reason !== undefined) ctx.addIssue({ code: 'custom', message: reason });
}

/** The password inside DATABASE_URL passes the same rule; a URL without one (trust, peer, .pgpass) is left alone. */
function refuseWeakDatabasePassword(value: string, ctx: z.RefinementCtx): void {
  if (!URL.canParse(value)) return;
  const { password } = new URL(value);
  if (password === '') return;
  let decoded = password;
  try {
    decoded = decodeURIComponent(password);
  } catch {
    // pg reads it as it is; so does the rule.
  }
  const reason = weakSecretReason(decoded);
  if (reason !== undefined) ctx.addIssue({ code: 'custom', message: `its password ${reason}` });
}

/** Environment parsed once at start; an invalid value stops the process with a clear message. */
const schema = z
  .object({
    PORT: z.coerce.number().int().min(0).max(65535).default(3000),
    HOST: z.string().default('127.0.0.1'),
    /**
     * Issue 23 item 2.11, SPEC 4.14: `/metrics` has a listener of its own (src/http/metrics-server.ts),
     * never the public port. Unset: metrics are not served. 0 picks a free port (tests).
     */
    METRICS_PORT: z.preprocess(
      // An empty value (`METRICS_PORT=` in a compose file) is unset, not port 0.
      (v) => (typeof v === 'string' && v.trim() === '' ? undefined : v),
      z.coerce.number().int().min(0).max(65535).optional(),
    ),
    /** Bind address of the metrics listener: loopback unless the scraper needs another interface. */
    METRICS_HOST: z.string().min(1).default('127.0.0.1'),
    BASE_URL: z.string().url().optional(),
    /** Its password, if any, must pass the secret rule (issue 23 item 2.8: compose shipped `calebe`). */
    DATABASE_URL: z.string().min(1).superRefine(refuseWeakDatabasePassword).optional(),
    DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(500).default(20),
    REDIS_URL: z.string().min(1).optional(),
    /** Namespace of the rate-limit keys in Redis, so several deployments can share one server. */
    REDIS_KEY_PREFIX: z
      .string()
      .regex(/^[A-Za-z0-9:_.-]{1,64}$/)
      .default('calebe:rl'),
    /** SPEC 5.8: comma-separated exact origins allowed to call from a browser; empty allows none. */
    /**
     * SPEC 8: requests per minute per actor (120). Raise it only for load tests on loopback (bench/, chaos/);
     * the login limit (10 per minute per address) is not configurable.
     */
    RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(1).max(10_000_000).default(120),
    /**
     * Issue 12 (OWASP API4), issue 23 item 2.2: failed authentications (401 for an API key or session) per
     * minute per client address; past it that address's failing attempts get 429, while a valid credential
     * is always served (docs/decisions.md "HTTP edge security findings").
     */
    AUTH_FAILURES_PER_MINUTE: z.coerce.number().int().min(1).max(1_000_000).default(20),
    TRUST_PROXY: trustProxy,
    CORS_ORIGINS: z
      .string()
      .default('')
      .transform((list) =>
        list
          .split(',')
          .map((o) => o.trim())
          .filter(Boolean),
      )
      .pipe(z.array(origin)),
    EVENTSTORE_URL: z.string().min(1).optional(),
    /**
     * DESIGN.md "Shape": `inline` applies the API's read models inside the append's transaction (PostgreSQL
     * store); `async` runs every projection by catch-up, as under EventStoreDB, where it is always async.
     */
    PROJECTIONS: z.enum(['inline', 'async'], { error: 'must be inline or async' }).default('inline'),
    CALEBE_DATA_DIR: z.string().min(1).default('./.calebe'),
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    /** `calebe serve` log lines: unset means pretty on a terminal, JSON otherwise (src/log-format.ts). */
    LOG_FORMAT: z.enum(['json', 'pretty']).optional(),
    PROJECTION_POLL_MS: z.coerce.number().int().min(5).max(60_000).default(200),
    /**
     * DESIGN.md reserve -> call -> record: a charge still `processing` this long after its reservation is
     * marked `unknown` by the reconciler (never charged again). Keep it above the provider call timeout.
     */
    RECONCILE_AFTER_SECONDS: z.coerce.number().int().min(30).max(86_400).default(120),
    /**
     * Issue 13, SPEC 3.1: how long one call to the external provider may take (connect, request, answer)
     * before it is aborted and the outcome is `unknown`. Keep it below RECONCILE_AFTER_SECONDS.
     */
    PROVIDER_TIMEOUT_MS: z.coerce.number().int().min(1).max(120_000).default(20_000),
    /** How often the reconciler looks for such charges. */
    RECONCILE_INTERVAL_MS: z.coerce.number().int().min(100).max(3_600_000).default(15_000),
    /** SPEC 8: how often the subscription scheduler looks for due cycles (every minute; chaos runs shorten it). */
    SUBSCRIPTION_SCHEDULER_INTERVAL_MS: z.coerce.number().int().min(100).max(3_600_000).default(60_000),
    /**
     * A charge whose provider read or pending change failed waits this long before the reconciler tries it
     * again, doubling on each failure in a row up to RECONCILE_BACKOFF_MAX_SECONDS (src/commands/transactions/shared/reconcile-backoff.ts).
     */
    RECONCILE_BACKOFF_SECONDS: z.coerce.number().int().min(1).max(86_400).default(30),
    RECONCILE_BACKOFF_MAX_SECONDS: z.coerce.number().int().min(1).max(604_800).default(1800),
    /** SPEC 5: the first super_admin, created on start while no user exists. Both or neither. */
    BOOTSTRAP_ADMIN_EMAIL: z.email().max(254).optional(),
    BOOTSTRAP_ADMIN_PASSWORD: z
      .string()
      .min(12)
      .refine((p) => Buffer.byteLength(p, 'utf8') <= 72, 'at most 72 bytes (bcrypt ignores the rest)')
      .superRefine(refuseWeakSecret)
      .optional(),
    /** bcrypt work factor for new password hashes; tests lower it. */
    BCRYPT_COST: z.coerce.number().int().min(4).max(15).default(12),
    /** SPEC 4.14: default of the production payments control, used only while no saved record exists. */
    ALLOW_LIVE_PAYMENTS: envBoolean,
    /** SPEC 5.8: explicit authorization of live charges without a scope (only when no scope is configured). */
    ALLOW_UNSCOPED_LIVE_PAYMENTS: envBoolean,
    LIVE_PAYMENT_SCOPE_JSON: liveScope,
    /** Provider credentials key (DESIGN.md "Secrets"): base64 of 32 bytes; see src/crypto/credentials.ts. */
    CREDENTIALS_ENCRYPTION_KEY: z
      .string()
      .refine((v) => {
        const key = Buffer.from(v, 'base64');
        return key.length === 32 && key.toString('base64') === v;
      }, 'must be base64 of exactly 32 bytes')
      .superRefine((v, ctx) => {
        // Issue 23 item 2.8: all-zero, one repeated byte or few distinct bytes is no key.
        const key = Buffer.from(v, 'base64');
        const reason = key.length === 32 ? weakKeyReason(key) : undefined;
        if (reason !== undefined) ctx.addIssue({ code: 'custom', message: reason });
      })
      .optional(),
    /**
     * SPEC 2.2: signs charge links (`document_url`); at least 32 characters, the same on every instance.
     * Unset: generated into `<CALEBE_DATA_DIR>/document.key` with the embedded database; required with
     * DATABASE_URL (src/charge-page/signing-secret.ts, docs/decisions.md "Charges").
     */
    DOCUMENT_SIGNING_SECRET: z
      .string()
      .min(32, 'must have at least 32 characters')
      .superRefine(refuseWeakSecret)
      .optional(),
    /**
     * Issue 13 item 3 (docs/decisions.md "The gateway against the provider emulator"): the base URL of a
     * `calebe provider-emulator`; set, each start wires a sandbox external provider to it with a global boleto
     * rule (src/routing/provider-emulator.ts). Development only. Trailing slashes are dropped.
     */
    PROVIDER_EMULATOR_URL: z
      .string()
      .optional()
      .transform((v) => (v === undefined || v.trim() === '' ? undefined : v.trim().replace(/\/+$/, '')))
      .refine(
        (v) => v === undefined || (URL.canParse(v) && ['http:', 'https:'].includes(new URL(v).protocol)),
        'must be the http(s) base URL the emulator prints, like http://127.0.0.1:4010',
      ),
    /**
     * Issue 23 item 2.7: `production` or `development`. Unset: production when NODE_ENV is `production` (the
     * Docker image sets it), development otherwise. Production refuses PROVIDER_EMULATOR_URL and switches the
     * emulator's routing rule off at start (src/routing/provider-emulator.ts).
     */
    CALEBE_ENV: z
      .enum(['production', 'development'], { error: 'must be production or development' })
      .optional(),
    NODE_ENV: z.string().optional(),
    /** SPEC 2.8: the simulator and its global rules. Unset: on without DATABASE_URL, off with it. */
    ENABLE_SIMULATOR: z
      .enum(['true', 'false'], { error: 'must be true or false' })
      .optional()
      .transform((v) => (v === undefined ? undefined : v === 'true')),
    /**
     * SPEC 6 / docs/decisions.md "Webhooks": comma-separated `host` or `host:port` entries (development only)
     * whose deliveries may use http and reach private or loopback addresses; empty allows none.
     */
    WEBHOOK_ALLOWED_PRIVATE_HOSTS: allowedHostList,
    /**
     * Issue 23 item 2.3 (docs/decisions.md "Provider hosts, webhook URLs, events visibility"): comma-separated
     * `host` or `host:port` entries (development only: the provider emulator on loopback) that a production
     * provider record's hosts may name although they are http, loopback or private; never metadata
     * addresses. Empty allows none: production hosts are https and public.
     */
    PROVIDER_ALLOWED_PRIVATE_HOSTS: allowedHostList,
    /** Webhook delivery: TCP and TLS connect timeout of one attempt. */
    WEBHOOK_CONNECT_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(5_000),
    /** Webhook delivery: total time of one attempt (DNS, connect, request, response headers and body). */
    WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(500).max(120_000).default(15_000),
    /** How often the delivery worker polls when idle; an in-process append wakes it at once. */
    WEBHOOK_POLL_MS: z.coerce.number().int().min(10).max(60_000).default(250),
    /** Connections of the delivery worker's own pool (PostgreSQL), apart from DATABASE_POOL_SIZE. */
    WEBHOOK_POOL_SIZE: z.coerce.number().int().min(1).max(100).default(4),
    /** Deliveries one worker sends at the same time. */
    WEBHOOK_CONCURRENCY: z.coerce.number().int().min(1).max(256).default(32),
    /** On SIGTERM/SIGINT: how long requests already running (even if their client left) may take to finish. */
    SHUTDOWN_TIMEOUT_MS: z.coerce.number().int().min(0).max(600_000).default(30_000),
  })
  .refine((c) => !(c.PROVIDER_EMULATOR_URL && c.DATABASE_URL && !c.CREDENTIALS_ENCRYPTION_KEY), {
    // The emulator's key is stored like any provider credential: sealed (SPEC 5.6).
    message:
      'PROVIDER_EMULATOR_URL with DATABASE_URL needs CREDENTIALS_ENCRYPTION_KEY to store the emulator key',
    path: ['PROVIDER_EMULATOR_URL'],
  })
  .refine((c) => !(c.PROVIDER_EMULATOR_URL && environmentOf(c) === 'production'), {
    // Issue 23 item 2.7: the emulator's control API can mark charges paid; a live key's boleto must never reach it.
    message:
      'the provider emulator is for development and this gateway runs in production mode (CALEBE_ENV=production, or NODE_ENV=production without CALEBE_ENV): unset PROVIDER_EMULATOR_URL, or set CALEBE_ENV=development on a development machine',
    path: ['PROVIDER_EMULATOR_URL'],
  })
  .refine((c) => !(c.PROVIDER_ALLOWED_PRIVATE_HOSTS.length > 0 && environmentOf(c) === 'production'), {
    // Issue 23 item 2.3: a production gateway sends provider credentials to public https hosts only.
    message:
      'lets provider records send credentials over http to private hosts, for development only, and this gateway runs in production mode: unset it, or set CALEBE_ENV=development on a development machine',
    path: ['PROVIDER_ALLOWED_PRIVATE_HOSTS'],
  })
  .refine((c) => !c.BOOTSTRAP_ADMIN_EMAIL === !c.BOOTSTRAP_ADMIN_PASSWORD, {
    message: 'set both BOOTSTRAP_ADMIN_EMAIL and BOOTSTRAP_ADMIN_PASSWORD, or neither',
    path: ['BOOTSTRAP_ADMIN_PASSWORD'],
  });

export type CalebeEnv = 'production' | 'development';

/** CALEBE_ENV, or without it what NODE_ENV says (issue 23 item 2.7). */
function environmentOf(c: { CALEBE_ENV?: CalebeEnv | undefined; NODE_ENV?: string | undefined }): CalebeEnv {
  return c.CALEBE_ENV ?? (c.NODE_ENV === 'production' ? 'production' : 'development');
}

export type Config = Omit<z.infer<typeof schema>, 'CALEBE_ENV'> & { CALEBE_ENV: CalebeEnv; baseUrl: string };

export class ConfigError extends Error {}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = schema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new ConfigError(`invalid configuration:\n${lines.join('\n')}`);
  }
  const c = parsed.data;
  return {
    ...c,
    // EventStoreDB appends cannot run SQL projections in their transaction.
    PROJECTIONS: c.EVENTSTORE_URL ? 'async' : c.PROJECTIONS,
    CALEBE_ENV: environmentOf(c),
    baseUrl: c.BASE_URL ?? `http://localhost:${c.PORT}`,
  };
}
