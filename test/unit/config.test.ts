import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
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
    const key = randomBytes(32).toString('base64');
    assert.equal(
      loadConfig({ ...env, CREDENTIALS_ENCRYPTION_KEY: key }).PROVIDER_EMULATOR_URL,
      'http://127.0.0.1:4010',
    );
    // The embedded database generates its own credentials key.
    assert.equal(loadConfig({ PROVIDER_EMULATOR_URL: 'http://127.0.0.1:4010' }).DATABASE_URL, undefined);
  });
});

/** The ConfigError of `env`, which must stop the start. */
function refusal(env: Record<string, string>): string {
  try {
    loadConfig(env);
  } catch (e) {
    assert.ok(e instanceof ConfigError, String(e));
    return e.message;
  }
  assert.fail(`started with ${JSON.stringify(env)}`);
}

describe('production mode (issue 23 item 2.7)', () => {
  const emulator = { PROVIDER_EMULATOR_URL: 'http://127.0.0.1:4010' };

  test('CALEBE_ENV, or without it NODE_ENV=production, decides; anything else is development', () => {
    assert.equal(loadConfig({}).CALEBE_ENV, 'development');
    assert.equal(loadConfig({ NODE_ENV: 'test' }).CALEBE_ENV, 'development');
    assert.equal(loadConfig({ NODE_ENV: 'production' }).CALEBE_ENV, 'production');
    assert.equal(loadConfig({ CALEBE_ENV: 'production' }).CALEBE_ENV, 'production');
    assert.equal(loadConfig({ NODE_ENV: 'production', CALEBE_ENV: 'development' }).CALEBE_ENV, 'development');
    assert.match(refusal({ CALEBE_ENV: 'prod' }), /CALEBE_ENV: must be production or development/);
  });

  test('a gateway in production mode refuses to start with PROVIDER_EMULATOR_URL, naming it', () => {
    for (const mode of [{ CALEBE_ENV: 'production' }, { NODE_ENV: 'production' }] as Record<
      string,
      string
    >[]) {
      assert.match(
        refusal({ ...emulator, ...mode }),
        /PROVIDER_EMULATOR_URL: the provider emulator is for development .*production mode/,
      );
    }
    assert.equal(
      loadConfig({ ...emulator, NODE_ENV: 'production', CALEBE_ENV: 'development' }).PROVIDER_EMULATOR_URL,
      'http://127.0.0.1:4010',
    );
  });
});

describe('PROVIDER_ALLOWED_PRIVATE_HOSTS (issue 23 item 2.3)', () => {
  test('host or host:port entries, lower-cased; empty by default; anything else stops the start', () => {
    assert.deepEqual(loadConfig({}).PROVIDER_ALLOWED_PRIVATE_HOSTS, []);
    const config = loadConfig({ PROVIDER_ALLOWED_PRIVATE_HOSTS: ' 127.0.0.1:4010 ,LocalHost,, [::1]:4011' });
    assert.deepEqual(config.PROVIDER_ALLOWED_PRIVATE_HOSTS, ['127.0.0.1:4010', 'localhost', '[::1]:4011']);
    for (const bad of ['http://127.0.0.1:4010', '127.0.0.1:0', '127.0.0.1/8', 'a b']) {
      assert.throws(() => loadConfig({ PROVIDER_ALLOWED_PRIVATE_HOSTS: bad }), ConfigError, bad);
    }
  });

  test('development only: a gateway in production mode refuses to start with it, naming it', () => {
    for (const mode of [{ CALEBE_ENV: 'production' }, { NODE_ENV: 'production' }]) {
      assert.throws(
        () => loadConfig({ PROVIDER_ALLOWED_PRIVATE_HOSTS: '127.0.0.1:4010', ...mode }),
        /PROVIDER_ALLOWED_PRIVATE_HOSTS: .*development only.*production mode/,
      );
    }
    assert.deepEqual(loadConfig({ CALEBE_ENV: 'production' }).PROVIDER_ALLOWED_PRIVATE_HOSTS, []);
  });
});

describe('weak secrets stop the start, naming the variable (issue 23 item 2.8)', () => {
  const DB = 'postgres://postgres@127.0.0.1:5432/postgres';

  test('DOCUMENT_SIGNING_SECRET: 32 spaces, one repeated character or a few distinct ones are refused', () => {
    for (const weak of [' '.repeat(32), '0'.repeat(32), 'ab'.repeat(20), 'abcdefg'.repeat(5)]) {
      assert.match(
        refusal({ DOCUMENT_SIGNING_SECRET: weak }),
        /DOCUMENT_SIGNING_SECRET: /,
        JSON.stringify(weak),
      );
    }
    // Generated the way README says: base64 of 32 bytes, hex of 32 bytes.
    for (const good of [randomBytes(32).toString('base64'), randomBytes(32).toString('hex')]) {
      assert.equal(loadConfig({ DOCUMENT_SIGNING_SECRET: good }).DOCUMENT_SIGNING_SECRET, good);
    }
  });

  test('CREDENTIALS_ENCRYPTION_KEY: all-zero, one repeated byte or few distinct bytes are refused', () => {
    const pairs = Buffer.from(Array.from({ length: 32 }, (_, i) => i % 2));
    const few = Buffer.from(Array.from({ length: 32 }, (_, i) => i % 15));
    for (const weak of [Buffer.alloc(32), Buffer.alloc(32, 0xff), Buffer.alloc(32, 7), pairs, few]) {
      const message = refusal({ DATABASE_URL: DB, CREDENTIALS_ENCRYPTION_KEY: weak.toString('base64') });
      assert.match(message, /CREDENTIALS_ENCRYPTION_KEY: /, weak.toString('hex'));
      assert.doesNotMatch(message, /base64 of exactly 32 bytes/);
    }
    const key = randomBytes(32).toString('base64');
    assert.equal(
      loadConfig({ DATABASE_URL: DB, CREDENTIALS_ENCRYPTION_KEY: key }).CREDENTIALS_ENCRYPTION_KEY,
      key,
    );
  });

  test('BOOTSTRAP_ADMIN_PASSWORD: 12 spaces or a repeated character are refused', () => {
    for (const weak of [' '.repeat(12), 'a'.repeat(20), 'abcabcabcabc']) {
      assert.match(
        refusal({ BOOTSTRAP_ADMIN_EMAIL: 'admin@example.com', BOOTSTRAP_ADMIN_PASSWORD: weak }),
        /BOOTSTRAP_ADMIN_PASSWORD: /,
      );
    }
    const good = randomBytes(24).toString('base64');
    assert.equal(
      loadConfig({ BOOTSTRAP_ADMIN_EMAIL: 'admin@example.com', BOOTSTRAP_ADMIN_PASSWORD: good })
        .BOOTSTRAP_ADMIN_PASSWORD,
      good,
    );
  });

  test("DATABASE_URL: compose's former calebe/calebe and the .env.example placeholder are refused; no password is left alone", () => {
    for (const url of [
      'postgres://calebe:calebe@postgres:5432/calebe',
      'postgres://calebe:replace-me-with-openssl-rand-hex-32@postgres:5432/calebe',
      'postgres://calebe:%20%20%20%20%20%20%20%20@postgres:5432/calebe',
    ]) {
      const message = refusal({ DATABASE_URL: url });
      assert.match(message, /DATABASE_URL: its password /, url);
      assert.ok(!message.includes('replace-me') || url.includes('replace-me'));
    }
    assert.equal(loadConfig({ DATABASE_URL: DB }).DATABASE_URL, DB);
    const good = `postgres://calebe:${randomBytes(32).toString('hex')}@postgres:5432/calebe`;
    assert.equal(loadConfig({ DATABASE_URL: good }).DATABASE_URL, good);
  });

  test('the message names the variable, never its value', () => {
    const secret = 'x'.repeat(40);
    const message = refusal({ DOCUMENT_SIGNING_SECRET: secret });
    assert.ok(!message.includes(secret));
    const url = 'postgres://calebe:calebe@postgres:5432/calebe';
    assert.ok(!refusal({ DATABASE_URL: url }).includes(':calebe@'));
  });
});
