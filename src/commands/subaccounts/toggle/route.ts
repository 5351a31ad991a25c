import { disableSubaccount, enableSubaccount } from '../../../contract/operations/subaccounts.ts';
import type { EventMetadata } from '../../../events/event-store.ts';
import { bind } from '../../bind.ts';
import { record } from '../create/handler.ts';
import type { SubaccountCtx } from '../provider.ts';
import { mustLoadSubaccount, viewOfLoaded } from '../record.ts';

/** SPEC 4.14 "Disabling a link is local": the decider's table decides; no provider call. */
async function toggle(ctx: SubaccountCtx, id: string, kind: 'disable' | 'enable', metadata: EventMetadata) {
  await mustLoadSubaccount({ store: ctx.store, registry: ctx.events }, id);
  return { data: await viewOfLoaded(ctx.config, await record(ctx, id, { kind }, metadata)) };
}

export const disableRoute = bind(disableSubaccount, (call, ctx) =>
  toggle(ctx, call.params.id, 'disable', call.metadata()),
);
export const enableRoute = bind(enableSubaccount, (call, ctx) =>
  toggle(ctx, call.params.id, 'enable', call.metadata()),
);
