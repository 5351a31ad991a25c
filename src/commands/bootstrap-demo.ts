import { SCOPES } from '../aggregates/access.ts';
import { isDomainError } from '../aggregates/decider.ts';
import type { TenantTypeNameReservedData } from '../aggregates/tenant-type.ts';
import type { EventMetadata } from '../events/event-store.ts';
import { newId } from '../ids.ts';
import { loadApiKey } from './api-keys/api-key-record.ts';
import { issueApiKey } from './api-keys/issue/handler.ts';
import type { CommandDeps } from './command-handler.ts';
import { claimIdempotencyKey } from './idempotency.ts';
import { livemodeOf } from './tenancy.ts';
import { createTenant } from './tenants/create/handler.ts';
import { createTenantType } from './tenants/create-type/handler.ts';
import { loadTenant } from './tenants/tenant-record.ts';
import { tenantTypeNameStream } from './tenants/tenant-type-record.ts';

/**
 * `calebe bootstrap`: a demo tenant with a test key and a live key carrying every public scope (SPEC 5.3),
 * created once. Each step is claimed in an idempotency stream of the scope `system_bootstrap`, so running it
 * again (or twice at once, or after a crash halfway) never duplicates anything; a key whose claim exists but
 * which was never issued is issued on the next run. Secrets exist only in the run that issued them.
 */

export const DEMO_TENANT_NAME = 'Demo';
export const DEMO_TYPE_NAME = 'Demo';
const SCOPE = 'system_bootstrap';
const ROUTE = 'calebe bootstrap';

export interface DemoKey {
  mode: 'test' | 'live';
  id: string;
  prefix: string;
  /** The secret, only when this run issued the key. */
  key?: string;
}

export interface DemoResult {
  tenant: { id: string; name: string; created: boolean };
  typeId: string;
  keys: DemoKey[];
}

async function demoType(deps: CommandDeps, metadata: EventMetadata): Promise<string> {
  try {
    const { type } = await createTenantType(deps, { name: DEMO_TYPE_NAME, allowsChildren: true }, metadata);
    return type.id;
  } catch (error) {
    // A type named "Demo" exists with other values (created by a person): use it.
    if (!isDomainError(error) || error.code !== 'conflict') throw error;
    const [claim] = await deps.store.read(tenantTypeNameStream(DEMO_TYPE_NAME));
    if (!claim) throw error;
    return (deps.registry.decode(claim).data as TenantTypeNameReservedData).type_id;
  }
}

export async function bootstrapDemo(deps: CommandDeps, metadata: EventMetadata): Promise<DemoResult> {
  const typeId = await demoType(deps, metadata);

  const tenantBody = { name: DEMO_TENANT_NAME, type_id: typeId };
  const { claim: tenantClaim } = await claimIdempotencyKey(
    deps,
    {
      scope: SCOPE,
      key: 'demo-tenant',
      method: 'POST',
      route: ROUTE,
      body: tenantBody,
      resourceId: newId('ten'),
      payload: tenantBody,
    },
    metadata,
  );
  const tenantId = tenantClaim.resource_id;
  let tenant = await loadTenant(deps, tenantId);
  const tenantCreated = tenant === undefined;
  if (!tenant) {
    tenant = await createTenant(deps, { tenantId, name: DEMO_TENANT_NAME, typeId, parentId: null }, metadata);
  }

  const keys: DemoKey[] = [];
  for (const mode of ['test', 'live'] as const) {
    const body = { tenant_id: tenantId, mode, scopes: [...SCOPES] };
    const { claim } = await claimIdempotencyKey(
      deps,
      {
        scope: SCOPE,
        key: `demo-key-${mode}`,
        method: 'POST',
        route: ROUTE,
        body,
        resourceId: newId('key'),
        payload: body,
      },
      metadata,
    );
    const keyId = claim.resource_id;
    const existing = await loadApiKey(deps, keyId);
    if (existing) {
      keys.push({ mode, id: keyId, prefix: existing.prefix });
      continue;
    }
    try {
      const issued = await issueApiKey(
        deps,
        {
          keyId,
          tenantId,
          livemode: livemodeOf(mode),
          name: `Demo ${mode} key`,
          scopes: SCOPES,
          accessProfile: 'standard',
          createdBy: metadata.actor,
        },
        metadata,
      );
      keys.push({ mode, id: keyId, prefix: issued.record.prefix, key: issued.key });
    } catch (error) {
      // Another run issued it meanwhile: its secret was shown there.
      const raced = await loadApiKey(deps, keyId);
      if (!raced) throw error;
      keys.push({ mode, id: keyId, prefix: raced.prefix });
    }
  }
  return { tenant: { id: tenantId, name: tenant.name, created: tenantCreated }, typeId, keys };
}
