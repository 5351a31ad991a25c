import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { describe, test } from 'vitest';

/**
 * Issue 23 item 1.1: the gateway is Apache-2.0 and the SDK MIT, and every place that states a licence
 * says the same (LICENSE files, package.json, the tarball's files). The expected texts come from outside
 * the project: the SHA-256 of apache.org's LICENSE-2.0.txt, and the MIT text as zod ships it.
 */

const APACHE_2_0_SHA256 = 'cfc7749b96f63bd31c3c42b5c471bf756814053e847c10f3eb003417bc523d30';

const json = (path: string) => JSON.parse(readFileSync(path, 'utf8'));
/** A licence without its copyright line(s): what is the same in every copy of the MIT License. */
const withoutCopyright = (text: string) =>
  text
    .split('\n')
    .filter((line) => !line.startsWith('Copyright'))
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();

describe('issue 23 item 1.1: the licence', () => {
  test('LICENSE is the unmodified Apache License 2.0 text and package.json says Apache-2.0', () => {
    const license = readFileSync('LICENSE');
    assert.equal(createHash('sha256').update(license).digest('hex'), APACHE_2_0_SHA256);
    assert.equal(json('package.json').license, 'Apache-2.0');
    // The Apache 2.0 attribution notice names the licence of each part.
    const notice = readFileSync('NOTICE', 'utf8');
    assert.match(notice, /Apache License, Version 2\.0/);
    assert.match(notice, /sdk\/.*MIT License/s);
  });

  test('sdk/LICENSE is the MIT License and sdk/package.json says MIT, with LICENSE in its files', () => {
    const sdk = readFileSync('sdk/LICENSE', 'utf8');
    assert.match(sdk, /^MIT License\n\nCopyright \(c\) \d{4} \S/);
    const zodLicense = join(dirname(createRequire(import.meta.url).resolve('zod/package.json')), 'LICENSE');
    assert.equal(withoutCopyright(sdk), withoutCopyright(readFileSync(zodLicense, 'utf8')));
    const pkg = json('sdk/package.json');
    assert.equal(pkg.license, 'MIT');
    assert.ok(pkg.files.includes('LICENSE'), 'the tarball carries the licence text');
  });

  test('nothing still says UNLICENSED or "no license granted"', () => {
    for (const file of ['package.json', 'sdk/package.json', 'src/http/openapi.ts', 'README.md']) {
      const text = readFileSync(file, 'utf8');
      assert.doesNotMatch(text, /UNLICENSED|no license granted/i, file);
    }
  });
});
