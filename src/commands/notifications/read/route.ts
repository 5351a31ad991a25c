import { markNotificationRead as markNotificationReadOperation } from '../../../contract/operations/notifications.ts';
import { bind } from '../../bind.ts';
import { markNotificationRead } from './handler.ts';

/** SPEC 5.7: the caller's own receipt of a notification in its scope. */
export const readRoute = bind(markNotificationReadOperation, async (call, ctx) => {
  const record = await markNotificationRead(
    { store: ctx.store, registry: ctx.events, now: () => ctx.now() },
    call.session(),
    call.params.id,
    call.metadata(),
  );
  return { data: record };
});
