import { z } from 'zod';
import { dataEnvelope, errorEnvelope, errorResponses, idParams, listEnvelope } from '../envelopes.ts';
import { LATER, TENANT } from '../examples.ts';
import { operation } from '../operation.ts';
import {
  advanceTestClockBody,
  createTestClockBody,
  testClockListQuery,
  testClockView,
} from '../test-clocks.ts';

/**
 * Test clocks (issue 26 item 6; docs/decisions.md "Subscriptions (issue 26)" → "Test clocks"): test keys
 * only, the key's own tenant only (another tenant's or a descendant's clock is 404).
 */
const TEST_CLOCKS_ROUTE = '/v1/test_clocks';

const CLOCK_ID = 'clock_01jd5b2k8q0s2u4w6y8a0c2e4g';
/**
 * Fixed instants: the Postman collection is generated from these and sends them as is (any start is valid;
 * the target is a month later, within one advance).
 */
const EXAMPLE_START = '2027-01-01T12:00:00.000Z';
const EXAMPLE_TARGET = '2027-02-01T12:00:00.000Z';
const readyClock = {
  id: CLOCK_ID,
  tenant_id: TENANT,
  livemode: false,
  name: 'Assinatura anual: ensaio',
  frozen_time: EXAMPLE_START,
  status: 'ready',
  created_at: LATER,
  updated_at: LATER,
};
const WRITE_SCOPES =
  'one of pix:write, boleto:write or credit_card:write (a clock serves subscriptions of any method; else 403 insufficient_scope)';

/** What a creation or an advance can answer besides its 2xx (the body, the scope, the id, a conflict). */
const WRITE_ERRORS = errorResponses(400, 403, 404, 409, 422);

export const createTestClock = operation({
  method: 'POST',
  path: TEST_CLOCKS_ROUTE,
  // Any one of the subscription write scopes: checked by the handler.
  access: { auth: 'api_key', idempotencyKey: true },
  schema: {
    operationId: 'createTestClock',
    summary: 'Create a test clock (test keys only)',
    description: `Test keys only: a live key gets 403 forbidden. Requires Idempotency-Key (scope: tenant + key, in test mode) and ${WRITE_SCOPES}. 201 new; 200 replay with \`Idempotency-Replayed: true\`; another body under the key is 409 idempotency_conflict; a replay once its clock was deleted is 404 not_found. Attach test-mode subscriptions to it with \`test_clock_id\`; they live in its \`frozen_time\`.`,
    body: createTestClockBody,
    response: {
      200: dataEnvelope(testClockView).meta({
        description: 'Replay: the clock this key created, as it is now',
      }),
      201: dataEnvelope(testClockView).meta({ description: 'Created' }),
      ...WRITE_ERRORS,
    },
  },
  examples: {
    request: { frozen_time: EXAMPLE_START, name: 'Assinatura anual: ensaio' },
    responses: { 200: { data: readyClock }, 201: { data: readyClock } },
  },
});

export const listTestClocks = operation({
  method: 'GET',
  path: TEST_CLOCKS_ROUTE,
  access: { auth: 'api_key', scopes: ['transactions:read'] },
  schema: {
    operationId: 'listTestClocks',
    summary: "List the test clocks of the key's tenant",
    description:
      'Newest first; page with limit and offset as GET /v1/transactions. A live key has none: an empty page.',
    querystring: testClockListQuery,
    response: { 200: listEnvelope(testClockView) },
  },
  examples: { responses: { 200: { data: [readyClock], meta: { limit: 50, offset: 0, count: 1 } } } },
});

export const getTestClock = operation({
  method: 'GET',
  path: `${TEST_CLOCKS_ROUTE}/:id`,
  access: { auth: 'api_key', scopes: ['transactions:read'] },
  schema: {
    operationId: 'getTestClock',
    summary: "A test clock of the key's tenant",
    description:
      "Another tenant's (a descendant's too), a deleted one, or read with a live key: 404 not_found.",
    params: idParams,
    response: { 200: dataEnvelope(testClockView), 404: errorEnvelope },
  },
  examples: { responses: { 200: { data: readyClock } } },
});

export const advanceTestClock = operation({
  method: 'POST',
  path: `${TEST_CLOCKS_ROUTE}/:id/advance`,
  access: { auth: 'api_key' },
  schema: {
    operationId: 'advanceTestClock',
    summary: "Move a test clock's time forward and run its subscriptions up to it",
    description: `Requires ${WRITE_SCOPES}. \`frozen_time\` is the new time: before the current one, or more than 731 days after it, is 422 validation_error; the current time again is a no-op (200) that runs the clock's subscriptions once more, so a retry is safe without an Idempotency-Key. A clock still advancing to another time is 409 conflict. Answers the clock once its subscriptions ran (\`status: ready\`). Another tenant's, a deleted one, or a live key: 404 not_found.`,
    params: idParams,
    body: advanceTestClockBody,
    response: {
      200: dataEnvelope(testClockView),
      ...WRITE_ERRORS,
    },
  },
  examples: {
    request: { frozen_time: EXAMPLE_TARGET },
    responses: { 200: { data: { ...readyClock, frozen_time: EXAMPLE_TARGET } } },
  },
});

export const deleteTestClock = operation({
  method: 'DELETE',
  path: `${TEST_CLOCKS_ROUTE}/:id`,
  access: { auth: 'api_key' },
  schema: {
    operationId: 'deleteTestClock',
    summary: 'Delete a test clock (final: it is 404 afterwards)',
    description: `Requires ${WRITE_SCOPES}. The subscriptions attached to it stay where its time left them and are never scheduled again. Another tenant's, a deleted one, or a live key: 404 not_found.`,
    params: idParams,
    response: {
      204: z.null().meta({ description: 'Deleted' }),
      403: errorEnvelope,
      404: errorEnvelope,
    },
  },
});
