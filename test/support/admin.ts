import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { Gateway } from '../../src/app.ts';
import type { RateLimiter } from '../../src/commands/context.ts';
import { createUser } from '../../src/commands/users/create/handler.ts';
import { identityDeps } from '../../src/commands/users/identity-deps.ts';
import { dataEnvelope } from '../../src/contract/envelopes.ts';
import { apiKeyPrincipal } from '../../src/http/auth.ts';
import { seedTenantAndKey } from './fixtures.ts';
import { startTestApp, type TestApp, type TestResponse } from './http.ts';

export const ADMIN_EMAIL = 'root@example.com';
export const ADMIN_PASSWORD = 'bootstrap admin password';
export const PASSWORD = 'a long enough password';

/**
 * The panel over a real socket with a bootstrap super_admin (BCRYPT_COST 4), the login limit out of the way
 * (the suites log in often; the limit has its own test), and GET /test/key, an API-key route for checking
 * that a tenant's keys are blocked or restored (SPEC 5.5).
 */
export async function startAdminApp(env: Record<string, string> = {}): Promise<TestApp> {
  return startTestApp(
    {
      BOOTSTRAP_ADMIN_EMAIL: ADMIN_EMAIL,
      BOOTSTRAP_ADMIN_PASSWORD: ADMIN_PASSWORD,
      BCRYPT_COST: '4',
      ...env,
    },
    (gw: Gateway) => {
      const real = gw.ctx.rateLimiter;
      const lenient: RateLimiter = {
        async consume(bucket, actor) {
          if (bucket !== 'login') await real.consume(bucket, actor);
        },
        admit: (actor) => real.admit(actor),
        ping: () => real.ping(),
        close: () => real.close(),
      };
      gw.ctx.rateLimiter = lenient;
      gw.http.get(
        '/test/key',
        {
          config: { access: { auth: 'api_key' } },
          schema: { response: { 200: dataEnvelope(z.object({ tenant_id: z.string() })) } },
        },
        async (request) => ({ data: { tenant_id: apiKeyPrincipal(request).tenantId } }),
      );
    },
  );
}

export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
export const idem = (key: string = randomUUID()) => ({ 'idempotency-key': key });

export async function logIn(app: TestApp, email: string, password = PASSWORD): Promise<string> {
  const res = await app.request('POST', '/admin/sessions', { json: { email, password } });
  assert.equal(res.status, 201, res.text);
  return res.body.data.token;
}

export function assertError(res: TestResponse, status: number, code: string): void {
  assert.equal(res.status, status, res.text);
  assert.equal(res.body.error.code, code, res.text);
}

/** Creations over HTTP as the given super_admin token. */
export function adminClient(app: TestApp, token: string) {
  const post = (path: string, json: unknown) =>
    app.request('POST', path, { headers: { ...bearer(token), ...idem() }, json });
  return {
    async type(allowsChildren = true): Promise<string> {
      const res = await post('/admin/tenant-types', {
        name: `type ${randomUUID()}`,
        allows_children: allowsChildren,
      });
      assert.equal(res.status, 201, res.text);
      return res.body.data.id;
    },
    async tenant(typeId: string, parentId: string | null = null): Promise<string> {
      const res = await post('/admin/tenants', { name: 'Tenant', type_id: typeId, parent_id: parentId });
      assert.equal(res.status, 201, res.text);
      return res.body.data.id;
    },
    /** Returns the new user's e-mail and id. */
    async user(role: string, tenantId: string | null): Promise<{ email: string; id: string }> {
      const email = `${role}-${randomUUID()}@example.com`;
      const res = await post('/admin/users', { email, password: PASSWORD, role, tenant_id: tenantId });
      assert.equal(res.status, 201, res.text);
      return { email, id: res.body.data.id };
    },
  };
}

/** Bearer headers for a super_admin, and a tenant_admin and a viewer of one tenant (SPEC 5.7). */
export async function roleTokens(app: TestApp, admin = { email: ADMIN_EMAIL, password: ADMIN_PASSWORD }) {
  const { tenantId } = await seedTenantAndKey(app.gateway.ctx);
  const deps = identityDeps(app.gateway.ctx);
  for (const role of ['tenant_admin', 'viewer'] as const) {
    await createUser(
      deps,
      { email: `${role}@example.com`, password: PASSWORD, role, tenant_id: tenantId },
      { actor: 'system:test', request_id: 'req_test' },
    );
  }
  return {
    tenantId,
    super_admin: bearer(await logIn(app, admin.email, admin.password)),
    tenant_admin: bearer(await logIn(app, 'tenant_admin@example.com')),
    viewer: bearer(await logIn(app, 'viewer@example.com')),
  };
}
