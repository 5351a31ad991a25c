import type { Projection } from './projection.ts';
import { streamCatalog } from './stream-catalog.ts';

/**
 * Read models that API reads must see at once: applied inside the append's transaction (PostgreSQL store).
 * Under EventStoreDB they run async like the rest.
 */
export const inlineProjections: readonly Projection[] = [];

/** Read models that may trail the log: summaries, catalogs, fan-out. */
export const asyncProjections: readonly Projection[] = [streamCatalog];

export const allProjections: readonly Projection[] = [...inlineProjections, ...asyncProjections];
