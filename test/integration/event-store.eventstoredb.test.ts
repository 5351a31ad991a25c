import { GenericContainer, getContainerRuntimeClient, type StartedTestContainer, Wait } from 'testcontainers';
import { EventStoreDbEventStore } from '../../src/events/eventstoredb-event-store.ts';
import { runEventStoreContract } from './event-store-contract.ts';

// The contract suite against a real EventStoreDB: EVENTSTORE_URL when set, else a container
// started with testcontainers where a Docker engine answers. With neither, the suite is reported as skipped
// with the reason, never as a silent pass.
const IMAGE = process.env.EVENTSTORE_IMAGE ?? 'eventstore/eventstore:24.10';

async function noDockerReason(): Promise<string | undefined> {
  try {
    await getContainerRuntimeClient();
    return undefined;
  } catch (err) {
    return `no EventStoreDB: EVENTSTORE_URL is not set and no container runtime answers (${(err as Error).message}); see docs/eventstoredb.md`;
  }
}

const skip = process.env.EVENTSTORE_URL ? undefined : await noDockerReason();
let container: StartedTestContainer | undefined;

async function serverUrl(): Promise<string> {
  if (process.env.EVENTSTORE_URL) return process.env.EVENTSTORE_URL;
  container ??= await new GenericContainer(IMAGE)
    .withEnvironment({
      EVENTSTORE_INSECURE: 'true',
      EVENTSTORE_MEM_DB: 'true',
      EVENTSTORE_RUN_PROJECTIONS: 'All',
    })
    .withExposedPorts(2113)
    .withWaitStrategy(Wait.forHttp('/health/live', 2113).forStatusCode(204))
    .start();
  return `esdb://${container.getHost()}:${container.getMappedPort(2113)}?tls=false`;
}

runEventStoreContract(
  'EventStoreDB',
  async () => {
    const store = new EventStoreDbEventStore(await serverUrl());
    return { store, close: () => store.close() };
  },
  { skip, teardown: async () => void (await container?.stop()) },
);
