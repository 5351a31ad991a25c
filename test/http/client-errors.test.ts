import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, test } from 'vitest';
import { startTestApp, type TestApp } from '../support/http.ts';

/** Sends raw bytes over a fresh TCP connection and reads until the server closes it. */
function rawExchange(baseUrl: string, request: string): Promise<string> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port) });
    const chunks: Buffer[] = [];
    socket.on('data', (c) => chunks.push(c));
    socket.on('error', reject);
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('utf8')));
    socket.write(request);
  });
}

function parseResponse(text: string) {
  const [head = '', body = ''] = text.split('\r\n\r\n', 2);
  const [statusLine = '', ...headerLines] = head.split('\r\n');
  const headers = new Map(
    headerLines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]),
  );
  return { status: Number(statusLine.split(' ')[1]), headers, body: JSON.parse(body) };
}

/**
 * Issue 12 item 4: a request Node's HTTP parser refuses (a NUL in a header value, which fetch cannot send)
 * never reaches a route; it still gets the SPEC 7 envelope and the SPEC 2.1 X-Request-ID header.
 */
describe('Issue 12 item 4: malformed requests get the SPEC 7 envelope (SPEC 2.1, 7)', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp();
  });
  afterAll(() => app.close());

  for (const [name, header] of [
    ['X-API-Key', 'X-API-Key: cal_test_abc\u0000def'],
    ['Idempotency-Key', 'Idempotency-Key: key\u0000one'],
    ['Authorization', 'Authorization: Bearer cls_abc\u0000'],
  ] as const) {
    test(`SPEC 7: a NUL in the ${name} header is 400 invalid_json with request_id and X-Request-ID`, async () => {
      const text = await rawExchange(
        app.baseUrl,
        `GET /v1/transactions HTTP/1.1\r\nHost: localhost\r\n${header}\r\n\r\n`,
      );
      const res = parseResponse(text);
      assert.equal(res.status, 400, text);
      assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
      const id = res.headers.get('x-request-id');
      assert.match(id ?? '', /^req_[0-9a-z]{26}$/, text);
      assert.deepEqual(Object.keys(res.body), ['error']);
      assert.equal(res.body.error.code, 'invalid_json');
      assert.equal(res.body.error.request_id, id);
      assert.equal(typeof res.body.error.message, 'string');
      assert.ok(
        app.logs.some((l) => l.includes(`"request_id":"${id}"`)),
        'the refusal is logged with its request id',
      );
      assert.ok(!app.logs.some((l) => l.includes('abc\\u0000')), 'the raw header is not logged');
    });
  }

  test('SPEC 7: a request line the parser cannot read gets the envelope too', async () => {
    const res = parseResponse(await rawExchange(app.baseUrl, 'NOT A REQUEST\r\n\r\n'));
    assert.equal(res.status, 400);
    assert.equal(res.body.error.code, 'invalid_json');
    assert.equal(res.body.error.request_id, res.headers.get('x-request-id'));
  });

  test('issue 23 item 1.7: the message says what could not be read (a header, the request line), the code stays invalid_json', async () => {
    const header = parseResponse(
      await rawExchange(
        app.baseUrl,
        'GET /v1/transactions HTTP/1.1\r\nHost: localhost\r\nX-API-Key: a\u0000b\r\n\r\n',
      ),
    );
    const line = parseResponse(await rawExchange(app.baseUrl, 'NOT A REQUEST\r\n\r\n'));
    for (const res of [header, line]) {
      assert.equal(res.status, 400);
      assert.equal(res.body.error.code, 'invalid_json');
    }
    assert.match(header.body.error.message, /header/);
    assert.match(header.body.error.message, /control character such as NUL/);
    assert.match(line.body.error.message, /request line/);
    assert.match(line.body.error.message, /HTTP\/1\.1/);
    // The header's content (it may be a credential) is never echoed.
    assert.ok(!header.body.error.message.includes('a\u0000b'));
    const big = parseResponse(
      await rawExchange(
        app.baseUrl,
        `GET /v1/transactions HTTP/1.1\r\nHost: localhost\r\nX-Pad: ${'a'.repeat(20_000)}\r\n\r\n`,
      ),
    );
    assert.equal(big.status, 413);
    assert.equal(big.body.error.code, 'request_too_large');
    assert.match(big.body.error.message, /headers are too large/);
  });
});
