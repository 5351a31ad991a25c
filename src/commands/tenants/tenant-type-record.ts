import { tenantType } from '../../aggregates/tenant-type.ts';
import { sha256Hex } from '../../crypto/secrets.ts';
import type { CommandDeps } from '../command-handler.ts';
import { foldStream } from '../fold-stream.ts';

/** A tenant type as the registry's commands answer it (SPEC 2.7). */
export interface TenantTypeRecord {
  id: string;
  name: string;
  allows_children: boolean;
}

export const tenantTypeStream = (typeId: string) => `tenant_type-${typeId}`;
/** One stream per name, case-insensitively (the read model's unique index is on lower(name)). */
export const tenantTypeNameStream = (name: string) => `tenant_type_name-${sha256Hex(name.toLowerCase())}`;

export async function loadTenantType(
  deps: Pick<CommandDeps, 'store' | 'registry'>,
  typeId: string,
): Promise<TenantTypeRecord | undefined> {
  const state = await foldStream(deps, tenantType, tenantTypeStream(typeId));
  if (state.status === 'none') return undefined;
  return { id: state.typeId, name: state.name, allows_children: state.allowsChildren };
}
