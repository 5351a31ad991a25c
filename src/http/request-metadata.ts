import type { FastifyRequest } from 'fastify';
import type { EventMetadata } from '../events/event-store.ts';

/**
 * The metadata of every event a request appends (DESIGN.md): its request id, who acted, and for API keys
 * the tenant and mode. `anonymous` is for the few routes without a credential (login).
 */
export function eventMetadata(request: FastifyRequest, actor?: string): EventMetadata {
  const p = request.principal;
  const base: EventMetadata = { request_id: request.id, actor: actor ?? p?.actor ?? 'anonymous' };
  if (p?.kind === 'api_key') return { ...base, tenant_id: p.tenantId, livemode: p.livemode };
  if (p?.kind === 'session') return { ...base, tenant_id: p.tenantId };
  return base;
}
