import type { Selectable } from 'kysely';
import { z } from 'zod';
import { documentSigningSecret } from '../../charge-page/signing-secret.ts';
import type { AppContext } from '../../commands/context.ts';
import { isInTree, requireTenantInTree, tenantInTreeSql } from '../../commands/tenancy.ts';
import { dataEnvelope, errorResponses, idParams, listEnvelope } from '../../contract/envelopes.ts';
import {
  attemptDto,
  callbackSecretQuery,
  callbackSecretView,
  deliveryDto,
  deliveryListQuery,
} from '../../contract/webhook-deliveries.ts';
import type { WebhookDeliveriesTable } from '../../db/schema.ts';
import { callbackWebhookSecret } from '../../webhooks/signing.ts';
import { type SessionPrincipal, sessionPrincipal } from '../auth.ts';
import { ApiError } from '../errors.ts';
import type { HttpServer } from '../server.ts';

const READERS = ['super_admin', 'tenant_admin', 'viewer'] as const;
const WRITERS = ['super_admin', 'tenant_admin'] as const;

const iso = (v: Date | string | null) => (v === null ? null : new Date(v).toISOString());

type Row = Selectable<WebhookDeliveriesTable> & {
  type: 'transaction.created' | 'transaction.updated';
  sequence: string;
  endpoint_url: string | null;
};

function toDto(r: Row): z.infer<typeof deliveryDto> {
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

/**
 * Webhook deliveries in the panel (SPEC 6; issue 6 item 5): list (filters endpoint, transaction, status;
 * the caller's tree), one with its attempts, resend, and the callback signing secret. Readers: every panel
 * role within its tree; resend and the secret: super_admin and tenant_admin (SPEC 6: "viewing the signing
 * secret and re-sending deliveries are panel-only operations"). Outside the tree: 404.
 */
export function registerWebhookDeliveryRoutes(app: HttpServer, ctx: AppContext): void {
  const rows = () =>
    ctx.db
      .selectFrom('webhook_deliveries as d')
      .innerJoin('webhook_messages as m', 'm.id', 'd.message_id')
      .leftJoin('webhook_endpoints as e', 'e.id', 'd.endpoint_id')
      .selectAll('d')
      .select(['m.type', 'm.sequence', 'e.url as endpoint_url']);

  async function loadInTree(principal: SessionPrincipal, id: string): Promise<Row> {
    const row = (await rows().where('d.id', '=', id).executeTakeFirst()) as Row | undefined;
    if (!row || !(await isInTree(ctx.db, principal, row.tenant_id))) {
      throw new ApiError('not_found', 'The webhook delivery does not exist.');
    }
    return row;
  }

  app.get(
    '/admin/webhook-deliveries',
    {
      config: { access: { auth: 'session', roles: READERS } },
      schema: {
        operationId: 'listWebhookDeliveries',
        summary: 'List webhook deliveries of your tree, newest first',
        description:
          'Filters: tenant_id (a tenant of your tree), endpoint_id, transaction_id, status (pending, delivered, failed, cancelled).',
        querystring: deliveryListQuery,
        response: { 200: listEnvelope(deliveryDto), ...errorResponses(401, 403, 404, 422) },
      },
    },
    async (request) => {
      const principal = sessionPrincipal(request);
      const q = request.query;
      if (q.tenant_id !== undefined) await requireTenantInTree(ctx.db, principal, q.tenant_id);
      const found = (await rows()
        .where(tenantInTreeSql(principal, 'd.tenant_id'))
        .$if(q.tenant_id !== undefined, (b) => b.where('d.tenant_id', '=', q.tenant_id ?? ''))
        .$if(q.endpoint_id !== undefined, (b) => b.where('d.endpoint_id', '=', q.endpoint_id ?? ''))
        .$if(q.transaction_id !== undefined, (b) => b.where('d.transaction_id', '=', q.transaction_id ?? ''))
        .$if(q.status !== undefined, (b) => b.where('d.status', '=', q.status ?? 'pending'))
        .orderBy('d.created_at', 'desc')
        .orderBy('d.id', 'desc')
        .limit(q.limit)
        .offset(q.offset)
        .execute()) as Row[];
      return { data: found.map(toDto), meta: { limit: q.limit, offset: q.offset, count: found.length } };
    },
  );

  app.get(
    '/admin/webhook-deliveries/:id',
    {
      config: { access: { auth: 'session', roles: READERS } },
      schema: {
        operationId: 'getWebhookDelivery',
        summary: 'A webhook delivery with every attempt',
        params: idParams,
        response: {
          200: dataEnvelope(deliveryDto.extend({ attempts_log: z.array(attemptDto) })),
          ...errorResponses(401, 403, 404),
        },
      },
    },
    async (request) => {
      const row = await loadInTree(sessionPrincipal(request), request.params.id);
      const attempts = await ctx.db
        .selectFrom('webhook_attempts')
        .selectAll()
        .where('delivery_id', '=', row.id)
        .orderBy('attempt')
        .execute();
      return {
        data: {
          ...toDto(row),
          attempts_log: attempts.map((a) => ({
            attempt: a.attempt,
            started_at: iso(a.started_at) ?? '',
            duration_ms: a.duration_ms,
            outcome: a.outcome,
            status_code: a.status_code,
            error: a.error,
          })),
        },
      };
    },
  );

  app.post(
    '/admin/webhook-deliveries/:id/resend',
    {
      config: { access: { auth: 'session', roles: WRITERS } },
      schema: {
        operationId: 'resendWebhookDelivery',
        summary: 'Send a delivery again',
        description:
          "Queues one more attempt now, with the same `webhook-id` and body, whatever the delivery's status. If it fails, the retry schedule continues from the attempts already made (an exhausted delivery becomes `failed` again; resend again later). The endpoint must be enabled when the attempt runs (else the delivery ends `cancelled`).",
        params: idParams,
        response: { 200: dataEnvelope(deliveryDto), ...errorResponses(401, 403, 404) },
      },
    },
    async (request) => {
      const row = await loadInTree(sessionPrincipal(request), request.params.id);
      const now = ctx.now();
      await ctx.db
        .updateTable('webhook_deliveries')
        .set({ status: 'pending', next_attempt_at: now, locked_until: null, updated_at: now })
        .where('id', '=', row.id)
        .execute();
      return { data: toDto((await rows().where('d.id', '=', row.id).executeTakeFirstOrThrow()) as Row) };
    },
  );

  app.get(
    '/admin/webhook-callback-secret',
    {
      config: { access: { auth: 'session', roles: WRITERS } },
      schema: {
        operationId: 'getWebhookCallbackSecret',
        summary: "The secret signing deliveries to a tenant's callback_url addresses",
        description:
          "One secret per tenant and mode, derived on the server; deliveries to a charge's `callback_url` carry Standard Webhooks signatures made with it. super_admin any tenant, tenant_admin its tree.",
        querystring: callbackSecretQuery,
        response: {
          200: dataEnvelope(callbackSecretView),
          ...errorResponses(401, 403, 404, 422),
        },
      },
    },
    async (request) => {
      const { tenant_id, mode } = request.query;
      await requireTenantInTree(ctx.db, sessionPrincipal(request), tenant_id);
      const root = await documentSigningSecret(ctx.config);
      return { data: { tenant_id, mode, secret: callbackWebhookSecret(root, tenant_id, mode) } };
    },
  );
}
