import assert from 'node:assert/strict';
import { describe, test } from 'vitest';
import type { AdapterDecorator } from '../../src/providers/registry.ts';
import { pixBody } from '../support/charges.ts';
import { seedTenantAndKey } from '../support/fixtures.ts';
import { startTestApp } from '../support/http.ts';
import { decorateProviders, withCharges } from '../support/provider-registry.ts';

/**
 * Shutdown (SIGTERM/SIGINT → `Gateway.close`) waits for route handlers still running, even when their
 * client has gone away: a charge at the provider records its outcome before the pools close, instead of
 * failing on a closed pool and being left `processing` for the reconciler to mark `unknown` (SPEC 3.1).
 */

/** A simulator whose charge creation waits until `open()` is called. */
function gatedSimulator() {
  let open: () => void = () => {};
  const gate = new Promise<void>((resolve) => {
    open = resolve;
  });
  let calls = 0;
  const decorate: AdapterDecorator = (adapter, kind) =>
    kind !== 'simulator'
      ? adapter
      : withCharges(adapter, {
          async create(charge, body, ctx, now) {
            calls++;
            await gate;
            return adapter.charges.create(charge, body, ctx, now);
          },
        });
  return { decorate, open, calls: () => calls };
}

/** Sends a Pix creation, waits until it reaches the provider, then drops the connection (the client left). */
async function abandonedCreation(baseUrl: string, key: string, calls: () => number) {
  const abort = new AbortController();
  const sent = fetch(`${baseUrl}/v1/pix`, {
    method: 'POST',
    headers: { 'x-api-key': key, 'idempotency-key': 'shutdown-1', 'content-type': 'application/json' },
    body: JSON.stringify(pixBody()),
    signal: abort.signal,
  }).catch((error: unknown) => error);
  while (calls() === 0) await new Promise((r) => setTimeout(r, 5));
  abort.abort();
  assert.ok((await sent) instanceof Error, 'the client gave up');
}

describe('graceful shutdown waits for running requests (SPEC 3.1: reserve, call, record)', () => {
  test('a charge whose client left still records the provider outcome before the pools close', async () => {
    const sim = gatedSimulator();
    const app = await startTestApp({ ENABLE_SIMULATOR: 'true' }, (gw) =>
      decorateProviders(gw.ctx, sim.decorate),
    );
    try {
      const { key } = await seedTenantAndKey(app.gateway.ctx, { livemode: true });
      await abandonedCreation(app.baseUrl, key, sim.calls);

      let closed = false;
      const closing = app.gateway.close().then(() => {
        closed = true;
      });
      await new Promise((r) => setTimeout(r, 300));
      assert.equal(closed, false, 'close waits while the charge is at the provider');
      sim.open();
      await closing;

      // The log is the record (DESIGN.md): with async projections the read model may close behind it.
      const events = await app.db.db
        .selectFrom('events')
        .select('type')
        .where('stream_id', 'like', 'transaction-%')
        .orderBy('global_position')
        .execute();
      assert.deepEqual(
        events.map((e) => e.type),
        ['Transaction.Reserved', 'Transaction.Issued'],
      );
      assert.ok(!app.logs.some((l) => /destroyed|shutdown timeout/.test(l)), app.logs.join('\n'));
    } finally {
      await app.db.drop();
    }
  });

  test('SHUTDOWN_TIMEOUT_MS bounds the wait, and says so in the log', async () => {
    const sim = gatedSimulator();
    const app = await startTestApp({ ENABLE_SIMULATOR: 'true', SHUTDOWN_TIMEOUT_MS: '200' }, (gw) =>
      decorateProviders(gw.ctx, sim.decorate),
    );
    try {
      const { key } = await seedTenantAndKey(app.gateway.ctx, { livemode: true });
      await abandonedCreation(app.baseUrl, key, sim.calls);
      await app.gateway.close();
      const warning = app.logs.map((l) => JSON.parse(l)).find((l) => l.msg?.includes('shutdown timeout'));
      assert.ok(warning, app.logs.join('\n'));
      assert.equal(warning.running, 1);
    } finally {
      // The abandoned handler fails on the closed pool; the charge stays `processing` for the reconciler.
      sim.open();
      await app.db.drop();
    }
  });
});
