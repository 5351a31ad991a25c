import { randomFillSync } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  acceptsPayments,
  CHECKOUT_METHODS,
  type CheckoutCustomer,
  type CheckoutMethod,
  offeredMethods,
} from '../../aggregates/checkout.ts';
import { DomainError } from '../../aggregates/decider.ts';
import { documentSigningSecret } from '../../charge-page/signing-secret.ts';
import { CHECKOUT_PAGE_CSP, type CheckoutPageView } from '../../checkout-page/render.ts';
import { checkoutPageBytes } from '../../checkout-page/render-cache.ts';
import { checkoutPath, verifyCheckoutSignature } from '../../checkout-page/signature.ts';
import { advanceCheckout } from '../../commands/checkouts/follow/advance.ts';
import { readCheckoutForPage } from '../../commands/checkouts/page-read.ts';
import { payCheckout } from '../../commands/checkouts/pay/handler.ts';
import type { FoldedCheckout } from '../../commands/checkouts/record.ts';
import type { AppContext } from '../../commands/context.ts';
import { foldTransaction, toTransactionView } from '../../commands/transactions/view.ts';
import { chargePageParams } from '../../contract/charge-page.ts';
import type { TagName } from '../../contract/tags.ts';
import type { EventMetadata } from '../../events/event-store.ts';
import { ApiError } from '../errors.ts';
import type { HttpServer } from '../fastify.ts';
import { createPayerPageLimiter } from '../payer-page-limit.ts';
import {
  secureHeaders as chargePageHeaders,
  chargePageView,
  merchantName,
  pageExample,
  payerPageOptions,
} from './charge-page.ts';

const tags: TagName[] = ['Payer pages'];
const FORM_LIMIT = 16 * 1024;
const notFound = () => new ApiError('not_found', 'The checkout does not exist.');

/**
 * The forms' nonces (16 random bytes each) come from a pool of CSPRNG bytes refilled 4 KiB at a time: one
 * `randomFillSync` per ~85 pages instead of one per page, the page's costliest native call after the socket
 * (issue 25 "Performance"). Bytes are handed out once each, never reused.
 */
const NONCE_BYTES = 16;
const pool = Buffer.alloc(4096);
let poolOffset = pool.length;

function freshNonce(): string {
  if (poolOffset + NONCE_BYTES > pool.length) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  const nonce = pool.toString('base64url', poolOffset, poolOffset + NONCE_BYTES);
  poolOffset += NONCE_BYTES;
  return nonce;
}

/**
 * Every answer of these routes: the charge page's headers with the referrer policy `same-origin`, not
 * `no-referrer`: a browser sends `Origin: null` with a form posted under `no-referrer`, which the gateway's
 * origin check (SPEC 5.8) refuses; under `same-origin` the link still never leaves in a Referer to another
 * site (docs/decisions.md "Hosted checkout").
 */
const secureHeaders = (reply: FastifyReply) => chargePageHeaders(reply, 'same-origin');

const html = { 'text/html': { schema: z.string() } };
const notFoundResponse = {
  description: 'A page in Portuguese for a wrong signature or an unknown checkout (the same for both)',
  content: html,
};

const PAYER_KEYS = ['name', 'document', 'email', 'phone'] as const;
const ADDRESS_KEYS = ['zip_code', 'street', 'number', 'complement', 'district', 'city', 'state'] as const;

/** The payer's data from the form, empty fields left out (SPEC 4.1 shapes; the charge's schema checks them). */
function payerFromForm(form: URLSearchParams): CheckoutCustomer | undefined {
  const value = (k: string) => {
    const v = form.get(k);
    return v === null || v.trim() === '' ? undefined : v;
  };
  if (![...PAYER_KEYS, ...ADDRESS_KEYS].some((k) => value(k) !== undefined)) return undefined;
  const customer: Record<string, unknown> = {};
  for (const k of PAYER_KEYS) if (value(k) !== undefined) customer[k] = value(k);
  const address: Record<string, string> = {};
  for (const k of ADDRESS_KEYS) {
    const v = value(k);
    if (v !== undefined) address[k] = v;
  }
  if (Object.keys(address).length > 0) customer.address = address;
  return customer as CheckoutCustomer;
}

/** What the payer reads for a refused choice: Portuguese, naming the field, never the raw message. */
const FIELD_LABEL: Record<string, string> = {
  'customer.name': 'o nome (2 a 120 caracteres)',
  'customer.document': 'o CPF ou CNPJ (11 ou 14 números ou letras, sem pontuação)',
  'customer.email': 'o e-mail',
  'customer.phone': 'o celular (só números, com DDD)',
  'customer.address': 'o endereço',
  'customer.address.zip_code': 'o CEP (8 números)',
  'customer.address.street': 'a rua',
  'customer.address.number': 'o número',
  'customer.address.complement': 'o complemento',
  'customer.address.district': 'o bairro',
  'customer.address.city': 'a cidade',
  'customer.address.state': 'o estado',
  'credit_card.holder': 'o nome impresso no cartão (2 a 25 letras)',
  'credit_card.number': 'o número do cartão',
  'credit_card.expiration': 'a validade do cartão (MM/AAAA, não vencida)',
  'credit_card.security_code': 'o código de segurança (3 ou 4 números)',
};

/** The page's card inputs by the card contract's field. */
const CARD_FIELD: Record<string, string> = {
  'credit_card.holder': 'cc_holder',
  'credit_card.number': 'cc_number',
  'credit_card.expiration': 'cc_exp',
  'credit_card.security_code': 'cc_csc',
};

function payerMessage(error: DomainError): { message: string; field?: string | undefined } {
  const param = typeof error.details.param === 'string' ? error.details.param : undefined;
  if (error.code === 'validation_error' && param && FIELD_LABEL[param]) {
    const field = param.startsWith('credit_card.') ? CARD_FIELD[param] : param.split('.').at(-1);
    return { message: `Confira ${FIELD_LABEL[param]}.`, field };
  }
  if (error.code === 'reconciliation_required') {
    // Reserved, its result not saved: the card may have been charged, so the payer must not pay again.
    return {
      message:
        'Não foi possível confirmar o resultado deste pagamento agora. Não pague de novo: esta página mostra o resultado assim que ele for confirmado.',
    };
  }
  if (error.code === 'idempotency_conflict') {
    return {
      message: 'Este formulário já foi enviado com outros dados. Recarregue a página e tente de novo.',
    };
  }
  return {
    message:
      'Não foi possível criar a cobrança por esta forma de pagamento agora. Tente outra forma ou fale com quem enviou o link.',
  };
}

/**
 * The hosted checkout's payer page (issue 25; SPEC 2.7, 4.9; docs/decisions.md "Hosted checkout (issue 25)"):
 * `GET /checkout/{id}/{signature}` (the `url` of a Checkout), the form post of a chosen method
 * (`POST …/pay`, answered 303 back to the page: nothing the payer typed stays in the address or the history)
 * and the page's small status (`GET …/status`, polled by the page's script). Public: the HMAC signature is
 * the access (src/checkout-page/signature.ts), checked before anything is read; a wrong one and an unknown id
 * are the same 404 page. Limited per client address like the charge page. Every read moves the checkout
 * along its charges and deadline first (src/commands/checkouts/follow/advance.ts), so the payer sees a
 * payment at once.
 */
export function registerCheckoutPageRoutes(app: HttpServer, ctx: AppContext): void {
  const limiter = createPayerPageLimiter(ctx.config);
  app.addHook('onClose', () => limiter.close());

  const payerPage = payerPageOptions(limiter, secureHeaders);

  const metadata = (request: FastifyRequest, folded?: FoldedCheckout): EventMetadata => ({
    request_id: request.id,
    actor: 'system:checkout-page',
    ...(folded ? { tenant_id: folded.state.created.tenant_id, livemode: folded.state.created.livemode } : {}),
  });

  /**
   * The checkout the link names, moved along its charges and deadline; or 404. With the tenant's name when it
   * came with the stream's read (src/commands/checkouts/page-read.ts; a move by advanceCheckout changes no tenant).
   */
  async function linkedCheckout(
    request: FastifyRequest,
    id: string,
    signature: string,
  ): Promise<{ folded: FoldedCheckout; merchantName?: string | null | undefined }> {
    const secret = await documentSigningSecret(ctx.config);
    if (!verifyCheckoutSignature(secret, id, signature)) throw notFound();
    let name: string | null | undefined;
    const folded = await advanceCheckout(ctx, id, ctx.now(), metadata(request), async (checkoutId) => {
      const read = await readCheckoutForPage(ctx, checkoutId);
      name = read.merchantName;
      return read.folded;
    });
    if (!folded) throw notFound();
    return { folded, merchantName: name };
  }

  async function latestCharge(folded: FoldedCheckout) {
    const last = folded.state.attempts.at(-1);
    if (!last) return null;
    const charge = await foldTransaction(ctx, last.transactionId);
    if (!charge) return null;
    const view = await toTransactionView(ctx, charge.row, new Map());
    return { ...chargePageView(view), document_url: view.document_url };
  }

  function stateToken(folded: FoldedCheckout, chargeStatus: string | null): string {
    return `${folded.state.status}.${folded.state.attempts.length}.${chargeStatus ?? '-'}`;
  }

  /**
   * The page of `folded`, reached by `signature` (verified by linkedCheckout, so it is the checkout's own and
   * the path needs no second HMAC).
   */
  async function page(
    reply: FastifyReply,
    folded: FoldedCheckout,
    signature: string,
    error?: CheckoutPageView['error'],
    values?: Record<string, string>,
    code = error ? 422 : 200,
    knownName?: string | null,
  ) {
    const c = folded.state.created;
    const charge = await latestCharge(folded);
    const last = folded.state.attempts.at(-1);
    const nonces = Object.fromEntries(CHECKOUT_METHODS.map((m) => [m, freshNonce()])) as Record<
      CheckoutMethod,
      string
    >;
    const now = ctx.now();
    const html = await checkoutPageBytes(
      {
        id: c.checkout_id,
        merchantName: knownName !== undefined ? knownName : await merchantName(ctx.db, c.tenant_id),
        status: folded.state.status,
        acceptsPayments: acceptsPayments(folded.state, now),
        methods: offeredMethods(folded.state),
        amount: c.amount,
        reference: c.reference,
        description: c.description,
        livemode: c.livemode,
        expiresAt: c.expires_at,
        asksPayer: c.customer === null,
        charge,
        lastAttemptFailed: last !== undefined && (last.outcome === 'failed' || last.outcome === 'expired'),
        path: `/checkout/${encodeURIComponent(c.checkout_id)}/${signature}`,
        stateToken: stateToken(folded, charge?.status ?? null),
        nonces,
        error,
        values,
      },
      now,
    );
    reply.header('content-security-policy', CHECKOUT_PAGE_CSP);
    return reply.code(code).type('text/html; charset=utf-8').send(html);
  }

  app.register(async (plugin) => {
    const scope = plugin.withTypeProvider<ZodTypeProvider>();
    // Only these routes read a form (the rest of the gateway takes strict JSON only).
    scope.addContentTypeParser(
      'application/x-www-form-urlencoded',
      { parseAs: 'string', bodyLimit: FORM_LIMIT },
      (_request, body, done) => done(null, Object.fromEntries(new URLSearchParams(String(body)))),
    );

    scope.get(
      '/checkout/:id/:signature',
      {
        schema: {
          operationId: 'getCheckoutPage',
          summary: 'Checkout page for the payer (the url of a Checkout; no key)',
          description:
            'A server-rendered page in Portuguese: the merchant, the amount and, while the checkout accepts a choice, one form per offered method (posted to the gateway; no JavaScript needed). After a choice it shows how to pay the charge (a simulated charge shows "SIMULADO — não pagável" and nothing scannable), and then paid, expired or failed. The signature in the path is the access; a wrong signature and an unknown id are the same 404.',
          tags,
          params: chargePageParams,
          response: {
            200: {
              description: 'The checkout page (strict Content-Security-Policy, not cacheable)',
              content: html,
            },
            404: notFoundResponse,
          },
        },
        config: pageExample('Pagamento para Loja da Ana: R$ 159,90 — Aguardando pagamento'),
        ...payerPage,
      },
      async (request, reply) => {
        const { folded, merchantName: name } = await linkedCheckout(
          request,
          request.params.id,
          request.params.signature,
        );
        return page(reply, folded, request.params.signature, undefined, undefined, 200, name);
      },
    );

    scope.get(
      '/checkout/:id/:signature/status',
      {
        schema: {
          // The page's own traffic, not an integrator's operation: kept out of /openapi.json and the SDK.
          hide: true,
          operationId: 'getCheckoutPageStatus',
          summary: "The checkout page's state, polled by the page (no key)",
          description:
            'What the page polls to reload itself when the checkout or its latest charge changes. The signature is the access; 404 as the page.',
          tags,
          params: chargePageParams,
          response: {
            200: z.object({
              status: z.enum(['open', 'processing', 'completed', 'failed', 'expired']),
              state: z
                .string()
                .meta({ description: 'Opaque; changes whenever the page would show something else.' }),
              final: z.boolean().meta({ description: 'Nothing will change any more: stop polling.' }),
            }),
            404: notFoundResponse,
          },
        },
        config: {
          examples: {
            responses: { 200: { status: 'processing', state: 'processing.1.pending', final: false } },
          },
        },
        ...payerPage,
      },
      async (request, _reply) => {
        const { folded } = await linkedCheckout(request, request.params.id, request.params.signature);
        const charge = await latestCharge(folded);
        const s = folded.state.status;
        const pending = folded.state.attempts.some((a) => a.outcome === 'pending');
        return {
          status: s,
          state: stateToken(folded, charge?.status ?? null),
          final: (s === 'completed' || s === 'expired' || s === 'failed') && !pending,
        };
      },
    );

    scope.post(
      '/checkout/:id/:signature/pay',
      {
        schema: {
          // The page's own traffic, not an integrator's operation: kept out of /openapi.json and the SDK.
          hide: true,
          operationId: 'payCheckoutPage',
          summary: 'The payer picks a method on the checkout page (form post; no key)',
          description:
            "The form of the page (`application/x-www-form-urlencoded`: `method`, `nonce`, the card for a card (`cc_holder`, `cc_number`, `cc_exp`, `cc_csc`) and, when the checkout has no customer, the payer's data). Creates the charge with the same command as POST /v1/pix, /v1/boleto or /v1/credit-card, for the checkout's tenant and mode, with the Idempotency-Key `checkout.<id>.<nonce>` (a double submit makes one charge), links it to the checkout, and answers 303 back to the page; a checkout that no longer takes a choice answers its page (200), charging nothing. A refused payer field, or a card past the carding cap, answers the page again with the message (422); a charge reserved whose result was not saved answers the page with that charge (503, SPEC 7 reconciliation_required).",
          tags,
          params: chargePageParams,
          response: {
            200: {
              description:
                'Nothing charged: the checkout no longer takes a choice (paid, expired or failed meanwhile); the page as it is now',
              content: html,
            },
            303: z.null().meta({ description: 'Back to the checkout page, which shows the charge' }),
            404: notFoundResponse,
            422: { description: 'The page again, with what to correct', content: html },
            503: {
              description:
                'The charge was reserved but its result was not saved (SPEC 7 reconciliation_required): the page again, showing the charge and telling the payer not to pay again',
              content: html,
            },
          },
        },
        config: pageExample('Pagamento para Loja da Ana: R$ 159,90 — Pago'),
        ...payerPage,
      },
      async (request, reply) => {
        const { id, signature } = request.params;
        const { folded } = await linkedCheckout(request, id, signature);
        const body = (request.body ?? {}) as Record<string, string>;
        const form = new URLSearchParams(body);
        const method = form.get('method') ?? '';
        let outcome: Awaited<ReturnType<typeof payCheckout>>;
        try {
          outcome = await payCheckout(
            ctx,
            {
              checkoutId: id,
              method,
              nonce: form.get('nonce') ?? '',
              payer: folded.state.created.customer ? undefined : payerFromForm(form),
              // Read only for a card; never kept in `values` below nor in any log line.
              ...(method === 'credit_card'
                ? {
                    card: {
                      holder: form.get('cc_holder') ?? undefined,
                      number: form.get('cc_number') ?? undefined,
                      expiration: form.get('cc_exp') ?? undefined,
                      security_code: form.get('cc_csc') ?? undefined,
                    },
                  }
                : {}),
            },
            metadata(request, folded),
          );
        } catch (error) {
          if (!(error instanceof DomainError) || error.code === 'not_found') throw error;
          const chosen =
            CHECKOUT_METHODS.find((m) => m === method) ?? folded.state.created.methods[0] ?? 'pix';
          const values = Object.fromEntries(
            [...PAYER_KEYS, ...ADDRESS_KEYS].flatMap((k) => {
              const v = form.get(k);
              return v === null ? [] : [[k, v]];
            }),
          );
          const fresh = await advanceCheckout(ctx, id, ctx.now(), metadata(request, folded));
          const code = error.code === 'reconciliation_required' ? 503 : 422;
          const shown = { ...payerMessage(error), method: chosen };
          return page(reply, fresh ?? folded, signature, shown, values, code);
        }
        // A refused charge is followed at once, so the page offers the methods again.
        const now = await advanceCheckout(ctx, id, ctx.now(), metadata(request, folded));
        // Nothing was charged (the checkout ended meanwhile): the page as it is now.
        if (outcome.kind === 'closed') return page(reply, now ?? folded, signature);
        const secret = await documentSigningSecret(ctx.config);
        return reply.code(303).header('location', checkoutPath(secret, id)).send(null);
      },
    );
  });
}
