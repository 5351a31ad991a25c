import assert from 'node:assert/strict';
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname } from 'node:path';
import { afterAll, beforeAll, describe, test } from 'vitest';
import { BIN } from '../support/cli.ts';
import { createTestDatabase, type TestDatabase } from '../support/databases.ts';

/**
 * Issue 12 item 5 (4): every ```sh block of README.md runs as pasted, in order, in one bash (variables
 * carry over, as in one terminal), against a real gateway on a fresh PostgreSQL database, started here the
 * way the README starts it (BOOTSTRAP_ADMIN_EMAIL/PASSWORD of the README; BASE_URL its address).
 *
 * Convention: a block opened with ```sh (no-test) is not run. Each such block must be of one of the kinds
 * below, which say why; anything else must run.
 */
const EXEMPT: { kind: RegExp; why: string }[] = [
  { kind: /\bnpm (ci|start)\b|calebe serve\b/, why: 'installs or starts a gateway that runs until stopped' },
  {
    kind: /calebe provider-emulator --port 4010\b/,
    why: 'starts the provider emulator on its fixed port until stopped (this test starts one on a free port)',
  },
  {
    kind: /\bnpm (test|run test:|run lint:openapi)|\bnpx vitest\b|apt-get install|CHROMIUM_PATH=/,
    why: 'runs the test suite itself (this test is part of it) or installs a system package',
  },
  { kind: /\bdocker (run|compose)\b/, why: 'needs Docker, absent on the development machines' },
  {
    kind: /\bnpm run (bench|chaos)\b/,
    why: 'benchmarks and fault scenarios run for minutes on their own databases',
  },
  { kind: /calebe dev seed/, why: 'dev seed writes a million charges, for performance work' },
];

const README = readFileSync('README.md', 'utf8');
const ADMIN_EMAIL = 'admin@example.com';
const ADMIN_PASSWORD = 'change me, at least 12';

interface Block {
  line: number;
  code: string;
  exempt: boolean;
}

function blocks(): Block[] {
  const found: Block[] = [];
  const re = /^```sh( \(no-test\))?\n([\s\S]*?)^```$/gm;
  for (let m = re.exec(README); m; m = re.exec(README)) {
    const line = README.slice(0, m.index).split('\n').length;
    found.push({ line, code: m[2] ?? '', exempt: Boolean(m[1]) });
  }
  return found;
}

/** A free TCP port on loopback, so several test runs (and a developer's own `npm start`) never collide. */
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

let db: TestDatabase;
let gateway: ChildProcess | undefined;
let emulator: ChildProcess | undefined;
let env: NodeJS.ProcessEnv;

/**
 * README "Gateway against the provider emulator": its first command, on a free port. Answers the base URL
 * from the one line it prints (`provider emulator on <url> (...)`).
 */
function startEmulator(): Promise<string> {
  const child = spawn(process.execPath, [BIN, 'provider-emulator', '--port', '0'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  emulator = child;
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk;
      const url = /^provider emulator on (\S+) /m.exec(out)?.[1];
      if (url) resolve(url);
    });
    child.stderr?.on('data', (chunk: Buffer) => (out += chunk));
    child.once('exit', (code) => reject(new Error(`the emulator exited ${code}:\n${out}`)));
  });
}

async function stop(child: ChildProcess | undefined): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  await new Promise((resolve) => {
    child.once('exit', resolve);
    child.kill('SIGTERM');
  });
}

beforeAll(async () => {
  db = await createTestDatabase();
  const port = await freePort();
  const emulatorUrl = await startEmulator();
  env = { ...process.env };
  for (const k of ['REDIS_URL', 'EVENTSTORE_URL', 'CALEBE_DATA_DIR', 'LOG_FORMAT']) delete env[k];
  Object.assign(env, {
    DATABASE_URL: db.url,
    PORT: String(port),
    HOST: '127.0.0.1',
    BASE_URL: `http://localhost:${port}`,
    BOOTSTRAP_ADMIN_EMAIL: ADMIN_EMAIL,
    BOOTSTRAP_ADMIN_PASSWORD: ADMIN_PASSWORD,
    DOCUMENT_SIGNING_SECRET: 'readme-test-document-signing-secret-0123456789',
    // What the embedded database turns on by itself (README "Walkthrough" says so for DATABASE_URL).
    ENABLE_SIMULATOR: 'true',
    CREDENTIALS_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    BCRYPT_COST: '4',
    // The README walks through the default configuration, where lists show a charge's deliveries at once;
    // in the async mode (npm run test:async) they trail the log, which the README says where it matters.
    PROJECTIONS: 'inline',
    // The second command of README "Gateway against the provider emulator", with this test's emulator.
    PROVIDER_EMULATOR_URL: emulatorUrl,
    WEBHOOK_ALLOWED_PRIVATE_HOSTS: '127.0.0.1',
    LOG_LEVEL: 'warn',
    // `node` and `npx` of the Node.js running the tests.
    PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ''}`,
  });
  const child = spawn(process.execPath, [BIN, 'serve'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  gateway = child;
  await new Promise<void>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`the gateway did not start:\n${out}`)), 120_000);
    const seen = (chunk: Buffer) => {
      out += chunk;
      if (out.includes('Next step:')) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout?.on('data', seen);
    child.stderr?.on('data', seen);
    child.once('exit', (code) => reject(new Error(`the gateway exited ${code}:\n${out}`)));
  });
});

afterAll(async () => {
  await stop(gateway);
  await stop(emulator);
  await db?.drop();
});

describe('README.md', () => {
  test('the README uses the administrator this test starts the gateway with', () => {
    assert.ok(
      README.includes(`BOOTSTRAP_ADMIN_EMAIL=${ADMIN_EMAIL} BOOTSTRAP_ADMIN_PASSWORD='${ADMIN_PASSWORD}'`),
    );
    assert.ok(README.includes(`ADMIN_EMAIL=${ADMIN_EMAIL}; ADMIN_PASSWORD='${ADMIN_PASSWORD}'`));
  });

  test('every (no-test) block is of an exempt kind; every curl that runs checks its status', () => {
    const all = blocks();
    assert.ok(all.filter((b) => !b.exempt).length >= 10, 'most blocks run');
    // Every command line of a skipped block must be of an exempt kind: nothing else hides in one.
    for (const b of all.filter((x) => x.exempt)) {
      const lines = b.code.split('\n').filter((l) => l.trim() !== '' && !l.trim().startsWith('#'));
      for (const line of lines) {
        assert.ok(
          EXEMPT.some((e) => e.kind.test(line)),
          `README.md:${b.line}: a (no-test) line of no exempt kind:\n${line}`,
        );
      }
    }
    for (const b of all.filter((x) => !x.exempt)) {
      // A command spans continuation lines; join them before looking at its options.
      const commands = b.code.replace(/\\\n/g, ' ').split('\n');
      for (const c of commands.filter((l) => /\bcurl /.test(l))) {
        // Success expected: --fail-with-body makes curl (and the block) fail on 4xx/5xx and still print the
        // error's body (issue 23 item 1.5: -f failed silently). Otherwise the status is printed and checked
        // with grep -x, next to the README's word for it.
        const fails = /\bcurl -sS --fail-with-body /.test(c);
        const checked = /-w '%\{http_code\}\\n'.*\| grep -x \d{3}\b/.test(c);
        assert.ok(
          fails || checked,
          `README.md:${b.line}: curl without --fail-with-body or a checked status:\n${c}`,
        );
        assert.doesNotMatch(
          c,
          /\bcurl (?:.* )?(?:-[a-zA-Z]*f[a-zA-Z]*|--fail)(?= )/,
          `README.md:${b.line}: -f hides the error body:\n${c}`,
        );
      }
    }
  });

  test('the curl here has --fail-with-body (7.76 or later), which every block relies on', () => {
    const version = /^curl (\d+)\.(\d+)/.exec(execFileSync('curl', ['--version'], { encoding: 'utf8' }));
    const [major, minor] = [Number(version?.[1]), Number(version?.[2])];
    assert.ok(major > 7 || (major === 7 && minor >= 76), `curl ${major}.${minor}: the README needs 7.76+`);
  });

  test('every other ```sh block runs as pasted, in order, and exits 0', async () => {
    const run = blocks().filter((b) => !b.exempt);
    // One shell for all, so variables carry over as in a terminal; -e and pipefail make any failing command
    // fail the whole block, and the marker names the block that failed.
    const script = [
      'set -eo pipefail',
      ...run.map((b) => `echo "::README.md:${b.line}::" >&2\n${b.code}`),
      'echo "::done::" >&2',
    ].join('\n');
    const { code, out } = await new Promise<{ code: number | null; out: string }>((resolve) => {
      const bash = spawn('bash', ['-c', script], { env, stdio: ['ignore', 'pipe', 'pipe'] });
      let text = '';
      bash.stdout.on('data', (c) => (text += c));
      bash.stderr.on('data', (c) => (text += c));
      bash.on('exit', (exit) => resolve({ code: exit, out: text }));
    });
    const last = [...out.matchAll(/::(README\.md:\d+|done)::/g)].at(-1)?.[1];
    assert.equal(code, 0, `the block at ${last} failed:\n${out.slice(-6000)}`);
    assert.equal(last, 'done');
    // What the blocks printed that the README promises.
    assert.match(out, /1 transaction streams checked, 0 differences/);
    assert.match(out, /SIMULADO — não pagável/);
    assert.match(out, /"status":"refunded"/);
    // Issue 13 "Done when": a real-mode boleto paid by its Pix at the emulator, refreshed, and its webhook.
    assert.match(out, /"simulated":false,"environment":"sandbox","livemode":true/);
    assert.match(out, /^%PDF-$/m);
    assert.match(out, /^transaction\.updated\npending$/m);
    // Every block in one test, several CLI processes among them: more than the lanes' default on 2 busy cores.
  }, 600_000);
});
