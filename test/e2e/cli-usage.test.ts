import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, test } from 'vitest';
import { cliEnv, runCli } from '../support/cli.ts';
import { createTestDatabase } from '../support/databases.ts';

// Issue 12 item 5 (3): every subcommand has a `--help` that does nothing else, an unknown option is one
// line and exit 2, an unreachable database is one line and a non-zero exit, never a stack trace.

/** Every subcommand of src/cli.ts, as typed, with the words its help must show. */
const COMMANDS: { args: string[]; usage: RegExp }[] = [
  { args: ['serve'], usage: /^usage: calebe serve \[--role api\|worker\|all\]/ },
  { args: ['migrate'], usage: /^usage: calebe migrate/ },
  { args: ['bootstrap'], usage: /^usage: calebe bootstrap/ },
  { args: ['rebuild'], usage: /^usage: calebe rebuild <projection>\.\.\. \| --all/ },
  { args: ['rebuild', '--all'], usage: /^usage: calebe rebuild/ },
  { args: ['audit', 'replay'], usage: /^usage: calebe audit replay \[--transaction <id> \| --all\]/ },
  { args: ['dev', 'seed'], usage: /^usage: calebe dev seed --tenants N --transactions M/ },
  { args: ['provider-emulator'], usage: /^usage: calebe provider-emulator \[--port N\] \[--host ADDRESS\]/ },
];

const UNREACHABLE = 'postgres://postgres@127.0.0.1:1/x';
const dataDir = join(mkdtempSync(join(tmpdir(), 'calebe-usage-')), 'data');
afterAll(() => rmSync(join(dataDir, '..'), { recursive: true, force: true }));

/** An environment whose database is the unreachable one, or the embedded one in a directory not yet made. */
function env(database: 'unreachable' | 'embedded'): NodeJS.ProcessEnv {
  const e = cliEnv(UNREACHABLE);
  if (database === 'embedded') delete e.DATABASE_URL;
  // serve needs it with DATABASE_URL; here it must get as far as opening the database.
  return {
    ...e,
    CALEBE_DATA_DIR: dataDir,
    DOCUMENT_SIGNING_SECRET: 'cli-usage-document-signing-secret-0123456',
  };
}

const noStack = (out: string) => assert.doesNotMatch(out, /^\s+at /m, `no stack trace:\n${out}`);
const oneLine = (out: string) => assert.equal(out.trim().split('\n').length, 1, `one line:\n${out}`);

describe('calebe <command> --help, unknown options, unreachable database', () => {
  test('top level: --help lists every command; an unknown command is one line, exit 2', async () => {
    const help = await runCli(['--help'], env('unreachable'));
    assert.equal(help.code, 0, help.out);
    for (const c of [
      'serve',
      'migrate',
      'bootstrap',
      'rebuild',
      'audit replay',
      'dev seed',
      'provider-emulator',
    ]) {
      assert.match(help.out, new RegExp(`^  ${c}`, 'm'));
    }
    const unknown = await runCli(['frobnicate'], env('unreachable'));
    assert.equal(unknown.code, 2);
    oneLine(unknown.out);
    assert.match(unknown.out, /unknown command 'frobnicate'/);
  });

  for (const { args, usage } of COMMANDS) {
    const name = args.join(' ');
    test(`${name} --help prints its usage and touches no database, embedded or not`, async () => {
      // Both spellings, once against a database that does not answer and once against an embedded one not yet
      // created: either would fail or leave a trace if --help did more than print.
      const runs = await Promise.all([
        runCli([...args, '--help'], env('unreachable')),
        runCli([...args, '-h'], env('embedded')),
      ]);
      for (const { code, out } of runs) {
        assert.equal(code, 0, `${name}: ${out}`);
        assert.match(out, usage);
      }
      assert.ok(!existsSync(dataDir), '--help never creates the embedded database');
    });

    test(`${name} --frobnicate: one line naming the option, exit 2`, async () => {
      const { code, out } = await runCli([...args, '--frobnicate'], env('unreachable'));
      assert.equal(code, 2, out);
      oneLine(out);
      assert.match(out, /Unknown option '--frobnicate'/);
      assert.match(out, new RegExp(`calebe ${args[0]} --help`));
    });
  }

  test('stray arguments are usage errors too (exit 2, one line)', async () => {
    for (const args of [
      ['migrate', 'now'],
      ['serve', '--role', 'x'],
      ['audit', 'replay', '--all', '--transaction', 'txn_1'],
      ['dev', 'seed', '--tenants', '0', '--transactions', '1'],
      ['provider-emulator', 'now'],
      ['provider-emulator', '--port', 'x'],
      ['provider-emulator', '--port', '70000'],
    ]) {
      const { code, out } = await runCli(args, env('unreachable'));
      assert.equal(code, 2, `${args.join(' ')}: ${out}`);
      oneLine(out);
    }
  });

  // What each command does once its arguments are right: it opens the database, which does not answer.
  const RUNS = [
    ['serve'],
    ['migrate'],
    ['bootstrap'],
    ['rebuild', '--all'],
    ['rebuild', 'stream_catalog'],
    ['audit', 'replay'],
    ['audit', 'replay', '--transaction', 'txn_01abc'],
    ['dev', 'seed', '--tenants', '1', '--transactions', '1'],
  ];
  for (const args of RUNS) {
    test(`${args.join(' ')} with DATABASE_URL unreachable: one clear line, exit 1`, async () => {
      const { code, out } = await runCli(args, env('unreachable'));
      assert.equal(code, 1, out);
      oneLine(out);
      noStack(out);
      assert.match(out, /cannot use PostgreSQL at 127\.0\.0\.1:1\/x: connect ECONNREFUSED/);
    });
  }

  test('dev seed refuses the embedded database with a clear line (README "Commands")', async () => {
    const { code, out } = await runCli(
      ['dev', 'seed', '--tenants', '1', '--transactions', '1'],
      env('embedded'),
    );
    assert.equal(code, 2, out);
    oneLine(out);
    assert.match(out, /dev seed writes to PostgreSQL only, never to the embedded database: set DATABASE_URL/);
    assert.ok(!existsSync(dataDir), 'nothing was created');
  });

  test('audit replay --transaction <unknown id>: exit 1 and a clear line', async () => {
    const db = await createTestDatabase();
    try {
      const { code, out } = await runCli(
        ['audit', 'replay', '--transaction', 'txn_01nosuchcharge'],
        cliEnv(db.url),
      );
      assert.equal(code, 1, out);
      oneLine(out);
      assert.match(out, /no transaction txn_01nosuchcharge in this database/);
    } finally {
      await db.drop();
    }
  });
});
