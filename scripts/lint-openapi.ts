/**
 * `npm run lint:openapi` (issue 15 item 1): writes the served OpenAPI document to a temp file and lints it
 * with Redocly's recommended ruleset. Redocly fails only on errors; warnings fail here too, so the
 * document stays at 0 errors and 0 warnings.
 *
 *   node --import tsx scripts/lint-openapi.ts [--keep out.json]
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { buildOpenApiDocument } from './openapi.ts';

interface LintReport {
  totals: { errors: number; warnings: number };
  problems: { ruleId: string; severity: string; message: string; location: { pointer: string }[] }[];
}

const keep = process.argv.indexOf('--keep');
const dir = mkdtempSync(join(tmpdir(), 'calebe-openapi-'));
const file = keep >= 0 ? (process.argv[keep + 1] ?? 'openapi.json') : join(dir, 'openapi.json');
try {
  writeFileSync(file, `${JSON.stringify(await buildOpenApiDocument(), null, 2)}\n`);
  const cli = join(
    dirname(createRequire(import.meta.url).resolve('@redocly/cli/package.json')),
    'bin/cli.js',
  );
  const run = spawnSync(
    process.execPath,
    [cli, 'lint', '--extends', 'recommended', '--format', 'json', file],
    {
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
      // Its Node 20 end-of-life banner and update check are noise in CI.
      env: { ...process.env, REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', REDOCLY_TELEMETRY: 'off' },
    },
  );
  if (!run.stdout.trim().startsWith('{')) {
    console.error(run.stderr);
    throw new Error(`redocly lint did not report (exit ${run.status})`);
  }
  const report = JSON.parse(run.stdout) as LintReport;
  for (const p of report.problems) {
    console.error(`${p.severity} ${p.ruleId} ${p.location[0]?.pointer ?? ''}: ${p.message}`);
  }
  const { errors, warnings } = report.totals;
  console.log(`redocly lint --extends recommended: ${errors} errors, ${warnings} warnings`);
  if (errors + warnings > 0) process.exitCode = 1;
} finally {
  rmSync(dir, { recursive: true, force: true });
}
