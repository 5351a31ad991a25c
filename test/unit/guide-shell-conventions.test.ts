import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, test } from 'vitest';
import { parse } from 'yaml';

/**
 * Issue 23 items 1.5 and 1.8: both guides as a newcomer pastes them. `bootstrap` prints a bare key, so
 * `KEY` holds the bare key (`KEY=clb_test_…`) and every request sends `-H "x-api-key: $KEY"`; the pt-BR
 * guide says what KEY is; curl runs with `--fail-with-body`, never `-f`, which fails with no error body.
 * README.md's blocks also run as pasted (test/e2e/readme.test.ts); the pt-BR guide's are copies of them
 * (test/unit/readme-pt-br.test.ts). Compose is not installed here, so the README's compose bootstrap is
 * checked against docker-compose.yml, the Dockerfile and the CLI.
 */
const GUIDES = ['README.md', 'docs/pt-BR/README.md'] as const;

/** The command lines of every ```sh block (continuations joined), with the block's line. */
function shellCommands(markdown: string): { line: number; command: string }[] {
  const found: { line: number; command: string }[] = [];
  for (const m of markdown.matchAll(/^```sh[^\n]*\n([\s\S]*?)^```$/gm)) {
    const line = markdown.slice(0, m.index).split('\n').length;
    for (const command of (m[1] ?? '').replace(/\\\n/g, ' ').split('\n')) {
      // Trailing comments are prose (they may quote the convention itself).
      found.push({ line, command: command.replace(/\s+#\s.*$/, '') });
    }
  }
  return found;
}

describe('issue 23 item 1.5: shell conventions of both guides', () => {
  for (const file of GUIDES) {
    const text = readFileSync(file, 'utf8');
    const commands = shellCommands(text);

    test(`${file}: curl always with --fail-with-body, never -f (which hides the error body)`, () => {
      const curls = commands.filter((c) => /\bcurl /.test(c.command));
      assert.ok(curls.length > 0, 'curl commands');
      for (const { line, command } of curls) {
        assert.doesNotMatch(
          command,
          /\bcurl (?:.* )?(?:-[a-zA-Z]*f[a-zA-Z]*|--fail)(?= )/,
          `${file}:${line}: ${command}`,
        );
        assert.ok(
          command.includes('curl -sS --fail-with-body ') || /-w '%\{http_code\}\\n'/.test(command),
          `${file}:${line}: curl without --fail-with-body or a printed status: ${command}`,
        );
      }
    });

    test(`${file}: KEY and LIVE hold bare keys and are sent as -H "x-api-key: $KEY"`, () => {
      for (const { line, command } of commands) {
        assert.doesNotMatch(
          command,
          /\b(KEY|LIVE)="?x-api-key:/i,
          `${file}:${line}: a header line in a key variable`,
        );
        for (const use of command.matchAll(/-H "([^"]*\$(?:KEY|LIVE)\b[^"]*)"/g)) {
          assert.match(use[1] ?? '', /^x-api-key: \$(KEY|LIVE)$/, `${file}:${line}: ${command}`);
        }
      }
      assert.ok(
        commands.some((c) => /-H "x-api-key: \$KEY"/.test(c.command)),
        `${file}: the key is sent as a header`,
      );
    });

    test(`${file}: an error answer piped into json is printed, and fails the command`, () => {
      // --fail-with-body hands the error body to the pipe: the guide's json helper must show it.
      const definition = /^json\(\) \{[\s\S]*?"; \}/m.exec(text)?.[0];
      assert.ok(definition, `${file}: defines json()`);
      const envelope =
        '{"error":{"code":"validation_error","message":"customer.document is required","request_id":"req_1"}}';
      const run = spawnSync('bash', ['-c', `${definition}\njson data.id`], {
        input: envelope,
        encoding: 'utf8',
      });
      assert.equal(run.status, 1, run.stderr);
      assert.equal(run.stderr.trim(), envelope);
      const ok = spawnSync('bash', ['-c', `${definition}\njson 'data[0].id'`], {
        input: '{"data":[{"id":"txn_1"}]}',
        encoding: 'utf8',
      });
      assert.equal(ok.stdout, 'txn_1\n', ok.stderr);
    });

    test(`${file}: says what KEY holds, the bare key bootstrap prints (KEY=clb_test_…)`, () => {
      assert.match(text, /`KEY=clb_test_…`/);
    });
  }
});

describe('issue 23 item 1.8: the README shows bootstrap under compose, and it fits docker-compose.yml', () => {
  const readme = readFileSync('README.md', 'utf8');
  const compose = parse(readFileSync('docker-compose.yml', 'utf8'), { merge: true }) as {
    services: Record<string, { build?: unknown; image?: string; command?: string[] }>;
  };
  const runs = shellCommands(readme)
    .map((c) => /^docker compose run --rm (\S+) (\S+)/.exec(c.command.trim()))
    .filter((m): m is RegExpExecArray => m !== null);

  test('a `docker compose run --rm <service> bootstrap` block', () => {
    assert.ok(
      runs.some((m) => m[2] === 'bootstrap'),
      'README.md shows bootstrap under compose',
    );
  });

  test("each such service runs the gateway's image, whose entrypoint is the CLI, and the command exists", () => {
    const entrypoint = /^ENTRYPOINT (\[.*\])$/m.exec(readFileSync('Dockerfile', 'utf8'))?.[1];
    assert.deepEqual(JSON.parse(entrypoint ?? 'null'), ['node', 'bin/calebe.js']);
    for (const [, service = '', command = ''] of runs) {
      const s = compose.services[service];
      assert.ok(s, `docker-compose.yml has a service ${service}`);
      assert.ok(s.build !== undefined, `${service} is built from this repository's Dockerfile`);
      // Every command prints its usage for --help and exits 0; an unknown one exits 2.
      const usage = execFileSync(process.execPath, ['bin/calebe.js', command, '--help'], {
        encoding: 'utf8',
      });
      assert.match(usage, new RegExp(`\\b${command}\\b`));
    }
  }, 30_000);
});
