import type { z } from 'zod';
import type { apiKeyView } from '../../contract/api-keys.ts';
import type { AppContext } from '../context.ts';
import { modeOf } from '../tenancy.ts';
import { type ApiKeyRecord, apiKeyStream } from './api-key-record.ts';

export type ApiKeyView = z.infer<typeof apiKeyView>;

export const iso = (t: Date | string) => new Date(t).toISOString();

/**
 * The record with its times from the key's own stream, as the api_keys projection records them (the events'
 * recorded times): DESIGN.md "A command answers from its own fold", the read model may trail in async mode.
 */
export async function viewOf(ctx: AppContext, record: ApiKeyRecord): Promise<ApiKeyView> {
  const recorded = await ctx.store.read(apiKeyStream(record.id));
  const issued = recorded.find((r) => r.type === 'ApiKey.Issued');
  const revoked = recorded.find((r) => r.type === 'ApiKey.Revoked');
  return {
    id: record.id,
    tenant_id: record.tenant_id,
    name: record.name,
    mode: modeOf(record.livemode),
    scopes: record.scopes,
    access_profile: record.access_profile,
    prefix: record.prefix,
    status: record.status,
    created_at: iso(issued?.recordedAt ?? ctx.now()),
    revoked_at: revoked ? iso(revoked.recordedAt) : null,
  };
}
