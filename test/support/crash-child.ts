// Child process of test/e2e/projection-crash.test.ts. Usage: crash-child.ts <database-url> <write|project>
// write: appends concurrently while the async runner projects, and SIGKILLs itself from inside a
// projection handler (so the kill lands mid-batch, with that batch's transaction open).
// project: catches the projections up and exits.
import { randomUUID } from 'node:crypto';
import { openDatabase } from '../../src/db/database.ts';
import { PostgresEventStore } from '../../src/events/postgres-event-store.ts';
import { ProjectionRunner } from '../../src/projections/projection-runner.ts';
import { streamCatalog } from '../../src/projections/stream-catalog.ts';
import { totalsProjection } from './totals-projection.ts';

const [url, mode] = process.argv.slice(2);
const killAt = Number(process.env.KILL_AT_EVENT ?? 3000);
const handle = openDatabase({ url, poolSize: 12 });
const store = new PostgresEventStore(handle.db);
let handled = 0;
const totals = totalsProjection('test_totals', () => {
  if (mode === 'write' && ++handled === killAt) process.kill(process.pid, 'SIGKILL');
});
const runner = new ProjectionRunner(handle.db, store, [totals, streamCatalog], { batchSize: 200, idleMs: 5 });

if (mode === 'project') {
  await runner.catchUpAll();
  await handle.close();
  process.exit(0);
}

runner.start();
process.stdout.write('started\n');
const writers = Array.from({ length: 6 }, async (_, w) => {
  for (let i = 0; ; i++) {
    const stream = `counter-${w}-${i % 25}`;
    const batch = Array.from({ length: 1 + (i % 4) }, (_, k) => ({
      id: randomUUID(),
      type: 'Counter.Incremented',
      data: { by: (i * 7 + k) % 100 },
      metadata: { actor: 'system:crash-test' },
    }));
    await store.append(stream, batch, 'any');
  }
});
await Promise.all(writers);
