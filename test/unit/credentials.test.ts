import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'vitest';
import {
  CredentialsDecryptError,
  credentialsKey,
  decryptCredentials,
  encryptCredentials,
} from '../../src/crypto/credentials.ts';

const key = randomBytes(32);
const secret = { api_key: 'sk_live_very_secret' };

describe('provider credentials: AES-256-GCM bound to the provider id (SPEC 5.6, DESIGN.md "Secrets")', () => {
  test('round trip; the ciphertext never contains the secret', () => {
    const sealed = encryptCredentials(key, 'prv_a', secret);
    assert.ok(!sealed.includes('sk_live'));
    assert.deepEqual(decryptCredentials(key, 'prv_a', sealed), secret);
    assert.notEqual(encryptCredentials(key, 'prv_a', secret), sealed, 'a fresh IV per sealing');
  });

  test('issue 23 item 2.3: sealed for hosts (v2), it opens only for those hosts; v1 still opens by id', () => {
    const hosts = ['https://pay.example.test', null] as const;
    const sealed = encryptCredentials(key, 'prv_a', secret, hosts);
    assert.match(sealed, /^v2\./);
    assert.deepEqual(decryptCredentials(key, 'prv_a', sealed, hosts), secret);
    for (const other of [['https://evil.example.test', null], [null, null], ['https://pay.example.test']]) {
      assert.throws(() => decryptCredentials(key, 'prv_a', sealed, other), CredentialsDecryptError);
    }
    assert.throws(() => decryptCredentials(key, 'prv_a', sealed), CredentialsDecryptError);
    assert.throws(() => decryptCredentials(key, 'prv_b', sealed, hosts), CredentialsDecryptError);
    const legacy = encryptCredentials(key, 'prv_a', secret);
    assert.deepEqual(decryptCredentials(key, 'prv_a', legacy, hosts), secret, 'v1: bound to the id only');
  });

  test('another provider id (the associated data) fails', () => {
    const sealed = encryptCredentials(key, 'prv_a', secret);
    assert.throws(() => decryptCredentials(key, 'prv_b', sealed), CredentialsDecryptError);
  });

  test('a wrong key fails (SPEC 5.6: losing the key makes stored secrets unusable)', () => {
    const sealed = encryptCredentials(key, 'prv_a', secret);
    assert.throws(() => decryptCredentials(randomBytes(32), 'prv_a', sealed), CredentialsDecryptError);
  });

  test('tampering with any part fails', () => {
    const sealed = encryptCredentials(key, 'prv_a', secret);
    const parts = sealed.split('.');
    for (const i of [1, 2, 3]) {
      const bytes = Buffer.from(parts[i] ?? '', 'base64url');
      bytes[0] = (bytes[0] ?? 0) ^ 1;
      const forged = parts.map((p, j) => (j === i ? bytes.toString('base64url') : p)).join('.');
      assert.throws(() => decryptCredentials(key, 'prv_a', forged), CredentialsDecryptError, `part ${i}`);
    }
    assert.throws(() => decryptCredentials(key, 'prv_a', `v2${sealed.slice(2)}`), CredentialsDecryptError);
    assert.throws(() => decryptCredentials(key, 'prv_a', 'garbage'), CredentialsDecryptError);
  });

  test('key: configured, generated once into the data dir (0600), or absent with DATABASE_URL', async () => {
    const configured = randomBytes(32).toString('base64');
    assert.deepEqual(
      await credentialsKey({ CREDENTIALS_ENCRYPTION_KEY: configured, CALEBE_DATA_DIR: '/nonexistent' }),
      Buffer.from(configured, 'base64'),
    );
    assert.equal(
      await credentialsKey({ DATABASE_URL: 'postgres://x', CALEBE_DATA_DIR: '/nonexistent' }),
      undefined,
    );
    const dir = await mkdtemp(join(tmpdir(), 'calebe-key-'));
    try {
      // Two "instances" at once agree on one key.
      const [a, b] = await Promise.all([
        credentialsKey({ CALEBE_DATA_DIR: dir }),
        credentialsKey({ CALEBE_DATA_DIR: dir }),
      ]);
      assert.ok(a && b);
      assert.deepEqual(a, b);
      assert.deepEqual(await credentialsKey({ CALEBE_DATA_DIR: dir }), a, 'the file is reused');
      assert.equal((await stat(join(dir, 'credentials.key'))).mode & 0o777, 0o600);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
