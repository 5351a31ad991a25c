import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Ajv } from 'ajv';
import { describe, test } from 'vitest';
import { parse } from 'yaml';
import { loadConfig } from '../../src/config.ts';

/**
 * Issue 15 item 4: no Docker engine runs here, so the deployment files are checked as data: the compose
 * file against the Compose Specification's JSON schema (the copy dclint ships), the .env.example against
 * README's configuration table and the config loader, the Dockerfile for its non-negotiables.
 */

const README = readFileSync('README.md', 'utf8');
const DOCKERFILE = readFileSync('Dockerfile', 'utf8');
const ENV_EXAMPLE = readFileSync('.env.example', 'utf8');
const COMPOSE: unknown = parse(readFileSync('docker-compose.yml', 'utf8'), { merge: true });

interface Service {
  image?: string;
  build?: unknown;
  command?: string[];
  env_file?: string | string[];
  environment?: Record<string, string>;
  healthcheck?: { test?: string[]; disable?: boolean };
  depends_on?: Record<string, { condition: string }>;
  profiles?: string[];
}

const services = (COMPOSE as { services: Record<string, Service> }).services;
/** The gateway services' DATABASE_URL as written in docker-compose.yml (before interpolation). */
const COMPOSE_DATABASE_URL = services.api?.environment?.DATABASE_URL ?? '';
/** The services that run the gateway's image (and so read the gateway's configuration). */
const gatewayServices = Object.entries(services).filter(([, s]) => s.build !== undefined);

/** The variables of README's "Configuration" table, in order. */
function readmeVariables(): string[] {
  const section = README.split(/^## Configuration$/m)[1]?.split(/^## /m)[0] ?? '';
  return [...section.matchAll(/^\| `([A-Z][A-Z0-9_]*)` \|/gm)].map((m) => m[1] ?? '');
}

/** `NAME=value` lines of .env.example; a commented `# NAME=value` keeps the default and counts as named. */
function envExample(): { set: Map<string, string>; named: string[] } {
  const set = new Map<string, string>();
  const named: string[] = [];
  for (const line of ENV_EXAMPLE.split('\n')) {
    const m = /^(# )?([A-Z][A-Z0-9_]*)=(.*)$/.exec(line);
    if (!m?.[2]) continue;
    named.push(m[2]);
    if (!m[1]) set.set(m[2], m[3] ?? '');
  }
  return { set, named };
}

describe('docker-compose.yml (issue 15 item 4)', () => {
  test('is valid against the Compose Specification JSON schema', () => {
    // dclint exports only its package.json; the schema sits beside it.
    const pkg = createRequire(import.meta.url).resolve('dclint/package.json');
    const schemaPath = join(dirname(pkg), 'schemas/compose.schema.json');
    const ajv = new Ajv({ strict: false, allErrors: true });
    // It is draft-07, ajv's own dialect, but names the meta-schema by an https address ajv does not know.
    const { $schema: _dialect, ...schema } = JSON.parse(readFileSync(schemaPath, 'utf8')) as Record<
      string,
      unknown
    >;
    const validate = ajv.compile(schema);
    assert.ok(validate(COMPOSE), JSON.stringify(validate.errors, null, 2));
  });

  test('runs PostgreSQL 15, Redis 7, EventStoreDB 24.10, migrate, api, worker and the provider emulator', () => {
    assert.equal(services.postgres?.image, 'postgres:15');
    assert.equal(services.redis?.image, 'redis:7');
    assert.equal(services.eventstore?.image, 'eventstore/eventstore:24.10');
    assert.deepEqual(services.migrate?.command, ['migrate']);
    assert.deepEqual(services.api?.command, ['serve', '--role', 'api']);
    assert.deepEqual(services.worker?.command, ['serve', '--role', 'worker']);
    assert.deepEqual(services['provider-emulator']?.command, [
      'provider-emulator',
      '--port',
      '4010',
      '--host',
      '0.0.0.0',
    ]);
    // Issue 23 item 2.7: a development service, published on the host's loopback only.
    assert.deepEqual(services['provider-emulator']?.profiles, ['dev']);
    assert.deepEqual((services['provider-emulator'] as { ports?: string[] }).ports, ['127.0.0.1:4010:4010']);
    // One image for every role, built from the Dockerfile and configured from .env.
    for (const name of ['migrate', 'api', 'worker']) {
      assert.equal(services[name]?.image, 'calebe:local', name);
      assert.equal(services[name]?.build, '.', name);
      assert.equal(services[name]?.env_file, '.env', name);
    }
  });

  test('every service has a healthcheck or says why not; depends_on names existing services and valid conditions', () => {
    // migrate exits when done and the worker serves no HTTP: their checks are disabled on purpose.
    const noCheck = new Set(['migrate', 'worker']);
    for (const [name, s] of Object.entries(services)) {
      if (noCheck.has(name)) assert.equal(s.healthcheck?.disable, true, name);
      else assert.ok(s.healthcheck?.test && s.healthcheck.test.length > 0, `${name} has no healthcheck`);
      for (const [dep, { condition }] of Object.entries(s.depends_on ?? {})) {
        assert.ok(services[dep], `${name} depends on unknown service ${dep}`);
        // A profile service is not always up: nothing may wait for it.
        assert.equal(services[dep]?.profiles, undefined, `${name} waits for ${dep}, which has a profile`);
        const expected = dep === 'migrate' ? 'service_completed_successfully' : 'service_healthy';
        assert.equal(condition, expected, `${name} -> ${dep}`);
        if (expected === 'service_healthy') assert.ok(services[dep]?.healthcheck?.test, dep);
      }
    }
    assert.ok(services.api?.healthcheck?.test?.join(' ').includes('/ready'));
    assert.equal(services.api?.depends_on?.migrate?.condition, 'service_completed_successfully');
    assert.equal(services.worker?.depends_on?.migrate?.condition, 'service_completed_successfully');
  });

  test('the variables the gateway services set are configuration variables named in .env.example', () => {
    const named = new Set(envExample().named);
    for (const [name, s] of gatewayServices) {
      for (const v of Object.keys(s.environment ?? {})) assert.ok(named.has(v), `${name} sets ${v}`);
    }
    // The connection strings point at the compose services; the database password is POSTGRES_PASSWORD
    // from .env, required (issue 23 item 2.8: no fixed calebe/calebe).
    const { set } = envExample();
    for (const [name, s] of gatewayServices) {
      assert.equal(s.environment?.DATABASE_URL, COMPOSE_DATABASE_URL, name);
    }
    assert.match(
      COMPOSE_DATABASE_URL,
      /^postgres:\/\/calebe:\$\{POSTGRES_PASSWORD:\?[^}]+\}@postgres:5432\/calebe$/,
    );
    assert.match(
      services.postgres?.environment?.POSTGRES_PASSWORD ?? '',
      /^\$\{POSTGRES_PASSWORD:\?[^}]+\}$/,
    );
    assert.match(set.get('REDIS_URL') ?? '', /^redis:\/\/redis:6379/);
    assert.match(ENV_EXAMPLE, /^# EVENTSTORE_URL=esdb:\/\/eventstore:2113\?tls=false$/m);
  });
});

describe('.env.example (issue 15 item 4)', () => {
  test("names exactly README's configuration variables, each once, in the table's order", () => {
    const table = readmeVariables();
    assert.ok(table.length >= 30, `README table parsed to ${table.length} variables`);
    const { named } = envExample();
    assert.deepEqual([...named].sort(), [...table].sort());
    assert.equal(new Set(named).size, named.length, 'a variable is named twice');
  });

  test('every variable has a comment line right above it', () => {
    const lines = ENV_EXAMPLE.split('\n');
    for (const [i, line] of lines.entries()) {
      if (!/^[A-Z][A-Z0-9_]*=/.test(line)) continue;
      assert.match(lines[i - 1] ?? '', /^# /, `no comment above ${line}`);
    }
  });

  test('secrets are blank placeholders with the command that generates them', () => {
    const { set } = envExample();
    for (const secret of [
      'DOCUMENT_SIGNING_SECRET',
      'CREDENTIALS_ENCRYPTION_KEY',
      'BOOTSTRAP_ADMIN_PASSWORD',
    ]) {
      assert.equal(set.get(secret), '', `${secret} must be generated, not shipped`);
    }
    assert.match(ENV_EXAMPLE, /openssl rand -base64 32/);
    // Compose needs a value to parse (.ci/run validates .env.example as .env); the gateway refuses it.
    const placeholder = set.get('POSTGRES_PASSWORD') ?? '';
    assert.match(ENV_EXAMPLE, /openssl rand -hex 32/);
    assert.throws(
      () => loadConfig({ DATABASE_URL: COMPOSE_DATABASE_URL.replace(/\$\{[^}]+\}/, placeholder) }),
      /DATABASE_URL: its password is the placeholder of \.env\.example/,
    );
  });

  test('once the secrets are generated, the values load (a blank optional value would stop the start)', () => {
    const env = Object.fromEntries(envExample().set);
    Object.assign(env, {
      DOCUMENT_SIGNING_SECRET: randomBytes(32).toString('base64'),
      CREDENTIALS_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
      BOOTSTRAP_ADMIN_PASSWORD: randomBytes(24).toString('base64'),
      DATABASE_URL: COMPOSE_DATABASE_URL.replace(/\$\{[^}]+\}/, randomBytes(32).toString('hex')),
    });
    const config = loadConfig(env);
    assert.equal(config.HOST, '0.0.0.0');
    assert.equal(config.ALLOW_LIVE_PAYMENTS, false);
    assert.equal(config.ALLOW_UNSCOPED_LIVE_PAYMENTS, false);
  });
});

describe('Dockerfile (issue 15 item 4)', () => {
  const instructions = DOCKERFILE.replace(/\\\n/g, ' ')
    .split('\n')
    .filter((l) => l.trim() && !l.startsWith('#'));
  const of = (name: string) => instructions.filter((l) => l.startsWith(`${name} `));

  test('is multi-stage on node:24-bookworm-slim and installs production dependencies only', () => {
    const froms = of('FROM');
    assert.ok(froms.length >= 2, 'multi-stage');
    for (const f of froms) assert.match(f, /^FROM node:24-bookworm-slim AS \w+$/);
    assert.ok(of('RUN').some((r) => /npm ci --omit=dev/.test(r)));
    assert.ok(of('COPY').some((c) => /--from=deps/.test(c)));
    // tsx runs the sources: it must survive --omit=dev.
    const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as { dependencies: Record<string, string> };
    assert.ok(pkg.dependencies.tsx, 'tsx is a runtime dependency');
  });

  test('runs as a non-root user, healthchecks /ready, exposes 3000, listens on 0.0.0.0', () => {
    const users = of('USER');
    assert.ok(users.length > 0, 'no USER');
    assert.doesNotMatch(users.at(-1) ?? '', /^USER (root|0)(:|$)/);
    const [healthcheck] = of('HEALTHCHECK');
    assert.match(healthcheck ?? '', /\/ready/);
    assert.match(healthcheck ?? '', /fetch\(/);
    assert.ok(of('EXPOSE').includes('EXPOSE 3000'));
    assert.match(DOCKERFILE, /NODE_ENV=production/);
    assert.match(DOCKERFILE, /HOST=0\.0\.0\.0/);
    assert.ok(of('ENTRYPOINT').includes('ENTRYPOINT ["node", "bin/calebe.js"]'));
    assert.ok(of('CMD').includes('CMD ["serve"]'));
  });

  test('.dockerignore keeps secrets and local data out of the build context', () => {
    const ignored = readFileSync('.dockerignore', 'utf8').split('\n');
    for (const entry of ['.env', '.calebe', 'node_modules', '.git'])
      assert.ok(ignored.includes(entry), entry);
  });
});
