import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { afterAll, beforeAll, describe, test } from 'vitest';
import { PAYER_ADDRESS } from '../../test/support/charges.ts';
import { Calebe, CalebeConnectionError, CalebeRedirectError } from '../src/index.ts';

/**
 * Issue 23 item 2.6: fetch drops `Authorization` when a redirect changes origin but keeps custom headers,
 * so an SDK that follows redirects hands `X-API-Key` to whatever host the `Location` names. Two real HTTP
 * servers on loopback: the first answers every request with a redirect to the second (another port, so
 * another origin), which records every request it receives. The key must never arrive there; the SDK
 * answers the redirect with a CalebeRedirectError naming it.
 */

const API_KEY = `clb_test_${'k'.repeat(40)}`;
const SESSION = `cls_${'s'.repeat(40)}`;

interface Received {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
}

let redirector: Server;
let elsewhere: Server;
let received: Received[];
let redirectStatus: number;
let redirectorUrl: string;
let elsewhereUrl: string;

function listen(server: Server): Promise<string> {
  return new Promise((done) => {
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      done(`http://127.0.0.1:${port}`);
    });
  });
}

const close = (server: Server | undefined) =>
  new Promise<void>((done) => {
    if (!server) return done();
    server.closeAllConnections();
    server.close(() => done());
  });

beforeAll(async () => {
  received = [];
  // The other origin answers as the gateway would, so a client that followed the redirect would succeed.
  elsewhere = createServer((req, res) => {
    received.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers });
    req.resume();
    res.writeHead(200, { 'content-type': 'application/json', 'x-request-id': 'req_elsewhere' });
    res.end(JSON.stringify({ data: { id: 'txn_elsewhere' } }));
  });
  elsewhereUrl = await listen(elsewhere);
  redirector = createServer((req, res) => {
    req.resume();
    res.writeHead(redirectStatus, { location: `${elsewhereUrl}${req.url}` });
    res.end();
  });
  redirectorUrl = await listen(redirector);
});

afterAll(async () => {
  await close(redirector);
  await close(elsewhere);
});

/** The error a promise rejects with, which must be a CalebeRedirectError. */
async function redirectError(promise: Promise<unknown>): Promise<CalebeRedirectError> {
  const error = await promise.then(
    () => assert.fail('expected a CalebeRedirectError'),
    (e: unknown) => e,
  );
  assert.ok(error instanceof CalebeRedirectError, String(error));
  return error;
}

const pix = {
  amount: 1250,
  reference: 'order-redirect',
  description: 'Pedido 1',
  customer: {
    name: 'Maria Silva',
    phone: '11987654321',
    address: PAYER_ADDRESS,
  },
};

describe('issue 23 item 2.6: the SDK follows no redirect with a credential', () => {
  for (const status of [301, 302, 303, 307, 308]) {
    test(`${status} on a read and on a creation: nothing reaches the other origin, a CalebeRedirectError`, async () => {
      redirectStatus = status;
      received = [];
      const calebe = new Calebe({ baseUrl: redirectorUrl, apiKey: API_KEY });

      const read = await redirectError(calebe.getTransaction('txn_01JABCDEFGHJKMNPQRSTVWXYZ0'));
      assert.equal(read.status, status);
      assert.equal(read.location, `${elsewhereUrl}/v1/transactions/txn_01JABCDEFGHJKMNPQRSTVWXYZ0`);
      assert.ok(
        read instanceof CalebeConnectionError,
        'the outcome is unknown, as for any answer not from the gateway',
      );
      assert.match(read.message, new RegExp(`${status} redirect to ${elsewhereUrl}/v1/transactions/`));

      const create = await redirectError(calebe.createPix(pix, { idempotencyKey: randomUUID() }));
      assert.equal(create.status, status);
      assert.equal(create.location, `${elsewhereUrl}/v1/pix`);

      assert.deepEqual(received, [], 'no request, and so no X-API-Key, reached the redirect target');
    });
  }

  test('the low-level request and a panel session token are not followed either', async () => {
    redirectStatus = 307;
    received = [];
    const calebe = new Calebe({ baseUrl: redirectorUrl, apiKey: API_KEY, sessionToken: SESSION });
    await redirectError(
      calebe.request({ method: 'POST', path: '/v1/pix', body: '{}', idempotencyKey: 'k-1' }),
    );
    await redirectError(calebe.listTenants({ limit: 10 }));
    assert.deepEqual(received, []);
  });

  test('without a redirect the same server is reached with the key (the test servers are sound)', async () => {
    received = [];
    const direct = new Calebe({ baseUrl: elsewhereUrl, apiKey: API_KEY });
    const res = await direct.getTransaction('txn_01JABCDEFGHJKMNPQRSTVWXYZ0');
    assert.equal(res.status, 200);
    assert.equal(received.length, 1);
    assert.equal(received[0]?.headers['x-api-key'], API_KEY);
  });
});
