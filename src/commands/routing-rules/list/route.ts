import { listRoutingRules } from '../../../contract/operations/routing-rules.ts';
import { bind } from '../../bind.ts';
import { listPage } from '../../page.ts';

/** SPEC 4.14: rules from the read model, oldest first. No handler: nothing is decided. */
export const listRoute = bind(listRoutingRules, async (call, ctx) => {
  const { limit, offset, method, tenant_id } = call.query;
  let query = ctx.db
    .selectFrom('routing_rules')
    .select(['id', 'method', 'tenant_id', 'provider_id', 'priority', 'max_amount', 'enabled']);
  if (method) query = query.where('method', '=', method);
  if (tenant_id) query = query.where('tenant_id', '=', tenant_id);
  return listPage(query, { limit, offset }, 'asc');
});
