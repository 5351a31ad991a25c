import assert from 'node:assert/strict';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, test } from 'vitest';
import { boletoBody, pixBody } from '../support/charges.ts';
import { type SeededKey, seedTenantAndKey } from '../support/fixtures.ts';
import { startTestApp, type TestApp, type TestResponse } from '../support/http.ts';

/**
 * Issue 23 item 1.7: every refusal of a charge body or a query is a sentence for the person reading it, naming
 * the field and its rule, through the real routes and schemas (SPEC 1: amounts are integer centavos; SPEC 4.1,
 * 4.2 field rules; SPEC 7 codes unchanged: a wrong type is 400 invalid_json, a value outside its rule 422).
 */

/** zod's own wording, or the strict parser's "expected X": never shown to a person. */
const RAW_VALIDATOR_TEXT =
  /\bexpected\b|\breceived\b|Too (?:small|big)|Invalid (?:input|option|string|ISO)|Unrecognized key|>=|<=/i;
const CENTAVOS = 'in centavos (integer), e.g. 1250 for R$ 12,50';

let app: TestApp;
let key: SeededKey;
let counter = 0;

function post(path: string, json: unknown): Promise<TestResponse> {
  return app.request('POST', path, {
    headers: { 'x-api-key': key.key, 'idempotency-key': `msg-${++counter}` },
    json,
  });
}

function refusal(res: TestResponse, status: number, code: string, param: string): string {
  assert.equal(res.status, status, res.text);
  assert.equal(res.body.error.code, code, res.text);
  assert.equal(res.body.error.param, param, res.text);
  const message = String(res.body.error.message);
  assert.ok(!RAW_VALIDATOR_TEXT.test(message), message);
  return message;
}

beforeAll(async () => {
  // Hundreds of requests from one key: lift the per-key limit (SPEC 8) that would answer 429 first.
  app = await startTestApp({ ENABLE_SIMULATOR: 'true', RATE_LIMIT_PER_MINUTE: '100000' });
  key = await seedTenantAndKey(app.gateway.ctx);
});
afterAll(() => app.close());

describe('issue 23 item 1.7: messages written for the reader (SPEC 1, 4.1, 4.2, 7)', () => {
  test('an amount that is not integer centavos says centavos and gives an example; the code stays 400 invalid_json', async () => {
    for (const amount of ['12.50', '"1250"', '1.25e3', 'true']) {
      const raw = JSON.stringify(pixBody()).replace('"amount":1250', `"amount":${amount}`);
      const res = await app.request('POST', '/v1/pix', {
        headers: { 'x-api-key': key.key, 'idempotency-key': `msg-${++counter}` },
        raw,
      });
      const message = refusal(res, 400, 'invalid_json', 'amount');
      assert.ok(message.startsWith('amount must be'), message);
      assert.ok(message.includes(CENTAVOS), message);
    }
  });

  test('an amount outside 1 to 100000000 names the bound in centavos and in reais; 422 validation_error', async () => {
    const low = refusal(await post('/v1/pix', pixBody({ amount: 0 })), 422, 'validation_error', 'amount');
    assert.equal(low, `amount must be at least 1 centavo (R$ 0,01), ${CENTAVOS}.`);
    const high = refusal(
      await post('/v1/boleto', boletoBody({}, { amount: 100_000_001 })),
      422,
      'validation_error',
      'amount',
    );
    assert.equal(high, `amount must be at most 100000000 centavos (R$ 1.000.000,00), ${CENTAVOS}.`);
  });

  test('a missing field, a wrong type, an unknown field, a text limit, a format and a rule each read as a sentence naming the field', async () => {
    const base = pixBody();
    const { reference: _omitted, ...withoutReference } = base;
    assert.equal(
      refusal(await post('/v1/pix', withoutReference), 422, 'validation_error', 'reference'),
      'reference is required (a string).',
    );
    assert.equal(
      refusal(await post('/v1/pix', pixBody({ reference: 7 })), 400, 'invalid_json', 'reference'),
      'reference must be a string; got an integer.',
    );
    assert.equal(
      refusal(await post('/v1/pix', pixBody({ color: 'blue' })), 400, 'invalid_json', 'color'),
      'Unknown field color: the body accepts only the documented fields.',
    );
    assert.equal(
      refusal(await post('/v1/pix', pixBody({ reference: '   ' })), 422, 'validation_error', 'reference'),
      'reference must be 1 to 100 bytes of UTF-8 after trim.',
    );
    assert.equal(
      refusal(await post('/v1/pix', pixBody({ expires_in: 5 })), 422, 'validation_error', 'expires_in'),
      'expires_in must be 60 to 86400 (or 0).',
    );
    const customer = base.customer as Record<string, unknown>;
    const address = customer.address as Record<string, unknown>;
    assert.equal(
      refusal(
        await post(
          '/v1/pix',
          pixBody({ customer: { ...customer, address: { ...address, zip_code: '123' } } }),
        ),
        422,
        'validation_error',
        'customer.address.zip_code',
      ),
      'customer.address.zip_code: 8 digits.',
    );
    const boleto = boletoBody({ due_date: '31/12/2026' });
    assert.equal(
      refusal(await post('/v1/boleto', boleto), 422, 'validation_error', 'boleto.due_date'),
      'boleto.due_date must be a calendar date written YYYY-MM-DD, e.g. 2026-12-31.',
    );
    assert.equal(
      refusal(
        await post('/v1/boleto', boletoBody({ days_before_cancel: 121 })),
        422,
        'validation_error',
        'boleto.days_before_cancel',
      ),
      'boleto.days_before_cancel must be at most 120.',
    );
  });

  test('query parameters are named as such: an enum lists its values, a bound says it', async () => {
    const get = (query: string) =>
      app.request('GET', `/v1/transactions?${query}`, { headers: { 'x-api-key': key.key } });
    assert.equal(
      refusal(await get('status=done'), 422, 'validation_error', 'query.status'),
      'query parameter status must be one of: processing, pending, paid, expired, failed, unknown, refunded.',
    );
    assert.match(
      refusal(await get('limit=0'), 422, 'validation_error', 'query.limit'),
      /^query parameter limit must be at least 1\.$/,
    );
    assert.equal(
      refusal(await get('colour=red'), 422, 'validation_error', 'query.colour'),
      'Unknown query parameter colour: only the documented ones are accepted.',
    );
  });

  test('a fuzz of 400 bad charge bodies on /v1/pix and /v1/boleto: 400 or 422, each message names its field, no raw validator text', async () => {
    const pix = pixBody();
    const boleto = boletoBody();
    const badValue = fc.oneof(
      fc.constantFrom(null, true, false, 0, -1, 12.5, 1e30, '', ' ', 'x'.repeat(300), [], {}, [1], { a: 1 }),
      fc.string({ maxLength: 20 }),
      fc.integer(),
    );
    /** Paths of the bodies' leaves and objects, to replace one with a bad value or drop it. */
    const paths = (o: Record<string, unknown>, prefix: string[] = []): string[][] =>
      Object.entries(o).flatMap(([k, v]) =>
        v !== null && typeof v === 'object' && !Array.isArray(v)
          ? [[...prefix, k], ...paths(v as Record<string, unknown>, [...prefix, k])]
          : [[...prefix, k]],
      );
    const mutate = (body: Record<string, unknown>, path: string[], value: unknown, drop: boolean) => {
      const copy = structuredClone(body);
      let target = copy as Record<string, unknown>;
      for (const part of path.slice(0, -1)) target = target[part] as Record<string, unknown>;
      const last = path.at(-1) as string;
      if (drop) delete target[last];
      else target[last] = value;
      return copy;
    };
    const cases = fc.oneof(
      fc
        .tuple(fc.constantFrom(...paths(pix)), badValue, fc.boolean())
        .map(([p, v, d]) => ({ path: '/v1/pix', body: mutate(pix, p, v, d) })),
      fc
        .tuple(fc.constantFrom(...paths(boleto)), badValue, fc.boolean())
        .map(([p, v, d]) => ({ path: '/v1/boleto', body: mutate(boleto, p, v, d) })),
    );
    await fc.assert(
      fc.asyncProperty(cases, async ({ path, body }) => {
        const res = await post(path, body);
        if (res.status === 201) return;
        assert.ok([400, 422].includes(res.status), `${res.status} ${res.text}`);
        const message = String(res.body.error.message);
        assert.ok(
          !RAW_VALIDATOR_TEXT.test(message),
          `raw validator text "${message}" for ${JSON.stringify(body)}`,
        );
        // Each refusal names its field (a body-level refusal names none).
        const param = res.body.error.param;
        if (typeof param === 'string' && param !== '') assert.ok(message.includes(param), message);
      }),
      { numRuns: 400 },
    );
  });
});
