#!/usr/bin/env node
// Runs every test file under test/ with node's test runner (TypeScript through tsx).
// Usage: node scripts/run-tests.js [path-substring ...]  (no arguments: the whole suite)
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

function walk(dir) {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? walk(p) : p.endsWith('.test.ts') ? [p] : [];
  });
}

const filters = process.argv.slice(2);
const files = walk('test')
  .filter((f) => filters.length === 0 || filters.some((s) => f.includes(s)))
  .sort();
if (files.length === 0) {
  console.error('no test files matched');
  process.exit(1);
}
const result = spawnSync(
  process.execPath,
  [
    '--import',
    'tsx',
    '--test',
    '--test-reporter=spec',
    `--test-concurrency=${process.env.TEST_CONCURRENCY ?? 2}`,
    ...files,
  ],
  { stdio: 'inherit' },
);
process.exit(result.status ?? 1);
