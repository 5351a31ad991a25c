import { randomUUID } from 'node:crypto';
import type { AccessProfile, Scope } from '../../src/aggregates/access.ts';
import { SCOPES } from '../../src/aggregates/access.ts';
import {
  type ReserveTransaction,
  type TransactionCommand,
  transaction as transactionDecider,
} from '../../src/aggregates/transaction.ts';
import { issueApiKey } from '../../src/commands/api-keys/issue/handler.ts';
import { type CommandDeps, handleCommand } from '../../src/commands/command-handler.ts';
import type { AppContext } from '../../src/commands/context.ts';
import { createTenant } from '../../src/commands/tenants/create/handler.ts';
import { createTenantType } from '../../src/commands/tenants/create-type/handler.ts';
import { transactionStream } from '../../src/commands/transactions/shared/stream.ts';
import type { EventMetadata } from '../../src/events/event-store.ts';
import { type ChargeKind, reserveCommand } from './transactions.ts';

export interface SeededKey {
  tenantId: string;
  keyId: string;
  /** The secret, as an integrator would send it in X-API-Key. */
  key: string;
}

export interface SeedOptions {
  scopes?: readonly Scope[];
  livemode?: boolean;
  accessProfile?: AccessProfile;
  /** Creates the tenant under this parent instead of as a root. */
  parentId?: string | null;
  /** The tenant's name (default "Tenant"). */
  tenantName?: string;
}

/** What the seeds need of a gateway: `app.gateway.ctx` in HTTP tests, or a store and registry of one's own. */
export type SeedContext = Pick<AppContext, 'store' | 'events' | 'now'>;

const metadata: EventMetadata = { actor: 'system:test', request_id: 'req_seed' };

export function commandDeps(ctx: SeedContext): CommandDeps {
  return { store: ctx.store, registry: ctx.events, now: ctx.now };
}

/**
 * A charge of `tenantId` driven through the Transaction decider, for states HTTP cannot reach on demand
 * (unknown, issued by a provider that is not there): the reservation (`reserveCommand`), then `later`.
 */
export async function driveCharge(
  ctx: SeedContext,
  id: string,
  kind: ChargeKind,
  tenantId: string,
  later: readonly TransactionCommand[],
  over: Partial<ReserveTransaction> = {},
): Promise<void> {
  const deps = commandDeps(ctx);
  const stream = transactionStream(id);
  const reserve = reserveCommand(id, kind, over);
  const reserveForTenant = { ...reserve, tenantId, request: { ...reserve.request, tenant_id: tenantId } };
  await handleCommand(deps, transactionDecider, stream, reserveForTenant, { metadata });
  for (const command of later) await handleCommand(deps, transactionDecider, stream, command, { metadata });
}

/**
 * A tenant (of a fresh type that allows children) with one API key, for HTTP tests of the platform. Goes
 * through the event-sourced commands, so the read models authentication uses are filled by the inline
 * projections exactly as in production.
 */
export async function seedTenantAndKey(ctx: SeedContext, opts: SeedOptions = {}): Promise<SeededKey> {
  const deps = commandDeps(ctx);
  const { type } = await createTenantType(
    deps,
    { name: `type ${randomUUID()}`, allowsChildren: true },
    metadata,
  );
  const tenant = await createTenant(
    deps,
    { name: opts.tenantName ?? 'Tenant', typeId: type.id, parentId: opts.parentId ?? null },
    metadata,
  );
  const { keyId, key } = await issueApiKey(
    deps,
    {
      tenantId: tenant.id,
      livemode: opts.livemode ?? false,
      name: 'test key',
      scopes: opts.scopes ?? SCOPES,
      accessProfile: opts.accessProfile ?? 'standard',
      createdBy: 'system:test',
    },
    metadata,
  );
  return { tenantId: tenant.id, keyId, key };
}

/** One more key of an existing tenant, issued by the system: its secret (every scope unless `opts` says). */
export async function issueExtraKey(
  ctx: SeedContext,
  tenantId: string,
  opts: Partial<Parameters<typeof issueApiKey>[1]> = {},
): Promise<string> {
  const { key } = await issueApiKey(
    commandDeps(ctx),
    {
      tenantId,
      livemode: false,
      name: 'extra key',
      scopes: SCOPES,
      accessProfile: 'standard',
      createdBy: 'system:test',
      ...opts,
    },
    metadata,
  );
  return key;
}

/** A child of `parentId` with its own key (SPEC 5.5: a key writes only for its own tenant). */
export function seedChildTenant(
  ctx: SeedContext,
  parentId: string,
  opts: Omit<SeedOptions, 'parentId'> = {},
): Promise<SeededKey> {
  return seedTenantAndKey(ctx, { ...opts, parentId });
}
