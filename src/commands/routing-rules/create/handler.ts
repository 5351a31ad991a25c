import type { PaymentMethod } from '../../../aggregates/provider.ts';
import { MAX_AMOUNT_CEILING, routingRule } from '../../../aggregates/routing-rule.ts';
import type { EventMetadata } from '../../../events/event-store.ts';
import { newId } from '../../../ids.ts';
import { type CommandDeps, handleCommand } from '../../command-handler.ts';
import { loadProvider } from '../../providers/record.ts';
import { loadTenant } from '../../tenants/tenant-record.ts';
import { type RoutingRuleView, routingRuleStream, routingRuleView } from '../record.ts';

/** Creating a routing rule (SPEC 2.7, 2.8, 4.14; super_admin only, checked by the operation's access). */

export interface CreateRoutingRuleInput {
  /** Chosen by the server unless given (bootstrap, tests). */
  ruleId?: string;
  method: PaymentMethod;
  tenantId: string | null;
  providerId: string;
  priority: number;
  maxAmount?: number | undefined;
  enabled: boolean;
}

/**
 * Creates a rule after checking that its provider and tenant exist (read from their streams; neither is
 * ever deleted, so the facts cannot go stale). The provider does not have to list the method yet: resolving
 * then answers `422 provider_method_disabled` (SPEC 7), and enabling the method later brings the rule in.
 */
export async function createRoutingRule(
  deps: CommandDeps,
  input: CreateRoutingRuleInput,
  metadata: EventMetadata,
): Promise<{ rule: RoutingRuleView; created: boolean }> {
  const ruleId = input.ruleId ?? newId('rul');
  const [provider, tenant] = await Promise.all([
    loadProvider(deps, input.providerId),
    input.tenantId === null ? Promise.resolve(null) : loadTenant(deps, input.tenantId),
  ]);
  const r = await handleCommand(
    deps,
    routingRule,
    routingRuleStream(ruleId),
    {
      kind: 'create',
      rule: {
        rule_id: ruleId,
        method: input.method,
        tenant_id: input.tenantId,
        provider_id: input.providerId,
        priority: input.priority,
        max_amount: input.maxAmount ?? MAX_AMOUNT_CEILING,
        enabled: input.enabled,
      },
      providerExists: provider !== undefined,
      tenantExists: tenant !== undefined,
    },
    { metadata, retryOnConflict: true },
  );
  return { rule: routingRuleView(r.state), created: r.events.length > 0 };
}
