import { ApiError } from '../../../aggregates/errors.ts';
import { isValidRegistryName } from '../../../aggregates/registry-name.ts';
import { createTenantType as createTenantTypeOperation } from '../../../contract/operations/tenants.ts';
import { newId } from '../../../ids.ts';
import { bind, createdOrReplayed } from '../../bind.ts';
import { claimPanelCreation } from '../../panel-claim.ts';
import { identityDeps } from '../../users/identity-deps.ts';
import { createTenantType } from './handler.ts';

/** SPEC 2.7, 5.7: a tenant type, once per Idempotency-Key (the key is claimed before the name). */
export const createTypeRoute = bind(createTenantTypeOperation, async (call, ctx) => {
  const principal = call.session();
  const body = { name: call.body.name.trim(), allows_children: call.body.allows_children };
  // Validated before the claim: every claim must be completable (docs/decisions.md "Admin").
  if (!isValidRegistryName(body.name)) {
    throw new ApiError('validation_error', 'The name must have 2 to 120 bytes.', { param: 'name' });
  }
  const metadata = call.metadata();
  // The key is claimed before the name, so requests sharing a key can never claim two names.
  const { first, claim } = await claimPanelCreation(
    ctx,
    createTenantTypeOperation,
    { principal, key: call.idempotencyKey() },
    { body, resourceId: newId('tty'), payload: {} },
    metadata,
  );
  // A replay completes a claim whose type was never created, under the same id.
  const { type } = await createTenantType(
    identityDeps(ctx),
    { typeId: claim.resource_id, name: body.name, allowsChildren: body.allows_children },
    metadata,
  );
  return createdOrReplayed(first, { data: type });
});
