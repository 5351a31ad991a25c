import { z } from 'zod';
import { PAYMENT_METHODS, PROVIDER_ENVIRONMENTS, PROVIDER_KINDS } from '../aggregates/provider.ts';

/**
 * The HTTP contract of payment providers (SPEC 2.7): the view and the request schemas of their routes.
 * Shared by the routes and the SDK (issue 15 item 3) so that neither can drift from the other; pure (zod
 * only), because the SDK bundles it.
 */

/** SPEC 2.7: a list of `pix`, `boleto`; `[]` disables all; duplicates or unknown values are invalid (422). */
export const enabledMethods = z
  .array(z.enum(PAYMENT_METHODS))
  .max(PAYMENT_METHODS.length * 2)
  .refine((list) => new Set(list).size === list.length, { message: 'must not repeat a method' });

/** Stored sealed; never returned or logged. Values are strings: API keys, tokens, account ids. */
export const credentials = z
  .record(z.string().min(1).max(64), z.string().min(1).max(4096))
  .refine((c) => Object.keys(c).length >= 1 && Object.keys(c).length <= 20, {
    message: 'must have 1 to 20 entries',
  })
  .meta({ description: 'Encrypted at rest (AES-256-GCM bound to the provider id); never returned.' });

/**
 * Issue 13: a Safe2Pay host of an external provider, as an origin (http(s), no path, query or credentials):
 * the adapter appends `/v2/...`. The syntax only: which hosts a record's environment accepts (issue 23 item
 * 2.3: production public https, unless PROVIDER_ALLOWED_PRIVATE_HOSTS) needs the server's configuration and
 * is checked by the command (src/commands/providers/host-policy.ts providerHostRefusal).
 */
export const host = z
  .string()
  .max(2048)
  .refine(
    (v) => {
      if (!URL.canParse(v)) return false;
      const u = new URL(v);
      return (
        (u.protocol === 'https:' || u.protocol === 'http:') &&
        u.username === '' &&
        u.password === '' &&
        u.search === '' &&
        u.hash === '' &&
        v.replace(/\/+$/, '') === u.origin + u.pathname.replace(/\/+$/, '')
      );
    },
    { message: 'must be an http(s) base URL without credentials, query or fragment' },
  );

export const providerDto = z
  .object({
    id: z.string(),
    name: z.string(),
    kind: z.enum(PROVIDER_KINDS),
    environment: z.enum(PROVIDER_ENVIRONMENTS),
    enabled_methods: z.array(z.enum(PAYMENT_METHODS)),
    is_marketplace: z.boolean(),
    enabled: z.boolean(),
    has_credentials: z.boolean(),
    payment_host: z.string().nullable().meta({
      description:
        'External provider: base of charge creation (default https://payment.safe2pay.com.br). Production: public https only. Changing a host of a provider with credentials needs the credentials again.',
    }),
    api_host: z.string().nullable().meta({
      description: 'External provider: base of queries and changes (default https://api.safe2pay.com.br).',
    }),
    boleto_refund_payout: z.boolean().meta({
      description:
        "Issue 22 item 4.2: a boleto paid by boleto is refunded by a payout (bank transfer through the provider, from its balance) to the payer's account; false: the refund is completed by an operator. Default false.",
    }),
  })
  .meta({
    id: 'Provider',
    description: 'A payment provider record. Credentials are never returned, only has_credentials.',
  });

export const createProviderBody = z.strictObject({
  name: z.string(),
  kind: z.enum(PROVIDER_KINDS),
  environment: z.enum(PROVIDER_ENVIRONMENTS),
  enabled_methods: enabledMethods.default(['pix']),
  is_marketplace: z.boolean().default(false),
  credentials: credentials.optional(),
  payment_host: host.optional(),
  api_host: host.optional(),
  boleto_refund_payout: z.boolean().default(false),
});

export const updateProviderBody = z.strictObject({
  name: z.string().optional(),
  enabled: z.boolean().optional(),
  enabled_methods: enabledMethods.optional(),
  credentials: credentials.optional(),
  /** null returns to the real host. */
  payment_host: host.nullable().optional(),
  api_host: host.nullable().optional(),
  boleto_refund_payout: z.boolean().optional(),
});
