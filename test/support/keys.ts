import type { AccessProfile } from '../../src/aggregates/access.ts';
import { SCOPES, type Scope } from '../../src/aggregates/access.ts';
import { issueApiKey } from '../../src/commands/api-keys/issue/handler.ts';
import { commandDeps, type SeedContext } from './fixtures.ts';

/** Another key of an existing tenant (SPEC 5.1 to 5.4): its mode, scopes and profile as a test needs them. */
export async function extraKey(
  ctx: SeedContext,
  tenantId: string,
  opts: { livemode?: boolean; scopes?: readonly Scope[]; accessProfile?: AccessProfile } = {},
): Promise<string> {
  const { key } = await issueApiKey(
    commandDeps(ctx),
    {
      tenantId,
      livemode: opts.livemode ?? false,
      name: 'extra key',
      scopes: opts.scopes ?? SCOPES,
      accessProfile: opts.accessProfile ?? 'standard',
      createdBy: 'system:test',
    },
    { actor: 'system:test', request_id: 'req_test' },
  );
  return key;
}
