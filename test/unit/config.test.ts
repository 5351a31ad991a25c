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

describe('PROVIDER_EMULATOR_URL (issue 13 item 3; docs/decisions.md "The gateway against the provider emulator")', () => {
  test('unset or blank is off; an http(s) base URL is kept without its trailing slashes', () => {
    assert.equal(loadConfig({}).PROVIDER_EMULATOR_URL, undefined);
    assert.equal(loadConfig({ PROVIDER_EMULATOR_URL: ' ' }).PROVIDER_EMULATOR_URL, undefined);
    assert.equal(
      loadConfig({ PROVIDER_EMULATOR_URL: 'http://127.0.0.1:4010/' }).PROVIDER_EMULATOR_URL,
      'http://127.0.0.1:4010',
    );
    assert.equal(
      loadConfig({ PROVIDER_EMULATOR_URL: 'https://emulator.example.com' }).PROVIDER_EMULATOR_URL,
      'https://emulator.example.com',
    );
  });

  test('anything but an http(s) URL stops the start, naming the variable', () => {
    for (const bad of ['127.0.0.1:4010', 'ftp://127.0.0.1:4010', 'not a url']) {
      assert.throws(
        () => loadConfig({ PROVIDER_EMULATOR_URL: bad }),
        (e: Error) =>
          e instanceof ConfigError && /PROVIDER_EMULATOR_URL: must be the http\(s\) base URL/.test(e.message),
        bad,
      );
    }
  });

  test('with DATABASE_URL it needs CREDENTIALS_ENCRYPTION_KEY: the emulator key is a sealed credential (SPEC 5.6)', () => {
    const env = { PROVIDER_EMULATOR_URL: 'http://127.0.0.1:4010', DATABASE_URL: 'postgres://db/calebe' };
    assert.throws(
      () => loadConfig(env),
      (e: Error) =>
        e instanceof ConfigError && /PROVIDER_EMULATOR_URL: .*CREDENTIALS_ENCRYPTION_KEY/.test(e.message),
    );
    const key = Buffer.alloc(32, 1).toString('base64');
    assert.equal(
      loadConfig({ ...env, CREDENTIALS_ENCRYPTION_KEY: key }).PROVIDER_EMULATOR_URL,
      'http://127.0.0.1:4010',
    );
    // The embedded database generates its own credentials key.
    assert.equal(loadConfig({ PROVIDER_EMULATOR_URL: 'http://127.0.0.1:4010' }).DATABASE_URL, undefined);
  });
});
