import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { describe, test } from 'vitest';
import { AeadOpenError, aeadOpen, aeadSeal } from '../../src/crypto/aead.ts';
import { canonicalJson, vaultHash } from '../../src/crypto/vault.ts';

// Issue 22 item 4.4 and docs/decisions.md "Personal-data vault and crypto-shredding": the pure crypto of the
// vault. AES-256-GCM with associated data for both layers; the hash an HMAC-SHA-256 under a key derived
// from the master key by HKDF-SHA-256 (empty salt, info "calebe personal-data-vault hash v1") over the
// data's canonical JSON (RFC 8785 for an object of strings).

/** A refund's bank account (SPEC 4.8 `bank_account`); the document is a valid test CPF. */
const account = {
  holder_name: 'José da Silva',
  holder_document: '52998224725',
  bank_code: '341',
  agency: '0001',
  account: '0012345-6',
};
/** Master key 00 01 02 … 1f. */
const fixedMaster = Buffer.from(Array.from({ length: 32 }, (_, i) => i));

describe('vault AEAD layer (AES-256-GCM with associated data)', () => {
  const key = randomBytes(32);

  test('round trip; a fresh IV each time; the format is v1.<iv>.<ciphertext>.<tag> in base64url', () => {
    const plaintext = Buffer.from(JSON.stringify(account));
    const sealed = aeadSeal(key, 'binding', plaintext);
    assert.match(sealed, /^v1\.[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{22}$/);
    assert.ok(!sealed.includes('52998224725') && !sealed.includes('0012345'));
    assert.deepEqual(aeadOpen(key, 'binding', sealed), plaintext);
    assert.notEqual(aeadSeal(key, 'binding', plaintext), sealed);
  });

  test('other associated data, another key, or any altered part fails to open', () => {
    const sealed = aeadSeal(key, 'binding', Buffer.from('x'));
    assert.throws(() => aeadOpen(key, 'other binding', sealed), AeadOpenError);
    assert.throws(() => aeadOpen(randomBytes(32), 'binding', sealed), AeadOpenError);
    const parts = sealed.split('.');
    for (const i of [1, 2, 3]) {
      const bytes = Buffer.from(parts[i] ?? '', 'base64url');
      bytes[0] = (bytes[0] ?? 0) ^ 1;
      const altered = parts.map((p, j) => (j === i ? bytes.toString('base64url') : p)).join('.');
      assert.throws(() => aeadOpen(key, 'binding', altered), AeadOpenError);
    }
    assert.throws(() => aeadOpen(key, 'binding', `v2.${parts.slice(1).join('.')}`), AeadOpenError);
  });

  test('an opening error carries nothing of the key or the message', () => {
    const sealed = aeadSeal(key, 'binding', Buffer.from(account.account));
    try {
      aeadOpen(randomBytes(32), 'binding', sealed);
      assert.fail('opened with another key');
    } catch (error) {
      const text = `${(error as Error).message} ${(error as Error).stack}`;
      assert.ok(!text.includes(account.account) && !text.includes(key.toString('base64')));
    }
  });
});

describe('vault hash (HMAC-SHA-256 of canonical JSON, key by HKDF from the master key)', () => {
  test('canonical JSON sorts keys by code unit, integer-like keys included, with no whitespace', () => {
    assert.equal(
      canonicalJson({ b: '1', a: '2', '10': 'x', '2': 'y' }),
      '{"10":"x","2":"y","a":"2","b":"1"}',
    );
    assert.equal(
      canonicalJson(account),
      '{"account":"0012345-6","agency":"0001","bank_code":"341","holder_document":"52998224725","holder_name":"José da Silva"}',
    );
  });

  test('known answer, computed by an independent implementation (Python hmac, RFC 5869 HKDF)', () => {
    assert.equal(
      vaultHash(fixedMaster, account),
      '4e6645a86c40ff6c3dc994260bba5acfc0cd975138deeec7998e6c54f80d3c79',
    );
  });

  test('stable for the same data and master key, whatever the key order', () => {
    const master = randomBytes(32);
    const reordered = Object.fromEntries(Object.entries(account).reverse());
    assert.equal(vaultHash(master, account), vaultHash(master, reordered));
    assert.match(vaultHash(master, account), /^[0-9a-f]{64}$/);
  });

  test('differs across master keys and across data; never the plain SHA-256 an attacker could enumerate', () => {
    const a = randomBytes(32);
    const b = randomBytes(32);
    assert.notEqual(vaultHash(a, account), vaultHash(b, account));
    assert.notEqual(vaultHash(a, account), vaultHash(a, { ...account, account: '0012345-7' }));
    const plain = createHash('sha256').update(canonicalJson(account)).digest('hex');
    assert.notEqual(vaultHash(fixedMaster, account), plain);
  });

  test('only objects of strings are data', () => {
    assert.throws(() => vaultHash(fixedMaster, { n: 1 } as unknown as Record<string, string>), TypeError);
    assert.throws(() => vaultHash(fixedMaster, [] as unknown as Record<string, string>), TypeError);
  });
});
