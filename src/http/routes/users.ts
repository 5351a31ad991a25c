import { z } from 'zod';
import { userDecider, userStream } from '../../aggregates/user.ts';
import type { AppContext } from '../../commands/context.ts';
import { foldStream } from '../../commands/fold-stream.ts';
import { isInTree, tenantInTreeSql } from '../../commands/tenancy.ts';
import {
  changePassword,
  createUser,
  identityDeps,
  passwordSchema,
  reactivateUser,
  suspendUser,
} from '../../commands/users.ts';
import {
  dataEnvelope,
  errorEnvelope,
  IDEMPOTENCY_REPLAYED,
  idParams,
  listEnvelope,
  pageQuery,
} from '../../contract/envelopes.ts';
import { newPasswordBody, newUserBody, userDto } from '../../contract/users.ts';
import { sessionPrincipal } from '../auth.ts';
import { ApiError } from '../errors.ts';
import { eventMetadata } from '../request-metadata.ts';
import type { HttpServer } from '../server.ts';
import { ADMIN_READ, ADMIN_WRITE } from './tenants.ts';

const userBody = newUserBody(passwordSchema);
const passwordBody = newPasswordBody(passwordSchema);

/** Panel users (SPEC 2.7 roles, 5.6 sessions, 5.7 "Tenants, types, users"). */
export function registerUserRoutes(app: HttpServer, ctx: AppContext): void {
  const deps = identityDeps(ctx);

  /** The user as its stream says now (consistent right after a command, whatever the read model's lag). */
  async function loadUser(userId: string) {
    const state = await foldStream(deps, userDecider, userStream(userId));
    if (state.status === 'none') throw new ApiError('not_found');
    const u = state.created;
    return { id: u.user_id, email: u.email, role: u.role, tenant_id: u.tenant_id, status: state.status };
  }

  app.post(
    '/admin/users',
    {
      config: { access: { auth: 'session', roles: ADMIN_WRITE, idempotencyKey: true } },
      schema: {
        operationId: 'createUser',
        summary: 'Create a panel user (super_admin)',
        description:
          'E-mails are unique case-insensitively (409 conflict). tenant_admin and viewer need a tenant_id of an existing tenant (422 validation_error). Repeating the same e-mail, role, tenant and password (with any Idempotency-Key) answers 200 with the existing user and Idempotency-Replayed: true.',
        body: userBody,
        response: {
          200: dataEnvelope(userDto).meta({
            description: 'Replay of an earlier creation (Idempotency-Replayed: true)',
          }),
          201: dataEnvelope(userDto).meta({ description: 'Created' }),
          409: errorEnvelope,
        },
      },
    },
    async (request, reply) => {
      const body = request.body;
      if (body.role !== 'super_admin' && body.tenant_id === null) {
        throw new ApiError('validation_error', 'tenant_admin and viewer users need a tenant_id.', {
          param: 'tenant_id',
        });
      }
      const { user, created } = await createUser(deps, body, eventMetadata(request));
      if (!created) reply.header(IDEMPOTENCY_REPLAYED, 'true');
      return reply.code(created ? 201 : 200).send({ data: await loadUser(user.id) });
    },
  );

  app.get(
    '/admin/users',
    {
      config: { access: { auth: 'session', roles: ADMIN_READ } },
      schema: {
        operationId: 'listUsers',
        summary: "List users: all for super_admin, users of the caller's tree otherwise",
        querystring: pageQuery,
        response: { 200: listEnvelope(userDto) },
      },
    },
    async (request) => {
      const { limit, offset } = request.query;
      const rows = await ctx.db
        .selectFrom('users')
        .select(['id', 'email', 'role', 'tenant_id', 'status'])
        .where(tenantInTreeSql(sessionPrincipal(request)))
        .orderBy('created_at')
        .orderBy('id')
        .limit(limit)
        .offset(offset)
        .execute();
      return { data: rows, meta: { limit, offset, count: rows.length } };
    },
  );

  for (const action of ['suspend', 'reactivate'] as const) {
    app.post(
      `/admin/users/:id/${action}`,
      {
        config: { access: { auth: 'session', roles: ADMIN_WRITE } },
        schema: {
          operationId: `${action}User`,
          summary: `${action === 'suspend' ? 'Suspend' : 'Reactivate'} a user (super_admin)`,
          description:
            action === 'suspend'
              ? 'Revokes the user’s sessions at once. Your own user: 409 cannot_suspend_self. Repeating is a no-op.'
              : 'The user can log in again; revoked sessions stay revoked. Repeating is a no-op.',
          params: idParams,
          response: { 200: dataEnvelope(userDto), 404: errorEnvelope, 409: errorEnvelope },
        },
      },
      async (request) => {
        const run = action === 'suspend' ? suspendUser : reactivateUser;
        await run(deps, request.params.id, eventMetadata(request));
        return { data: await loadUser(request.params.id) };
      },
    );
  }

  app.post(
    '/admin/users/:id/password',
    {
      config: { access: { auth: 'session', roles: ADMIN_READ } },
      schema: {
        operationId: 'setUserPassword',
        summary: 'Change a password: your own, or anyone’s as super_admin',
        description:
          'Every session of the user is revoked, the caller’s own included when it is their own password. Your own password needs your current one in current_password: missing or wrong, 422 validation_error naming current_password (a wrong one is audited as user.password_change_refused); 10 tries a minute, then 429. A super_admin resetting another user’s password sends none. Another user of your tree: 403 forbidden; outside it: 404 not_found. A suspended user: 409 conflict.',
        params: idParams,
        body: passwordBody,
        response: {
          204: z.null().meta({ description: 'Changed; the user logs in again' }),
          404: errorEnvelope,
          409: errorEnvelope,
        },
      },
    },
    async (request, reply) => {
      const principal = sessionPrincipal(request);
      const userId = request.params.id;
      const self = principal.userId === userId;
      if (!self && principal.role !== 'super_admin') {
        const target = await ctx.db
          .selectFrom('users')
          .select('tenant_id')
          .where('id', '=', userId)
          .executeTakeFirst();
        const visible = target?.tenant_id ? await isInTree(ctx.db, principal, target.tenant_id) : false;
        throw new ApiError(visible ? 'forbidden' : 'not_found');
      }
      const { password, current_password } = request.body;
      // Issue 23 item 2.4 (OWASP ASVS 4.0 V2.1.6): a session alone must not be enough to take the account.
      if (self && current_password === undefined) {
        throw new ApiError(
          'validation_error',
          'Changing your own password needs your current password in current_password.',
          { param: 'current_password' },
        );
      }
      if (!self && current_password !== undefined) {
        throw new ApiError(
          'validation_error',
          'current_password is only for changing your own password; leave it out to reset another user’s.',
          { param: 'current_password' },
        );
      }
      if (self) await ctx.rateLimiter.consume('password', principal.userId);
      await changePassword(deps, userId, password, eventMetadata(request), current_password);
      return reply.code(204).send(null);
    },
  );
}
