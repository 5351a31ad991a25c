import { z } from 'zod';

/**
 * The HTTP contract of the payer pages (SPEC 2.2 `document_url`, `boleto_url`): their path parameters.
 * Shared by the routes and the SDK (issue 15 item 3) so that neither can drift from the other; pure (zod
 * only), because the SDK bundles it.
 */

/**
 * Path parameters as strings of any shape: a malformed id or signature is the same `404 not_found` as a
 * wrong one (a 422 would tell a prober which part is off).
 */
export const chargePageParams = z.object({ id: z.string(), signature: z.string() });
