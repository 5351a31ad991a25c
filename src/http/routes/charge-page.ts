import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { BoletoDetails } from '../../aggregates/transaction.ts';
import { boletoPdf } from '../../boleto-pdf/cache.ts';
import { boletoPdfInput } from '../../boleto-pdf/from-transaction.ts';
import { boletoPdfVersion } from '../../boleto-pdf/version.ts';
import {
  CHARGE_PAGE_CSP,
  type ChargePageView,
  renderChargePage,
  renderNotFoundPage,
} from '../../charge-page/render.ts';
import { verifyDocumentSignature } from '../../charge-page/signature.ts';
import { documentSigningSecret } from '../../charge-page/signing-secret.ts';
import type { AppContext } from '../../commands/context.ts';
import {
  foldTransaction,
  type TransactionView,
  toTransactionView,
} from '../../commands/transactions/view.ts';
import { chargePageParams } from '../../contract/charge-page.ts';
import type { TagName } from '../../contract/tags.ts';
import { ApiError } from '../errors.ts';
import type { HttpServer } from '../fastify.ts';
import { createPayerPageLimiter, type PayerPageLimiter } from '../payer-page-limit.ts';

const tags: TagName[] = ['Payer pages'];

/** The one answer for a wrong, malformed or foreign signature and for an unknown id. */
const notFound = () => new ApiError('not_found', 'The charge does not exist.');

/**
 * Sent with every answer of the payer pages, errors included: the URL is a capability (whoever has it sees
 * the charge), so nothing is cached, the URL never leaves in a Referer, and the page cannot be framed. The
 * checkout page, which posts forms, uses `same-origin` (checkout-page.ts).
 */
export function secureHeaders(
  reply: FastifyReply,
  referrerPolicy: 'no-referrer' | 'same-origin' = 'no-referrer',
): void {
  reply.header('cache-control', 'no-store');
  reply.header('x-content-type-options', 'nosniff');
  reply.header('referrer-policy', referrerPolicy);
  reply.header('x-frame-options', 'DENY');
}

/**
 * A payer's browser gets a page in Portuguese for a link that leads nowhere, not the API's JSON; same status
 * (404), same headers (X-Request-ID comes from the server's hook), same answer for every cause.
 */
function notFoundPage(reply: FastifyReply) {
  reply.header('content-security-policy', CHARGE_PAGE_CSP);
  return reply.code(404).type('text/html; charset=utf-8').send(renderNotFoundPage());
}

/**
 * What every payer-page route shares (the charge page, its PDF, the checkout page and its form post):
 * `headers` on every answer, errors included; the per-address limit before anything is read; and every 404,
 * the edge's NUL refusal included, answered as the payer's page. Any other error goes up to the server's
 * handler.
 */
export function payerPageOptions(limiter: PayerPageLimiter, headers: (reply: FastifyReply) => void) {
  return {
    async preHandler(request: FastifyRequest, reply: FastifyReply) {
      headers(reply);
      await limiter.consume(request.ip);
    },
    errorHandler(error: unknown, _request: FastifyRequest, reply: FastifyReply) {
      if (!(error instanceof ApiError && error.code === 'not_found')) throw error;
      headers(reply);
      return notFoundPage(reply);
    },
  };
}

/**
 * An HTML page's example in /openapi.json: the document's opening with its title, the rest elided.
 */
export function pageExample(title: string) {
  return {
    examples: {
      responses: {
        200: `<!doctype html><html lang="pt-BR"><head><meta charset="utf-8"><title>${title}</title></head><body>…</body></html>`,
      },
    },
  };
}

/** The tenant's current name from its read model (a rename shows at once); null if it cannot be read. */
export async function merchantName(db: AppContext['db'], tenantId: string): Promise<string | null> {
  const row = await db.selectFrom('tenants').select('name').where('id', '=', tenantId).executeTakeFirst();
  return row?.name ?? null;
}

/**
 * The boleto PDF may be kept by the payer's browser, never by a shared cache (it carries the payer's name and
 * document), and is revalidated on every use: max-age 0, so a due-date change (a new version, a new ETag) is
 * seen at once, and a revalidation costs a 304, not a render (issue 23 item 2.5).
 */
const PDF_CACHE_CONTROL = 'private, max-age=0, must-revalidate';

/**
 * RFC 9110 13.1.2 If-None-Match: `*`, or a list of entity tags compared weakly (a `W/` prefix is ignored).
 */
export function noneMatch(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  if (header.trim() === '*') return true;
  const opaque = etag.replace(/^W\//, '');
  return header.split(',').some((tag) => tag.trim().replace(/^W\//, '') === opaque);
}

/** The fields of a Transaction the page shows (same names; see ChargePageView). */
export function chargePageView(t: TransactionView, merchantName: string | null = null): ChargePageView {
  return {
    id: t.id,
    merchant_name: merchantName,
    method: t.method,
    status: t.status,
    amount: t.amount,
    // SPEC 2.2: every charge is in reais; the page formats BRL only.
    currency: 'BRL',
    reference: t.reference,
    description: t.description,
    simulated: t.simulated,
    environment: t.environment,
    livemode: t.livemode,
    // Null while the outcome is uncertain (toTransactionView), so the page never offers them then.
    pix_copy_paste: t.pix_copy_paste,
    expires_at: t.expires_at,
    boleto_due_date: t.boleto_due_date,
    boleto_url: t.boleto_url,
    boleto_digitable_line: t.boleto_digitable_line,
    // Null once the boleto's Pix deadline has passed (toTransactionView).
    boleto_pix_copy_paste: t.boleto_pix_copy_paste,
    boleto_pix_expires_at: t.boleto_pix_expires_at,
    paid_with: t.paid_with,
    // A scheduled Pix Automatic debit is never offered as a QR code (SPEC 3.1 `pending`).
    pix_automatic_authorization_id: t.pix_automatic_authorization_id,
    scheduled_due_date: t.scheduled_due_date,
  };
}

/**
 * SPEC 2.2 `document_url` and `boleto_url`: the charge page a payer opens, and the boleto PDF. Public: the
 * HMAC signature in the path is the capability (src/charge-page/signature.ts), so there is no key, no
 * session and no per-actor rate limit (that limiter is keyed by the authenticated actor); they are limited
 * per client address instead (src/http/payer-page-limit.ts, issue 23 item 2.5), before anything else. The
 * signature is checked, in constant time, before the database is read: a wrong signature and an unknown id
 * take the same path and give the same `404 not_found`, so the answer never tells whether an id exists.
 */
export function registerChargePageRoutes(app: HttpServer, ctx: AppContext): void {
  const limiter = createPayerPageLimiter(ctx.config);
  app.addHook('onClose', () => limiter.close());
  const payerPage = payerPageOptions(limiter, secureHeaders);

  /** The transaction the link names, with its creation request (SPEC 2.3), folded from its stream; or 404. */
  async function linkedCharge(
    id: string,
    signature: string,
  ): Promise<{ view: TransactionView; request: unknown; boletoDetails: BoletoDetails | null }> {
    const secret = await documentSigningSecret(ctx.config);
    if (!verifyDocumentSignature(secret, id, signature)) throw notFound();
    const folded = await foldTransaction(ctx, id);
    if (!folded) throw notFound();
    // The cost center is not shown: no name lookup.
    return {
      view: await toTransactionView(ctx, folded.row, new Map()),
      request: folded.reserved.request,
      boletoDetails: folded.boletoDetails,
    };
  }

  /** The transaction the link names, or 404. */
  async function linkedTransaction(id: string, signature: string): Promise<TransactionView> {
    return (await linkedCharge(id, signature)).view;
  }

  app.get(
    '/cobranca/:id/:signature',
    {
      schema: {
        operationId: 'getChargePage',
        summary: 'Charge page for the payer (the document_url of a charge; no key)',
        description:
          'The `document_url` of a Transaction: a server-rendered page in Portuguese with the amount, ' +
          'status and, only while the charge is payable, how to pay. A simulated charge shows "SIMULADO — não ' +
          'pagável" and nothing scannable. The signature in the path is the access; a wrong signature ' +
          'and an unknown id are the same 404.',
        tags,
        params: chargePageParams,
        response: {
          200: {
            description:
              'The charge page (self-contained HTML, strict Content-Security-Policy, not cacheable)',
            content: { 'text/html': { schema: z.string() } },
          },
          404: {
            description:
              'A page in Portuguese ("Cobrança não encontrada") for a wrong signature or an unknown charge',
            content: { 'text/html': { schema: z.string() } },
          },
        },
      },
      config: pageExample('Cobrança Pix: R$ 159,90'),
      ...payerPage,
    },
    async (request, reply) => {
      const transaction = await linkedTransaction(request.params.id, request.params.signature);
      const view = chargePageView(transaction, await merchantName(ctx.db, transaction.tenant_id));
      const html = await renderChargePage(view, { now: ctx.now() });
      reply.header('content-security-policy', CHARGE_PAGE_CSP);
      return reply.type('text/html; charset=utf-8').send(html);
    },
  );

  app.get(
    '/cobranca/:id/:signature/boleto.pdf',
    {
      schema: {
        operationId: 'getBoletoPdf',
        summary: 'Boleto PDF (the boleto_url of a charge; no key)',
        description:
          'The `boleto_url` of a Transaction: the boleto as a PDF, drawn by the gateway from the ' +
          "provider's data (digitable line, Interleaved 2 of 5 barcode, the boleto's Pix QR code while it is " +
          'payable). A boleto of the provider sandbox is marked "DOCUMENTO DE TESTE — SEM VALOR". The ' +
          'simulator issues no boleto numbers (`boleto_url` is null), so its boletos have no PDF: 404. A wrong ' +
          'signature and an unknown id are the same 404 page as the charge page. The PDF is rendered once per ' +
          'version of the document (its ETag); send it back in If-None-Match to get 304 while it is current. ' +
          'Limited per client address with the charge page: 120 requests a minute, then 429.',
        tags,
        params: chargePageParams,
        response: {
          200: {
            description:
              'The boleto (PDF), with a strong ETag naming its version; cacheable by the browser only, ' +
              'revalidated on every use',
            // The bytes of the PDF; the document says binary string, as OpenAPI 3.1 spells a file.
            content: {
              'application/pdf': {
                schema: z
                  .custom<Buffer>((v) => Buffer.isBuffer(v))
                  .meta({ type: 'string', format: 'binary' }),
              },
            },
          },
          304: z.null().meta({
            description: 'Not modified: the If-None-Match ETag is the current version of the boleto',
          }),
          404: {
            description:
              'A page in Portuguese ("Cobrança não encontrada") for a wrong signature, an unknown charge or a ' +
              'charge without a boleto to print',
            content: { 'text/html': { schema: z.string() } },
          },
        },
      },
      ...payerPage,
    },
    async (request, reply) => {
      const charge = await linkedCharge(request.params.id, request.params.signature);
      const transaction = charge.view;
      const input = boletoPdfInput(
        transaction,
        charge.request,
        await merchantName(ctx.db, transaction.tenant_id),
        charge.boletoDetails,
      );
      // No boleto numbers (a Pix, the simulator's boleto, an issuance not finished): nothing is made up.
      if (!input) return notFoundPage(reply);
      const version = boletoPdfVersion(input);
      const etag = `"${version}"`;
      reply.header('etag', etag);
      reply.header('cache-control', PDF_CACHE_CONTROL);
      if (noneMatch(request.headers['if-none-match'], etag)) return reply.code(304).send(null);
      const pdf = await boletoPdf(ctx.db, transaction.id, version, input);
      reply.header('content-disposition', `inline; filename="boleto-${transaction.id}.pdf"`);
      return reply.type('application/pdf').send(pdf);
    },
  );
}
