import assert from 'node:assert/strict';
import { afterAll, beforeAll, describe, test } from 'vitest';
import { asyncProjections } from '../../src/commands/index.ts';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { startTestApp, type TestApp } from '../support/http.ts';

/** The value of one exposition line `name{labels} value`, or undefined when the series is absent. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

/** A GET on the gateway's metrics listener (METRICS_PORT), never the public port. */
async function scrape(app: TestApp, path = '/metrics') {
  const address = app.gateway.http.metricsListener?.address();
  assert.ok(address, 'the metrics listener listens');
  assert.equal(address.address, '127.0.0.1', 'bound to loopback by default');
  const res = await fetch(`http://127.0.0.1:${address.port}${path}`);
  return { status: res.status, headers: res.headers, text: await res.text() };
}

describe('Health, readiness and metrics (SPEC 4.14)', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({ METRICS_PORT: '0' });
  });
  afterAll(() => app.close());

  test('SPEC 4.14: GET /health answers without a key', async () => {
    const res = await app.request('GET', '/health');
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, { status: 'ok' });
  });

  test('SPEC 4.14: GET /ready checks the database and the rate-limit store', async () => {
    const res = await app.request('GET', '/ready');
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, { status: 'ready', checks: { database: 'ok', rate_limiter: 'ok' } });
  });

  test('SPEC 4.14: GET /metrics counts requests by route template and status, and errors', async () => {
    const series = 'calebe_http_requests_total{method="GET",route="/health",status="200"}';
    const before = sample((await scrape(app)).text, series) ?? 0;
    await app.request('GET', '/health');
    const missing = await app.request('GET', '/v1/no-such-route/123');
    assert.equal(missing.status, 404);

    const res = await scrape(app);
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
    assert.equal(sample(res.text, series), before + 1);
    // An unknown path is labelled `unmatched`: clients must not be able to create series at will.
    const notFound = 'calebe_http_errors_total{method="GET",route="unmatched",status="404"}';
    assert.ok((sample(res.text, notFound) ?? 0) >= 1, 'the 404 is counted as an error');
    assert.ok(!res.text.includes('/v1/no-such-route'), 'raw paths never become labels');
    assert.ok(
      sample(res.text, 'calebe_http_request_duration_seconds_count{method="GET",route="/health"}'),
      'the duration histogram has the route',
    );
    assert.match(res.text, /calebe_http_request_duration_seconds_bucket\{le="0\.005",method="GET"/);
    assert.match(res.text, /^calebe_process_cpu_seconds_total /m, 'process metrics');
  });

  test('SPEC 4.14: GET /metrics exposes the projection lag gauge once the async projections ran', async () => {
    for (const projection of asyncProjections) await app.gateway.runner.step(projection);
    const res = await scrape(app);
    assert.match(res.text, /^# TYPE calebe_projection_lag_seconds gauge$/m);
    // Caught up on an empty log: every async projection reports a lag of 0.
    assert.match(res.text, /^calebe_projection_lag_seconds\{projection="[a-z_]+"\} 0$/m);
  });

  test('issue 23 item 2.11: /metrics is not served on the public port (404), only on its own listener', async () => {
    const res = await app.request('GET', '/metrics');
    assert.equal(res.status, 404);
    assert.equal(res.body.error.code, 'not_found');
    assert.ok(!res.text.includes('calebe_http_requests_total'));
    // The listener answers metrics and nothing else: the API is not reachable through it.
    assert.equal((await scrape(app, '/health')).status, 404);
    assert.equal((await scrape(app, '/v1/transactions')).status, 404);
  });

  test('SPEC 4.14: /openapi.json documents /health and /ready; /metrics is not part of the public API', async () => {
    const doc = (await app.request('GET', '/openapi.json')).body;
    assert.ok(doc.paths['/health'].get);
    assert.ok(doc.paths['/ready'].get.responses['503']);
    assert.equal(doc.paths['/metrics'], undefined);
  });
});

describe('METRICS_PORT unset (issue 23 item 2.11)', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp();
  });
  afterAll(() => app.close());

  test('no metrics listener, and the public port still answers 404 to /metrics', async () => {
    assert.equal(app.gateway.http.metricsListener, null);
    assert.equal((await app.request('GET', '/metrics')).status, 404);
  });

  test('METRICS_PORT and METRICS_HOST are validated at start', () => {
    assert.equal(loadConfig({}).METRICS_PORT, undefined);
    assert.equal(loadConfig({ METRICS_PORT: '' }).METRICS_PORT, undefined);
    assert.equal(loadConfig({}).METRICS_HOST, '127.0.0.1');
    assert.equal(loadConfig({ METRICS_PORT: '9464' }).METRICS_PORT, 9464);
    for (const bad of ['-1', '65536', 'nine']) {
      assert.throws(() => loadConfig({ METRICS_PORT: bad }), ConfigError, bad);
    }
  });
});
