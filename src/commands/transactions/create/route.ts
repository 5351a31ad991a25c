import type { FastifyReply } from 'fastify';
import { sql } from 'kysely';
import { DomainError } from '../../../aggregates/decider.ts';
import { ApiError } from '../../../aggregates/errors.ts';
import { boletoBody, panelBoletoBody, pixBody } from '../../../contract/charges.ts';
import { dataEnvelope, errorEnvelope, IDEMPOTENCY_REPLAYED } from '../../../contract/envelopes.ts';
import { apiKeyPrincipal, idempotencyKeyOf, sessionPrincipal } from '../../../http/auth.ts';
import { compiledSuccessSerializer } from '../../../http/compiled-serializer.ts';
import { eventMetadata } from '../../../http/request-metadata.ts';
import type { HttpServer } from '../../../http/server.ts';
import type { AppContext } from '../../context.ts';
import { requireTenantInTree } from '../../tenancy.ts';
import { findTransactionRow, type TransactionView, toTransactionView, transactionView } from '../view.ts';
import { type ChargeBody, createCharge } from './handler.ts';

const created = dataEnvelope(transactionView);
/** Every 2xx answer, replays included, goes through the routes' compiled serializer (issue 14). */
function answer(
  reply: FastifyReply,
  r: { status: number; replayed: boolean; view: TransactionView },
): FastifyReply {
  if (r.replayed) reply.header(IDEMPOTENCY_REPLAYED, 'true');
  return reply.code(r.status).send({ data: r.view });
}
const chargeResponses = {
  200: created.meta({ description: 'Replay (`Idempotency-Replayed: true`), including failed/unknown.' }),
  201: dataEnvelope(transactionView).meta({ description: 'Created.' }),
  202: dataEnvelope(transactionView).meta({ description: 'Unknown outcome, or a replay still processing.' }),
  400: errorEnvelope,
  404: errorEnvelope,
  409: errorEnvelope,
  413: errorEnvelope,
  422: errorEnvelope,
  500: errorEnvelope,
  502: errorEnvelope,
  503: errorEnvelope,
};

/**
 * Charge creation (SPEC 3.1, 4.1, 4.2; docs/decisions.md "Charges"): `POST /v1/pix`, `POST /v1/boleto` and the
 * panel's `POST /admin/boleto`, one use case (the panel's boleto is the same creation for a tenant of the
 * user's tree), one handler (./handler.ts).
 */
export function registerCreateRoutes(app: HttpServer, ctx: AppContext): void {
  const handle = async (
    method: 'pix' | 'boleto',
    route: string,
    request: Parameters<typeof apiKeyPrincipal>[0],
    body: ChargeBody,
    owner: { tenantId: string; livemode: boolean } = apiKeyPrincipal(request),
  ) => {
    let outcome: Awaited<ReturnType<typeof createCharge>>;
    try {
      outcome = await createCharge(
        ctx,
        {
          tenantId: owner.tenantId,
          livemode: owner.livemode,
          method,
          idempotencyKey: idempotencyKeyOf(request),
          route,
          body,
        },
        eventMetadata(request),
      );
    } catch (error) {
      if (error instanceof DomainError && error.code === 'reconciliation_required') {
        const id = error.details.transaction_id;
        throw new ApiError(
          'reconciliation_required',
          'The charge was reserved but its result was not saved; keep the key and do not reprocess.',
          typeof id === 'string' ? { transaction_id: id } : {},
          503,
        );
      }
      throw error;
    }
    // DESIGN.md "A command answers from its own fold": in async mode the read model may not have it yet.
    // A creation brings its fold along (issue 14: no read back); a replay reads the stored record (SPEC 5).
    const row =
      (outcome.kind === 'created' ? outcome.row : undefined) ??
      (await findTransactionRow(ctx, outcome.transactionId));
    if (!row) throw new Error(`transaction ${outcome.transactionId} missing from its stream`);
    const view = await toTransactionView(ctx, row);
    if (outcome.kind === 'replayed') {
      const status: 200 | 202 = view.status === 'processing' ? 202 : 200;
      return { status, replayed: true, view };
    }
    if (view.status === 'failed') {
      throw new ApiError('provider_rejected', 'The provider refused the charge.', {
        transaction_id: view.id,
        provider_error_code: view.provider_error_code,
        provider_error_message: view.provider_error_message,
        provider_http_status: view.provider_http_status,
      });
    }
    const status: 201 | 202 = view.status === 'unknown' || view.status === 'processing' ? 202 : 201;
    return { status, replayed: false, view };
  };

  app.post(
    '/v1/pix',
    {
      config: { access: { auth: 'api_key', scopes: ['pix:write'], idempotencyKey: true } },
      // The creation answer and its replay written by fast-json-stringify, not zod; errors keep zod (issue 14).
      serializerCompiler: compiledSuccessSerializer,
      schema: {
        operationId: 'createPix',
        summary: 'Create a Pix charge',
        description:
          'Requires Idempotency-Key (scope: tenant + key, shared with boleto). 201 new; 200 replay with `Idempotency-Replayed: true`; 202 unknown or still processing; 502 provider_rejected with error.transaction_id.',
        body: pixBody,
        response: chargeResponses,
      },
    },
    async (request, reply) => {
      const r = await handle('pix', '/v1/pix', request, request.body);
      return answer(reply, r);
    },
  );

  app.post(
    '/v1/boleto',
    {
      config: { access: { auth: 'api_key', scopes: ['boleto:write'], idempotencyKey: true } },
      serializerCompiler: compiledSuccessSerializer,
      schema: {
        operationId: 'createBoleto',
        summary: 'Create a boleto charge',
        description:
          'Requires Idempotency-Key (scope: tenant + key, shared with Pix). Responses as POST /v1/pix.',
        body: boletoBody,
        response: chargeResponses,
      },
    },
    async (request, reply) => {
      const r = await handle('boleto', '/v1/boleto', request, request.body);
      return answer(reply, r);
    },
  );

  app.post(
    '/admin/boleto',
    {
      config: { access: { auth: 'session', roles: ['super_admin', 'tenant_admin'], idempotencyKey: true } },
      serializerCompiler: compiledSuccessSerializer,
      schema: {
        operationId: 'createPanelBoleto',
        summary: 'Create a boleto charge from the panel',
        description:
          'The panel equivalent of POST /v1/boleto, for a tenant the user may charge for: super_admin any tenant (`tenant_id` required), tenant_admin its own tenant (default) or a descendant. Production mode (routing decides simulator or provider). Idempotency scope tenant + key, as the public creation. Outside the tree: 404; a suspended tenant or ancestor: 403 tenant_suspended.',
        body: panelBoletoBody,
        response: chargeResponses,
      },
    },
    async (request, reply) => {
      const principal = sessionPrincipal(request);
      const { tenant_id, ...body } = request.body;
      const tenantId = tenant_id ?? principal.tenantId;
      if (!tenantId) {
        throw new ApiError('validation_error', 'tenant_id is required for a super_admin.', {
          param: 'tenant_id',
        });
      }
      await requireTenantInTree(ctx.db, principal, tenantId);
      const { rows } = await sql<{ suspended: boolean }>`
        select exists (select 1 from tenants a join tenants t on a.id = any(t.ancestor_ids)
          where t.id = ${tenantId} and a.status = 'suspended') as suspended`.execute(ctx.db);
      if (rows[0]?.suspended) throw new ApiError('tenant_suspended');
      const r = await handle('boleto', '/admin/boleto', request, body, { tenantId, livemode: true });
      return answer(reply, r);
    },
  );
}
