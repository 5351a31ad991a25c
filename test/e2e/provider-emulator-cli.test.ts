import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { afterAll, describe, test } from 'vitest';
import { BIN } from '../support/cli.ts';
import { emulatorControl } from '../support/emulator-control.ts';

/**
 * `calebe provider-emulator` (DESIGN.md "Providers", issue 13) as a real process on a free port: it prints
 * its URLs, answers its control API (docs/provider-emulator.md) and the wire format, and SIGTERM stops it
 * cleanly (exit 0, the port free again).
 */

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

/** Resolves with everything printed once `pattern` appears; rejects if the process exits first. */
function waitFor(child: ChildProcess, pattern: RegExp): Promise<string> {
  return new Promise((resolve, reject) => {
    let out = '';
    const seen = (chunk: Buffer) => {
      out += chunk;
      if (pattern.test(out)) resolve(out);
    };
    child.stdout?.on('data', seen);
    child.stderr?.on('data', seen);
    child.once('exit', (code) => reject(new Error(`exited ${code} before printing ${pattern}:\n${out}`)));
  });
}

let child: ChildProcess | undefined;
afterAll(() => {
  if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

describe('calebe provider-emulator', () => {
  test('starts on the given port, answers the control API and the wire format, stops on SIGTERM', async () => {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const proc = spawn(process.execPath, [BIN, 'provider-emulator', '--port', String(port)], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child = proc;
    const out = await waitFor(proc, /\n/);
    assert.equal(
      out,
      `provider emulator on ${url} (payment host ${url}/payment, API host ${url}/api, control API ${url}/_emulator)\n`,
    );

    // Control API: replace the sandbox keys, then read the (empty) charge list.
    const keys = await fetch(`${url}/_emulator/keys`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ sandbox: ['cli-test-key'] }),
    });
    assert.ok(keys.ok, await keys.text());
    const control = emulatorControl(url);
    assert.deepEqual(await control.charges('cli-1'), []);

    // Wire: a sandbox Pix created on the payment host with the new key, read back through the control API.
    const created = await fetch(`${url}/payment/v2/Payment`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': 'cli-test-key' },
      body: JSON.stringify({
        IsSandbox: true,
        Reference: 'cli-1',
        PaymentMethod: '6',
        Customer: { Name: 'Maria Silva', Identity: '12345678901' },
        Products: [{ Code: '1', Description: 'Pedido', UnitPrice: 12.5, Quantity: 1 }],
        PaymentObject: { Expiration: 3600 },
      }),
    });
    assert.equal(created.status, 200);
    const envelope = (await created.json()) as {
      HasError: boolean;
      ResponseDetail: { IdTransaction: number };
    };
    assert.equal(envelope.HasError, false, JSON.stringify(envelope));
    const charges = await control.charges('cli-1');
    assert.equal(charges.length, 1);
    const calls = await control.calls({ reference: 'cli-1', operation: 'create' });
    assert.equal(calls.length, 1);

    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      proc.once('exit', (code, signal) => resolve({ code, signal })),
    );
    proc.kill('SIGTERM');
    assert.deepEqual(await exited, { code: 0, signal: null });
    await assert.rejects(fetch(`${url}/_emulator/charges`), 'nothing listens any more');
  });

  test('a port in use: one line, exit 1', async () => {
    const busy = createServer();
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
    const { port } = busy.address() as { port: number };
    try {
      const proc = spawn(process.execPath, [BIN, 'provider-emulator', '--port', String(port)], {
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      proc.stdout.on('data', (c) => (out += c));
      proc.stderr.on('data', (c) => (out += c));
      const code = await new Promise<number | null>((resolve) => proc.once('exit', resolve));
      assert.equal(code, 1, out);
      assert.equal(
        out,
        `calebe provider-emulator: port ${port} on 127.0.0.1 is already in use; choose another with --port\n`,
      );
    } finally {
      await new Promise((resolve) => busy.close(resolve));
    }
  });
});
