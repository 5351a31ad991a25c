import type { AddressInfo } from 'node:net';
import type { DestinationStream } from 'pino';
import pretty from 'pino-pretty';
import type { Gateway, Role } from './app.ts';

/**
 * Where `calebe serve` writes its log: readable lines on a terminal (pino-pretty), one JSON object per line
 * otherwise, for log collectors. LOG_FORMAT (json|pretty) overrides the guess. Undefined means pino's own
 * JSON to stdout.
 */
export function logDestination(
  format: 'json' | 'pretty' | undefined,
  isTTY = Boolean(process.stdout.isTTY),
  destination: NodeJS.WritableStream | number = 1,
): DestinationStream | undefined {
  if (format === 'json' || (format === undefined && !isTTY)) return undefined;
  return pretty({
    colorize: isTTY,
    translateTime: 'SYS:HH:MM:ss',
    ignore: 'pid,hostname',
    sync: true,
    destination,
  });
}

/**
 * Where the gateway answers: BASE_URL, else localhost with the port actually bound (PORT=0 binds any), for
 * the banner, the log line and the hints of CLI commands run beside it (issue 23 item 1.4).
 */
export function publicUrl(gateway: Gateway, role: Role): string {
  const { config } = gateway;
  if (config.BASE_URL) return config.BASE_URL.replace(/\/+$/, '');
  const address = role === 'worker' ? null : (gateway.http.server.address() as AddressInfo | null);
  return `http://localhost:${address?.port ?? config.PORT}`;
}

/**
 * The few lines a person starting the gateway needs: where it answers, where the docs are, the generated
 * administrator (only when created now) and what to do next. Plain text on stdout beside the log lines.
 */
export function startBanner(gateway: Gateway, role: Role): string {
  const { config } = gateway;
  const embedded = !config.DATABASE_URL;
  const lines = [''];
  if (role === 'worker') {
    lines.push('Calebe worker is running (projections, reconciler, webhook delivery; no HTTP).');
  } else {
    const url = publicUrl(gateway, role);
    lines.push(`Calebe is running on ${url}`, `  API reference: ${url}/docs`);
  }
  lines.push(
    `  Data:          ${embedded ? `embedded PostgreSQL (PGlite) in ${config.CALEBE_DATA_DIR}` : 'PostgreSQL (DATABASE_URL)'}`,
  );
  if (config.PROVIDER_EMULATOR_URL) {
    lines.push(
      `  Provider:      boletos of live keys go to the provider emulator at ${config.PROVIDER_EMULATOR_URL} (sandbox)`,
    );
  }
  if (gateway.firstAdmin) {
    lines.push(
      '  Panel administrator, created now (the password is shown only this time):',
      `    e-mail:   ${gateway.firstAdmin.email}`,
      `    password: ${gateway.firstAdmin.password}`,
    );
  }
  const demo = gateway.firstDemo;
  if (demo) {
    lines.push(
      `  Demo tenant ${demo.tenant.name} (${demo.tenant.id}), created now (the keys are shown only this time):`,
    );
    for (const k of demo.keys) if (k.key) lines.push(`    ${k.mode} key: ${k.key}`);
  }
  const testKey = demo?.keys.find((k) => k.mode === 'test')?.key;
  lines.push(
    testKey
      ? `  Next step: a first charge with the test key (README "Walkthrough"): KEY=${testKey}`
      : embedded
        ? '  Next step: `npx calebe bootstrap` (demo tenant and keys), `npx calebe audit replay`, … run beside this gateway.'
        : '  Next step: a demo tenant and API keys with `npx calebe bootstrap` in another terminal.',
    '',
  );
  return `${lines.join('\n')}\n`;
}
