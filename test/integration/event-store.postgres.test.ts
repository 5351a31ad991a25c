import { PostgresEventStore } from '../../src/events/postgres-event-store.ts';
import { createTestDatabase } from '../support/databases.ts';
import { runAppendManyContract } from './event-store-append-many.ts';
import { runEventStoreContract } from './event-store-contract.ts';

runEventStoreContract('PostgreSQL', async () => {
  const t = await createTestDatabase({ poolSize: 60 });
  return { store: new PostgresEventStore(t.db), close: () => t.drop() };
});

runAppendManyContract('PostgreSQL', async () => {
  const t = await createTestDatabase();
  return { store: new PostgresEventStore(t.db), close: () => t.drop() };
});
