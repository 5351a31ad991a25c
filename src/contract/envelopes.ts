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

export const idParams = z.object({ id: z.string().min(1).max(64) });

/** SPEC 4 common rules: a replayed creation answers with this header set to `true`. */
export const IDEMPOTENCY_REPLAYED = 'idempotency-replayed';
