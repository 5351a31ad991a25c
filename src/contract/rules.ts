import { z } from 'zod';
import { PAYMENT_METHODS } from '../aggregates/provider.ts';
import { MAX_AMOUNT_CEILING, PRIORITY_MAX } from '../aggregates/routing-rule.ts';
import { pageQuery } from './envelopes.ts';

/**
 * The HTTP contract of routing rules (SPEC 2.7, 2.8): the view and the request schemas of their routes.
 * Shared by the routes and the SDK (issue 15 item 3) so that neither can drift from the other; pure (zod
 * only), because the SDK bundles it.
 */

/** Default priority of a new rule; the simulator's global rules use PRIORITY_MAX so any other rule wins. */
export const DEFAULT_RULE_PRIORITY = 100;

export const priority = z.number().int().min(0).max(PRIORITY_MAX);
export const maxAmount = z.number().int().min(1).max(MAX_AMOUNT_CEILING);

export const ruleDto = z
  .object({
    id: z.string(),
    method: z.enum(PAYMENT_METHODS),
    tenant_id: z.string().nullable().meta({ description: 'null: a global rule' }),
    provider_id: z.string(),
    priority,
    max_amount: maxAmount.meta({ description: 'Centavos; a larger amount is 422 amount_limit_exceeded.' }),
    enabled: z.boolean(),
  })
  .meta({
    id: 'RoutingRule',
    description:
      'Which provider serves new charges of a method (for one tenant, or every tenant when tenant_id is null), by priority and up to max_amount. method, tenant_id and provider_id are fixed at creation.',
  });

export const createRuleBody = z.strictObject({
  method: z.enum(PAYMENT_METHODS),
  tenant_id: z.string().min(1).max(64).nullable().default(null),
  provider_id: z.string().min(1).max(64),
  priority: priority.default(DEFAULT_RULE_PRIORITY),
  max_amount: maxAmount.default(MAX_AMOUNT_CEILING),
  enabled: z.boolean().default(true),
});

/** SPEC 2.7: only priority, limit and enablement can change; any other field is unknown (400 invalid_json). */
export const updateRuleBody = z.strictObject({
  priority: priority.optional(),
  max_amount: maxAmount.optional(),
  enabled: z.boolean().optional(),
});

export const ruleListQuery = pageQuery.extend({
  method: z.enum(PAYMENT_METHODS).optional(),
  tenant_id: z.string().min(1).max(64).optional(),
});
