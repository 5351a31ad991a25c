import type { z } from 'zod';
import type { DomainEvent } from './domain-event.ts';
import type { RecordedEvent } from './event-store.ts';

/**
 * One event type: its current payload schema and the upcasters that lift older stored shapes to it.
 * Stored events are never rewritten; an old shape is upcast on read (DESIGN.md "The event store port").
 */
export interface EventDefinition<T extends string = string, D = unknown> {
  readonly type: T;
  /** The schema version written by new appends. */
  readonly version: number;
  readonly schema: z.ZodType<D>;
  /** `upcasters[n]` turns a version-n payload into a version-(n+1) payload. */
  readonly upcasters?: Readonly<Record<number, (data: unknown) => unknown>>;
  /** Its audit entries' action name (SPEC 4.14; docs/audit-actions.md is generated from these). */
  readonly audit?: AuditName;
}

/** A stable, dotted, lower-case `<resource>.<verb>`, and when an entry gets it (for the docs). */
export interface AuditName {
  readonly action: string;
  readonly when: string;
}

const snake = (part: string) => part.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase();

/** A definition as written: `version` only once an upcaster lifts an older shape (new types start at 1). */
export type EventDeclaration<T extends string, D> = Omit<EventDefinition<T, D>, 'version'> & {
  readonly version?: number;
};

export function defineEvent<T extends string, D>(def: EventDeclaration<T, D>): EventDefinition<T, D> {
  return { ...def, version: def.version ?? 1 };
}

/**
 * The domain events a list of definitions describes (`EventOf<(typeof xEvents)[number]>`): a decider's event
 * union is read from what it registers, so the two cannot drift apart.
 */
export type EventOf<Def> = Def extends EventDefinition<infer T, infer D> ? DomainEvent<T, D> : never;

export class UnknownEventTypeError extends Error {
  override readonly name = 'UnknownEventTypeError';
}

/**
 * Payloads this process produced with `encode`, by the definition that validated them (issue 14: validate
 * each payload once). An append hands inline projections the very object it stored, so their `decode`
 * needs no second zod pass over it. Objects only; a payload is never mutated after encoding.
 */
const encoded = new WeakMap<object, EventDefinition>();

/** Payloads a decider has just parsed with a schema (issue 14): `encode` by that schema does not parse again. */
const parsedBy = new WeakMap<object, z.ZodType>();

/**
 * Marks `data` as the output of `schema.parse` (or a successful `safeParse`), so encoding it as an event
 * whose schema is that very schema skips the second zod pass. The caller must not mutate it afterwards.
 */
export function parsedWith<T extends object>(schema: z.ZodType, data: T): T {
  parsedBy.set(data, schema);
  return data;
}

export class EventRegistry {
  private readonly defs = new Map<string, EventDefinition>();

  constructor(definitions: readonly EventDefinition[] = []) {
    for (const d of definitions) this.register(d);
  }

  register(def: EventDefinition): this {
    if (this.defs.has(def.type)) throw new Error(`event type ${def.type} registered twice`);
    this.defs.set(def.type, def);
    return this;
  }

  /**
   * The audit action of an event type: its definition's name, else (a type defined without one, or one this
   * registry does not know) the same spelling rule, `Provider.SomethingNew` -> `provider.something_new`, so
   * the log still records it.
   */
  auditAction(type: string): string {
    return this.defs.get(type)?.audit?.action ?? type.split('.').map(snake).join('.');
  }

  /** Every event type that names its audit action, with that name, in registration order. */
  auditNames(): ReadonlyArray<{ type: string } & AuditName> {
    return [...this.defs.values()].flatMap((d) => (d.audit ? [{ type: d.type, ...d.audit }] : []));
  }

  private definition(type: string): EventDefinition {
    const def = this.defs.get(type);
    if (!def) throw new UnknownEventTypeError(`unknown event type ${type}`);
    return def;
  }

  /** Validates a new event's payload and stamps the current schema version. */
  encode(event: DomainEvent): { type: string; schemaVersion: number; data: unknown } {
    const def = this.definition(event.type);
    const given = event.data;
    const data =
      typeof given === 'object' && given !== null && parsedBy.get(given) === def.schema
        ? given
        : def.schema.parse(given);
    if (typeof data === 'object' && data !== null) encoded.set(data, def);
    return { type: event.type, schemaVersion: def.version, data };
  }

  /**
   * `decode` for a payload read back from the log: one at the current schema version is taken as stored,
   * since `encode` validated it before the append (issue 14: validate each payload once; a replay folded its
   * charge's stream through zod on every request). Older versions are upcast and validated as by `decode`.
   * Only for types whose schemas return what they accept (no default, transform or coercion), which
   * test/unit/stored-events.test.ts checks for the transaction events.
   */
  decodeStored(event: Pick<RecordedEvent, 'type' | 'schemaVersion' | 'data'>): DomainEvent {
    if (event.schemaVersion === this.definition(event.type).version) {
      return { type: event.type, data: event.data };
    }
    return this.decode(event);
  }

  /** Lifts a stored payload to the current schema version and validates it. */
  decode(event: Pick<RecordedEvent, 'type' | 'schemaVersion' | 'data'>): DomainEvent {
    const def = this.definition(event.type);
    if (
      event.schemaVersion === def.version &&
      typeof event.data === 'object' &&
      event.data !== null &&
      encoded.get(event.data) === def
    ) {
      return { type: event.type, data: event.data };
    }
    let data = event.data;
    for (let v = event.schemaVersion; v < def.version; v++) {
      const up = def.upcasters?.[v];
      if (!up) throw new Error(`event ${event.type}: no upcaster from schema version ${v}`);
      data = up(data);
    }
    return { type: event.type, data: def.schema.parse(data) };
  }
}
