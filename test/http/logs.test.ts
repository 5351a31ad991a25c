import assert from 'node:assert/strict';
import { afterAll, beforeAll, test } from 'vitest';
import { z } from 'zod';
import { dataEnvelope } from '../../src/http/schemas.ts';
import { seedTenantAndKey } from '../support/fixtures.ts';
import { startTestApp, type TestApp } from '../support/http.ts';

/** Issue 3: logs carry the request id and never a key, token, password or card number. */
let app: TestApp;
beforeAll(async () => {
  app = await startTestApp({}, (gw) => {
    gw.http.post(
      '/test/secret-body',
      {
        config: { access: { auth: 'api_key', scopes: ['pix:write'] } },
        schema: {
          body: z.strictObject({ password: z.string(), card_number: z.string() }),
          response: { 200: dataEnvelope(z.object({ ok: z.boolean() })) },
        },
      },
      async () => ({ data: { ok: true } }),
    );
    gw.http.get('/test/boom', { schema: { response: { 200: z.object({}) } } }, async () => {
      throw new Error('database password=hunter2hunter2 leaked in an error message');
    });
  });
});
afterAll(() => app.close());

test('issue 3: log lines carry request_id and no key, token, password or card number', async () => {
  const { key } = await seedTenantAndKey(app.gateway.ctx, { scopes: ['pix:write'] });
  const password = 'correct horse battery staple';
  const card = '4111111111111111';
  const bearer = 'cls_thisIsNotARealTokenButLooksLikeOne000000000';
  const ok = await app.request('POST', '/test/secret-body', {
    headers: { 'x-api-key': key },
    json: { password, card_number: card },
  });
  assert.equal(ok.status, 200);
  await app.request('POST', '/test/secret-body', {
    headers: { 'x-api-key': `${key}x` },
    json: { password, card_number: card },
  });
  await app.request('GET', '/v1/unknown', { headers: { authorization: `Bearer ${bearer}` } });
  const boom = await app.request('GET', '/test/boom');
  assert.equal(boom.status, 500);
  assert.equal(boom.body.error.code, 'internal_error');
  assert.doesNotMatch(boom.text, /hunter2/, '5xx never leak internals');

  const lines = app.logs.filter((l) => l.includes('"request_id"'));
  assert.ok(lines.length >= 8, 'request lines are logged with their request id');
  for (const id of [ok.headers.get('x-request-id'), boom.headers.get('x-request-id')]) {
    assert.ok(
      lines.some((l) => l.includes(`"request_id":"${id}"`)),
      `a line carries ${id}`,
    );
  }
  for (const secret of [key, password, card, bearer]) {
    assert.ok(!app.logs.some((l) => l.includes(secret)), `no log line contains ${secret.slice(0, 6)}…`);
  }
});
