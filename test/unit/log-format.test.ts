import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { test } from 'vitest';
import { logDestination } from '../../src/log-format.ts';
import { createLogger } from '../../src/logger.ts';

// Issue 12 item 5 (5): pretty lines on a terminal, JSON on a pipe, LOG_FORMAT overrides the guess.

test('LOG_FORMAT unset: pretty on a terminal, pino JSON otherwise; json|pretty override', () => {
  assert.equal(logDestination(undefined, false), undefined, 'a pipe gets JSON');
  assert.equal(logDestination('json', true), undefined, 'json wins on a terminal');
  assert.ok(logDestination(undefined, true), 'a terminal gets pino-pretty');
  assert.ok(logDestination('pretty', false), 'pretty wins on a pipe');
});

test('the pretty stream writes readable lines, not JSON', async () => {
  let out = '';
  const sink = new Writable({
    write(chunk, _encoding, done) {
      out += chunk;
      done();
    },
  });
  const stream = logDestination('pretty', false, sink);
  assert.ok(stream);
  createLogger('info', stream).info({ port: 3000 }, 'calebe listening');
  assert.match(out, /INFO: calebe listening/);
  assert.throws(() => JSON.parse(out.split('\n')[0] ?? ''));
});
