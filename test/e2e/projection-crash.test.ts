import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { sql } from 'kysely';
import { afterAll, beforeAll, test } from 'vitest';
import { compareCheckpoints } from '../../src/events/event-store.ts';
import { PostgresEventStore } from '../../src/events/postgres-event-store.ts';
import { readCheckpoint } from '../../src/projections/projection-runner.ts';
import { createTestDatabase, type TestDatabase } from '../support/databases.ts';
import { createTotalsTable, diffTotals } from '../support/totals-projection.ts';

function runChild(
  url: string,
  mode: 'write' | 'project',
): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'test/support/crash-child.ts', url, mode], {
      stdio: ['ignore', 'ignore', 'inherit'],
      env: { ...process.env, KILL_AT_EVENT: '3000' },
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal });
    });
  });
}

let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase();
  await createTotalsTable(t.db);
});
afterAll(() => t.drop());

test('issue 2: SIGKILL mid-batch while appending and projecting; after restart the read model equals the fold of the log', async () => {
  const crashed = await runChild(t.url, 'write');
  assert.equal(crashed.signal, 'SIGKILL', 'the child died by SIGKILL inside a projection batch');

  const { rows } = await sql<{ n: string }>`select count(*) as n from events`.execute(t.db);
  const logSize = Number(rows[0]?.n);
  assert.ok(logSize >= 3000, `the log holds the appended events (${logSize})`);
  const projected = await readCheckpoint(t.db, 'test_totals');
  const head = await new PostgresEventStore(t.db).headCheckpoint();
  assert.ok(compareCheckpoints(projected, head) < 0, 'the crash left the projection behind the log');

  const restarted = await runChild(t.url, 'project');
  assert.equal(restarted.code, 0);
  assert.deepEqual(
    await diffTotals(t.db),
    [],
    '0 differences between the read model and the fold of the log',
  );
  const { rows: catalogDiff } = await sql`
    select s.stream_id from streams s full join stream_catalog c using (stream_id)
    where s.version is distinct from c.version`.execute(t.db);
  assert.deepEqual(catalogDiff, []);
});
