import assert from 'node:assert/strict';
import { afterAll, beforeAll, test } from 'vitest';
import { z } from 'zod';
import { dataEnvelope } from '../../src/contract/envelopes.ts';
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

test('issue 23 item 2.8: query values never reach the log, whatever their name; the names do', async () => {
  const token = 'cls_queryTokenThatMustNotBeLogged0000000000000';
  const apiKey = 'clb_test_queryKeyThatMustNotBeLogged000000000000';
  const other = 'an-ordinary-value-0123456789';
  const requests = [
    `/v1/transactions?token=${token}`,
    `/v1/transactions?api_key=${apiKey}&limit=10`,
    `/admin/users?password=${token}&signature=${other}`,
    `/health?note=${other}`,
    `/v1/transactions?${apiKey}`,
  ];
  for (const url of requests) await app.request('GET', url);
  for (const secret of [token, apiKey, other, encodeURIComponent(token)]) {
    assert.deepEqual(
      app.logs.filter((l) => l.includes(secret)),
      [],
      `no log line contains ${secret.slice(0, 8)}…`,
    );
  }
  const urls = app.logs.map((l) => (JSON.parse(l) as { req?: { url?: string } }).req?.url).filter(Boolean);
  assert.ok(urls.includes('/v1/transactions?token=[redacted]'), urls.join('\n'));
  assert.ok(urls.includes('/v1/transactions?api_key=[redacted]&limit=[redacted]'));
  assert.ok(urls.includes('/admin/users?password=[redacted]&signature=[redacted]'));
  assert.ok(urls.includes('/v1/transactions?[redacted]=[redacted]'), 'a key pasted as a name is dropped');
});
