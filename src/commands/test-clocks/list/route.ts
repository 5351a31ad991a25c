import { listTestClocks } from '../../../contract/operations/test-clocks.ts';
import { bind } from '../../bind.ts';
import { listPage, page } from '../../page.ts';

/** The key's tenant's clocks, newest first, from the read model; a live key has none. */
export const listRoute = bind(listTestClocks, async (call, ctx) => {
  const principal = call.apiKey();
  if (principal.livemode) return page([], call.query);
  return listPage(
    ctx.db.selectFrom('test_clocks').selectAll().where('tenant_id', '=', principal.tenantId),
    call.query,
    'desc',
    (r) => ({
      id: r.id,
      tenant_id: r.tenant_id,
      livemode: false as const,
      name: r.name,
      frozen_time: new Date(r.frozen_time).toISOString(),
      status: r.status,
      created_at: new Date(r.created_at).toISOString(),
      updated_at: new Date(r.updated_at).toISOString(),
    }),
  );
});
