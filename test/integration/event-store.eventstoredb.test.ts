import { EventStoreDbEventStore } from '../../src/events/eventstoredb-event-store.ts';
import { runEventStoreContract } from './event-store-contract.ts';

const url = process.env.EVENTSTORE_URL;

// No server, no pass: the suite is reported as skipped with the reason.
runEventStoreContract(
  'EventStoreDB',
  async () => {
    if (!url) throw new Error('EVENTSTORE_URL not set');
    const store = new EventStoreDbEventStore(url);
    return { store, close: () => store.close() };
  },
  {
    skip: url
      ? undefined
      : 'EVENTSTORE_URL not set: no EventStoreDB server here; see docs/eventstoredb.md to run this suite with Docker',
  },
);
