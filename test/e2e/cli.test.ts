import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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

/**
 * Starts `calebe serve` and resolves once it listens and has printed its banner (the last thing it prints on
 * start), with its port and everything it printed so far.
 */
function serve(env: NodeJS.ProcessEnv): Promise<{ child: ChildProcess; port: number; output: () => string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, 'serve'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    children.push(child);
    let out = '';
    const timer = setTimeout(() => reject(new Error(`serve did not listen:\n${out}`)), 90_000);
    const onData = (chunk: Buffer) => {
      out += chunk;
      const m = /Server listening at http:\/\/127\.0\.0\.1:(\d+)/.exec(out);
      if (m && /Next step:[\s\S]*\n\n/.test(out)) {
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
  // Issue 12 item 5 (5): a short banner for the person, and on a pipe (not a terminal) the log stays JSON.
  const lines = first.output().split('\n');
  const bannerAt = lines.indexOf(`Calebe is running on http://localhost:${first.port}`);
  assert.ok(bannerAt >= 0, first.output());
  const banner = lines.slice(bannerAt, lines.indexOf('', bannerAt));
  assert.deepEqual(
    banner.map((l) =>
      l
        .replace(/: .*/, ':')
        .replace(/ten_\w+/, 'ten_…')
        .trim(),
    ),
    [
      `Calebe is running on http://localhost:${first.port}`,
      'API reference:',
      'Data:',
      'Panel administrator, created now (the password is shown only this time):',
      'e-mail:',
      'password:',
      // Issue 23 item 1.4: the first start of an empty embedded database also creates the demo tenant.
      'Demo tenant Demo (ten_…), created now (the keys are shown only this time):',
      'test key:',
      'live key:',
      'Next step:',
    ].map((l) => l.replace(/: .*/, ':')),
  );
  assert.match(banner[1] ?? '', new RegExp(`API reference: http://localhost:${first.port}/docs$`));
  const rest = lines.filter((l, i) => l !== '' && (i < bannerAt || i >= bannerAt + banner.length));
  assert.ok(rest.length >= 3, first.output());
  for (const line of rest) {
    const entry = JSON.parse(line) as { level: number; msg: string };
    assert.equal(typeof entry.level, 'number', line);
  }
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

/** The pid of a process that has exited: a lock naming it is stale. */
function deadPid(): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' });
    child.on('exit', () => resolve(child.pid ?? 0));
  });
}

test('issue 12 item 5 (2), issue 23 item 1.4: one gateway per embedded data directory; bootstrap runs beside it, and is idempotent', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'calebe-lock-'));
  children.length = 0;
  try {
    const env = cleanEnv({ PORT: '0', CALEBE_DATA_DIR: dir });
    const running = await serve(env);
    const lock = JSON.parse(readFileSync(join(dir, 'calebe.lock'), 'utf8')) as Record<string, unknown>;
    assert.equal(lock.pid, running.child.pid);
    assert.equal(lock.command, 'calebe serve');
    assert.ok(!Number.isNaN(Date.parse(String(lock.started_at))));

    // A second gateway is refused; CLI commands run beside it (test/e2e/cli-beside-running-gateway.test.ts).
    for (const args of [['serve']]) {
      const refused = await run(args, env);
      assert.equal(refused.code, 1, refused.out);
      assert.equal(
        refused.out.trim(),
        `calebe ${args[0]}: the embedded database in ${dir} is in use by \`calebe serve\` (pid ${running.child.pid}, since ${lock.started_at}); stop it first, or set DATABASE_URL`,
      );
    }
    assert.equal(await stop(running.child), 0);
    assert.ok(!existsSync(join(dir, 'calebe.lock')), 'a clean stop removes the lock');

    // A process killed without cleaning up leaves a lock whose pid is dead: the next one takes it over.
    const stale = { pid: await deadPid(), command: 'calebe serve', started_at: new Date().toISOString() };
    writeFileSync(join(dir, 'calebe.lock'), JSON.stringify(stale));
    const first = await run(['bootstrap'], env);
    assert.equal(first.code, 0, first.out);
    // The gateway's first start created the demo tenant and showed its keys (issue 23 item 1.4).
    assert.match(first.out, /Demo \(ten_\w+\), already existed/);
    const second = await run(['bootstrap'], env);
    assert.equal(second.code, 0, second.out);
    assert.match(second.out, /Demo \(ten_\w+\), already existed/);
    assert.match(second.out, /test key key_\w+ \(clb_test_.{4}…\) already exists/);
    assert.doesNotMatch(first.out + second.out, /clb_test_\w{20,}/, 'no secret after the start showed it');
    assert.doesNotMatch(first.out + second.out, /^\s+at /m, 'no stack trace');
    assert.ok(!existsSync(join(dir, 'calebe.lock')));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
