import { sql } from 'kysely';
import { z } from 'zod';
import { DomainError } from '../../aggregates/decider.ts';
import { type ChargeBody, createCharge } from '../../commands/charges.ts';
import { requireTenantInTree } from '../admin-scope.ts';
import { apiKeyPrincipal, idempotencyKeyOf, sessionPrincipal } from '../auth.ts';
import type { AppContext } from '../context.ts';
import { ApiError } from '../errors.ts';
import { eventMetadata } from '../request-metadata.ts';
import { dataEnvelope, errorEnvelope, IDEMPOTENCY_REPLAYED, idParams } from '../schemas.ts';
import type { HttpServer } from '../server.ts';
import { JsonDecimal } from '../strict-json.ts';
import { utf8Bytes, utf8Text } from '../text.ts';
import {
  findTransactionRow,
  readableFoldedTransaction,
  readableTransaction,
  toTransactionView,
  transactionRequestData,
  transactionRequestView,
  transactionView,
} from '../transaction-dto.ts';

/** SPEC 4.1 `customer.address.state`: the 27 federative units. */
export const BRAZILIAN_STATES = new Set([
  'AC',
  'AL',
  'AP',
  'AM',
  'BA',
  'CE',
  'DF',
  'ES',
  'GO',
  'MA',
  'MT',
  'MS',
  'MG',
  'PA',
  'PB',
  'PR',
  'PE',
  'PI',
  'RJ',
  'RN',
  'RS',
  'RO',
  'RR',
  'SC',
  'SP',
  'SE',
  'TO',
]);

const trimmedMatch = (re: RegExp, description: string) =>
  z
    .string()
    .refine((s) => re.test(s.trim()), { message: description })
    .meta({ description });

const address = z.strictObject({
  zip_code: trimmedMatch(/^[0-9]{8}$/, '8 digits.'),
  street: utf8Text(2, 120),
  number: utf8Text(1, 20).meta({ description: '1 to 20 bytes after trim; may be `S/N`.' }),
  complement: utf8Text(0, 120).optional(),
  district: utf8Text(2, 80),
  city: utf8Text(2, 80),
  state: z
    .string()
    .refine((s) => BRAZILIAN_STATES.has(s.trim().toUpperCase()), { message: 'must be a Brazilian state' })
    .meta({ description: 'A valid Brazilian two-letter state (trimmed and upper-cased for the provider).' }),
});

const customerCommon = {
  name: utf8Text(2, 120).optional(),
  document: trimmedMatch(
    /^(?:[A-Za-z0-9]{11}|[A-Za-z0-9]{14})$/,
    '11 or 14 alphanumeric characters without punctuation; trimmed and upper-cased; format only.',
  ).optional(),
  /** Required for a new charge (422 from the command, after the replay lookup: SPEC 4.1 legacy replay). */
  address: address.optional(),
};
const email = z
  .string()
  .refine(
    (s) => {
      const t = s.trim();
      return t.includes('@') && utf8Bytes(t) <= 254;
    },
    { message: 'must contain @ and have up to 254 bytes' },
  )
  .meta({ description: 'Contains @, up to 254 bytes; trimmed and lower-cased.' });

const pixCustomer = z.strictObject({
  ...customerCommon,
  email: email.optional(),
  phone: z
    .string()
    .refine((s) => utf8Bytes(s) <= 20 && /^[0-9]+$/.test(s.trim()), {
      message: 'digits only after trim, up to 20 bytes in the original value',
    })
    .optional()
    .meta({
      description:
        'Required for a new charge; digits only after trim; up to 20 bytes in the ORIGINAL value. A stored record without it still replays (SPEC 4.1 legacy replay).',
    }),
});
const boletoCustomer = z.strictObject({
  ...customerCommon,
  email,
  phone: z
    .string()
    .refine(
      (s) => {
        const t = s.trim();
        return utf8Bytes(t) >= 1 && utf8Bytes(t) <= 20 && /^[0-9]+$/.test(t);
      },
      { message: 'digits only, 1 to 20 bytes after trim' },
    )
    .optional()
    .meta({
      description:
        'Required for a new charge; digits only; 1 to 20 bytes after trim. A stored record without it still replays (SPEC 4.1 legacy replay).',
    }),
});

const callbackUrl = z.string().max(2048).meta({
  description:
    'An https address receiving the events of this charge (SPEC 6); private, loopback, link-local and metadata addresses are refused (422).',
});

const common = {
  /** SPEC 5.5: accepted only to answer `422 tenant_from_api_key`. */
  tenant_id: z.unknown().optional().meta({ description: 'Never send: 422 tenant_from_api_key.' }),
  amount: z.number().int().min(1).max(100_000_000).meta({ description: 'Centavos, 1 to 100000000.' }),
  reference: utf8Text(1, 100),
  description: utf8Text(1, 200),
  cost_center_id: z.string().min(1).max(64).optional(),
  callback_url: callbackUrl.optional(),
};

/** A percentage 0 to 100 with at most two decimals, read from the lexeme (strict JSON keeps it). */
const rate = z
  .unknown()
  .transform((v, ctx) => {
    const lexeme = typeof v === 'number' ? String(v) : v instanceof JsonDecimal ? v.lexeme : null;
    if (lexeme === null || !/^[0-9]+(?:\.[0-9]{1,2})?$/.test(lexeme) || Number(lexeme) > 100) {
      ctx.addIssue({ code: 'custom', message: 'must be a number from 0 to 100 with at most two decimals' });
      return z.NEVER;
    }
    return Number(lexeme);
  })
  .meta({ type: 'number', description: 'Percentage 0 to 100, at most two decimals; default 0.' });

const pixBody = z.strictObject({
  ...common,
  customer: pixCustomer,
  expires_in: z
    .number()
    .int()
    .refine((n) => n === 0 || (n >= 60 && n <= 86_400), { message: 'must be 60 to 86400 (or 0)' })
    .optional()
    .meta({ description: 'Seconds, 60 to 86400; omitted or 0 gives 3600.' }),
});
const boletoBody = z.strictObject({
  ...common,
  customer: boletoCustomer,
  boleto: z.strictObject({
    due_date: z.iso.date().meta({ description: 'Today to today+365 in America/Sao_Paulo (first issuance).' }),
    instruction: utf8Text(0, 200).optional(),
    penalty_rate: rate.optional(),
    interest_rate: rate.optional(),
    cancel_after_due: z.boolean().optional(),
    days_before_cancel: z.number().int().min(0).max(120).optional(),
  }),
});

const created = dataEnvelope(transactionView);
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

/** Public charges (SPEC 3.1, 4.1, 4.2, 4.4, 4.5; docs/decisions.md "Charges"). */
export function registerChargeRoutes(app: HttpServer, ctx: AppContext): void {
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
    const row = await findTransactionRow(ctx, outcome.transactionId);
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
      schema: {
        operationId: 'createPix',
        summary: 'Create a Pix charge',
        description:
          'SPEC 4.1. Requires Idempotency-Key (scope: tenant + key, shared with boleto). 201 new; 200 replay with `Idempotency-Replayed: true`; 202 unknown or still processing; 502 provider_rejected with error.transaction_id.',
        body: pixBody,
        response: chargeResponses,
      },
    },
    async (request, reply) => {
      const r = await handle('pix', '/v1/pix', request, request.body);
      if (r.replayed) reply.header(IDEMPOTENCY_REPLAYED, 'true');
      return reply.code(r.status).send({ data: r.view });
    },
  );

  app.post(
    '/v1/boleto',
    {
      config: { access: { auth: 'api_key', scopes: ['boleto:write'], idempotencyKey: true } },
      schema: {
        operationId: 'createBoleto',
        summary: 'Create a boleto charge',
        description:
          'SPEC 4.2. Requires Idempotency-Key (scope: tenant + key, shared with Pix). Responses as POST /v1/pix.',
        body: boletoBody,
        response: chargeResponses,
      },
    },
    async (request, reply) => {
      const r = await handle('boleto', '/v1/boleto', request, request.body);
      if (r.replayed) reply.header(IDEMPOTENCY_REPLAYED, 'true');
      return reply.code(r.status).send({ data: r.view });
    },
  );

  app.post(
    '/admin/boleto',
    {
      config: { access: { auth: 'session', roles: ['super_admin', 'tenant_admin'], idempotencyKey: true } },
      schema: {
        operationId: 'createPanelBoleto',
        summary: 'Create a boleto charge from the panel',
        description:
          'SPEC 4.2, 5.7: the panel equivalent of POST /v1/boleto, for a tenant the user may charge for: super_admin any tenant (`tenant_id` required), tenant_admin its own tenant (default) or a descendant. Production mode (routing decides simulator or provider). Idempotency scope tenant + key, as the public creation. Outside the tree: 404; a suspended tenant or ancestor: 403 tenant_suspended.',
        body: boletoBody.extend({
          tenant_id: z.string().min(1).max(64).optional().meta({ description: 'The tenant to charge for.' }),
        }),
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
      if (r.replayed) reply.header(IDEMPOTENCY_REPLAYED, 'true');
      return reply.code(r.status).send({ data: r.view });
    },
  );

  app.get(
    '/v1/transactions/:id',
    {
      config: { access: { auth: 'api_key', scopes: ['transactions:read'] } },
      schema: {
        operationId: 'getTransaction',
        summary: "A transaction of the key's tenant or of a descendant, in the key's mode",
        description: 'SPEC 4.4. Local state only; outside the tree or of the other mode: 404.',
        params: idParams,
        response: { 200: dataEnvelope(transactionView), 404: errorEnvelope },
      },
    },
    async (request) => {
      const row = await readableTransaction(ctx, apiKeyPrincipal(request), request.params.id);
      return { data: await toTransactionView(ctx, row) };
    },
  );

  app.get(
    '/v1/transactions/:id/request',
    {
      config: { access: { auth: 'api_key', scopes: ['transactions:read'] } },
      schema: {
        operationId: 'getTransactionRequest',
        summary: 'The creation snapshot of a transaction (SPEC 2.3)',
        description:
          'SPEC 4.5: same authorization as GET /v1/transactions/{id}. Contains payer personal data.',
        params: idParams,
        response: { 200: dataEnvelope(transactionRequestView), 404: errorEnvelope },
      },
    },
    async (request) => {
      const folded = await readableFoldedTransaction(ctx, apiKeyPrincipal(request), request.params.id);
      return { data: transactionRequestData(folded) };
    },
  );
}
