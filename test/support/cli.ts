import { spawn } from 'node:child_process';

/** The CLI as a real process (what an operator runs). */
export const BIN = 'bin/calebe.js';

/** The process environment for a CLI run against `databaseUrl`, without settings that would change it. */
export function cliEnv(databaseUrl: string): NodeJS.ProcessEnv {
  const e: NodeJS.ProcessEnv = { ...process.env, LOG_LEVEL: 'warn', DATABASE_URL: databaseUrl };
  for (const k of ['BOOTSTRAP_ADMIN_EMAIL', 'BOOTSTRAP_ADMIN_PASSWORD', 'REDIS_URL', 'EVENTSTORE_URL'])
    delete e[k];
  return e;
}

/** Runs `calebe <args>` and resolves with its exit code and everything it printed. */
export function runCli(args: string[], e: NodeJS.ProcessEnv): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], { env: e, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (c) => (out += c));
    child.stderr.on('data', (c) => (out += c));
    child.on('exit', (code) => resolve({ code, out }));
  });
}
