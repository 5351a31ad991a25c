import { z } from 'zod';

/**
 * The HTTP contract of the infrastructure endpoints (SPEC 4.14): their answers.
 * Shared by the routes and the SDK (issue 15 item 3) so that neither can drift from the other; pure (zod
 * only), because the SDK bundles it.
 */

export const healthBody = z.object({ status: z.literal('ok') });

export const readyBody = z.object({
  status: z.literal('ready'),
  checks: z.object({ database: z.literal('ok'), rate_limiter: z.literal('ok') }),
});
