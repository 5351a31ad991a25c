import { PostgresEventStore } from '../../src/events/postgres-event-store.ts';
import { createPgliteDatabase } from '../support/databases.ts';
import { runAppendManyContract } from './event-store-append-many.ts';
import { runEventStoreContract } from './event-store-contract.ts';

// Issue 2 item 8: the embedded default passes the same contract with the same SQL.
runEventStoreContract('PGlite (embedded)', async () => {
  const t = await createPgliteDatabase();
  return { store: new PostgresEventStore(t.db), close: () => t.drop() };
});

runAppendManyContract('PGlite (embedded)', async () => {
  const t = await createPgliteDatabase();
  return { store: new PostgresEventStore(t.db), close: () => t.drop() };
});
