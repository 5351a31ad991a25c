import type { z } from 'zod';
import type { Role, Scope } from '../aggregates/access.ts';
import type { TagName } from './tags.ts';

/** Who may call an operation, checked before its body is read (SPEC 5.3, 5.4, 5.7; SPEC 4 common rules). */
export interface OperationAccess {
  /** Which credential the operation takes; absent means none (health, docs, login). */
  readonly auth?: 'api_key' | 'session';
  /** Every one is required (SPEC 5.3). */
  readonly scopes?: readonly Scope[];
  /** Capability a `developer` key lacks (SPEC 5.4). */
  readonly notForDeveloperKeys?: boolean;
  /** Sessions: roles allowed (SPEC 5.7). */
  readonly roles?: readonly Role[];
  /**
   * SPEC 4 common rules: creations require the Idempotency-Key header (`true`, checked before the body is
   * read). `optional`: the handler checks it only when sent; declared so /openapi.json documents it.
   */
  readonly idempotencyKey?: boolean | 'optional';
  /**
   * SPEC 8: a limit per client address, counted before the body is read, whatever the answer (login: the
   * connection's address, or with TRUST_PROXY the one the configured proxies report).
   */
  readonly clientLimit?: 'login';
}

/** The documented shape of an operation: what the server validates and /openapi.json and the SDK describe. */
export interface OperationSchema {
  readonly operationId: string;
  readonly summary: string;
  readonly description?: string;
  readonly params?: z.ZodType;
  readonly querystring?: z.ZodType;
  readonly body?: z.ZodType;
  readonly response: Readonly<Record<number, z.ZodType>>;
}

export type OperationMethod = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';

/**
 * Examples of an operation in /openapi.json, where its schemas' components do not give them (a component's
 * example, src/contract/component-examples.ts, already shows `{ data: X }` and `{ data: [X], meta }`).
 * Redocly and test/http/openapi.test.ts validate each against its schema.
 */
export interface OperationExamples {
  /** The JSON request body; /docs and the Postman collection send it as is (see src/contract/examples.ts). */
  readonly request?: unknown;
  /** By status, for responses that are not an envelope of a component (or that show another state). */
  readonly responses?: Readonly<Record<number, unknown>>;
}

/**
 * One operation of the public API: method, path, access and schema. Server and SDK read the same object;
 * a feature binds it to its handler (src/commands/bind.ts) and src/http mounts it.
 */
export interface Operation<
  S extends OperationSchema = OperationSchema,
  M extends OperationMethod = OperationMethod,
  P extends string = string,
  A extends OperationAccess = OperationAccess,
> {
  readonly method: M;
  /** fastify's spelling: `/v1/transactions/:id/refund`. */
  readonly path: P;
  readonly access: A;
  /**
   * Answers built by typed code and large enough to matter (issue 14, B3) are written by a serializer
   * compiled once from the response schema: every status (`compiled`) or only 2xx (`compiled-success`).
   */
  readonly serializer?: 'compiled' | 'compiled-success';
  readonly schema: S;
  /** Its tag in /openapi.json when not its feature's (src/commands/feature.ts). */
  readonly tag?: TagName;
  readonly examples?: OperationExamples;
}

/** Keeps every literal (method, path, access, schema) in the type: the SDK's methods are typed from them. */
export function operation<
  const S extends OperationSchema,
  const M extends OperationMethod,
  const P extends string,
  const A extends OperationAccess,
>(op: Operation<S, M, P, A>): Operation<S, M, P, A> {
  return op;
}
