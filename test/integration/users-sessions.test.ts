import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import { type Kysely, type KyselyPlugin, sql } from 'kysely';
import { afterAll, beforeAll, describe, test } from 'vitest';
import { DomainError, fold } from '../../src/aggregates/decider.ts';
import { type SessionEvent, sessionDecider } from '../../src/aggregates/session.ts';
import { type UserEvent, userDecider, userEmailStream, userStream } from '../../src/aggregates/user.ts';
import { createGateway } from '../../src/app.ts';
import { createEventRegistry } from '../../src/commands/index.ts';
import { login } from '../../src/commands/sessions/login/handler.ts';
import { logout } from '../../src/commands/sessions/logout/handler.ts';
import { createTenant } from '../../src/commands/tenants/create/handler.ts';
import { createTenantType } from '../../src/commands/tenants/create-type/handler.ts';
import { bootstrapAdmin } from '../../src/commands/users/bootstrap-admin/handler.ts';
import { changePassword } from '../../src/commands/users/change-password/handler.ts';
import { createUser } from '../../src/commands/users/create/handler.ts';
import type { IdentityDeps } from '../../src/commands/users/identity-deps.ts';
import { reactivateUser } from '../../src/commands/users/reactivate/handler.ts';
import { suspendUser } from '../../src/commands/users/suspend/handler.ts';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { sha256Hex as sha } from '../../src/crypto/secrets.ts';
import type { Database } from '../../src/db/schema.ts';
import type { EventStore } from '../../src/events/event-store.ts';
import { PostgresEventStore } from '../../src/events/postgres-event-store.ts';
import { newId } from '../../src/ids.ts';
import { createLogger } from '../../src/logger.ts';
import { ProjectionRunner } from '../../src/projections/projection-runner.ts';
import { sessionsProjection } from '../../src/projections/sessions.ts';
import { tenantsProjection } from '../../src/projections/tenants.ts';
import { usersProjection } from '../../src/projections/users.ts';
import { createTestDatabase, type TestDatabase } from '../support/databases.ts';

const metadata = { actor: 'system:test', request_id: 'req_test' };
const PASSWORD = 'correct horse battery';

function depsFor(db: Kysely<Database>, store: EventStore, bcryptCost = 4): IdentityDeps {
  return { store, registry: createEventRegistry(), db, now: () => new Date(), bcryptCost };
}

/** A root tenant and its child, written straight into the tenants read model (its owner is another module). */
/**
 * A root and a child tenant, through the tenant commands: createUser folds the tenant's stream, and the
 * tenants read model (sessions join it for suspension) is filled inline by this store.
 */
async function seedTenantTree(db: Kysely<Database>): Promise<{ root: string; child: string }> {
  const store = new PostgresEventStore(db, [tenantsProjection]);
  const deps = { store, registry: createEventRegistry(), now: () => new Date() };
  const seed = { actor: 'system:test', request_id: 'req_seed' };
  const { type } = await createTenantType(deps, { name: `type ${newId('tty')}`, allowsChildren: true }, seed);
  const root = await createTenant(deps, { name: 'Root', typeId: type.id, parentId: null }, seed);
  const child = await createTenant(deps, { name: 'Child', typeId: type.id, parentId: root.id }, seed);
  return { root: root.id, child: child.id };
}

/** The event store, except that the first append to a matching stream dies as a crashed process would. */
function crashingOnce(store: EventStore, matches: (stream: string) => boolean): EventStore {
  let armed = true;
  return {
    kind: store.kind,
    supportsInlineProjections: store.supportsInlineProjections,
    async append(stream, events, expected) {
      if (armed && matches(stream)) {
        armed = false;
        throw new Error('simulated crash between the claim and the user');
      }
      return store.append(stream, events, expected);
    },
    read: (stream, from) => store.read(stream, from),
    readAll: (after, limit) => store.readAll(after, limit),
    headCheckpoint: () => store.headCheckpoint(),
    onAppended: (listener) => store.onAppended(listener),
    close: () => store.close(),
  };
}

const isConflict = (e: unknown) => e instanceof DomainError && e.code === 'conflict';

describe('users and sessions over PostgreSQL (SPEC 5.6, 5.7; DESIGN.md reservation streams)', () => {
  let t: TestDatabase;
  let store: PostgresEventStore;
  let deps: IdentityDeps;
  let tenants: { root: string; child: string };

  beforeAll(async () => {
    t = await createTestDatabase();
    store = new PostgresEventStore(t.db, [usersProjection, sessionsProjection]);
    deps = depsFor(t.db, store);
    tenants = await seedTenantTree(t.db);
  });
  afterAll(() => t.drop());

  test('SPEC 5.7: 10 concurrent createUser with one e-mail (different requests) make exactly one user', async () => {
    const results = await Promise.allSettled(
      Array.from({ length: 10 }, (_, i) =>
        createUser(
          deps,
          {
            email: `Race@Example.com${' '.repeat(i % 2)}`,
            password: `${PASSWORD} ${i}`,
            role: 'viewer',
            tenant_id: tenants.child,
          },
          metadata,
        ),
      ),
    );
    const won = results.filter((r) => r.status === 'fulfilled');
    assert.equal(won.length, 1);
    for (const r of results) if (r.status === 'rejected') assert.ok(isConflict(r.reason), String(r.reason));
    const rows = await t.db.selectFrom('users').selectAll().where('email', '=', 'race@example.com').execute();
    assert.equal(rows.length, 1);
    const { rows: created } = await sql`
      select stream_id from events where type = 'User.Created' and data->>'email' = 'race@example.com'`.execute(
      t.db,
    );
    assert.equal(created.length, 1);
    assert.equal((await store.read(userEmailStream('race@example.com'))).length, 1);
  });

  test('SPEC 5.7: concurrent identical requests all answer the one user; exactly one appends it', async () => {
    const input = {
      email: 'same@example.com',
      password: PASSWORD,
      role: 'viewer' as const,
      tenant_id: tenants.child,
    };
    const results = await Promise.all(Array.from({ length: 10 }, () => createUser(deps, input, metadata)));
    assert.equal(new Set(results.map((r) => r.user.id)).size, 1);
    assert.equal(results.filter((r) => r.created).length, 1);
  });

  test('DESIGN.md reservation streams: a crash between the claim and User.Created completes on retry', async () => {
    const crashing = { ...deps, store: crashingOnce(store, (s) => s.startsWith('user-')) };
    const input = {
      email: 'crash@example.com',
      password: PASSWORD,
      role: 'tenant_admin' as const,
      tenant_id: tenants.root,
    };
    const firstTry = { actor: 'user:usr_operator', request_id: 'req_first_try' };
    await assert.rejects(createUser(crashing, input, firstTry), /simulated crash/);
    const [claim] = await store.read(userEmailStream(input.email));
    assert.equal(claim?.type, 'UserEmail.Claimed');
    const claimedId = (claim?.data as { user_id: string } | undefined)?.user_id ?? '';
    assert.deepEqual(await store.read(userStream(claimedId)), []);
    assert.equal(
      await t.db.selectFrom('users').select('id').where('id', '=', claimedId).executeTakeFirst(),
      undefined,
    );

    // The retry finds the claim, appends the user it carries, and answers it: no second user, no conflict.
    const retry = await createUser(deps, input, metadata);
    assert.equal(retry.user.id, claimedId);
    assert.equal(retry.created, true);
    const [userCreated] = await store.read(userStream(claimedId));
    assert.equal(userCreated?.type, 'User.Created');
    assert.deepEqual(userCreated?.data, claim?.data, 'the user is exactly what the claim carried');
    // Recorded under the claimer's metadata, caused by the claim: the audit trail names who asked.
    assert.deepEqual(userCreated?.metadata, { ...firstTry, causation_id: claim?.id });
    const session = await login(deps, { email: input.email, password: PASSWORD }, metadata);
    assert.equal(session.user.id, claimedId);
  });

  test('DESIGN.md reservation streams: another request for a dangling claim completes it, then conflicts', async () => {
    const crashing = { ...deps, store: crashingOnce(store, (s) => s.startsWith('user-')) };
    const first = {
      email: 'dangling@example.com',
      password: PASSWORD,
      role: 'viewer' as const,
      tenant_id: tenants.child,
    };
    await assert.rejects(createUser(crashing, first, metadata), /simulated crash/);
    await assert.rejects(createUser(deps, { ...first, password: `${PASSWORD}!` }, metadata), isConflict);
    const row = await t.db
      .selectFrom('users')
      .selectAll()
      .where('email', '=', first.email)
      .executeTakeFirstOrThrow();
    assert.equal(row.status, 'active');
    // The user is the first request's: its password logs in.
    assert.equal((await login(deps, { email: first.email, password: PASSWORD }, metadata)).user.id, row.id);
  });

  test('SPEC 5.7: refused inputs reserve nothing (short password, tenant-less viewer, unknown tenant)', async () => {
    const cases = [
      {
        email: 'short@example.com',
        password: 'too short',
        role: 'viewer' as const,
        tenant_id: tenants.child,
      },
      { email: 'orphan@example.com', password: PASSWORD, role: 'viewer' as const, tenant_id: null },
      { email: 'ghost@example.com', password: PASSWORD, role: 'viewer' as const, tenant_id: 'ten_missing' },
      { email: 'not-an-email', password: PASSWORD, role: 'viewer' as const, tenant_id: tenants.child },
      {
        email: 'long@example.com',
        password: 'é'.repeat(40),
        role: 'viewer' as const,
        tenant_id: tenants.child,
      },
    ];
    for (const input of cases) {
      await assert.rejects(
        createUser(deps, input, metadata),
        (e: unknown) => e instanceof DomainError && e.code === 'validation_error',
        input.email,
      );
      assert.deepEqual(await store.read(userEmailStream(input.email)), [], input.email);
    }
  });

  test('SPEC 5.6: login answers invalid_credentials alike for unknown e-mail, wrong password, suspended user', async () => {
    const { user } = await createUser(
      deps,
      { email: 'login@example.com', password: PASSWORD, role: 'viewer', tenant_id: tenants.child },
      metadata,
    );
    const invalid = (e: unknown) => e instanceof DomainError && e.code === 'invalid_credentials';
    await assert.rejects(login(deps, { email: 'nobody@example.com', password: PASSWORD }, metadata), invalid);
    await assert.rejects(
      login(deps, { email: 'login@example.com', password: `${PASSWORD}x` }, metadata),
      invalid,
    );
    // bcrypt reads 72 bytes: with a 72-byte password, a longer attempt must not pass on its prefix.
    const long = PASSWORD.padEnd(72, '.');
    await createUser(
      deps,
      { email: 'long@example.org', password: long, role: 'viewer', tenant_id: tenants.child },
      metadata,
    );
    await assert.rejects(
      login(deps, { email: 'long@example.org', password: `${long}extra` }, metadata),
      invalid,
    );
    assert.ok(await login(deps, { email: 'long@example.org', password: long }, metadata));
    const ok = await login(deps, { email: '  LOGIN@example.com ', password: PASSWORD }, metadata);
    assert.equal(ok.user.id, user.id);
    await suspendUser(deps, user.id, metadata);
    await assert.rejects(login(deps, { email: 'login@example.com', password: PASSWORD }, metadata), invalid);
    await reactivateUser(deps, user.id, metadata);
    assert.equal(
      (await login(deps, { email: 'login@example.com', password: PASSWORD }, metadata)).user.id,
      user.id,
    );
  });

  test('SPEC 5.6: a password change committed during the login comparison wins over the login', async () => {
    const email = 'racing-login@example.com';
    const { user } = await createUser(
      deps,
      { email, password: PASSWORD, role: 'viewer', tenant_id: tenants.child },
      metadata,
    );
    // The change commits right after login has read the user row, i.e. while it compares the password.
    let armed = true;
    const changeAfterLookup: KyselyPlugin = {
      transformQuery: (args) => args.node,
      async transformResult(args) {
        if (armed && args.result.rows.some((r) => r.email === email)) {
          armed = false;
          await changePassword(deps, user.id, `${PASSWORD} changed`, metadata);
        }
        return args.result;
      },
    };
    const racing = { ...deps, db: t.db.withPlugin(changeAfterLookup) };
    await assert.rejects(
      login(racing, { email, password: PASSWORD }, metadata),
      (e: unknown) => e instanceof DomainError && e.code === 'invalid_credentials',
    );
    assert.equal(armed, false);
    const live = await t.db
      .selectFrom('sessions')
      .select('id')
      .where('user_id', '=', user.id)
      .where('revoked_at', 'is', null)
      .execute();
    assert.deepEqual(live, []);
  });

  test('SPEC 7 cannot_suspend_self: a user cannot suspend their own account', async () => {
    const { user } = await createUser(
      deps,
      { email: 'self@example.com', password: PASSWORD, role: 'tenant_admin', tenant_id: tenants.root },
      metadata,
    );
    await assert.rejects(
      suspendUser(deps, user.id, { actor: `user:${user.id}` }),
      (e: unknown) => e instanceof DomainError && e.code === 'cannot_suspend_self',
    );
  });

  test('SPEC 5.6: an unknown e-mail costs one bcrypt comparison, like a wrong password', async () => {
    const slow = depsFor(t.db, store, 10);
    await createUser(
      slow,
      { email: 'timing@example.com', password: PASSWORD, role: 'viewer', tenant_id: tenants.child },
      metadata,
    );
    const time = async (email: string) => {
      const started = process.hrtime.bigint();
      await login(slow, { email, password: 'wrong password!' }, metadata).catch(() => undefined);
      return Number(process.hrtime.bigint() - started) / 1e6;
    };
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
    const known: number[] = [];
    const unknown: number[] = [];
    for (let i = 0; i < 3; i++) {
      known.push(await time('timing@example.com'));
      unknown.push(await time(`nobody-${i}@example.com`));
    }
    // Without the decoy comparison an unknown e-mail answers in about a millisecond.
    assert.ok(median(unknown) > median(known) * 0.5, `known ${known} ms, unknown ${unknown} ms`);
  });

  test('SPEC 5.6: projections equal the fold of the log, and a rebuild reproduces them', async () => {
    const mk = (email: string, tenant: string) =>
      createUser(deps, { email, password: PASSWORD, role: 'tenant_admin', tenant_id: tenant }, metadata);
    const a = (await mk('fold-a@example.com', tenants.root)).user;
    const b = (await mk('fold-b@example.com', tenants.child)).user;
    const c = (await mk('fold-c@example.com', tenants.child)).user;
    const signIn = (email: string) => login(deps, { email, password: PASSWORD }, metadata);
    const a1 = await signIn(a.email);
    const a2 = await signIn(a.email);
    await signIn(b.email);
    await signIn(c.email);
    await logout(
      deps,
      (
        await t.db
          .selectFrom('sessions')
          .select('id')
          .where('token_sha256', '=', sha(a1.token))
          .executeTakeFirstOrThrow()
      ).id,
      metadata,
    );
    await changePassword(deps, a.id, `${PASSWORD} new`, metadata);
    await suspendUser(deps, c.id, metadata);
    await reactivateUser(deps, c.id, metadata);
    const c2 = await signIn(c.email);
    await store.append(
      `tenant-${tenants.child}`,
      [{ id: randomUUID(), type: 'Tenant.Suspended', data: { tenant_id: tenants.child }, metadata }],
      'any',
    );
    // After the suspension: a new session of a user in another subtree stays valid.
    const a3 = await login(deps, { email: a.email, password: `${PASSWORD} new` }, metadata);

    const registry = createEventRegistry();
    const users = await t.db.selectFrom('users').selectAll().execute();
    for (const row of users) {
      const state = fold(
        userDecider,
        (await store.read(userStream(row.id))).map((r) => registry.decode(r) as UserEvent),
      );
      assert.ok(state.status !== 'none', row.id);
      assert.deepEqual(
        {
          id: row.id,
          email: row.email,
          role: row.role,
          tenant_id: row.tenant_id,
          status: row.status,
          hash: row.password_hash,
        },
        {
          id: state.created.user_id,
          email: state.created.email,
          role: state.created.role,
          tenant_id: state.created.tenant_id,
          status: state.status,
          hash: state.passwordHash,
        },
      );
    }

    // The expected revocations, replayed in memory from the log in commit order.
    const userTenant = new Map(users.map((u) => [u.id, u.tenant_id]));
    const ancestors = new Map(
      (await t.db.selectFrom('tenants').select(['id', 'ancestor_ids']).execute()).map((r) => [
        r.id,
        r.ancestor_ids,
      ]),
    );
    const expected = new Map<string, string | null>();
    const sessionOwner = new Map<string, string>();
    const log = await t.db.selectFrom('events').selectAll().orderBy('global_position').execute();
    for (const e of log) {
      const d = e.data as Record<string, string>;
      const revokeWhere = (reason: string, pick: (sessionUser: string) => boolean) => {
        for (const [id, current] of expected) {
          const owner = sessionOwner.get(id) as string;
          if (current === null && pick(owner)) expected.set(id, reason);
        }
      };
      if (e.type === 'Session.Started') {
        expected.set(d.session_id as string, null);
        sessionOwner.set(d.session_id as string, d.user_id as string);
      }
      if (e.type === 'Session.Ended' && expected.get(d.session_id as string) === null)
        expected.set(d.session_id as string, 'logout');
      if (e.type === 'User.PasswordChanged') revokeWhere('password_changed', (u) => u === d.user_id);
      if (e.type === 'User.Suspended') revokeWhere('user_suspended', (u) => u === d.user_id);
      if (e.type === 'Tenant.Suspended') {
        revokeWhere(
          'tenant_suspended',
          (u) => ancestors.get(userTenant.get(u) ?? '')?.includes(d.tenant_id as string) ?? false,
        );
      }
    }
    const sessions = await t.db.selectFrom('sessions').selectAll().execute();
    assert.equal(sessions.length, expected.size);
    for (const row of sessions) {
      const recorded = await store.read(`session-${row.id}`);
      const state = fold(
        sessionDecider,
        recorded.map((r) => registry.decode(r) as SessionEvent),
      );
      assert.ok(state.status !== 'none');
      assert.equal(row.user_id, state.session.user_id);
      assert.equal(row.token_sha256, state.session.token_sha256);
      assert.equal(new Date(row.expires_at).toISOString(), state.session.expires_at);
      assert.deepEqual(new Date(row.created_at), recorded[0]?.recordedAt);
      assert.equal(row.revoked_reason, expected.get(row.id), row.id);
      assert.equal(row.revoked_at === null, row.revoked_reason === null);
      if (state.status === 'ended') assert.equal(row.revoked_reason, 'logout');
    }
    const reasonOf = async (token: string) =>
      (
        await t.db
          .selectFrom('sessions')
          .select('revoked_reason')
          .where('token_sha256', '=', sha(token))
          .executeTakeFirstOrThrow()
      ).revoked_reason;
    assert.equal(await reasonOf(a1.token), 'logout');
    assert.equal(await reasonOf(a2.token), 'password_changed');
    assert.equal(await reasonOf(c2.token), 'tenant_suspended');
    assert.equal(await reasonOf(a3.token), null);

    // Rebuild both read models from the whole log: the same rows come back.
    const snapshot = async () => ({
      users: await t.db.selectFrom('users').selectAll().orderBy('id').execute(),
      sessions: await t.db.selectFrom('sessions').selectAll().orderBy('id').execute(),
    });
    const before = await snapshot();
    const runner = new ProjectionRunner(t.db, store, [usersProjection, sessionsProjection]);
    await runner.rebuild(usersProjection);
    await runner.rebuild(sessionsProjection);
    assert.deepEqual(await snapshot(), before);
  });
});

describe('bootstrap administrator (SPEC 5, issue 3)', () => {
  let t: TestDatabase;
  beforeAll(async () => {
    t = await createTestDatabase();
  });
  afterAll(() => t.drop());

  const env = (db: TestDatabase) => ({
    DATABASE_URL: db.url,
    DATABASE_POOL_SIZE: '5',
    BCRYPT_COST: '4',
    DOCUMENT_SIGNING_SECRET: 'test-document-signing-secret-for-this-suite-0123',
    BOOTSTRAP_ADMIN_EMAIL: 'Admin@Example.com',
    BOOTSTRAP_ADMIN_PASSWORD: 'bootstrap password 1',
  });

  function capture() {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk, _enc, done) {
        lines.push(...String(chunk).split('\n').filter(Boolean));
        done();
      },
    });
    return { lines, logger: createLogger('info', sink) };
  }

  test('SPEC 5: the password must have at least 12 characters, and both variables go together', () => {
    assert.throws(() => loadConfig({ ...env(t), BOOTSTRAP_ADMIN_PASSWORD: 'short' }), ConfigError);
    assert.throws(() => loadConfig({ ...env(t), BOOTSTRAP_ADMIN_EMAIL: 'not an e-mail' }), ConfigError);
    assert.throws(
      () => loadConfig({ DATABASE_URL: t.url, BOOTSTRAP_ADMIN_EMAIL: 'a@example.com' }),
      ConfigError,
    );
    assert.throws(
      () => loadConfig({ DATABASE_URL: t.url, BOOTSTRAP_ADMIN_PASSWORD: 'long enough password' }),
      ConfigError,
    );
    assert.throws(
      () => loadConfig({ ...env(t), BOOTSTRAP_ADMIN_PASSWORD: 'eleven-char' }),
      (e: unknown) =>
        e instanceof ConfigError &&
        e.message.includes('BOOTSTRAP_ADMIN_PASSWORD') &&
        !e.message.includes('eleven-char'),
      'the error names the variable, never its value',
    );
    assert.equal(loadConfig({}).BCRYPT_COST, 12);
  });

  test('SPEC 5: two instances starting at once create one super_admin, logged once, without the password', async () => {
    const config = loadConfig(env(t));
    const [x, y] = [capture(), capture()];
    const gateways = await Promise.all([createGateway(config, x.logger), createGateway(config, y.logger)]);
    try {
      const users = await t.db.selectFrom('users').selectAll().execute();
      assert.equal(users.length, 1);
      assert.equal(users[0]?.role, 'super_admin');
      assert.equal(users[0]?.tenant_id, null);
      assert.equal(users[0]?.email, 'admin@example.com');
      const lines = [...x.lines, ...y.lines];
      assert.equal(lines.filter((l) => l.includes('bootstrap administrator created')).length, 1);
      for (const l of lines) assert.ok(!l.includes('bootstrap password 1'), l);
    } finally {
      for (const g of gateways) await g.close();
    }
  });

  test('SPEC 5: a restart finds the user and creates nothing; the admin logs in', async () => {
    const config = loadConfig(env(t));
    const log = capture();
    const gateway = await createGateway(config, log.logger);
    try {
      assert.equal((await t.db.selectFrom('users').select('id').execute()).length, 1);
      assert.equal(log.lines.filter((l) => l.includes('bootstrap administrator')).length, 0);
      const deps = depsFor(t.db, gateway.store);
      const s = await login(deps, { email: 'admin@example.com', password: 'bootstrap password 1' }, metadata);
      assert.equal(s.user.role, 'super_admin');
      // Called again directly: still nothing to do.
      assert.equal(await bootstrapAdmin(deps, config, log.logger), undefined);
      assert.equal((await t.db.selectFrom('users').select('id').execute()).length, 1);
    } finally {
      await gateway.close();
    }
  });

  test('SPEC 5: without the variables nothing is created', async () => {
    const other = await createTestDatabase();
    try {
      const store = new PostgresEventStore(other.db, [usersProjection, sessionsProjection]);
      assert.equal(await bootstrapAdmin(depsFor(other.db, store), {}, capture().logger), undefined);
      assert.equal((await other.db.selectFrom('users').select('id').execute()).length, 0);
    } finally {
      await other.drop();
    }
  });
});
