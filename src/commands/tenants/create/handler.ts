import { type ParentFacts, tenant } from '../../../aggregates/tenant.ts';
import type { EventMetadata } from '../../../events/event-store.ts';
import { newId } from '../../../ids.ts';
import { type CommandDeps, handleCommand } from '../../command-handler.ts';
import { existingTenant, loadTenant, type TenantRecord, tenantStream } from '../tenant-record.ts';
import { loadTenantType } from '../tenant-type-record.ts';

/** The parent as a creation sees it (ParentFacts): also the precheck of POST /v1/subtenants. */
export async function parentFacts(deps: CommandDeps, parentId: string | null): Promise<ParentFacts> {
  if (parentId === null) return { kind: 'root' };
  const parent = await loadTenant(deps, parentId);
  if (!parent) return { kind: 'missing', tenantId: parentId };
  const type = await loadTenantType(deps, parent.type_id);
  return {
    kind: 'found',
    tenantId: parent.id,
    ancestorIds: parent.ancestor_ids,
    typeAllowsChildren: type?.allows_children ?? false,
  };
}

export interface CreateTenantInput {
  /** Chosen by the server unless given (tests, imports). */
  tenantId?: string;
  name: string;
  typeId: string;
  /** null for a root tenant. */
  parentId: string | null;
}

/**
 * Creates a tenant under an existing parent whose type allows children (or a root). The facts about the
 * type and the parent are read from their streams and passed in the command; none of them can change
 * afterwards (see ParentFacts), so no lock across streams is needed.
 */
export async function createTenant(
  deps: CommandDeps,
  input: CreateTenantInput,
  metadata: EventMetadata,
): Promise<TenantRecord> {
  const tenantId = input.tenantId ?? newId('ten');
  const [type, parent] = await Promise.all([
    loadTenantType(deps, input.typeId),
    parentFacts(deps, input.parentId),
  ]);
  const r = await handleCommand(
    deps,
    tenant,
    tenantStream(tenantId),
    {
      kind: 'create',
      tenantId,
      name: input.name.trim(),
      typeId: input.typeId,
      typeExists: type !== undefined,
      parent,
    },
    { metadata, retryOnConflict: true },
  );
  return existingTenant(r.state);
}
