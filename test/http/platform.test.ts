import assert from 'node:assert/strict';
import { afterAll, beforeAll, describe, test } from 'vitest';
import { z } from 'zod';
import { dataEnvelope } from '../../src/contract/envelopes.ts';
import { startTestApp, type TestApp } from '../support/http.ts';

/** A documented test-only route taking a strict body, to exercise the platform without a business endpoint. */
const echoBody = z.strictObject({
  amount: z.number().int().min(1).max(100_000_000),
  reference: z.string().min(1),
  customer: z.strictObject({ name: z.string() }).optional(),
});

describe('HTTP platform: envelope, request id, strict JSON (SPEC 2.1, 4 common rules, 7, 8)', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({}, (gw) => {
      gw.http.post(
        '/test/echo',
        { schema: { body: echoBody, response: { 200: dataEnvelope(echoBody) } } },
        async (req) => ({ data: req.body }),
      );
    });
  });
  afterAll(() => app.close());

  test('SPEC 2.1: every response carries X-Request-ID, also in the error envelope', async () => {
    const ok = await app.request('POST', '/test/echo', { json: { amount: 1250, reference: 'r1' } });
    assert.equal(ok.status, 200);
    assert.match(ok.headers.get('x-request-id') ?? '', /^req_[0-9a-z]{26}$/);
    const bad = await app.request('POST', '/test/echo', { raw: '{"amount": 1}{' });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.error.request_id, bad.headers.get('x-request-id'));
  });

  test('a client-sent X-Request-ID is not trusted', async () => {
    const res = await app.request('GET', '/health', { headers: { 'x-request-id': 'client-chosen-id' } });
    assert.notEqual(res.headers.get('x-request-id'), 'client-chosen-id');
  });

  test('SPEC 7 invalid_json: malformed, null, arrays, two values, duplicates, case variants', async () => {
    for (const raw of [
      '{',
      'null',
      '[]',
      '{"amount":1,"reference":"a"} {}',
      '{"amount":1,"amount":2,"reference":"a"}',
      '{"amount":1,"Amount":2,"reference":"a"}',
    ]) {
      const res = await app.request('POST', '/test/echo', { raw });
      assert.equal(res.status, 400, raw);
      assert.equal(res.body.error.code, 'invalid_json', raw);
    }
  });

  test('SPEC 7 invalid_json: unknown fields and integers written as fractions, exponents or strings', async () => {
    for (const raw of [
      '{"amount":1250,"reference":"a","extra":1}',
      '{"amount":1250,"reference":"a","customer":{"name":"x","nick":"y"}}',
      '{"amount":1250.0,"reference":"a"}',
      '{"amount":12.5,"reference":"a"}',
      '{"amount":1e3,"reference":"a"}',
      '{"amount":"1250","reference":"a"}',
    ]) {
      const res = await app.request('POST', '/test/echo', { raw });
      assert.equal(res.status, 400, raw);
      assert.equal(res.body.error.code, 'invalid_json', raw);
    }
  });

  test('SPEC 7 validation_error: a missing field or a value outside its rule is 422 with the field named', async () => {
    const missing = await app.request('POST', '/test/echo', { json: { amount: 1 } });
    assert.equal(missing.status, 422);
    assert.equal(missing.body.error.code, 'validation_error');
    assert.equal(missing.body.error.param, 'reference');
    const range = await app.request('POST', '/test/echo', { json: { amount: 0, reference: 'a' } });
    assert.equal(range.status, 422);
    assert.equal(range.body.error.param, 'amount');
  });

  test('SPEC 8: a body over 1 MiB is 413 request_too_large in the envelope', async () => {
    const big = `{"amount":1,"reference":"${'x'.repeat(1024 * 1024)}"}`;
    const res = await app.request('POST', '/test/echo', { raw: big });
    assert.equal(res.status, 413);
    assert.equal(res.body.error.code, 'request_too_large');
  });

  test('a non-JSON content type is invalid_json', async () => {
    const res = await app.request('POST', '/test/echo', {
      raw: 'amount=1',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    assert.equal(res.status, 400);
    assert.equal(res.body.error.code, 'invalid_json');
  });

  test('unknown endpoints answer the 404 envelope', async () => {
    const res = await app.request('GET', '/v1/nothing-here');
    assert.equal(res.status, 404);
    assert.equal(res.body.error.code, 'not_found');
  });

  test('unreadable URLs (bad percent-encoding, a path parameter over 100 characters) answer the 404 envelope', async () => {
    for (const path of ['/v1/transactions/%C0%AF', `/v1/transactions/txn_${'a'.repeat(200)}`]) {
      const res = await app.request('GET', path);
      assert.equal(res.status, 404, `${path}: ${res.text}`);
      assert.equal(res.body.error.code, 'not_found');
      assert.equal(res.body.error.request_id, res.headers.get('x-request-id'));
    }
  });

  test('SPEC 9: /openapi.json is OpenAPI 3.1 with info.version 0.4.0 and both security schemes', async () => {
    const res = await app.request('GET', '/openapi.json');
    assert.equal(res.body.openapi, '3.1.0');
    assert.equal(res.body.info.version, '0.4.0');
    assert.deepEqual(Object.keys(res.body.components.securitySchemes).sort(), ['ApiKey', 'Session']);
    assert.ok(res.body.components.schemas.ErrorEnvelope);
    const docs = await app.request('GET', '/docs');
    assert.ok([200, 302].includes(docs.status));
  });
});
