import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { DomainError } from '../aggregates/decider.ts';
import { sha256Hex } from '../crypto/secrets.ts';
import { defineEvent, EventRegistry } from '../events/event-registry.ts';
import { type EventMetadata, type EventStore, WrongExpectedVersionError } from '../events/event-store.ts';
import { ImmutableFacts } from './immutable-facts.ts';

/**
 * Idempotency records (SPEC 4 common rules; DESIGN.md "Uniqueness uses reservation streams"). A creation
 * first claims `idempotency-<scope>-<sha256(key)>` with `no_stream`; the claim carries the request hash (over
 * method, route and the canonical body), the id of the resource the request creates, and whatever the caller
 * needs to finish the creation later (`payload`). The resource's own stream is a second append: when the
 * process dies between the two, the next request with the same key and body finds the claim and completes
 * the creation from it, with the same resource id (docs/decisions.md "Admin").
 *
 * `scope` keeps namespaces apart: the tenant id (`ten_...`) for public creations, the user id (`usr_...`) for
 * panel creations, `system_<job>` for jobs. Prefixed ids cannot collide with each other.
 */

const claimedData = z.strictObject({
  scope: z.string().min(1),
  method: z.string().min(1),
  route: z.string().min(1),
  /** sha256 of the canonical JSON of { method, route, body }. */
  request_hash: z.string().regex(/^[0-9a-f]{64}$/),
  /** The id of the resource this key creates (chosen before the claim). */
  resource_id: z.string().min(1),
  /** What the caller needs to complete a claim left without its resource. Never a secret. */
  payload: z.record(z.string(), z.json()),
});
export type IdempotencyClaim = z.infer<typeof claimedData>;
export type JsonValue = z.infer<ReturnType<typeof z.json>>;

export const idempotencyEvents = [
  defineEvent({ type: 'Idempotency.Claimed', version: 1, schema: claimedData }),
];

// The module decodes its own events: a claim is read back only here.
const registry = new EventRegistry(idempotencyEvents);

/** JSON with object keys sorted at every level, so property order never changes the hash. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') {
    const text = JSON.stringify(value);
    if (text === undefined) throw new TypeError(`canonicalJson: ${typeof value} is not JSON`);
    return text;
  }
  if (Array.isArray(value)) return `[${value.map((v) => canonicalJson(v ?? null)).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
}

/** The hash two requests must share to be the same request: method, route template and normalized body. */
export function requestHash(method: string, route: string, body: unknown): string {
  return sha256Hex(canonicalJson({ method: method.toUpperCase(), route, body }));
}

/** The reservation stream; the key itself is hashed, so any header value makes a valid stream id. */
export function idempotencyStream(scope: string, key: string): string {
  return `idempotency-${scope}-${sha256Hex(key)}`;
}

export interface ClaimInput {
  scope: string;
  /** The Idempotency-Key header, already checked against the SPEC 4 pattern. */
  key: string;
  method: string;
  /** The route template (`/admin/api-keys`), not the URL. */
  route: string;
  /** The normalized request body. */
  body: unknown;
  /** The id the new resource gets if this request is the first. */
  resourceId: string;
  payload: Record<string, JsonValue>;
}

export type ClaimResult =
  /** This request is the first: create the resource with `claim.resource_id`. */
  | { first: true; claim: IdempotencyClaim }
  /** A request with the same key and body came before: answer (or complete) `claim.resource_id`. */
  | { first: false; claim: IdempotencyClaim };

/** Claims appended or read back by this process, by stream. */
const claims = new ImmutableFacts<IdempotencyClaim>(5_000);

/**
 * Claims the key for this request, or finds the earlier claim. Another body, method or route under the same
 * scope and key is `409 idempotency_conflict`. Claim only requests that will succeed (validate first): a claim
 * must always be completable.
 */
export async function claimIdempotencyKey(
  deps: { store: EventStore },
  input: ClaimInput,
  metadata: EventMetadata,
): Promise<ClaimResult> {
  const stream = idempotencyStream(input.scope, input.key);
  const claim: IdempotencyClaim = {
    scope: input.scope,
    method: input.method.toUpperCase(),
    route: input.route,
    request_hash: requestHash(input.method, input.route, input.body),
    resource_id: input.resourceId,
    payload: input.payload,
  };
  try {
    const event = registry.encode({ type: 'Idempotency.Claimed', data: claim });
    await deps.store.append(stream, [{ ...event, id: randomUUID(), metadata }], 'no_stream');
    // In the log for good now: a replay in this process needs no read. A copy, since the cache freezes it.
    claims.set(deps.store, stream, structuredClone(claim));
    return { first: true, claim };
  } catch (error) {
    if (!(error instanceof WrongExpectedVersionError)) throw error;
  }
  const held = await readClaim(deps, input.scope, input.key);
  if (!held) throw new Error(`idempotency stream ${stream} exists without a claim`);
  if (held.request_hash !== claim.request_hash) {
    throw new DomainError(
      'idempotency_conflict',
      'This Idempotency-Key was already used with another body or endpoint.',
    );
  }
  return { first: false, claim: held };
}

/** The claim this process has appended or read back for a scope and key, if any; never reads. */
export function knownClaim(
  deps: { store: EventStore },
  scope: string,
  key: string,
): IdempotencyClaim | undefined {
  return claims.get(deps.store, idempotencyStream(scope, key));
}

/** The claim held for a scope and key, if any. A claim never changes, so one read back is remembered. */
export async function readClaim(
  deps: { store: EventStore },
  scope: string,
  key: string,
): Promise<IdempotencyClaim | undefined> {
  const stream = idempotencyStream(scope, key);
  const known = claims.get(deps.store, stream);
  if (known) return known;
  const [first] = await deps.store.read(stream);
  if (!first) return undefined;
  const claim = registry.decode(first).data as IdempotencyClaim;
  claims.set(deps.store, stream, claim);
  return claim;
}
