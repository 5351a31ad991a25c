import { z } from 'zod';
import { dataEnvelope, errorEnvelope, idParams, listEnvelope, pageQuery } from '../envelopes.ts';
import { TENANT, user, userLogin } from '../examples.ts';
import { operation } from '../operation.ts';
import { passwordSchema } from '../password.ts';
import { newPasswordBody, newUserBody, userDto } from '../users.ts';
import { ADMIN_READ, ADMIN_WRITE, ANY_ROLE } from './tenants.ts';

const userBody = newUserBody(passwordSchema);
const passwordBody = newPasswordBody(passwordSchema);

/** SPEC 5.6, 5.7: a panel user, its e-mail unique case-insensitively. */
export const createUser = operation({
  method: 'POST',
  path: '/admin/users',
  access: { auth: 'session', roles: ADMIN_WRITE, idempotencyKey: true },
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
  examples: {
    request: { ...userLogin, role: 'tenant_admin', tenant_id: TENANT },
  },
});

export const listUsers = operation({
  method: 'GET',
  path: '/admin/users',
  access: { auth: 'session', roles: ADMIN_READ },
  schema: {
    operationId: 'listUsers',
    summary: 'List users (super_admin)',
    querystring: pageQuery,
    response: { 200: listEnvelope(userDto) },
  },
});

/** SPEC 5.6: the user's sessions are revoked at once. */
export const suspendUser = operation({
  method: 'POST',
  path: '/admin/users/:id/suspend',
  access: { auth: 'session', roles: ADMIN_WRITE },
  schema: {
    operationId: 'suspendUser',
    summary: 'Suspend a user (super_admin)',
    description:
      'Revokes the user’s sessions at once. Your own user: 409 cannot_suspend_self. Repeating is a no-op.',
    params: idParams,
    response: { 200: dataEnvelope(userDto), 404: errorEnvelope, 409: errorEnvelope },
  },
  examples: { responses: { 200: { data: { ...user, status: 'suspended' } } } },
});

export const reactivateUser = operation({
  method: 'POST',
  path: '/admin/users/:id/reactivate',
  access: { auth: 'session', roles: ADMIN_WRITE },
  schema: {
    operationId: 'reactivateUser',
    summary: 'Reactivate a user (super_admin)',
    description: 'The user can log in again; revoked sessions stay revoked. Repeating is a no-op.',
    params: idParams,
    response: { 200: dataEnvelope(userDto), 404: errorEnvelope, 409: errorEnvelope },
  },
});

/** SPEC 5.6, 5.7; issue 23 item 2.4: every session of the user is revoked. */
export const setUserPassword = operation({
  method: 'POST',
  path: '/admin/users/:id/password',
  access: { auth: 'session', roles: ANY_ROLE },
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
  // Your own password (issue 23 item 2.4): the current one, as logged in with createSession's example.
  examples: {
    request: { password: 'outra-senha-longa-e-forte', current_password: userLogin.password },
  },
});
