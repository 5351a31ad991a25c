import type { TagName } from '../contract/tags.ts';
import type { EventDefinition } from '../events/event-registry.ts';
import type { Projection } from '../events/projection.ts';
import type { BoundOperation } from './bind.ts';
import type { Job } from './job.ts';

/**
 * One feature of the gateway (DESIGN.md "Feature modules"): everything the platform derives from it. The
 * event registry, the projection lists, route mounting, OpenAPI tags, audit action names and the job runner
 * read FEATURES (src/commands/index.ts), the only list.
 */
export interface Feature {
  readonly name: string;
  /** Its event types, each with the audit action name of its entries. */
  readonly events: readonly EventDefinition[];
  readonly projections: {
    /** Read models API reads must see at once: applied inside the append's transaction. */
    readonly inline?: readonly Projection[];
    /** Read models that may trail the log. */
    readonly async?: readonly Projection[];
    /** Inline ones that requests read before they decide (auth, routing): caught up first in async mode. */
    readonly reference?: readonly Projection[];
  };
  /** Its operations, in the order /openapi.json lists them. */
  readonly routes: readonly BoundOperation[];
  /** The /openapi.json tag of its operations, unless one names its own (`Operation.tag`). */
  readonly tag: TagName;
  /** Its clock-driven work, run by src/workers/job-runner.ts under leases. */
  readonly jobs?: readonly Job[];
}

/** A bound operation as src/http mounts it: with the /openapi.json tag it is listed under. */
export interface MountedOperation extends BoundOperation {
  readonly tag: TagName;
}
