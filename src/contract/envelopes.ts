import { z } from 'zod';
import { ERROR_MESSAGES, type ErrorCode } from '../aggregates/errors.ts';

/** SPEC 2.1 envelopes, shared by every route's response schema and the OpenAPI document. */
export const errorEnvelope = z
  .object({
    error: z
      .object({
        code: z
          .enum(Object.keys(ERROR_MESSAGES) as [ErrorCode, ...ErrorCode[]])
          .meta({ description: 'The stable, machine-readable error code.' }),
        message: z.string().meta({ description: 'For people; may change between versions.' }),
        request_id: z.string(),
        transaction_id: z.string().optional(),
        provider_error_code: z.string().nullable().optional(),
        provider_error_message: z.string().nullable().optional(),
        provider_http_status: z.number().int().nullable().optional(),
        param: z.string().optional(),
        subscription_id: z.string().optional().meta({
          description:
            'POST /v1/subscriptions with a card the provider refused to register: the subscription, cancelled.',
        }),
      })
      .meta({
        description: 'The body of every error answer: decide on `code`, state and ids, never on the message.',
      }),
  })
  .meta({ id: 'ErrorEnvelope' });

export function dataEnvelope<T extends z.ZodType>(data: T) {
  return z.object({ data });
}

export function listEnvelope<T extends z.ZodType>(item: T) {
  return z.object({
    data: z.array(item),
    meta: z.object({ limit: z.number().int(), offset: z.number().int(), count: z.number().int() }),
  });
}

/** The error responses a route can give, keyed by status, for its OpenAPI description. */
export function errorResponses(...statuses: number[]) {
  return Object.fromEntries(statuses.map((s) => [s, errorEnvelope])) as Record<number, typeof errorEnvelope>;
}

/**
 * The answers of a creation guarded by an Idempotency-Key (SPEC 4 common rules): 201 new, 200 the replay of
 * what the key created (`noun`), as it is now; then its error responses.
 */
export function creationResponses<T extends z.ZodType>(view: T, noun: string, ...errors: number[]) {
  return {
    200: dataEnvelope(view).meta({ description: `Replay: the ${noun} this key created, as it is now` }),
    201: dataEnvelope(view).meta({ description: 'Created' }),
    ...errorResponses(...errors),
  };
}

/** SPEC 4 common rules: the Idempotency-Key header pattern. */
export const IDEMPOTENCY_KEY = /^[A-Za-z0-9._:-]{1,128}$/;

/** SPEC 4.3 list conventions: limit default 50, 1 to 100, larger values clamped; offset default 0, >= 0. */
export const pageQuery = z.object({
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .default(50)
    .transform((n) => Math.min(n, 100)),
  offset: z.coerce.number().int().min(0).default(0),
});

/** Query booleans are spelled `true` or `false` (anything else is 422 validation_error). */
export const queryBoolean = z.enum(['true', 'false']).transform((v) => v === 'true');

/**
 * The tree filter of a public list (SPEC 4.3, 5.5): `tenant_id` picks the filter root within the key's tree
 * (outside: 404), `include_descendants=true` widens the list to its subtree; `items` names what is listed.
 */
export function treeFilterQuery(items: string) {
  return {
    tenant_id: z
      .string()
      .min(1)
      .max(64)
      .optional()
      .meta({ description: "The filter root: the key's tenant (default) or a descendant; outside, 404." }),
    include_descendants: queryBoolean
      .default(false)
      .meta({ description: `Also list the ${items} of the descendants of the filter root.` }),
  };
}

export const idParams = z.object({ id: z.string().min(1).max(64) });

/** SPEC 4 common rules: a replayed creation answers with this header set to `true`. */
export const IDEMPOTENCY_REPLAYED = 'idempotency-replayed';
