import { ApiError } from '../../aggregates/errors.ts';
import { userDecider, userStream } from '../../aggregates/user.ts';
import type { CommandDeps } from '../command-handler.ts';
import { foldStream } from '../fold-stream.ts';

/** The user as its stream says now (consistent right after a command, whatever the read model's lag). */
export async function loadUser(deps: Pick<CommandDeps, 'store' | 'registry'>, userId: string) {
  const state = await foldStream(deps, userDecider, userStream(userId));
  if (state.status === 'none') throw new ApiError('not_found');
  const u = state.created;
  return { id: u.user_id, email: u.email, role: u.role, tenant_id: u.tenant_id, status: state.status };
}
