import type { Decider, DomainEvent } from '../aggregates/decider.ts';
import type { EventMetadata } from '../events/event-store.ts';
import { type CommandDeps, handleCommand } from './command-handler.ts';
import { type ClaimInput, claimIdempotencyKey, type JsonValue, requestHash } from './idempotency.ts';

/** The resource a claimed creation makes: its decider, stream, creation command and fold. */
export interface ClaimedResource<D, C, E extends DomainEvent, S, F> {
  readonly decider: Decider<C, E, S>;
  readonly stream: (id: string) => string;
  readonly create: (data: D) => C;
  readonly fold: (id: string) => Promise<F | undefined>;
  /** Where the claim's payload keeps `data` (stored claims are read by it: never rename). */
  readonly payloadKey: string;
}

/** A public creation (`POST` with an API key): its claim's scope is the key's tenant, in the key's mode. */
export interface KeyedPost {
  readonly principal: { readonly tenantId: string; readonly livemode: boolean };
  readonly idempotencyKey: string;
  /** The route template, part of the hash. */
  readonly route: string;
  /** The normalized body the hash covers. */
  readonly body: unknown;
  /** The id the resource gets if this request is the first. */
  readonly resourceId: string;
}

/**
 * A creation guarded by its Idempotency-Key (SPEC 4 common rules; DESIGN.md "Uniqueness uses reservation
 * streams"; checkouts and subscriptions): the claim carries the whole creation's data, then the creation is
 * appended to the resource's stream. A replay answers the resource as it is now; a claim left without its
 * resource (a crash between the two appends) is completed from the claim. Validate before: a claim must
 * always be completable.
 */
export async function createClaimed<D, C, E extends DomainEvent, S, F>(
  deps: CommandDeps,
  request: KeyedPost,
  data: D,
  resource: ClaimedResource<D, C, E, S, F>,
  metadata: EventMetadata,
): Promise<{ folded: F; created: boolean }> {
  const payload = { [resource.payloadKey]: JSON.parse(JSON.stringify(data)) as JsonValue };
  const claim: ClaimInput = {
    scope: request.principal.tenantId,
    livemode: request.principal.livemode,
    key: request.idempotencyKey,
    method: 'POST',
    route: request.route,
    body: request.body,
    requestHash: requestHash('POST', request.route, request.body),
    resourceId: request.resourceId,
    payload,
  };
  const { first, claim: held } = await claimIdempotencyKey(deps, claim, metadata);
  const id = held.resource_id;
  const existing = first ? undefined : await resource.fold(id);
  if (existing) return { folded: existing, created: false };
  const claimed = held.payload[resource.payloadKey] as unknown as D;
  const r = await handleCommand(deps, resource.decider, resource.stream(id), resource.create(claimed), {
    metadata,
    retryOnConflict: true,
  });
  const folded = await resource.fold(id);
  if (!folded) throw new Error(`${resource.stream(id)} missing after its creation`);
  return { folded, created: first && r.events.length > 0 };
}
