import assert from 'node:assert/strict';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import { type AddressInfo, createServer as createTcpServer } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { afterAll, describe, test } from 'vitest';
import { parseRetryAfter, type SendWebhookInput, sendWebhook } from '../../src/webhooks/http-sender.ts';
import { generateWebhookSecret, webhookHeaders } from '../../src/webhooks/signing.ts';
import type { DestinationPolicy } from '../../src/webhooks/ssrf-guard.ts';

interface Received {
  method: string | undefined;
  url: string | undefined;
  headers: IncomingHttpHeaders;
  body: string;
}

interface Receiver {
  port: number;
  requests: Received[];
  connections: number;
  policy: DestinationPolicy;
  close(): Promise<void>;
}

const receivers: Receiver[] = [];
afterAll(async () => {
  await Promise.all(receivers.map((r) => r.close()));
});

/** A real loopback server; `respond` gets the request after its body has been read. */
async function receiver(respond: (req: IncomingMessage, res: ServerResponse) => void): Promise<Receiver> {
  const requests: Received[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      requests.push({
        method: req.method,
        url: req.url,
        headers: req.headers,
        body: Buffer.concat(chunks).toString(),
      });
      respond(req, res);
    });
  });
  const state = { connections: 0 };
  server.on('connection', () => state.connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const r: Receiver = {
    port,
    requests,
    get connections() {
      return state.connections;
    },
    policy: { allowedPrivateHosts: [`127.0.0.1:${port}`] },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  receivers.push(r);
  return r;
}

const secret = generateWebhookSecret();
const body = JSON.stringify({ type: 'transaction.created', data: { id: 'txn_01', amount: 1250 } });

function input(
  url: string,
  policy: DestinationPolicy,
  extra: Partial<SendWebhookInput> = {},
): SendWebhookInput {
  return {
    url,
    headers: webhookHeaders([secret], 'msg_01', new Date(), body),
    body,
    policy,
    connectTimeoutMs: 2_000,
    timeoutMs: 5_000,
    ...extra,
  };
}

/** Generous: only catches hangs, never timing noise. */
const UPPER_BOUND_MS = 10_000;

describe('SPEC 6 webhook delivery: one attempt over real HTTP', () => {
  test('2xx is delivered, with the exact body and signed headers', async () => {
    const r = await receiver((_req, res) => res.writeHead(204).end());
    const result = await sendWebhook(input(`http://127.0.0.1:${r.port}/hooks/calebe?x=1`, r.policy));
    assert.deepEqual(
      { ...result, durationMs: 0 },
      {
        outcome: 'delivered',
        statusCode: 204,
        durationMs: 0,
        retryAfterSeconds: null,
        error: null,
      },
    );
    assert.ok(result.durationMs >= 0 && result.durationMs < UPPER_BOUND_MS);
    assert.equal(r.requests.length, 1);
    const [got] = r.requests;
    assert.equal(got?.method, 'POST');
    assert.equal(got?.url, '/hooks/calebe?x=1');
    assert.equal(got?.body, body);
    assert.equal(got?.headers['content-type'], 'application/json');
    assert.equal(got?.headers['user-agent'], 'Calebe-Webhooks/1');
    assert.equal(got?.headers['webhook-id'], 'msg_01');
    assert.equal(got?.headers['content-length'], String(Buffer.byteLength(body)));
    assert.equal(got?.headers.host, `127.0.0.1:${r.port}`);
    const headers = Object.fromEntries(
      Object.entries(got?.headers ?? {}).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : (v ?? '')]),
    );
    assert.deepEqual(new Webhook(secret).verify(got?.body ?? '', headers), JSON.parse(body));
  });

  test('the connection is pinned to the checked address; Host keeps the URL name', async () => {
    const r = await receiver((_req, res) => res.writeHead(200).end('ok'));
    const lookups: string[] = [];
    const result = await sendWebhook(
      input(
        `http://hooks.example.test:${r.port}/`,
        { allowedPrivateHosts: [`hooks.example.test:${r.port}`] },
        {
          lookup: async (host) => {
            lookups.push(host);
            return [{ address: '127.0.0.1', family: 4 }];
          },
        },
      ),
    );
    assert.equal(result.outcome, 'delivered');
    assert.deepEqual(lookups, ['hooks.example.test'], 'resolved once, by us; undici reused the answer');
    assert.equal(r.requests[0]?.headers.host, `hooks.example.test:${r.port}`);
  });

  test('https: the TLS handshake goes to the pinned address with the URL name as SNI', async () => {
    // A bare TCP listener: the ClientHello carries the server name in clear; answering garbage ends it.
    let hello: Buffer = Buffer.alloc(0);
    const tcp = createTcpServer((socket) => {
      socket.once('data', (chunk: Buffer) => {
        hello = chunk;
        socket.end('HTTP/1.1 200 OK\r\n\r\n');
      });
    });
    await new Promise<void>((resolve) => tcp.listen(0, '127.0.0.1', resolve));
    afterAll(() => new Promise<void>((resolve) => tcp.close(() => resolve())));
    const port = (tcp.address() as AddressInfo).port;
    const result = await sendWebhook(
      input(
        `https://hooks.example.test:${port}/`,
        { allowedPrivateHosts: [`hooks.example.test:${port}`] },
        { lookup: async () => [{ address: '127.0.0.1', family: 4 }] },
      ),
    );
    assert.equal(result.outcome, 'failed');
    assert.equal(result.statusCode, null);
    assert.ok(result.error && !result.error.includes('127.0.0.1'), String(result.error));
    assert.equal(hello[0], 0x16, 'a TLS handshake record');
    assert.ok(hello.includes('hooks.example.test'), 'SNI names the URL host');
  });

  test('500 fails with a short error, never the body (even a large one)', async () => {
    const r = await receiver((_req, res) =>
      res.writeHead(500).end(`secret stack trace ${'x'.repeat(1 << 20)}`),
    );
    const result = await sendWebhook(input(`http://127.0.0.1:${r.port}/`, r.policy));
    assert.equal(result.outcome, 'failed');
    assert.equal(result.statusCode, 500);
    assert.equal(result.error, 'HTTP 500');
    assert.ok(result.durationMs < UPPER_BOUND_MS);
  });

  test('410 is gone', async () => {
    const r = await receiver((_req, res) => res.writeHead(410).end());
    const result = await sendWebhook(input(`http://127.0.0.1:${r.port}/`, r.policy));
    assert.deepEqual([result.outcome, result.statusCode, result.error], ['gone', 410, 'HTTP 410']);
  });

  test('429 carries Retry-After in seconds; 503 with an HTTP date too', async () => {
    const r = await receiver((_req, res) => res.writeHead(429, { 'retry-after': '120' }).end());
    const limited = await sendWebhook(input(`http://127.0.0.1:${r.port}/`, r.policy));
    assert.deepEqual([limited.outcome, limited.statusCode, limited.retryAfterSeconds], ['failed', 429, 120]);

    const at = new Date(Date.now() + 600_000).toUTCString();
    const u = await receiver((_req, res) => res.writeHead(503, { 'retry-after': at }).end());
    const unavailable = await sendWebhook(input(`http://127.0.0.1:${u.port}/`, u.policy));
    assert.equal(unavailable.statusCode, 503);
    const seconds = unavailable.retryAfterSeconds ?? -1;
    assert.ok(seconds > 500 && seconds <= 601, `${seconds}`);
  });

  test('a receiver that never answers times out within the total budget', async () => {
    const r = await receiver(() => {
      // never responds
    });
    const result = await sendWebhook(
      input(`http://127.0.0.1:${r.port}/`, r.policy, { connectTimeoutMs: 200, timeoutMs: 500 }),
    );
    assert.deepEqual([result.outcome, result.statusCode, result.error], ['failed', null, 'timeout']);
    assert.ok(result.durationMs >= 400 && result.durationMs < UPPER_BOUND_MS, `${result.durationMs}`);
    assert.equal(r.requests.length, 1, 'the request did arrive');
  });

  test('a DNS lookup that never answers also ends with the total budget', async () => {
    const result = await sendWebhook(
      input(
        'https://slow-dns.example.com/',
        { allowedPrivateHosts: [] },
        {
          timeoutMs: 500,
          lookup: () => new Promise(() => undefined),
        },
      ),
    );
    assert.deepEqual([result.outcome, result.error], ['failed', 'timeout']);
    assert.ok(result.durationMs < UPPER_BOUND_MS);
  });

  test('a redirect is not followed', async () => {
    const r = await receiver((req, res) => {
      if (req.url === '/elsewhere') res.writeHead(200).end();
      else res.writeHead(302, { location: `http://127.0.0.1:${r.port}/elsewhere` }).end();
    });
    const result = await sendWebhook(input(`http://127.0.0.1:${r.port}/hook`, r.policy));
    assert.deepEqual([result.outcome, result.statusCode, result.error], ['failed', 302, 'HTTP 302']);
    assert.deepEqual(
      r.requests.map((q) => q.url),
      ['/hook'],
    );
  });

  test('a closed port fails with a connection error', async () => {
    const r = await receiver((_req, res) => res.end());
    const { port, policy } = r;
    await r.close();
    const result = await sendWebhook(input(`http://127.0.0.1:${port}/`, policy));
    assert.deepEqual(
      [result.outcome, result.statusCode, result.error],
      ['failed', null, 'connection refused'],
    );
  });

  test('a loopback URL that is not allowlisted is refused before any connection', async () => {
    const r = await receiver((_req, res) => res.writeHead(200).end());
    const none: DestinationPolicy = { allowedPrivateHosts: [] };
    for (const url of [
      `http://127.0.0.1:${r.port}/`,
      `https://127.0.0.1:${r.port}/`,
      `https://[::ffff:127.0.0.1]:${r.port}/`,
      `https://2130706433:${r.port}/`,
    ]) {
      const result = await sendWebhook(input(url, none));
      assert.equal(result.outcome, 'refused', url);
      assert.equal(result.statusCode, null);
      assert.ok(result.error && result.error.length < 80, String(result.error));
    }
    const otherPort: DestinationPolicy = { allowedPrivateHosts: [`127.0.0.1:${r.port + 1}`] };
    assert.equal((await sendWebhook(input(`http://127.0.0.1:${r.port}/`, otherPort))).outcome, 'refused');
    assert.equal(r.requests.length, 0);
    assert.equal(r.connections, 0);
  });

  test('DNS rebinding: a public name resolving to loopback is refused', async () => {
    const r = await receiver((_req, res) => res.writeHead(200).end());
    const result = await sendWebhook(
      input(
        `https://example.test:${r.port}/`,
        { allowedPrivateHosts: [] },
        {
          lookup: async () => [{ address: '127.0.0.1', family: 4 }],
        },
      ),
    );
    assert.deepEqual([result.outcome, result.error], ['refused', 'host resolves to a loopback address']);
    const mixed = await sendWebhook(
      input(
        'https://example.test/',
        { allowedPrivateHosts: [] },
        {
          lookup: async () => [
            { address: '93.184.215.14', family: 4 },
            { address: '169.254.169.254', family: 4 },
          ],
        },
      ),
    );
    assert.deepEqual([mixed.outcome, mixed.error], ['refused', 'host resolves to a cloud metadata address']);
    assert.equal(r.connections, 0);
  });
});

describe('Retry-After parsing (RFC 9110 10.2.3)', () => {
  const now = new Date('2026-03-01T12:00:00Z');
  test('seconds, HTTP dates, and nonsense', () => {
    assert.equal(parseRetryAfter('30', now), 30);
    assert.equal(parseRetryAfter(' 0 ', now), 0);
    assert.equal(parseRetryAfter(['60', '5'], now), 60);
    assert.equal(parseRetryAfter('Sun, 01 Mar 2026 12:02:00 GMT', now), 120);
    assert.equal(parseRetryAfter('Sunday, 01-Mar-26 12:02:00 GMT', now), 120);
    assert.equal(parseRetryAfter('Sun Mar  1 12:02:00 2026', now), 120);
    assert.equal(parseRetryAfter('Sun, 01 Mar 2026 11:00:00 GMT', now), 0, 'a past date means now');
    for (const bad of [undefined, '', '-5', '1.5', 'soon', '2026-03-01T12:02:00Z', '99999999999999999999']) {
      assert.equal(parseRetryAfter(bad, now), null, String(bad));
    }
  });
});
