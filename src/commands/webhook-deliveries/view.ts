import type { Kysely, Selectable } from 'kysely';
import type { z } from 'zod';
import { ApiError } from '../../aggregates/errors.ts';
import type { deliveryDto } from '../../contract/webhook-deliveries.ts';
import type { Database, WebhookDeliveriesTable } from '../../db/schema.ts';
import type { SessionPrincipal } from '../principal.ts';
import { isInTree } from '../tenancy.ts';

export const iso = (v: Date | string | null) => (v === null ? null : new Date(v).toISOString());

/** A delivery with what the panel shows of its message and endpoint. */
export type DeliveryRow = Selectable<WebhookDeliveriesTable> & {
  type: 'transaction.created' | 'transaction.updated';
  sequence: string;
  endpoint_url: string | null;
};

export function deliveryRows(db: Kysely<Database>) {
  return db
    .selectFrom('webhook_deliveries as d')
    .innerJoin('webhook_messages as m', 'm.id', 'd.message_id')
    .leftJoin('webhook_endpoints as e', 'e.id', 'd.endpoint_id')
    .selectAll('d')
    .select(['m.type', 'm.sequence', 'e.url as endpoint_url']);
}

/** The delivery if its tenant lies in the caller's tree; else 404 (ids are not confirmed). */
export async function loadDeliveryInTree(
  db: Kysely<Database>,
  principal: SessionPrincipal,
  id: string,
): Promise<DeliveryRow> {
  const row = (await deliveryRows(db).where('d.id', '=', id).executeTakeFirst()) as DeliveryRow | undefined;
  if (!row || !(await isInTree(db, principal, row.tenant_id))) {
    throw new ApiError('not_found', 'The webhook delivery does not exist.');
  }
  return row;
}

export function toDeliveryView(r: DeliveryRow): z.infer<typeof deliveryDto> {
  return {
    id: r.id,
    message_id: r.message_id,
    type: r.type,
    tenant_id: r.tenant_id,
    transaction_id: r.transaction_id,
    sequence: Number(r.sequence),
    destination: r.destination,
    endpoint_id: r.endpoint_id,
    url: r.callback_url ?? r.endpoint_url,
    status: r.status,
    attempts: r.attempts,
    next_attempt_at: r.status === 'pending' ? iso(r.next_attempt_at) : null,
    last_attempt_at: iso(r.last_attempt_at),
    last_status_code: r.last_status_code,
    last_error: r.last_error,
    delivered_at: iso(r.delivered_at),
    created_at: iso(r.created_at) ?? '',
  };
}
