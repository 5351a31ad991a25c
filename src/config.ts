import { z } from 'zod';

/** Environment parsed once at start; an invalid value stops the process with a clear message. */
const schema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().default('127.0.0.1'),
  BASE_URL: z.string().url().optional(),
  DATABASE_URL: z.string().min(1).optional(),
  DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(500).default(20),
  REDIS_URL: z.string().min(1).optional(),
  EVENTSTORE_URL: z.string().min(1).optional(),
  CALEBE_DATA_DIR: z.string().min(1).default('./.calebe'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  PROJECTION_POLL_MS: z.coerce.number().int().min(5).max(60_000).default(200),
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
