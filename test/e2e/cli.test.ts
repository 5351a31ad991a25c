import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, test } from 'vitest';
import { PostgresEventStore } from '../../src/events/postgres-event-store.ts';
import { createTestDatabase } from '../support/databases.ts';

const BIN = 'bin/calebe.js';
const children: ChildProcess[] = [];
const dataDir = mkdtempSync(join(tmpdir(), 'calebe-cli-'));
afterAll(() => {
  for (const c of children) c.kill('SIGKILL');
  rmSync(dataDir, { recursive: true, force: true });
});

function cleanEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, LOG_LEVEL: 'info', ...extra };
  for (const k of [
    'DATABASE_URL',
    'BOOTSTRAP_ADMIN_EMAIL',
    'BOOTSTRAP_ADMIN_PASSWORD',
    'REDIS_URL',
    'EVENTSTORE_URL',
  ]) {
    if (!(k in extra)) delete env[k];
  }
  return env;
}

/** Starts `calebe serve` and resolves once it listens, with its port and everything it printed so far. */
function serve(env: NodeJS.ProcessEnv): Promise<{ child: ChildProcess; port: number; output: () => string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, 'serve'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    children.push(child);
    let out = '';
    const timer = setTimeout(() => reject(new Error(`serve did not listen:\n${out}`)), 90_000);
    const onData = (chunk: Buffer) => {
      out += chunk;
      const m = /Server listening at http:\/\/127\.0\.0\.1:(\d+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve({ child, port: Number(m[1]), output: () => out });
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', (c) => (out += c));
    child.on('exit', (code) => reject(new Error(`serve exited ${code}:\n${out}`)));
  });
}

function run(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (c) => (out += c));
    child.stderr.on('data', (c) => (out += c));
    child.on('exit', (code) => resolve({ code, out }));
  });
}

function stop(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => {
    child.on('exit', (code) => resolve(code));
    child.kill('SIGTERM');
  });
}

test('README first command: serve on an embedded database prints an administrator who can log in, once', async () => {
  const env = cleanEnv({ PORT: '0', CALEBE_DATA_DIR: dataDir });
  const first = await serve(env);
  const creds = /e-mail: +(\S+)\n +password: +(\S+)/.exec(first.output());
  assert.ok(creds, `the administrator is printed:\n${first.output()}`);
  const [, email, password] = creds;
  const base = `http://127.0.0.1:${first.port}`;
  assert.equal((await fetch(`${base}/health`)).status, 200);
  const login = await fetch(`${base}/admin/sessions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password }),
  });
  assert.equal(login.status, 201);
  assert.ok(!first.output().includes('"password"'), 'the password is printed, never logged');
  assert.equal(await stop(first.child), 0);

  const second = await serve(env);
  assert.doesNotMatch(second.output(), /administrator created/, 'a restart creates no second administrator');
  assert.equal(await stop(second.child), 0);
});

test('calebe migrate and calebe rebuild against PostgreSQL', async () => {
  const db = await createTestDatabase();
  try {
    const env = cleanEnv({ DATABASE_URL: db.url });
    const migrate = await run(['migrate'], env);
    assert.equal(migrate.code, 0, migrate.out);
    assert.match(migrate.out, /database is up to date/);

    const store = new PostgresEventStore(db.db);
    for (let i = 0; i < 20; i++) {
      await store.append(
        `thing-${i}`,
        [{ id: randomUUID(), type: 'Thing.Happened', data: { i }, metadata: { actor: 'system:test' } }],
        'no_stream',
      );
    }
    const rebuild = await run(['rebuild', 'stream_catalog'], env);
    assert.equal(rebuild.code, 0, rebuild.out);
    assert.match(rebuild.out, /stream_catalog: 20 events in [\d.]+ s \(\d+ events\/s\)/);
    const rows = await db.db.selectFrom('stream_catalog').select('stream_id').execute();
    assert.equal(rows.length, 20);
    const users = await db.db.selectFrom('users').select('id').execute();
    assert.equal(users.length, 0, 'maintenance commands never create an administrator');

    const unknown = await run(['rebuild', 'nope'], env);
    assert.equal(unknown.code, 2);
    assert.match(unknown.out, /unknown projection nope/);
  } finally {
    await db.drop();
  }
});
