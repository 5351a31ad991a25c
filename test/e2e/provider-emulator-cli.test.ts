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

  /** Starts `calebe provider-emulator` with these arguments and env; answers its URL and its first two lines. */
  async function start(args: string[], env: Record<string, string> = {}) {
    const port = await freePort();
    const proc = spawn(process.execPath, [BIN, 'provider-emulator', '--port', String(port), ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, ...env },
    });
    child = proc;
    const out = await waitFor(proc, /\n.*\n/);
    return { proc, out, url: `http://127.0.0.1:${port}` };
  }

  async function stop(proc: ChildProcess): Promise<void> {
    const exited = new Promise((resolve) => proc.once('exit', resolve));
    proc.kill('SIGTERM');
    await exited;
  }

  /** The status of GET /_emulator/charges with this Authorization header (none when undefined). */
  async function controlStatus(url: string, authorization?: string): Promise<number> {
    const res = await fetch(`${url}/_emulator/charges`, {
      headers: authorization === undefined ? {} : { authorization },
    });
    await res.arrayBuffer();
    return res.status;
  }

  test('issue 23 item 2.7: --control-token: the control API answers 401 without that bearer token, the wire API is unchanged', async () => {
    const token = 'cli-control-token-0123456789abcdef';
    const { proc, out, url } = await start(['--control-token', token]);
    try {
      assert.match(out, /\ncontrol API token: the one given; send Authorization: Bearer <token>\n$/);
      assert.ok(!out.includes(token), 'a token given is not printed');
      assert.equal(await controlStatus(url), 401);
      assert.equal(await controlStatus(url, 'Bearer wrong-token-0123456789abcdef'), 401);
      assert.equal(await controlStatus(url, token), 401, 'without the Bearer scheme');
      const refused = await fetch(`${url}/_emulator/charges/1/move`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ to: 'paid_boleto' }),
      });
      assert.equal(refused.status, 401);
      assert.match(refused.headers.get('www-authenticate') ?? '', /^Bearer /);
      assert.equal(await controlStatus(url, `Bearer ${token}`), 200);
      const control = emulatorControl(url, token);
      assert.deepEqual(await control.charges('cli-token-1'), []);
      // The wire API answers with its own X-API-KEY check, as before: 401 without a key, not the control's.
      const wire = await fetch(`${url}/payment/v2/Payment`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': 'emu-sandbox-key' },
        body: JSON.stringify({ IsSandbox: true, Reference: 'cli-token-1', PaymentMethod: '6' }),
      });
      assert.notEqual(wire.status, 401);
      await wire.arrayBuffer();
    } finally {
      await stop(proc);
    }
  });

  test('issue 23 item 2.7: EMULATOR_CONTROL_TOKEN works as --control-token', async () => {
    const token = 'env-control-token-0123456789abcdef';
    const { proc, url } = await start([], { EMULATOR_CONTROL_TOKEN: token });
    try {
      assert.equal(await controlStatus(url), 401);
      assert.equal(await controlStatus(url, `Bearer ${token}`), 200);
    } finally {
      await stop(proc);
    }
  });

  test('issue 23 item 2.7: on a non-loopback address without a token, one is generated and printed', async () => {
    const { proc, out, url } = await start(['--host', '0.0.0.0']);
    try {
      const token =
        /\ncontrol API token \(generated; set EMULATOR_CONTROL_TOKEN to choose one\): send Authorization: Bearer (\S+)\n$/.exec(
          out,
        )?.[1];
      assert.ok(token && token.length >= 32, out);
      assert.equal(await controlStatus(url), 401);
      assert.equal(await controlStatus(url, `Bearer ${token}`), 200);
    } finally {
      await stop(proc);
    }
  });

  test('issue 23 item 2.7: a weak control token is refused (exit 2), naming the option', async () => {
    const proc = spawn(
      process.execPath,
      [BIN, 'provider-emulator', '--port', '0', '--control-token', 'aaaaaaaaaaaa'],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let out = '';
    proc.stdout.on('data', (c) => (out += c));
    proc.stderr.on('data', (c) => (out += c));
    const code = await new Promise<number | null>((resolve) => proc.once('exit', resolve));
    assert.equal(code, 2, out);
    assert.match(out, /--control-token \(or EMULATOR_CONTROL_TOKEN\) has 1 distinct characters/);
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
