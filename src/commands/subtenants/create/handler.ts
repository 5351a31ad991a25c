import { DomainError, isDomainError } from '../../../aggregates/decider.ts';
import { decideSubtenantRegistration } from '../../../aggregates/subtenant.ts';
import { tenant } from '../../../aggregates/tenant.ts';
import type { SubtenantSubaccountBody } from '../../../contract/subtenants.ts';
import type { EventMetadata } from '../../../events/event-store.ts';
import { newId } from '../../../ids.ts';
import type { CommandDeps } from '../../command-handler.ts';
import { claimIdempotencyKey, type IdempotencyClaim, type JsonValue } from '../../idempotency.ts';
import type { SubaccountCtx } from '../../subaccounts/provider.ts';
import { withKeyedBankAccount } from '../../subaccounts/request-hash-body.ts';
import { createTenant, parentFacts } from '../../tenants/create/handler.ts';
import { loadTenant, type TenantRecord } from '../../tenants/tenant-record.ts';
import { loadTenantType } from '../../tenants/tenant-type-record.ts';
import {
  type ConversionTarget,
  conversionTarget,
  convertSubaccount,
  type NotAttemptedReason,
  notAttempted,
  type SubtenantSubaccount,
} from './conversion.ts';

export interface CreateSubtenantInput {
  /** The key's tenant: the parent (SPEC 4.13, 5.5). */
  parentId: string;
  livemode: boolean;
  name: string;
  /** Absent: the parent's own type (which allows children, or the creation is refused anyway). */
  typeId: string | undefined;
  /** The Idempotency-Key header, already checked against the SPEC 4 pattern. */
  idempotencyKey: string;
  /** The route template, part of the request hash. */
  route: string;
  /** The company data of the subaccount to convert (SPEC 4.13); undefined: none asked. */
  subaccount: SubtenantSubaccountBody | undefined;
}

export interface SubtenantCreation {
  record: TenantRecord;
  /** This request created the subtenant (false: a replay). */
  created: boolean;
  /** null when the request asked for no subaccount. */
  subaccount: SubtenantSubaccount | null;
}

/** Where the claim's payload keeps the conversion decided before the claim (stored: never rename). */
const CONVERSION_KEY = 'subaccount';

function conversionPayload(target: ConversionTarget): JsonValue {
  return target.providerId === null
    ? { provider_id: null, reason: target.reason }
    : { provider_id: target.providerId };
}

/**
 * Refuses what the tenant decider would refuse, before the key is claimed (a claim must be completable).
 * An unknown type is a bad body field here (422 validation_error), not a missing path id; a parent whose
 * type allows no children stays the registry's `409 conflict` (SPEC 7 registry conflicts), as in the panel.
 */
async function precheck(
  deps: CommandDeps,
  input: CreateSubtenantInput,
  name: string,
  typeId: string,
): Promise<void> {
  const [type, parent] = await Promise.all([loadTenantType(deps, typeId), parentFacts(deps, input.parentId)]);
  const decision = tenant.decide(
    {
      kind: 'create',
      tenantId: 'ten_precheck',
      name,
      typeId,
      typeExists: type !== undefined,
      parent,
    },
    tenant.initialState,
    { now: deps.now() },
  );
  if (!isDomainError(decision)) return;
  if (decision.code === 'not_found' && decision.details.param === 'type_id') {
    throw new DomainError('validation_error', 'type_id names no tenant type.', { param: 'type_id' });
  }
  throw decision;
}

/**
 * `POST /v1/subtenants` (SPEC 4 common rules, 4.13): a tenant under the key's tenant. Production keys only;
 * the claim (scope: the key's tenant, live mode) carries the new tenant's id, name and type, and the
 * creation is a second append. A replay with the same key and body answers the subtenant as it is now
 * (suspended since, say); one finding a claim whose tenant was never created (a crash between the appends)
 * completes the creation from the claim. Another body under the key is `409 idempotency_conflict`.
 * Without a type the subtenant gets its parent's (docs/decisions.md "Subtenants (issue 28 item 1)").
 *
 * With `subaccount`, the marketplace provider is chosen before the claim (reads only) and the claim keeps
 * that choice (never the company data: the request hash covers it, and the bank account lives only in this
 * request's memory); once the tenant exists the conversion runs (./conversion.ts), and its outcome never
 * fails the registration.
 */
export async function createSubtenant(
  ctx: SubaccountCtx,
  input: CreateSubtenantInput,
  metadata: EventMetadata,
): Promise<SubtenantCreation> {
  const deps: CommandDeps = { store: ctx.store, registry: ctx.events, now: () => ctx.now() };
  const refused = decideSubtenantRegistration({ livemode: input.livemode });
  if (refused) throw refused;
  const name = input.name.trim();
  // The key's tenant exists (it authenticated the request); tenants are never deleted.
  const typeId = input.typeId ?? (await loadTenant(deps, input.parentId))?.type_id ?? '';
  await precheck(deps, input, name, typeId);
  const newTenantId = newId('ten');
  const target = input.subaccount ? await conversionTarget(ctx, input.parentId, newTenantId) : undefined;
  const hashedSubaccount = input.subaccount
    ? await withKeyedBankAccount(ctx.config, input.subaccount, 'subaccount.bank_account')
    : undefined;

  const { first, claim } = await claimIdempotencyKey(
    deps,
    {
      scope: input.parentId,
      key: input.idempotencyKey,
      method: 'POST',
      route: input.route,
      // The resolved type: sending the default explicitly is the same request as leaving it out. Only the
      // hash is stored, over the bank account's keyed hash: the bank account is never kept, even hashed
      // plainly (a short account number falls to enumeration).
      body: { name, type_id: typeId, subaccount: hashedSubaccount },
      resourceId: newTenantId,
      payload: {
        parent_id: input.parentId,
        name,
        type_id: typeId,
        ...(target ? { [CONVERSION_KEY]: conversionPayload(target) } : {}),
      },
      livemode: input.livemode,
    },
    metadata,
  );
  const tenantId = claim.resource_id;
  const existing = first ? undefined : await loadTenant(deps, tenantId);
  // First request, or a claim whose tenant was never created: create it from the claim's facts.
  const record =
    existing ??
    (await createTenant(
      deps,
      {
        tenantId,
        name: String(claim.payload.name),
        typeId: String(claim.payload.type_id),
        parentId: String(claim.payload.parent_id),
      },
      metadata,
    ));
  if (!input.subaccount) return { record, created: first, subaccount: null };
  const subaccount = await convert(
    ctx,
    claim,
    { body: input.subaccount, route: input.route, replay: !first },
    metadata,
  );
  return { record, created: first, subaccount };
}

/** The conversion the claim decided: at its provider, or not attempted for its reason. */
async function convert(
  ctx: SubaccountCtx,
  claim: IdempotencyClaim,
  input: { body: SubtenantSubaccountBody; route: string; replay: boolean },
  metadata: EventMetadata,
): Promise<SubtenantSubaccount> {
  const stored = claim.payload[CONVERSION_KEY];
  const decided = stored !== null && typeof stored === 'object' && !Array.isArray(stored) ? stored : {};
  const providerId = decided.provider_id;
  if (typeof providerId !== 'string') {
    const reason: NotAttemptedReason =
      decided.reason === 'marketplace_unavailable' ? 'marketplace_unavailable' : 'no_marketplace_route';
    return notAttempted(reason);
  }
  return convertSubaccount(ctx, { tenantId: claim.resource_id, providerId, ...input }, metadata);
}
