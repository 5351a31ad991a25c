import assert from 'node:assert/strict';
import { describe, test } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.ts';

describe('PROJECTIONS (issue 12 item 3; DESIGN.md "Shape")', () => {
  test('inline by default; async on request; always async with EVENTSTORE_URL; anything else stops the start', () => {
    assert.equal(loadConfig({}).PROJECTIONS, 'inline');
    assert.equal(loadConfig({ PROJECTIONS: 'async' }).PROJECTIONS, 'async');
    assert.equal(loadConfig({ EVENTSTORE_URL: 'esdb://127.0.0.1:2113?tls=false' }).PROJECTIONS, 'async');
    assert.equal(
      loadConfig({ EVENTSTORE_URL: 'esdb://127.0.0.1:2113?tls=false', PROJECTIONS: 'inline' }).PROJECTIONS,
      'async',
    );
    assert.throws(
      () => loadConfig({ PROJECTIONS: 'Async' }),
      (e: Error) => {
        assert.ok(e instanceof ConfigError);
        assert.match(e.message, /PROJECTIONS: must be inline or async/);
        return true;
      },
    );
  });
});
