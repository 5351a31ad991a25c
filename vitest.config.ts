import { defineConfig } from 'vitest/config';

// One project per lane (DESIGN.md "Tests"): `npm test` runs them all, `npm run test:unit` only the fast one.
const lane = (name: string) => ({
  extends: true as const,
  test: { name, include: [`test/${name}/**/*.test.ts`] },
});

export default defineConfig({
  test: {
    // Real PostgreSQL, real sockets and child processes: nothing here finishes in vitest's default 5 s.
    testTimeout: 180_000,
    hookTimeout: 180_000,
    pool: 'forks',
    setupFiles: ['test/support/setup-env.ts'],
    maxWorkers: Number(process.env.TEST_CONCURRENCY ?? 2),
    fileParallelism: true,
    projects: [
      lane('unit'),
      lane('integration'),
      lane('http'),
      lane('e2e'),
      // The SDK's own tests (issue 15 item 3), against a served gateway like the http lane.
      { extends: true as const, test: { name: 'sdk', include: ['sdk/test/**/*.test.ts'] } },
    ],
  },
});
