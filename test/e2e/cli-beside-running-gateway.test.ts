import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, describe, test } from 'vitest';
import { openDatabase } from '../../src/db/database.ts';
import { PAYER_ADDRESS } from '../support/charges.ts';
import { BIN, runCli } from '../support/cli.ts';

// Issue 23 item 1.4: one start of the gateway before the first charge, and every CLI command beside it.

const children: ChildProcess[] = [];
const dirs: string[] = [];
afterAll(() => {
  for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function dataDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'calebe-one-start-'));
  dirs.push(dir);
  return dir;
}

/** The environment of `npm start` on a fresh clone: no database, no administrator variables. */
function freshEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, LOG_LEVEL: 'info', BCRYPT_COST: '4', ...extra };
  for (const k of [
    'DATABASE_URL',
    'BOOTSTRAP_ADMIN_EMAIL',
    'BOOTSTRAP_ADMIN_PASSWORD',
    'REDIS_URL',
    'EVENTSTORE_URL',
    'BASE_URL',
    'PROVIDER_EMULATOR_URL',
    'ENABLE_SIMULATOR',
    'DOCUMENT_SIGNING_SECRET',
    'CREDENTIALS_ENCRYPTION_KEY',
  ]) {
    if (!(k in extra)) delete env[k];
  }
  return env;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

interface Started {
  child: ChildProcess;
  output: () => string;
}

/** `calebe serve` until its banner is printed (the last thing a start prints), or until it exits. */
function serve(env: NodeJS.ProcessEnv): Promise<Started & { exited?: number | null }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, 'serve'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    children.push(child);
    let out = '';
    const timer = setTimeout(() => reject(new Error(`serve did not start:\n${out}`)), 150_000);
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk;
      if (/Next step:[\s\S]*\n\n/.test(out)) {
        clearTimeout(timer);
        resolve({ child, output: () => out });
      }
    });
    child.stderr?.on('data', (chunk: Buffer) => (out += chunk));
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ child, output: () => out, exited: code });
    });
  });
}

function stop(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => {
    child.on('exit', (code) => resolve(code));
    child.kill('SIGTERM');
  });
}

/** What the banner printed, by label. */
function banner(out: string) {
  return {
    email: /^ {4}e-mail: +(\S+)$/m.exec(out)?.[1],
    password: /^ {4}password: +(\S+)$/m.exec(out)?.[1],
    testKey: /^ {4}test key: (clb_test_\S+)$/m.exec(out)?.[1],
    liveKey: /^ {4}live key: (clb_live_\S+)$/m.exec(out)?.[1],
  };
}

const JSON_HEADERS = { 'content-type': 'application/json' };
const ORDER = {
  amount: 1250,
  reference: 'order-1',
  description: 'Pedido 1',
  expires_in: 600,
  customer: {
    name: 'Maria Silva',
    phone: '11987654321',
    address: PAYER_ADDRESS,
  },
};

function pix(base: string, key: string, idempotencyKey: string): Promise<Response> {
  return fetch(`${base}/v1/pix`, {
    method: 'POST',
    headers: { ...JSON_HEADERS, 'x-api-key': key, 'idempotency-key': idempotencyKey },
    body: JSON.stringify({ ...ORDER, reference: idempotencyKey }),
  });
}

describe('the embedded default: one start before the first charge (issue 23 item 1.4)', () => {
  test('the first start prints the administrator and the demo keys; every CLI command runs while it is up', async () => {
    const dir = dataDir();
    const port = await freePort();
    const env = freshEnv({ PORT: String(port), CALEBE_DATA_DIR: dir });
    const first = await serve(env);
    assert.equal(first.exited, undefined, first.output());
    const base = `http://localhost:${port}`;
    const printed = banner(first.output());
    assert.match(first.output(), new RegExp(`^Calebe is running on ${base}$`, 'm'));
    assert.equal(printed.email, 'admin@calebe.local', first.output());
    assert.ok(printed.password && printed.testKey && printed.liveKey, first.output());
    assert.match(first.output(), /^ {2}Demo tenant Demo \(ten_\w+\), created now/m);
    assert.match(first.output(), new RegExp(`Next step: .*KEY=${printed.testKey}$`, 'm'));
    assert.doesNotMatch(first.output(), /stop this first/, 'nothing asks to stop the gateway');

    // README: the first charge with the key the start printed, no other command in between.
    const charge = await pix(base, printed.testKey ?? '', 'order-1-pix');
    assert.equal(charge.status, 201, await charge.clone().text());
    const txn = ((await charge.json()) as { data: { id: string; livemode: boolean } }).data;
    assert.equal(txn.livemode, false);

    // socket.json: the gateway lends its database on loopback, readable by its owner only.
    const socketFile = join(dir, 'socket.json');
    assert.equal(statSync(socketFile).mode & 0o777, 0o600);
    const info = JSON.parse(readFileSync(socketFile, 'utf8')) as {
      host: string;
      port: number;
      password: string;
    };
    assert.equal(info.host, '127.0.0.1');
    const wrong = new pg.Client({ host: info.host, port: info.port, user: 'postgres', password: 'guess' });
    await assert.rejects(wrong.connect(), (e: Error & { code?: string }) => e.code === '28P01');

    // The CLI in another terminal, whose shell has no PORT: each command reaches the running gateway.
    const cli = freshEnv({ CALEBE_DATA_DIR: dir, LOG_LEVEL: 'warn' });
    const migrate = await runCli(['migrate'], cli);
    assert.equal(migrate.code, 0, migrate.out);
    assert.match(migrate.out, /database is up to date/);

    const bootstrap = await runCli(['bootstrap'], cli);
    assert.equal(bootstrap.code, 0, bootstrap.out);
    assert.match(bootstrap.out, /Demo tenant: Demo \(ten_\w+\), already existed/);
    assert.match(bootstrap.out, /test key key_\w+ \(clb_test_.{4}…\) already exists/);
    assert.ok(!bootstrap.out.includes(printed.testKey ?? '-'), 'a key secret is never shown twice');
    assert.match(bootstrap.out, /e-mail: +admin@calebe\.local/);
    // Item 1.4: the hint names the gateway's real address, not this shell's default port.
    assert.ok(bootstrap.out.includes(`${base}/admin/sessions`), bootstrap.out);

    const audit = await runCli(['audit', 'replay', '--transaction', txn.id], cli);
    assert.equal(audit.code, 0, audit.out);
    assert.match(audit.out, /^1 transaction streams checked, 0 differences$/m);
    const all = await runCli(['audit', 'replay', '--all'], cli);
    assert.equal(all.code, 0, all.out);
    assert.match(all.out, /^1 transaction streams checked, 0 differences$/m);

    const rebuild = await runCli(['rebuild', '--all'], cli);
    assert.equal(rebuild.code, 0, rebuild.out);
    assert.match(rebuild.out, /: \d+ events in [\d.]+ s/);

    // dev seed stays PostgreSQL-only (README "Commands"): it says so, and never touches the embedded one.
    const seed = await runCli(['dev', 'seed', '--tenants', '1', '--transactions', '1'], cli);
    assert.equal(seed.code, 2, seed.out);

    // The gateway served all along, and its state is the one the commands saw.
    const login = await fetch(`${base}/admin/sessions`, {
      method: 'POST',
      headers: JSON_HEADERS,
      body: JSON.stringify({ email: printed.email, password: printed.password }),
    });
    assert.equal(login.status, 201);
    const again = await pix(base, printed.testKey ?? '', 'order-2-pix');
    assert.equal(again.status, 201);

    // A client's transaction holds the one PGlite session: a charge waits for its commit, never interleaves.
    const client = new pg.Client({
      host: info.host,
      port: info.port,
      user: 'postgres',
      password: info.password,
    });
    await client.connect();
    await client.query('begin');
    const counted = await client.query<{ n: string }>('select count(*) as n from transactions');
    let answered = false;
    const during = pix(base, printed.testKey ?? '', 'order-3-pix').then((r) => {
      answered = true;
      return r;
    });
    await new Promise((r) => setTimeout(r, 1000));
    assert.equal(answered, false, 'the charge waits for the open transaction');
    const inside = await client.query<{ n: string }>('select count(*) as n from transactions');
    assert.equal(inside.rows[0]?.n, counted.rows[0]?.n, 'nothing was written inside the transaction');
    await client.query('commit');
    assert.equal((await during).status, 201);
    await client.end();

    assert.equal(await stop(first.child), 0);
    assert.ok(!existsSync(socketFile), 'a clean stop removes socket.json');
    assert.ok(!existsSync(join(dir, 'calebe.lock')));

    // Later starts print neither the administrator nor a key.
    const second = await serve(env);
    assert.equal(second.exited, undefined, second.output());
    assert.deepEqual(banner(second.output()), {
      email: undefined,
      password: undefined,
      testKey: undefined,
      liveKey: undefined,
    });
    assert.doesNotMatch(second.output(), /clb_(test|live)_/);
    const stillThere = await fetch(`${base}/v1/transactions/${txn.id}`, {
      headers: { 'x-api-key': printed.testKey ?? '' },
    });
    assert.equal(stillThere.status, 200);
    assert.equal(await stop(second.child), 0);
  }, 600_000);

  test('a first start whose port is busy consumes no credential: the next start prints them', async () => {
    const dir = dataDir();
    const busy: Server = createServer();
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', () => resolve()));
    const busyPort = (busy.address() as { port: number }).port;
    try {
      const failed = await serve(freshEnv({ PORT: String(busyPort), CALEBE_DATA_DIR: dir }));
      assert.equal(failed.exited, 1, failed.output());
      assert.match(failed.output(), /port is already in use/);
      assert.doesNotMatch(failed.output(), /password|clb_(test|live)_/, 'no secret printed before listening');
    } finally {
      busy.close();
    }

    const port = await freePort();
    const ok = await serve(freshEnv({ PORT: String(port), CALEBE_DATA_DIR: dir }));
    assert.equal(ok.exited, undefined, ok.output());
    const printed = banner(ok.output());
    assert.ok(printed.password && printed.testKey, ok.output());
    const base = `http://127.0.0.1:${port}`;
    const login = await fetch(`${base}/admin/sessions`, {
      method: 'POST',
      headers: JSON_HEADERS,
      body: JSON.stringify({ email: printed.email, password: printed.password }),
    });
    assert.equal(login.status, 201, 'the password printed now is the administrator’s');
    assert.equal((await pix(base, printed.testKey ?? '', 'busy-1')).status, 201);
    assert.equal(await stop(ok.child), 0);
  }, 400_000);

  test('a socket client that drops inside its transaction is rolled back and frees the database', async () => {
    const dir = dataDir();
    const handle = openDatabase({ dataDir: dir });
    try {
      await sql`create table t (id int primary key)`.execute(handle.db);
      await handle.share?.('http://localhost:1');
      const info = JSON.parse(readFileSync(join(dir, 'socket.json'), 'utf8')) as {
        port: number;
        password: string;
      };
      const client = new pg.Client({
        host: '127.0.0.1',
        port: info.port,
        user: 'postgres',
        password: info.password,
      });
      await client.connect();
      await client.query('begin');
      await client.query('insert into t values (1)');
      // Gone without a word (a killed CLI): no COMMIT, no Terminate.
      client.on('error', () => {});
      (client as unknown as { connection: { stream: { destroy(): void } } }).connection.stream.destroy();
      await sql`insert into t values (2)`.execute(handle.db);
      const rows = await sql<{ id: number }>`select id from t order by id`.execute(handle.db);
      assert.deepEqual(
        rows.rows.map((r) => r.id),
        [2],
        'the dropped transaction was rolled back; this process went on',
      );
    } finally {
      await handle.close();
    }
    assert.ok(!existsSync(join(dir, 'socket.json')));
  });

  test('BASE_URL is what the banner and the log line print', async () => {
    const dir = dataDir();
    const port = await freePort();
    const started = await serve(
      freshEnv({ PORT: String(port), CALEBE_DATA_DIR: dir, BASE_URL: 'https://pay.example.com' }),
    );
    assert.equal(started.exited, undefined, started.output());
    assert.match(started.output(), /^Calebe is running on https:\/\/pay\.example\.com$/m);
    assert.match(started.output(), /^ {2}API reference: https:\/\/pay\.example\.com\/docs$/m);
    // The log line may land just after the banner (pino writes asynchronously).
    for (let i = 0; i < 50 && !started.output().includes('calebe listening on'); i++) {
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.match(started.output(), /calebe listening on https:\/\/pay\.example\.com, data in/);
    const bootstrap = await runCli(['bootstrap'], freshEnv({ CALEBE_DATA_DIR: dir, LOG_LEVEL: 'warn' }));
    assert.equal(bootstrap.code, 0, bootstrap.out);
    assert.ok(bootstrap.out.includes('https://pay.example.com/admin/sessions'), bootstrap.out);
    assert.equal(await stop(started.child), 0);
  }, 400_000);
});
