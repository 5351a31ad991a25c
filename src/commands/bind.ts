import type { z } from 'zod';
import { IDEMPOTENCY_REPLAYED } from '../contract/envelopes.ts';
import type { Operation, OperationSchema } from '../contract/operation.ts';
import type { EventMetadata } from '../events/event-store.ts';
import type { AppContext } from './context.ts';
import type { ApiKeyPrincipal, Principal, SessionPrincipal } from './principal.ts';

type Parsed<T> = T extends z.ZodType ? z.output<T> : undefined;

/**
 * One call of an operation as its handler sees it: the parsed input and who calls. The narrow interface
 * between a feature and the HTTP adapter (src/http/mount.ts builds it), so no handler knows fastify.
 */
export interface Call<S extends OperationSchema = OperationSchema> {
  readonly params: Parsed<S['params']>;
  readonly query: Parsed<S['querystring']>;
  readonly body: Parsed<S['body']>;
  readonly requestId: string;
  readonly principal: Principal | null;
  /** The caller's API key, or `401 unauthorized`. */
  apiKey(): ApiKeyPrincipal;
  /** The caller's panel session, or `401 unauthorized`. */
  session(): SessionPrincipal;
  /** The Idempotency-Key header (SPEC 4 common rules), or `400 idempotency_key_required`. */
  idempotencyKey(): string;
  /** A request header by its lower-case name. */
  header(name: string): string | undefined;
  /** The metadata of every event the call appends; `actor` overrides the principal's (login). */
  metadata(actor?: string): EventMetadata;
}

/** An answer other than `200` with the returned body: another status, or headers (a replay's). */
export class Answer {
  constructor(
    readonly status: number,
    readonly body: unknown,
    readonly headers: Readonly<Record<string, string>> = {},
  ) {}
}

const REPLAYED = { [IDEMPOTENCY_REPLAYED]: 'true' };

/** The stored answer of a replayed request (SPEC 4 common rules), marked `Idempotency-Replayed: true`. */
export function replayed(status: number, body: unknown): Answer {
  return new Answer(status, body, REPLAYED);
}

/** A creation's answer: 201 when this request created the record, else its replay's 200. */
export function createdOrReplayed(created: boolean, body: unknown): Answer {
  return created ? new Answer(201, body) : replayed(200, body);
}

export type Handler<S extends OperationSchema> = (call: Call<S>, ctx: AppContext) => Promise<unknown>;

/** An operation bound to the use case that answers it: a route as data. */
export interface BoundOperation {
  readonly operation: Operation;
  readonly handle: Handler<OperationSchema>;
}

export function bind<S extends OperationSchema>(operation: Operation<S>, handle: Handler<S>): BoundOperation {
  return { operation, handle: handle as unknown as Handler<OperationSchema> };
}
