import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { DomainError } from '../aggregates/decider.ts';
import { sha256Hex } from '../crypto/secrets.ts';
import { defineEvent, EventRegistry } from '../events/event-registry.ts';
import {
  type AppendResult,
  type EventMetadata,
  type EventStore,
  type NewEvent,
  WrongExpectedVersionError,
} from '../events/event-store.ts';
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
 *
 * The mode is part of the scope (SPEC 4 common rules, 5.2; docs/decisions.md "Hardening (issue 12)"): test
 * and live are separate worlds, so a record of one mode is never answered, created or touched by the other.
 * Live (and mode-less panel and job scopes) keep the stream id claims always had, so stored live claims
 * replay as they are; test claims get a `-test` segment. A test claim stored before issue 12 sits at the old
 * id: a test request finds it there (its mode comes from the claim's metadata), and a live request finding
 * it is `409 idempotency_conflict` (the key is taken in the other mode; nothing is answered or changed).
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
  /** The mode of the API key (or panel charge) that claimed; absent for mode-less scopes and old claims. */
  livemode: z.boolean().optional(),
});
export type IdempotencyClaim = z.infer<typeof claimedData>;
export type JsonValue = z.infer<ReturnType<typeof z.json>>;

/**
 * The claimed change was applied (SPEC 4.8 changes of a charge): a replay answers the stored record and
 * never applies it again, even after newer changes.
 */
const completedData = z.strictObject({ resource_id: z.string().min(1) });

export const idempotencyEvents = [
  defineEvent({ type: 'Idempotency.Claimed', schema: claimedData }),
  defineEvent({ type: 'Idempotency.Completed', schema: completedData }),
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

/**
 * The reservation stream; the key itself is hashed, so any header value makes a valid stream id. Live and
 * mode-less scopes keep the id used before modes were told apart (stored claims stay replayable); test
 * mode adds a segment no prefixed id contains.
 */
export function idempotencyStream(scope: string, key: string, livemode?: boolean): string {
  return livemode === false
    ? `idempotency-${scope}-test-${sha256Hex(key)}`
    : `idempotency-${scope}-${sha256Hex(key)}`;
}

function otherMode(): DomainError {
  return new DomainError(
    'idempotency_conflict',
    'This Idempotency-Key was already used in the other mode (test or live) before modes were kept apart.',
  );
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
  /** The requester's mode (API keys, panel charges); undefined for mode-less scopes (panel, jobs). */
  livemode?: boolean | undefined;
  /** `requestHash(method, route, body)` when the caller has it already (issue 14: hashed once). */
  requestHash?: string | undefined;
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
  const stream = idempotencyStream(input.scope, input.key, input.livemode);
  const claim = claimOf(input);
  // A test claim stored before issue 12 sits at the mode-less id: find it before claiming a second time.
  const legacy =
    input.livemode === false ? await readLegacyTestClaim(deps, input.scope, input.key) : undefined;
  if (legacy) return { first: false, claim: sameRequest(legacy, claim.request_hash) };
  try {
    const event = registry.encode({ type: 'Idempotency.Claimed', data: claim });
    await deps.store.append(stream, [{ ...event, id: randomUUID(), metadata }], 'no_stream');
    // In the log for good now: a replay in this process needs no read. A copy, since the cache freezes it.
    claims.set(deps.store, stream, withMode(structuredClone(claim), metadata));
    return { first: true, claim };
  } catch (error) {
    if (!(error instanceof WrongExpectedVersionError)) throw error;
  }
  const held = await readClaim(deps, input.scope, input.key, input.livemode);
  if (!held) throw new Error(`idempotency stream ${stream} exists without a claim`);
  return { first: false, claim: sameRequest(held, claim.request_hash) };
}

function claimOf(input: ClaimInput): IdempotencyClaim {
  return {
    scope: input.scope,
    method: input.method.toUpperCase(),
    route: input.route,
    request_hash: input.requestHash ?? requestHash(input.method, input.route, input.body),
    resource_id: input.resourceId,
    payload: input.payload,
    ...(input.livemode !== undefined ? { livemode: input.livemode } : {}),
  };
}

/** The resource's first events, appended with the claim (its stream must not exist yet). */
export interface ClaimedResource {
  stream: string;
  events: readonly NewEvent[];
}

export type ClaimWithResult =
  /** This request is the first: the claim and the resource's first events were committed together. */
  | { first: true; claim: IdempotencyClaim; appended: AppendResult }
  /** A request with the same key and body came before: answer (or complete) `claim.resource_id`. */
  | { first: false; claim: IdempotencyClaim };

/**
 * Claims the key and appends the resource's first events in ONE SQL transaction (SPEC 3.1: the reservation
 * and its first event commit together; issue 14: one write commit fewer per creation). Same answers as
 * {@link claimIdempotencyKey}: another body under the key is `409 idempotency_conflict`, the same body finds
 * the earlier claim. `undefined` when the store has no multi-stream transaction (EventStoreDB): the caller
 * claims, then appends.
 *
 * A test claim stored before issue 12 sits at the mode-less id. Instead of reading that stream on every new
 * test key, the claim is appended only while that stream does not exist (a guard in the same statement);
 * when it exists (a live claim of the same key, or a legacy test claim) the claims are read as before.
 */
export async function claimIdempotencyKeyWith(
  deps: { store: EventStore },
  input: ClaimInput,
  metadata: EventMetadata,
  resource: ClaimedResource,
  /** More streams that must not exist yet, in the same transaction (a Pix Automatic debit's due date). */
  also: readonly ClaimedResource[] = [],
): Promise<ClaimWithResult | undefined> {
  const appendMany = deps.store.appendMany?.bind(deps.store);
  if (!appendMany) return undefined;
  const stream = idempotencyStream(input.scope, input.key, input.livemode);
  const claim = claimOf(input);
  const event = registry.encode({ type: 'Idempotency.Claimed', data: claim });
  const legacy = input.livemode === false ? idempotencyStream(input.scope, input.key) : undefined;
  const attempt = async (guarded: boolean): Promise<ClaimWithResult | undefined> => {
    try {
      const [, appended] = await appendMany([
        {
          stream,
          events: [{ ...event, id: randomUUID(), metadata }],
          expected: 'no_stream',
          ...(guarded && legacy ? { unlessExists: [legacy] } : {}),
        },
        { stream: resource.stream, events: resource.events, expected: 'no_stream' },
        ...also.map((r) => ({ stream: r.stream, events: r.events, expected: 'no_stream' as const })),
      ]);
      // In the log for good now: a replay in this process needs no read. The cache freezes what it keeps:
      // the registry's validated copy (already serialized, never mutated after encoding), not `claim`.
      claims.set(deps.store, stream, withMode(event.data as IdempotencyClaim, metadata));
      return { first: true, claim, appended: appended as AppendResult };
    } catch (error) {
      if (!(error instanceof WrongExpectedVersionError) || error.stream !== stream) throw error;
      return undefined;
    }
  };
  const done = await attempt(true);
  if (done) return done;
  // Taken (the same or another body), or a claim may sit at the pre-issue-12 id: read as before.
  const held = await readClaim(deps, input.scope, input.key, input.livemode);
  if (held) return { first: false, claim: sameRequest(held, claim.request_hash) };
  // The mode-less id holds a live claim of this key: test mode is another world, claim without the guard.
  const again = legacy ? await attempt(false) : undefined;
  if (again) return again;
  const after = await readClaim(deps, input.scope, input.key, input.livemode);
  if (!after) throw new Error(`idempotency stream ${stream} exists without a claim`);
  return { first: false, claim: sameRequest(after, claim.request_hash) };
}

function sameRequest(held: IdempotencyClaim, hash: string): IdempotencyClaim {
  if (held.request_hash !== hash) {
    throw new DomainError(
      'idempotency_conflict',
      'This Idempotency-Key was already used with another body or endpoint.',
    );
  }
  return held;
}

/** A live request must never be answered with a test claim stored at the shared pre-issue-12 id. */
function ofMode(claim: IdempotencyClaim, livemode: boolean | undefined): IdempotencyClaim {
  if (livemode === true && claim.livemode === false) throw otherMode();
  return claim;
}

/** The claim this process has appended or read back for a scope, key and mode, if any; never reads. */
export function knownClaim(
  deps: { store: EventStore },
  scope: string,
  key: string,
  livemode?: boolean,
): IdempotencyClaim | undefined {
  const known = claims.get(deps.store, idempotencyStream(scope, key, livemode));
  return known && ofMode(known, livemode);
}

/** The claim at `stream`, its mode taken from the claim or, for claims older than the field, its metadata. */
async function readAt(deps: { store: EventStore }, stream: string): Promise<IdempotencyClaim | undefined> {
  const known = claims.get(deps.store, stream);
  if (known) return known;
  const [first] = await deps.store.read(stream);
  if (!first) return undefined;
  const claim = withMode(registry.decode(first).data as IdempotencyClaim, first.metadata);
  claims.set(deps.store, stream, claim);
  return claim;
}

/** The claim with its mode: its own field or, for claims older than the field, the metadata's or the reservation's. */
function withMode(claim: IdempotencyClaim, metadata: EventMetadata): IdempotencyClaim {
  const livemode = claim.livemode ?? metadata.livemode ?? reservedMode(claim.payload);
  return livemode === undefined ? claim : { ...claim, livemode };
}

/** The mode a charge claim's reservation records (claims imported without the key's metadata). */
function reservedMode(payload: IdempotencyClaim['payload']): boolean | undefined {
  const reserve = payload.reserve;
  if (reserve === null || typeof reserve !== 'object' || Array.isArray(reserve)) return undefined;
  return typeof reserve.livemode === 'boolean' ? reserve.livemode : undefined;
}

/**
 * A test-mode claim stored at the mode-less id before issue 12, if any. A claim whose mode cannot be told is
 * taken as live (the mode-less id is the live id).
 */
async function readLegacyTestClaim(
  deps: { store: EventStore },
  scope: string,
  key: string,
): Promise<IdempotencyClaim | undefined> {
  const legacy = await readAt(deps, idempotencyStream(scope, key));
  return legacy?.livemode === false ? legacy : undefined;
}

/**
 * The claim held for a scope, key and mode, if any. A claim never changes, so one read back is remembered.
 * A live request meeting a pre-issue-12 test claim at its id is `409 idempotency_conflict`.
 */
/**
 * The claim a failed new request may be a replay of (its validation refuses today what was stored, or its
 * claim found the key taken): a replay is answered as stored; without a claim the failure stands (thrown).
 */
export async function heldClaimOr(
  error: unknown,
  deps: { store: EventStore },
  scope: string,
  key: string,
  livemode?: boolean,
): Promise<IdempotencyClaim> {
  const held = await readClaim(deps, scope, key, livemode);
  if (!held) throw error;
  return held;
}

export async function readClaim(
  deps: { store: EventStore },
  scope: string,
  key: string,
  livemode?: boolean,
): Promise<IdempotencyClaim | undefined> {
  const held = await readAt(deps, idempotencyStream(scope, key, livemode));
  if (held) return ofMode(held, livemode);
  return livemode === false ? readLegacyTestClaim(deps, scope, key) : undefined;
}

/** Whether the claimed change was applied (see `completedData`). Once true it stays true. */
const completions = new ImmutableFacts<true>(5_000);

export async function isCompleted(
  deps: { store: EventStore },
  scope: string,
  key: string,
  livemode?: boolean,
): Promise<boolean> {
  const own = idempotencyStream(scope, key, livemode);
  // A test claim found at the pre-issue-12 id is completed there.
  const stream = livemode === false && !(await hasEvents(deps, own)) ? idempotencyStream(scope, key) : own;
  if (completions.get(deps.store, stream)) return true;
  const recorded = await deps.store.read(stream);
  if (!recorded.some((e) => e.type === 'Idempotency.Completed')) return false;
  completions.set(deps.store, stream, true);
  return true;
}

async function hasEvents(deps: { store: EventStore }, stream: string): Promise<boolean> {
  if (claims.get(deps.store, stream)) return true;
  return (await deps.store.read(stream)).length > 0;
}

/** Records that the claimed change was applied; a second completion (a concurrent replay) is harmless. */
export async function markCompleted(
  deps: { store: EventStore },
  claim: IdempotencyClaim,
  key: string,
  metadata: EventMetadata,
): Promise<void> {
  const own = idempotencyStream(claim.scope, key, claim.livemode);
  // A pre-issue-12 test claim lives at the mode-less id.
  const target =
    claim.livemode === false && !(await hasEvents(deps, own)) ? idempotencyStream(claim.scope, key) : own;
  const event = registry.encode({ type: 'Idempotency.Completed', data: { resource_id: claim.resource_id } });
  await deps.store.append(target, [{ ...event, id: randomUUID(), metadata }], 'any');
  completions.set(deps.store, target, true);
}
