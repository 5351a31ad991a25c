import { EventRegistry } from './event-registry.ts';

/** Every domain event type the gateway writes, with its schema and upcasters. */
export function createEventRegistry(): EventRegistry {
  return new EventRegistry([]);
}
