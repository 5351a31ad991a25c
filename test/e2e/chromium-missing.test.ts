import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'vitest';

// Issue 12 item 5 (1): without Chromium the browser tests fail, each with the instruction to install it;
// none is reported skipped or cancelled. Runs vitest itself on that file with CHROMIUM_PATH pointing nowhere.

interface JsonReport {
  numTotalTests: number;
  numFailedTests: number;
  numPendingTests: number;
  numTodoTests: number;
  testResults: { assertionResults: { status: string; failureMessages: string[] }[] }[];
}

test('a missing Chromium fails every browser test with how to install it, and skips none', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'calebe-no-chromium-'));
  try {
    const report = join(dir, 'report.json');
    const env: NodeJS.ProcessEnv = { ...process.env, CHROMIUM_PATH: join(dir, 'no-chromium-here') };
    // The inner vitest must not take this run's worker settings for its own.
    for (const k of Object.keys(env)) if (k.startsWith('VITEST') || k === 'TEST') delete env[k];
    const code = await new Promise<number | null>((resolve) => {
      const child = spawn(
        process.execPath,
        [
          'node_modules/vitest/vitest.mjs',
          'run',
          'test/e2e/charge-page-browser.test.ts',
          '--reporter=json',
          `--outputFile=${report}`,
        ],
        { env, stdio: 'ignore' },
      );
      child.on('exit', resolve);
    });
    assert.equal(code, 1, 'the run fails');
    const result = JSON.parse(readFileSync(report, 'utf8')) as JsonReport;
    assert.ok(result.numTotalTests >= 3);
    assert.equal(result.numFailedTests, result.numTotalTests, 'every test fails');
    assert.equal(result.numPendingTests + result.numTodoTests, 0, 'none skipped');
    for (const t of result.testResults.flatMap((r) => r.assertionResults)) {
      assert.equal(t.status, 'failed');
      assert.match(
        t.failureMessages.join('\n'),
        /Chromium not found at .*apt-get install -y chromium.*CHROMIUM_PATH/,
      );
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
