import { z } from 'zod';

/** An exact browser origin as browsers send it: scheme, host and optional port; no path, no trailing slash. */
const origin = z
  .string()
  .refine(
    (value) => URL.canParse(value) && new URL(value).origin === value,
    'each CORS origin must be exact, like https://panel.example.com (no path, no trailing slash, lower case)',
  );

/** Environment parsed once at start; an invalid value stops the process with a clear message. */
const schema = z
  .object({
    PORT: z.coerce.number().int().min(0).max(65535).default(3000),
    HOST: z.string().default('127.0.0.1'),
    BASE_URL: z.string().url().optional(),
    DATABASE_URL: z.string().min(1).optional(),
    DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(500).default(20),
    REDIS_URL: z.string().min(1).optional(),
    /** Namespace of the rate-limit keys in Redis, so several deployments can share one server. */
    REDIS_KEY_PREFIX: z
      .string()
      .regex(/^[A-Za-z0-9:_.-]{1,64}$/)
      .default('calebe:rl'),
    /** SPEC 5.8: comma-separated exact origins allowed to call from a browser; empty allows none. */
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
    CALEBE_DATA_DIR: z.string().min(1).default('./.calebe'),
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    PROJECTION_POLL_MS: z.coerce.number().int().min(5).max(60_000).default(200),
    /** SPEC 5: the first super_admin, created on start while no user exists. Both or neither. */
    BOOTSTRAP_ADMIN_EMAIL: z.email().max(254).optional(),
    BOOTSTRAP_ADMIN_PASSWORD: z
      .string()
      .min(12)
      .refine((p) => Buffer.byteLength(p, 'utf8') <= 72, 'at most 72 bytes (bcrypt ignores the rest)')
      .optional(),
    /** bcrypt work factor for new password hashes; tests lower it. */
    BCRYPT_COST: z.coerce.number().int().min(4).max(15).default(12),
  })
  .refine((c) => !c.BOOTSTRAP_ADMIN_EMAIL === !c.BOOTSTRAP_ADMIN_PASSWORD, {
    message: 'set both BOOTSTRAP_ADMIN_EMAIL and BOOTSTRAP_ADMIN_PASSWORD, or neither',
    path: ['BOOTSTRAP_ADMIN_PASSWORD'],
  });

export type Config = z.infer<typeof schema> & { baseUrl: string };

export class ConfigError extends Error {}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = schema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new ConfigError(`invalid configuration:\n${lines.join('\n')}`);
  }
  const c = parsed.data;
  return { ...c, baseUrl: c.BASE_URL ?? `http://localhost:${c.PORT}` };
}
