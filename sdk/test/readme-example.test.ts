import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, test } from 'vitest';
import { BIN } from '../../test/support/cli.ts';
import { createTestDatabase, type TestDatabase } from '../../test/support/databases.ts';
import { Calebe } from '../src/index.ts';

/**
 * Issue 15 "Done when": a newcomer copies the README's SDK example and creates a Pix and verifies its
 * webhook in under twenty lines. This test builds the SDK the documented way (`npm run build -w sdk`), puts
 * the README's ```ts block as is into a fresh project that depends on the built package, type-checks it
 * against the emitted declarations, and runs it against a served gateway (`calebe serve`, whose worker
 * delivers the webhooks over a real socket to the example's receiver).
 */

const ROOT = resolve(import.meta.dirname, '../..');
const ADMIN = { email: 'admin@example.com', password: 'change me, at least 12' };

/** The first ```ts block of the README's "SDK" section. */
function readmeExample(): string {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('\n## SDK\n'));
  const block = /^```ts\n([\s\S]*?)^```$/m.exec(section.slice(0, section.indexOf('\n## ', 5)));
  assert.ok(block?.[1], 'README.md has a ```ts block in its "SDK" section');
  return block[1];
}

function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const s = createServer();
    s.once('error', fail);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => done(port));
    });
  });
}

/** Runs a command to its end; resolves with its exit code and output. */
function run(command: string, args: string[], cwd: string, env = process.env) {
  return new Promise<{ code: number | null; out: string }>((done) => {
    const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (c) => (out += c));
    child.stderr.on('data', (c) => (out += c));
    child.on('exit', (code) => done({ code, out }));
  });
}

/** Resolves once `pattern` appears in the child's output (or rejects when it exits first). */
function waitFor(child: ChildProcess, pattern: RegExp, output: { text: string }): Promise<RegExpMatchArray> {
  return new Promise((done, fail) => {
    const seen = () => {
      const m = output.text.match(pattern);
      if (m) done(m);
    };
    child.stdout?.on('data', (c) => {
      output.text += c;
      seen();
    });
    child.stderr?.on('data', (c) => {
      output.text += c;
      seen();
    });
    child.once('exit', (code) => fail(new Error(`exited ${code} before ${pattern}:\n${output.text}`)));
    seen();
  });
}

const stop = (child: ChildProcess | undefined) =>
  new Promise<void>((done) => {
    if (!child || child.exitCode !== null || child.signalCode !== null) return done();
    child.once('exit', () => done());
    child.kill('SIGTERM');
  });

let db: TestDatabase;
let gateway: ChildProcess | undefined;
let example: ChildProcess | undefined;
let project: string;
let baseUrl: string;
let receiverPort: number;
const PATH = `${dirname(process.execPath)}:${process.env.PATH ?? ''}`;

beforeAll(async () => {
  const build = await run('npm', ['run', 'build', '-w', 'sdk'], ROOT, { ...process.env, PATH });
  assert.equal(build.code, 0, build.out);

  db = await createTestDatabase();
  const port = await freePort();
  receiverPort = await freePort();
  baseUrl = `http://127.0.0.1:${port}`;
  const env: NodeJS.ProcessEnv = { ...process.env, PATH };
  for (const k of ['REDIS_URL', 'EVENTSTORE_URL', 'CALEBE_DATA_DIR', 'LOG_FORMAT']) delete env[k];
  Object.assign(env, {
    DATABASE_URL: db.url,
    PORT: String(port),
    HOST: '127.0.0.1',
    BASE_URL: baseUrl,
    BOOTSTRAP_ADMIN_EMAIL: ADMIN.email,
    BOOTSTRAP_ADMIN_PASSWORD: ADMIN.password,
    DOCUMENT_SIGNING_SECRET: 'sdk-readme-test-document-signing-secret-0123456789',
    ENABLE_SIMULATOR: 'true',
    CREDENTIALS_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    BCRYPT_COST: '4',
    WEBHOOK_ALLOWED_PRIVATE_HOSTS: `127.0.0.1:${receiverPort}`,
    LOG_LEVEL: 'warn',
  });
  gateway = spawn(process.execPath, [BIN, 'serve'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  await waitFor(gateway, /Next step:/, { text: '' });

  // A fresh project that depends on the built package, as a newcomer's would.
  project = mkdtempSync(join(tmpdir(), 'calebe-sdk-example-'));
  writeFileSync(join(project, 'package.json'), JSON.stringify({ type: 'module', private: true }));
  symlinkSync(join(ROOT, 'node_modules'), join(project, 'node_modules'), 'dir');
  writeFileSync(
    join(project, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        target: 'ES2023',
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        strict: true,
        skipLibCheck: true,
        types: ['node'],
        outDir: 'out',
      },
      files: ['pix.ts'],
    }),
  );
  writeFileSync(join(project, 'pix.ts'), readmeExample());
});

afterAll(async () => {
  await stop(example);
  await stop(gateway);
  await db?.drop();
  if (project) rmSync(project, { recursive: true, force: true });
});

describe('issue 15 item 3: the SDK build and the README example', () => {
  test('npm run build -w sdk writes JavaScript and declarations that need only zod and standardwebhooks', () => {
    const dist = join(ROOT, 'sdk/dist');
    assert.ok(existsSync(join(dist, 'sdk/src/index.js')));
    assert.ok(existsSync(join(dist, 'sdk/src/index.d.ts')));
    const pkg = JSON.parse(readFileSync(join(ROOT, 'sdk/package.json'), 'utf8'));
    assert.equal(pkg.exports['.'].types, './dist/sdk/src/index.d.ts');
    assert.equal(pkg.exports['.'].import, './dist/sdk/src/index.js');
    // The server schemas it bundles are pure: nothing of the server's runtime (database, fastify, bcrypt).
    const files = readdirSync(dist, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.js'));
    const bare = new Set<string>();
    for (const f of files) {
      for (const m of readFileSync(join(dist, f), 'utf8').matchAll(/(?:from|import)\s+'([^'.][^']*)'/g)) {
        bare.add(m[1] as string);
      }
    }
    assert.deepEqual([...bare].filter((s) => !s.startsWith('node:')).sort(), ['standardwebhooks', 'zod']);
    assert.deepEqual(Object.keys(pkg.dependencies).sort(), ['standardwebhooks', 'zod']);
  });

  test('the README block is under twenty lines, type-checks, creates a Pix and verifies its webhook', async () => {
    const code = readmeExample();
    assert.ok(code.trimEnd().split('\n').length < 20, 'under twenty lines');

    // What the README's reader has: a test key of a tenant and the callback secret (via the SDK's panel methods).
    const login = await new Calebe({ baseUrl }).createSession(ADMIN);
    const panel = new Calebe({ baseUrl, sessionToken: login.data.token });
    const type = await panel.createTenantType(
      { name: 'Merchant', allows_children: true },
      { idempotencyKey: 't-1' },
    );
    const tenant = await panel.createTenant(
      { name: 'Acme', type_id: type.data.id },
      { idempotencyKey: 'n-1' },
    );
    const key = await panel.createApiKey(
      {
        tenant_id: tenant.data.id,
        mode: 'test',
        scopes: ['pix:write', 'transactions:read'],
        name: 'example',
      },
      { idempotencyKey: 'k-1' },
    );
    const secret = await panel.getWebhookCallbackSecret({ tenant_id: tenant.data.id, mode: 'test' });
    assert.ok(key.data.key);

    // Type-checked against the emitted declarations, then run.
    const tsc = join(ROOT, 'node_modules/typescript/bin/tsc');
    const compiled = await run(process.execPath, [tsc, '-p', 'tsconfig.json'], project);
    assert.equal(compiled.code, 0, `the README example does not type-check:\n${compiled.out}`);
    const output = { text: '' };
    example = spawn(process.execPath, ['out/pix.js'], {
      cwd: project,
      env: {
        ...process.env,
        CALEBE_URL: baseUrl,
        CALEBE_API_KEY: key.data.key,
        CALEBE_WEBHOOK_SECRET: secret.data.secret,
        PORT: String(receiverPort),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const created = await waitFor(example, /^201 (txn_\S+) \S+/m, output);
    const id = created[1] as string;
    // Printed by the receiver only after verifyWebhook accepted the delivery's signature.
    await waitFor(example, new RegExp(`^transaction\\.created ${id} `, 'm'), output);
    const pix = await new Calebe({ baseUrl, apiKey: key.data.key }).getTransaction(id);
    assert.equal(pix.data.reference, 'order-3');
    assert.equal(pix.data.livemode, false);
  });
});
