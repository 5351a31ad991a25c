import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, test } from 'vitest';
import { subaccount } from '../../src/aggregates/subaccount.ts';
import { handleCommand } from '../../src/commands/command-handler.ts';
import { jobs } from '../../src/commands/index.ts';
import type { Job } from '../../src/commands/job.ts';
import {
  SUBACCOUNT_RECONCILER_ACTOR,
  type SubaccountReconcileResult,
} from '../../src/commands/subaccounts/reconcile/job.ts';
import { subaccountStream } from '../../src/commands/subaccounts/record.ts';
import { newId } from '../../src/ids.ts';
import { JobRunner } from '../../src/workers/job-runner.ts';
import { JobLease } from '../../src/workers/lease.ts';
import { dumpEveryTable } from '../support/database-dump.ts';
import { useExternalProviderWorld } from '../support/external-provider.ts';
import {
  emulatorProvider,
  freshDocument,
  merchant,
  subaccountRequest,
  subaccountTokensAt,
} from '../support/subaccount-fixtures.ts';

// Issue 28 item 2 (remainder), SPEC 3.6 ("`creating`, `unknown` need consult or reconciliation"), 4.14, 2.7,
// 2.8: the subaccount reconciliation job over the real HTTP stack, PostgreSQL and the provider emulator on a
// socket, with the emulator's faults. The job's runs are made by hand with a clock past
// RECONCILE_AFTER_SECONDS (the injected `now` of each run: no sleeps); the creations are counted in the
// emulator's call log (a consult never creates).

const world = useExternalProviderWorld({ RATE_LIMIT_PER_MINUTE: '100000' });

let marketplace: string;
let sandboxWithProductionKey: string;
let sandboxMatrixOnly: string;

/** The job as the subaccounts feature registers it (FEATURES -> the job runner). */
function reconciler(): Job<SubaccountReconcileResult> {
  const job = jobs.find((j) => j.name === 'subaccount-reconciler');
  assert.ok(job, 'the subaccounts feature registers its reconciliation job');
  return job as Job<SubaccountReconcileResult>;
}

const provider = (environment: string, credentials: Record<string, string>) =>
  emulatorProvider(world, environment, credentials);

beforeAll(async () => {
  marketplace = await provider('production', { api_key: 'emu-production-key' });
  sandboxWithProductionKey = await provider('sandbox', {
    api_key: 'emu-matrix-sandbox-key',
    matrix_production_api_key: 'emu-production-key',
  });
  sandboxMatrixOnly = await provider('sandbox', { api_key: 'emu-matrix-sandbox-key' });
});

const document = () => freshDocument('91');

const body = (over: Record<string, unknown> = {}) =>
  subaccountRequest(marketplace, world.production.tenantId, document(), over);

const post = (json: unknown) =>
  world.app.request('POST', '/admin/subaccounts', {
    headers: { ...world.admin, 'idempotency-key': randomUUID() },
    json,
  });

/** An uncertain creation: the provider made the account (`commit`) or not, the answer was lost. 202 unknown. */
async function uncertainCreation(made: boolean, over: Record<string, unknown> = {}): Promise<string> {
  await world.control.fault({
    operation: 'subaccount_create',
    fault: made ? { type: 'reset' } : { type: 'http_error', status: 500 },
    commit: made,
  });
  const res = await post(body(over));
  assert.equal(res.status, 202, res.text);
  assert.equal(res.body.data.status, 'unknown');
  return res.body.data.id as string;
}

/**
 * A crash between the reservation and the record: `Subaccount.Reserved` appended as the creation appends it,
 * and nothing after it (as the transaction tests append a reservation directly).
 */
async function crashLeft(document: string, providerId = marketplace): Promise<string> {
  const id = newId('sac');
  const ctx = world.app.gateway.ctx;
  await handleCommand(
    { store: ctx.store, registry: ctx.events, now: () => new Date() },
    subaccount,
    subaccountStream(id),
    {
      kind: 'reserve',
      data: {
        subaccount_id: id,
        provider_id: providerId,
        tenant_id: world.production.tenantId,
        name: 'Loja Filha Ltda',
        document,
        email: 'financeiro@lojafilha.example',
      },
    },
    { metadata: { actor: 'system:test' } },
  );
  return id;
}

/** The account made at the provider directly (the crashed request's call went through). */
async function madeAtProvider(identity: string): Promise<void> {
  const res = await fetch(`${world.emulator.apiUrl}/v2/Marketplace/Add`, {
    method: 'POST',
    headers: { 'x-api-key': 'emu-production-key', 'content-type': 'application/json' },
    body: JSON.stringify(merchant(identity)),
  });
  const json = (await res.json()) as { HasError: boolean };
  assert.equal(json.HasError, false, JSON.stringify(json));
}

/** A time past the reconciler's wait (RECONCILE_AFTER_SECONDS): records made so far are due. */
function ahead(extraSeconds = 0): Date {
  const config = world.app.gateway.config;
  return new Date(Date.now() + (config.RECONCILE_AFTER_SECONDS + 10 + extraSeconds) * 1000);
}

async function tick(now: Date): Promise<SubaccountReconcileResult> {
  // Under TEST_PROJECTIONS=async the candidates come from a read model that follows the log.
  await world.app.settle();
  return reconciler().run(world.app.gateway.ctx, { now });
}

async function read(id: string) {
  await world.app.settle();
  const res = await world.app.request('GET', `/admin/subaccounts/${id}`, { headers: world.admin });
  assert.equal(res.status, 200, res.text);
  return res.body.data;
}

async function events(id: string) {
  return world.app.gateway.ctx.store.read(subaccountStream(id));
}

const calls = async (operation: 'subaccount_create' | 'subaccount_list' | 'subaccount_get') =>
  (await world.control.calls({ operation })).length;

async function schedule(id: string) {
  return world.app.db.db
    .selectFrom('subaccount_reconcile')
    .selectAll()
    .where('subaccount_id', '=', id)
    .executeTakeFirst();
}

const emulatorTokens = () => subaccountTokensAt(world.emulator.url);

describe('subaccount reconciliation job (SPEC 3.6, issue 28 item 2)', () => {
  test('an uncertain creation the provider made ends active by the job, tokens sealed, with no second creation', async () => {
    const id = await uncertainCreation(true);
    // Younger than RECONCILE_AFTER_SECONDS: not consulted yet (the request may still be settling it).
    const early = await tick(new Date());
    assert.ok(!early.claimed.includes(id), JSON.stringify(early));
    assert.equal(await calls('subaccount_list'), 0);

    const run = await tick(ahead());
    assert.ok(run.settled.includes(id), JSON.stringify(run));
    const d = await read(id);
    assert.equal(d.status, 'active');
    assert.ok(typeof d.provider_reference === 'string' && d.provider_reference.length > 0);
    assert.equal(d.has_production_token, true);
    assert.equal(d.has_sandbox_token, true);
    assert.equal(d.last_error_code, null);
    assert.equal(await calls('subaccount_create'), 1, 'never created twice');
    const last = (await events(id)).at(-1);
    assert.ok(last);
    assert.equal(last.type, 'Subaccount.Created');
    assert.equal((last.data as { via: string }).via, 'consult');
    assert.equal(last.metadata.actor, SUBACCOUNT_RECONCILER_ACTOR);
    assert.equal(await schedule(id), undefined, 'a settled record leaves no schedule');
    // Settled: no longer a candidate, nothing more is asked.
    const consults = (await calls('subaccount_list')) + (await calls('subaccount_get'));
    await tick(ahead(3600));
    assert.equal((await calls('subaccount_list')) + (await calls('subaccount_get')), consults);
    // SPEC 2.7: the tokens the consult read are nowhere in clear.
    await world.app.settle();
    const dump = await dumpEveryTable(world.app.db.db);
    const logs = world.app.logs.join('\n');
    for (const t of await emulatorTokens()) assert.ok(!dump.includes(t) && !logs.includes(t));
  });

  test('one the provider never made ends failed (not_found_at_provider), no remote id, no creation call', async () => {
    const id = await uncertainCreation(false);
    const run = await tick(ahead());
    assert.ok(run.settled.includes(id), JSON.stringify(run));
    const d = await read(id);
    assert.equal(d.status, 'failed');
    assert.equal(d.provider_reference, null);
    assert.equal(d.last_error_code, 'not_found_at_provider');
    assert.equal(d.last_provider_error_code, null);
    assert.match(d.last_error_message, /not created/);
    assert.equal(d.has_production_token, false);
    assert.equal(await calls('subaccount_create'), 1, 'the one attempt of the request, none by the job');
  });

  test('provider down: it stays unknown and waits a growing backoff; resolved once the provider is back', async () => {
    const { RECONCILE_BACKOFF_SECONDS: base } = world.app.gateway.config;
    const id = await uncertainCreation(true);
    await world.control.fault({
      operation: 'subaccount_list',
      fault: { type: 'http_error', status: 503 },
      times: null,
    });
    const t0 = ahead();
    const first = await tick(t0);
    assert.ok(first.unresolved.includes(id), JSON.stringify(first));
    assert.equal((await read(id)).status, 'unknown');
    assert.equal((await schedule(id))?.attempts, 1);
    assert.equal((await schedule(id))?.next_attempt_at.getTime(), t0.getTime() + base * 1000);
    const asked = await calls('subaccount_list');
    assert.equal(asked, 1);

    // Within its backoff: not consulted again.
    const waiting = await tick(new Date(t0.getTime() + (base - 1) * 1000));
    assert.ok(!waiting.claimed.includes(id), JSON.stringify(waiting));
    assert.equal(await calls('subaccount_list'), asked);

    // Due again, still down: the wait doubles.
    const t1 = new Date(t0.getTime() + base * 1000);
    const second = await tick(t1);
    assert.ok(second.unresolved.includes(id), JSON.stringify(second));
    assert.equal((await schedule(id))?.attempts, 2);
    assert.equal((await schedule(id))?.next_attempt_at.getTime(), t1.getTime() + 2 * base * 1000);
    assert.equal((await read(id)).status, 'unknown');

    await world.control.clearFaults();
    const back = await tick(new Date(t1.getTime() + 2 * base * 1000));
    assert.ok(back.settled.includes(id), JSON.stringify(back));
    assert.equal((await read(id)).status, 'active');
    assert.equal(await schedule(id), undefined);
    assert.equal(await calls('subaccount_create'), 1);
  });

  test('a crash-left creating (Reserved only) becomes unknown (interrupted) first, then is settled by the consult', async () => {
    const madeDoc = document();
    await madeAtProvider(madeDoc);
    const made = await crashLeft(madeDoc);
    const never = await crashLeft(document());
    // Not past RECONCILE_AFTER_SECONDS: its creation call may still be running.
    const early = await tick(new Date());
    assert.ok(!early.claimed.includes(made) && !early.claimed.includes(never), JSON.stringify(early));
    assert.equal((await read(made)).status, 'creating');

    const run = await tick(ahead());
    assert.deepEqual([...run.interrupted].sort(), [made, never].sort(), JSON.stringify(run));
    assert.deepEqual(
      (await events(made)).map((e) => e.type),
      ['Subaccount.Reserved', 'Subaccount.Uncertain', 'Subaccount.Created'],
    );
    const [, uncertain] = await events(made);
    assert.deepEqual(uncertain?.data, {
      subaccount_id: made,
      last_error_code: 'interrupted',
      provider_reference: null,
    });
    assert.equal(uncertain?.metadata.actor, SUBACCOUNT_RECONCILER_ACTOR);
    const active = await read(made);
    assert.equal(active.status, 'active');
    assert.equal(active.has_production_token, true);
    assert.deepEqual(
      (await events(never)).map((e) => e.type),
      ['Subaccount.Reserved', 'Subaccount.Uncertain', 'Subaccount.Failed'],
    );
    assert.equal((await read(never)).last_error_code, 'not_found_at_provider');
    assert.equal(await calls('subaccount_create'), 1, "only the crashed request's own call");
  });

  test('a crash-left creating with the provider down: unknown (interrupted) at once, no call but a read; settled later', async () => {
    const doc = document();
    await madeAtProvider(doc);
    const id = await crashLeft(doc);
    await world.control.fault({ operation: 'subaccount_list', fault: { type: 'reset' }, times: null });
    const t0 = ahead();
    const run = await tick(t0);
    assert.ok(run.interrupted.includes(id) && run.unresolved.includes(id), JSON.stringify(run));
    const d = await read(id);
    assert.equal(d.status, 'unknown');
    assert.equal(d.last_error_code, 'interrupted');
    await world.control.clearFaults();
    const later = await tick(
      new Date(t0.getTime() + world.app.gateway.config.RECONCILE_BACKOFF_SECONDS * 1000),
    );
    assert.ok(later.settled.includes(id), JSON.stringify(later));
    assert.equal((await read(id)).status, 'active');
    assert.equal(await calls('subaccount_create'), 1);
  });

  test('two job runners at once (leases on one PostgreSQL): one consult per record', async () => {
    const ids = [
      await uncertainCreation(true),
      await uncertainCreation(false),
      await uncertainCreation(true),
    ];
    // Slow reads, so that the runs overlap.
    await world.control.fault({
      operation: 'subaccount_list',
      fault: { type: 'latency', ms: 200 },
      times: null,
    });
    await world.app.settle();
    const now = ahead();
    const db = world.app.db.db;
    // Which runner's run started: with the lease, the other one's tick is skipped (then it pauses).
    const ran: number[] = [];
    const job = reconciler();
    const runners = [1, 2].map((n) => {
      const counted: typeof job = {
        ...job,
        run(deps, t) {
          ran.push(n);
          return job.run(deps, t);
        },
      };
      return new JobRunner([counted], world.app.gateway.ctx, {
        clock: { now: () => now },
        lease: (j) => new JobLease(db, j.name, { ttlMs: j.leaseTtlMs }),
      });
    });
    for (const r of runners) r.start();
    try {
      const deadline = Date.now() + 20_000;
      for (;;) {
        const states = await Promise.all(ids.map(async (id) => (await read(id)).status));
        if (states.every((s) => s === 'active' || s === 'failed')) break;
        assert.ok(Date.now() < deadline, `still unsettled: ${states.join(', ')}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    } finally {
      await Promise.all(runners.map((r) => r.stop()));
    }
    assert.deepEqual(await Promise.all(ids.map(async (id) => (await read(id)).status)), [
      'active',
      'failed',
      'active',
    ]);
    assert.equal(ran.length, 1, `one run under the lease, the other skipped: ${ran.join(', ')}`);
    assert.equal(await calls('subaccount_list'), ids.length, 'one consult per record');
    assert.equal(await calls('subaccount_create'), ids.length, "the requests' own calls only");
  });

  test('two runs at once without a lease (a lost one): the claim gives each record to one run', async () => {
    const ids = [
      await uncertainCreation(true),
      await uncertainCreation(true),
      await uncertainCreation(false),
    ];
    await world.control.fault({
      operation: 'subaccount_list',
      fault: { type: 'latency', ms: 100 },
      times: null,
    });
    await world.app.settle();
    const now = ahead();
    const job = reconciler();
    const [a, b] = await Promise.all([
      job.run(world.app.gateway.ctx, { now }),
      job.run(world.app.gateway.ctx, { now }),
    ]);
    assert.deepEqual([...a.claimed, ...b.claimed].sort(), [...ids].sort());
    assert.ok(a.claimed.every((id) => !b.claimed.includes(id)));
    assert.equal(await calls('subaccount_list'), ids.length);
    for (const id of ids) assert.notEqual((await read(id)).status, 'unknown');
  });

  test('SPEC 2.8 cross-mode: a sandbox marketplace is consulted with its matrix production key', async () => {
    const id = await uncertainCreation(true, { provider_id: sandboxWithProductionKey });
    const run = await tick(ahead());
    assert.ok(run.settled.includes(id), JSON.stringify(run));
    const d = await read(id);
    assert.equal(d.status, 'active');
    assert.equal(d.provider_id, sandboxWithProductionKey);
    assert.equal(d.has_sandbox_token, true);
    assert.equal(await calls('subaccount_create'), 1);
  });

  // Last: its record stays unknown (a refused read proves nothing), so it must not count in the tests above.
  test('SPEC 2.8 cross-mode: only the matrix sandbox key -> the read is refused (301): it stays unknown, never failed', async () => {
    const id = await crashLeft(document(), sandboxMatrixOnly);
    const run = await tick(ahead());
    assert.ok(run.interrupted.includes(id) && run.unresolved.includes(id), JSON.stringify(run));
    const d = await read(id);
    assert.equal(d.status, 'unknown');
    assert.equal(d.last_error_code, 'interrupted');
    assert.equal(await calls('subaccount_create'), 0);
    const [list] = await world.control.calls({ operation: 'subaccount_list' });
    assert.ok(list, 'it was consulted');
  });
});
