import { randomUUID } from 'node:crypto';
import { DomainError, isDomainError } from '../../../../aggregates/decider.ts';
import {
  type AuthorizationAggregateState,
  type AuthorizationCommand,
  type AuthorizationEvent,
  type AuthorizationReservedData,
  type AuthorizationState,
  pixAutomaticAuthorization,
} from '../../../../aggregates/pix-automatic-authorization.ts';
import { addDays, saoPauloDate } from '../../../../aggregates/subscription-calendar.ts';
import type { CreateAuthorizationBody } from '../../../../contract/pix-automatic.ts';
import type { EventMetadata } from '../../../../events/event-store.ts';
import { newId } from '../../../../ids.ts';
import type { Outcome } from '../../../../providers/port.ts';
import { handleCommand } from '../../../command-handler.ts';
import type { AppContext } from '../../../context.ts';
import { type ClaimInput, heldClaimOr, type JsonValue, requestHash } from '../../../idempotency.ts';
import { type ApiKeyPrincipal, refuseBodyTenant } from '../../../principal.ts';
import { unsentRefusal } from '../../../provider-call.ts';
import {
  type ReservedCreation,
  type ReservedResource,
  reservedCreations,
} from '../../../reserved-creation.ts';
import { type Route, route } from '../../../transactions/create/handler.ts';
import { authorizationStream, type LoadedAuthorization, loadAuthorization } from '../load.ts';
import { adapterOf, callPixAutomatic, diagnosticsOf, portAuthorization } from '../provider.ts';

export type AuthorizationCreateContext = Pick<
  AppContext,
  'store' | 'events' | 'db' | 'now' | 'config' | 'providers'
>;

/** Where the claim's payload keeps the reservation (stored claims are read by it: never rename). */
const PAYLOAD_KEY = 'authorization';

export type AuthorizationCreation = ReservedCreation<LoadedAuthorization>;

function invalid(param: string, message: string): DomainError {
  return new DomainError('validation_error', message, { param });
}

/**
 * `POST /v1/pix-automatic/authorizations` (SPEC 3.2, 4 common rules, 4.11, 5.8; docs/decisions.md "Pix
 * Automatic (issue 27): authorizations"). Checks, in order: `tenant_id` (422 tenant_from_api_key), the first
 * due date (at least 2 days ahead in Brasilia time), routing as a Pix charge of the key's tenant (test keys: the
 * same rule, then the simulator; live keys: the production release with the name as the scope's `reference`),
 * and the routed adapter's Pix Automatic capability (422 provider_method_disabled): a refusal stores nothing.
 * Then reserve -> call -> record: the idempotency claim and `Reserved` commit in one SQL transaction
 * (EventStoreDB: claim, then Reserved, completed by a replay after a crash), the one request that appended
 * `Reserved` calls the provider, and its answer is recorded (`Created`, `Refused`, `Uncertain`). A replay
 * answers the record as it is now, never re-validated and never calling the provider.
 */
export async function createAuthorization(
  ctx: AuthorizationCreateContext,
  principal: ApiKeyPrincipal,
  input: { body: CreateAuthorizationBody; idempotencyKey: string; route: string },
  metadata: EventMetadata,
): Promise<AuthorizationCreation> {
  const b = input.body;
  refuseBodyTenant(b.tenant_id);
  const deps = { store: ctx.store, registry: ctx.events, now: () => ctx.now() };
  const { tenant_id: _, ...facts } = b;
  const hash = requestHash('POST', input.route, facts);
  const creations = reservedCreations(deps, reservedAuthorization(ctx, metadata), metadata);

  let routed: Route;
  try {
    routed = await validate(ctx, principal, b, input.idempotencyKey);
  } catch (error) {
    // A replay is answered as stored, even when it would not pass today (a first due date now too close).
    const held = await heldClaimOr(error, deps, principal.tenantId, input.idempotencyKey, principal.livemode);
    if (held.request_hash !== hash) {
      throw new DomainError(
        'idempotency_conflict',
        'This Idempotency-Key was already used with another body or endpoint.',
      );
    }
    return creations.replay(held);
  }

  const authorizationId = newId('pxa');
  const data: AuthorizationReservedData = {
    authorization_id: authorizationId,
    tenant_id: principal.tenantId,
    livemode: principal.livemode,
    simulated: routed.kind === 'simulator',
    environment: routed.environment,
    provider_id: routed.providerId,
    name: b.name,
    description: b.description,
    amount: b.amount,
    first_due_date: b.first_due_date,
    interval_months: b.interval_months,
    customer: b.customer,
    created_at: ctx.now().toISOString(),
  };
  const probe = pixAutomaticAuthorization.decide(
    { kind: 'create', data },
    pixAutomaticAuthorization.initialState,
    { now: ctx.now() },
  );
  if (isDomainError(probe)) throw probe;
  const claim: ClaimInput = {
    scope: principal.tenantId,
    livemode: principal.livemode,
    key: input.idempotencyKey,
    method: 'POST',
    route: input.route,
    body: facts,
    requestHash: hash,
    resourceId: authorizationId,
    payload: { [PAYLOAD_KEY]: JSON.parse(JSON.stringify(data)) as JsonValue },
  };
  const reservedEvent = { ...ctx.events.encode(probe[0] as never), id: randomUUID(), metadata };
  return creations.create(claim, reservedEvent);
}

/**
 * The rules of a new authorization that need the clock, routing or the configuration; reads only, so a
 * refusal stores nothing. Answers the route (provider record, environment, adapter).
 */
async function validate(
  ctx: AuthorizationCreateContext,
  principal: ApiKeyPrincipal,
  b: CreateAuthorizationBody,
  idempotencyKey: string,
): Promise<Route> {
  const today = saoPauloDate(ctx.now());
  if (b.first_due_date < addDays(today, 2)) {
    throw invalid('first_due_date', 'first_due_date must be at least 2 days ahead (America/Sao_Paulo).');
  }
  const routed = await route(ctx, {
    tenantId: principal.tenantId,
    livemode: principal.livemode,
    method: 'pix',
    idempotencyKey,
    route: 'pix-automatic-authorization',
    // SPEC 5.8: the production scope's `reference` of an authorization is its name.
    body: { amount: b.amount, reference: b.name, description: b.description, customer: b.customer },
  });
  if (routed.adapter.adapter.pixAutomatic === undefined) {
    throw new DomainError('provider_method_disabled', 'The routed provider does not offer Pix Automatic.');
  }
  // Issue 28 item 3 (docs/decisions.md "Marketplace routing"): an authorization has no subaccount of its own
  // to bind its later calls (refresh, revocation, debits) to, and the provider's Pix Automatic API is not
  // known to take a subaccount token: a marketplace route is refused, in both modes, after its link checks.
  if (routed.subaccountId !== null) {
    throw new DomainError(
      'provider_method_disabled',
      'Pix Automatic is not offered through a marketplace subaccount; ask an administrator for a Pix rule with a non-marketplace provider.',
    );
  }
  return routed;
}

/** The authorization as a reserved creation: reserved by `create`, then its one provider call. */
function reservedAuthorization(
  ctx: AuthorizationCreateContext,
  metadata: EventMetadata,
): ReservedResource<
  AuthorizationReservedData,
  AuthorizationCommand,
  AuthorizationEvent,
  AuthorizationAggregateState,
  LoadedAuthorization
> {
  return {
    decider: pixAutomaticAuthorization,
    stream: authorizationStream,
    reserve: (data) => ({ kind: 'create', data }),
    payloadKey: PAYLOAD_KEY,
    load: (id) => loadAuthorization(ctx, id),
    callAndRecord: (id) => callAndRecord(ctx, id, metadata),
  };
}

/** SPEC 3.2: the one creation call, and its answer recorded (pending, failed or unknown). */
async function callAndRecord(
  ctx: AuthorizationCreateContext,
  authorizationId: string,
  metadata: EventMetadata,
): Promise<LoadedAuthorization> {
  const reserved = await loadAuthorization(ctx, authorizationId);
  if (!reserved) throw new Error(`${authorizationStream(authorizationId)} missing after its reservation`);
  const state: AuthorizationState = reserved.state;
  const port = portAuthorization(state);
  // A record that can no longer send (credentials gone since routing) is refused with nothing sent.
  const resolved = await adapterOf(ctx, state).catch((error: unknown) => {
    if (isDomainError(error)) return null;
    throw error;
  });
  const answer: Outcome<{ providerReference: string; copyPaste: string }> = resolved
    ? await callPixAutomatic(resolved, async (pix, c) => {
        const body = pix.buildAuthorizationRequest(port, { environment: c.environment });
        return pix.createAuthorization(port, body, c, ctx.now());
      })
    : unsentRefusal();
  const command =
    answer.kind === 'issued'
      ? ({
          kind: 'issued',
          providerReference: answer.providerReference,
          copyPaste: answer.copyPaste,
        } as const)
      : ({
          kind: answer.kind === 'refused' ? 'refused' : 'uncertain',
          reason: answer.reason,
          providerReference: answer.providerReference,
          diagnostics: diagnosticsOf(answer),
        } as const);
  await handleCommand(
    { store: ctx.store, registry: ctx.events, now: () => ctx.now() },
    pixAutomaticAuthorization,
    authorizationStream(authorizationId),
    command,
    { metadata, retryOnConflict: true },
  );
  const loaded = await loadAuthorization(ctx, authorizationId);
  if (!loaded) throw new Error(`${authorizationStream(authorizationId)} missing after its answer`);
  return loaded;
}
