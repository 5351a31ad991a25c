import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, test } from 'vitest';
import { BIN } from '../../test/support/cli.ts';
import { createTestDatabase, type TestDatabase } from '../../test/support/databases.ts';
import { Calebe } from '../src/index.ts';

/**
 * Issue 15 "Done when" and issue 23 item 1.2: a newcomer installs the SDK the way its README says and the
 * examples run as written. The SDK is packed the documented way (`npm pack -w sdk`, which builds in
 * `prepack`), installed into an empty `npm init -y` project (CommonJS, as npm makes it) from that tarball,
 * so only what the tarball carries and declares is there. In that project the sdk/README.md first charge
 * runs from CommonJS (`pix.cjs`, `require`) and from an ES module (`pix.mjs`, `import`), and the root
 * README's ```ts block is type-checked against the installed declarations and run; all against a served
 * gateway (`calebe serve`, whose worker delivers the webhooks over a real socket to the example's receiver).
 */

const ROOT = resolve(import.meta.dirname, '../..');
const ADMIN = { email: 'admin@example.com', password: 'change me, at least 12' };

/** A ```js block of sdk/README.md by the file name on its first line (`// pix.cjs`). */
function sdkReadmeExample(file: string): string {
  const readme = readFileSync(join(ROOT, 'sdk/README.md'), 'utf8');
  const block = [...readme.matchAll(/^```js\n([\s\S]*?)^```$/gm)].find((m) =>
    m[1]?.startsWith(`// ${file}\n`),
  );
  assert.ok(block?.[1], `sdk/README.md has a \`\`\`js block starting with // ${file}`);
  return block[1];
}

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

let tarball: string;

beforeAll(async () => {
  // The documented install: pack (prepack builds sdk/dist), then npm init -y and npm install <tgz>.
  const packs = mkdtempSync(join(tmpdir(), 'calebe-sdk-pack-'));
  const packed = await run('npm', ['pack', '-w', 'sdk', '--pack-destination', packs], ROOT, {
    ...process.env,
    PATH,
  });
  assert.equal(packed.code, 0, packed.out);
  const tgz = readdirSync(packs).filter((f) => f.endsWith('.tgz'));
  assert.deepEqual(tgz, ['calebe-sdk-0.1.0.tgz'], 'the tarball name the READMEs give');
  tarball = join(packs, tgz[0] as string);
  project = mkdtempSync(join(tmpdir(), 'calebe-sdk-example-'));
  const init = await run('npm', ['init', '-y'], project, { ...process.env, PATH });
  assert.equal(init.code, 0, init.out);
  const npmFlags = ['--prefer-offline', '--no-audit', '--no-fund', '--no-package-lock'];
  const installed = await run('npm', ['install', tarball, ...npmFlags], project, { ...process.env, PATH });
  assert.equal(installed.code, 0, installed.out);

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

  writeFileSync(
    join(project, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        target: 'ES2023',
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        strict: true,
        skipLibCheck: true,
        // The newcomer's own @types/node; here the repository's, so the project installs only the tarball.
        typeRoots: [join(ROOT, 'node_modules/@types')],
        types: ['node'],
        outDir: 'out',
      },
      files: ['pix.ts'],
    }),
  );
  writeFileSync(join(project, 'pix.ts'), readmeExample());
  writeFileSync(join(project, 'pix.cjs'), sdkReadmeExample('pix.cjs'));
  writeFileSync(join(project, 'pix.mjs'), sdkReadmeExample('pix.mjs'));
});

/** What the README's reader has: a test key of a new tenant and its callback secret (via the panel methods). */
async function testTenant(name: string) {
  const slug = name.replace(/[^A-Za-z0-9._:-]/g, '-');
  const login = await new Calebe({ baseUrl }).createSession(ADMIN);
  const panel = new Calebe({ baseUrl, sessionToken: login.data.token });
  const type = await panel.createTenantType(
    { name: `Merchant ${name}`, allows_children: true },
    { idempotencyKey: `t-${slug}` },
  );
  const tenant = await panel.createTenant({ name, type_id: type.data.id }, { idempotencyKey: `n-${slug}` });
  const key = await panel.createApiKey(
    { tenant_id: tenant.data.id, mode: 'test', scopes: ['pix:write', 'transactions:read'], name: 'example' },
    { idempotencyKey: `k-${slug}` },
  );
  const secret = await panel.getWebhookCallbackSecret({ tenant_id: tenant.data.id, mode: 'test' });
  return { key: key.data.key, secret: secret.data.secret };
}

afterAll(async () => {
  await stop(example);
  await stop(gateway);
  await db?.drop();
  if (project) rmSync(project, { recursive: true, force: true });
  if (tarball) rmSync(dirname(tarball), { recursive: true, force: true });
});

describe('issue 23 item 1.2: the SDK installs from its tarball', () => {
  test('the tarball carries an ESM and a CommonJS build with their types, and declares what they import', () => {
    const pkgDir = join(project, 'node_modules/@calebe/sdk');
    const pkg = JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8'));
    assert.equal(pkg.license, 'MIT');
    assert.ok(existsSync(join(pkgDir, 'LICENSE')));
    const entry = pkg.exports['.'];
    for (const condition of ['import', 'require'] as const) {
      assert.ok(existsSync(join(pkgDir, entry[condition].types)), `${condition} types`);
      assert.ok(existsSync(join(pkgDir, entry[condition].default)), `${condition} JavaScript`);
    }
    // The CommonJS copy is marked as such, for Node and for TypeScript's reading of its .d.ts.
    const cjsDir = dirname(entry.require.default.replace(/\/sdk\/src\/index\.js$/, '/package.json'));
    assert.equal(JSON.parse(readFileSync(join(pkgDir, cjsDir, 'package.json'), 'utf8')).type, 'commonjs');
    // The server schemas it carries are pure: nothing of the server's runtime (database, fastify, bcrypt).
    const files = readdirSync(join(pkgDir, 'dist'), { recursive: true, encoding: 'utf8' }).filter((f) =>
      f.endsWith('.js'),
    );
    const bare = new Set<string>();
    for (const f of files) {
      const code = readFileSync(join(pkgDir, 'dist', f), 'utf8');
      for (const m of code.matchAll(/(?:from\s+|import\s+|require\()['"]([^'".][^'"]*)['"]/g)) {
        bare.add(m[1] as string);
      }
    }
    assert.deepEqual([...bare].filter((s) => !s.startsWith('node:')).sort(), ['standardwebhooks', 'zod']);
    assert.deepEqual(Object.keys(pkg.dependencies).sort(), ['standardwebhooks', 'zod']);
    // npm installed those dependencies beside it, from the registry, as for any integrator.
    for (const dep of ['standardwebhooks', 'zod']) assert.ok(existsSync(join(project, 'node_modules', dep)));
  });

  for (const file of ['pix.cjs', 'pix.mjs']) {
    test(`sdk/README.md's ${file} creates a Pix on the simulator and reads it back`, async () => {
      const { key } = await testTenant(`Acme ${file}`);
      const env = { ...process.env, CALEBE_URL: baseUrl, CALEBE_API_KEY: key };
      const first = await run(process.execPath, [file], project, env);
      assert.equal(first.code, 0, first.out);
      const created = /^201 (txn_\S+) pending$/m.exec(first.out);
      assert.ok(created, first.out);
      const id = created[1] as string;
      assert.match(first.out, /^order-1 1250 \S+/m);
      // The gateway's own answer, not the example's print: the charge is there, a test charge of this key.
      const pix = await new Calebe({ baseUrl, apiKey: key }).getTransaction(id);
      assert.equal(pix.data.reference, 'order-1');
      assert.equal(pix.data.amount, 1250);
      assert.equal(pix.data.livemode, false);
      // The README's promise for a second run: the same idempotency key answers the same charge again.
      const second = await run(process.execPath, [file], project, env);
      assert.equal(second.code, 0, second.out);
      assert.match(second.out, new RegExp(`^200 ${id} `, 'm'));
    });
  }
});

describe('issue 15 item 3: the root README example, in the installed project', () => {
  test('the README block is under twenty lines, type-checks, creates a Pix and verifies its webhook', async () => {
    const code = readmeExample();
    assert.ok(code.trimEnd().split('\n').length < 20, 'under twenty lines');
    const { key, secret } = await testTenant('Acme README');

    // Type-checked against the installed declarations (the project is CommonJS: the `require` types), then run.
    const tsc = join(ROOT, 'node_modules/typescript/bin/tsc');
    const compiled = await run(process.execPath, [tsc, '-p', 'tsconfig.json'], project);
    assert.equal(compiled.code, 0, `the README example does not type-check:\n${compiled.out}`);
    const output = { text: '' };
    example = spawn(process.execPath, ['out/pix.js'], {
      cwd: project,
      env: {
        ...process.env,
        CALEBE_URL: baseUrl,
        CALEBE_API_KEY: key,
        CALEBE_WEBHOOK_SECRET: secret,
        PORT: String(receiverPort),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const created = await waitFor(example, /^201 (txn_\S+) \S+/m, output);
    const id = created[1] as string;
    // Printed by the receiver only after verifyWebhook accepted the delivery's signature.
    await waitFor(example, new RegExp(`^transaction\\.created ${id} `, 'm'), output);
    const pix = await new Calebe({ baseUrl, apiKey: key }).getTransaction(id);
    assert.equal(pix.data.reference, 'order-3');
    assert.equal(pix.data.livemode, false);
  });
});
