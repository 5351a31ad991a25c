import assert from 'node:assert/strict';
import { describe, test } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.ts';
import {
  checkDestinationSyntax,
  type DestinationPolicy,
  destinationPolicy,
  forbiddenAddress,
  resolveDestination,
} from '../../src/webhooks/ssrf-guard.ts';

const NONE: DestinationPolicy = { allowedPrivateHosts: [] };
const PUBLIC_V4 = '93.184.215.14';
const PUBLIC_V6 = '2606:2800:21f:cb07:6820:80da:af6b:8b2c';

function answers(...addresses: string[]) {
  return async () => addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
}

describe('SPEC 6 webhook destinations: address classification', () => {
  const forbidden: [string, string][] = [
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['10.0.0.1', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['100.64.0.1', 'carrier-grade NAT'],
    ['100.127.255.255', 'carrier-grade NAT'],
    ['169.254.1.1', 'link-local'],
    ['169.254.169.254', 'cloud metadata'],
    ['100.100.100.200', 'cloud metadata'],
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'unspecified'],
    ['255.255.255.255', 'broadcast'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['192.0.2.10', 'reserved'],
    ['198.18.0.1', 'reserved'],
    ['240.0.0.1', 'reserved'],
    ['::1', 'loopback'],
    ['::', 'unspecified'],
    ['fe80::1', 'link-local'],
    ['fe80::1%eth0', 'link-local'],
    ['fc00::1', 'private'],
    ['fd12:3456::1', 'private'],
    ['fd00:ec2::254', 'cloud metadata'],
    ['ff02::1', 'multicast'],
    ['2001:db8::1', 'reserved'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::ffff:10.1.2.3', 'private'],
    ['::ffff:169.254.169.254', 'cloud metadata'],
    ['64:ff9b::127.0.0.1', 'loopback'],
    ['64:ff9b::a9fe:a9fe', 'cloud metadata'],
    ['::127.0.0.1', 'reserved'],
    ['::8.8.8.8', 'reserved'],
    ['2002:7f00:1::1', 'reserved'],
    ['2001::1', 'reserved'],
    ['0x7f.1', 'invalid'],
    ['not an ip', 'invalid'],
  ];
  for (const [address, kind] of forbidden) {
    test(`${address} is refused (${kind})`, () => {
      const reason = forbiddenAddress(address);
      assert.ok(reason?.includes(kind), `${address}: ${reason}`);
    });
  }

  for (const address of [PUBLIC_V4, '8.8.8.8', '1.1.1.1', '100.63.255.255', '172.32.0.1', PUBLIC_V6]) {
    test(`${address} is public`, () => assert.equal(forbiddenAddress(address), null));
  }

  test('IPv4-mapped and NAT64 forms of a public address are public', () => {
    assert.equal(forbiddenAddress('::ffff:8.8.8.8'), null);
    assert.equal(forbiddenAddress('64:ff9b::808:808'), null);
  });
});

describe('SPEC 6 webhook destinations: URL syntax (no DNS)', () => {
  // The WHATWG parser normalizes every IPv4 spelling to dotted decimal; the check runs on that result.
  const refused: [string, string][] = [
    ['http://example.com/hook', 'https'],
    ['ftp://example.com/', 'https'],
    ['javascript:alert(1)', 'https'],
    ['not a url', 'valid URL'],
    ['https://user:secret@example.com/', 'credentials'],
    ['https://user@example.com/', 'credentials'],
    ['https://127.0.0.1/', 'loopback'],
    ['https://2130706433/', 'loopback'],
    ['https://0x7f.1/', 'loopback'],
    ['https://0x7f000001/', 'loopback'],
    ['https://0177.0.0.1/', 'loopback'],
    ['https://127.1/', 'loopback'],
    ['https://127.0.0.1./', 'loopback'],
    ['https://%31%32%37.0.0.1/', 'loopback'],
    ['https://１２７.０.０.１/', 'loopback'],
    ['https://[::1]/', 'loopback'],
    ['https://[::ffff:127.0.0.1]/', 'loopback'],
    ['https://[0:0:0:0:0:ffff:a9fe:a9fe]/', 'cloud metadata'],
    ['https://169.254.169.254/latest/meta-data/', 'cloud metadata'],
    ['https://[fd00:ec2::254]/', 'cloud metadata'],
    ['https://100.100.100.200/', 'cloud metadata'],
    ['https://10.0.0.5:8443/', 'private'],
    ['https://0/', 'unspecified'],
    ['https://[fe80::1]/', 'link-local'],
    ['https://localhost/', 'loopback'],
    ['https://LOCALHOST./', 'loopback'],
    ['https://api.localhost/', 'loopback'],
    [`https://example.com/${'a'.repeat(2100)}`, 'longer'],
  ];
  for (const [url, why] of refused) {
    test(`${url.slice(0, 60)} is refused (${why})`, () => {
      const result = checkDestinationSyntax(url, NONE);
      assert.equal(result.ok, false);
      assert.ok(!result.ok && result.reason.includes(why), JSON.stringify(result));
    });
  }

  test('http://2130706433/ is refused: not https, and loopback once normalized', () => {
    assert.equal(new URL('http://2130706433/').hostname, '127.0.0.1');
    assert.deepEqual(checkDestinationSyntax('http://2130706433/', NONE), {
      ok: false,
      reason: 'URL must use https',
    });
    const allowedHttp: DestinationPolicy = { allowedPrivateHosts: ['2130706433'] };
    assert.equal(
      checkDestinationSyntax('http://2130706433/', allowedHttp).ok,
      false,
      'allowlist entries are compared with the normalized host, not the spelling',
    );
  });

  test('issue 23 item 2.9: an explicit port 0 (which WHATWG keeps) is refused, also for an allowlisted host', () => {
    assert.deepEqual(checkDestinationSyntax('https://hooks.example.com:0/x', NONE), {
      ok: false,
      reason: 'URL port 0 is not a destination',
    });
    const policy = { allowedPrivateHosts: ['127.0.0.1'] };
    assert.equal(checkDestinationSyntax('http://127.0.0.1:0/hook', policy).ok, false);
  });

  test('public https URLs pass and come back parsed', () => {
    for (const url of [
      'https://example.com/hooks?x=1',
      `https://${PUBLIC_V4}:8443/`,
      `https://[${PUBLIC_V6}]/`,
    ]) {
      const result = checkDestinationSyntax(url, NONE);
      assert.ok(result.ok, url);
      assert.equal(result.url.href, new URL(url).href);
    }
  });

  test('the allowlist admits exact host or host:port, and http only for those', () => {
    const policy: DestinationPolicy = { allowedPrivateHosts: ['127.0.0.1:4000', 'localhost', '[::1]:8080'] };
    assert.ok(checkDestinationSyntax('http://127.0.0.1:4000/hook', policy).ok);
    assert.ok(checkDestinationSyntax('https://127.0.0.1:4000/hook', policy).ok);
    assert.ok(checkDestinationSyntax('http://localhost:9999/', policy).ok, 'a bare host admits any port');
    assert.ok(checkDestinationSyntax('http://[::1]:8080/', policy).ok);
    assert.ok(!checkDestinationSyntax('http://127.0.0.1:4001/hook', policy).ok, 'another port');
    assert.ok(!checkDestinationSyntax('https://127.0.0.2:4000/', policy).ok, 'another address');
    assert.ok(!checkDestinationSyntax('http://example.com/', policy).ok, 'http stays refused elsewhere');
    const defaultPort: DestinationPolicy = { allowedPrivateHosts: ['127.0.0.1:80'] };
    assert.ok(checkDestinationSyntax('http://127.0.0.1/', defaultPort).ok, 'the default port counts');
  });

  test('metadata addresses stay refused even when allowlisted', () => {
    const policy: DestinationPolicy = { allowedPrivateHosts: ['169.254.169.254'] };
    assert.ok(!checkDestinationSyntax('http://169.254.169.254/', policy).ok);
  });
});

describe('SPEC 6 webhook destinations: after DNS', () => {
  test('a public answer resolves and pins that address', async () => {
    const result = await resolveDestination('https://hooks.example.com/x', NONE, answers(PUBLIC_V4));
    assert.deepEqual(result.ok && [result.address, result.family, result.url.hostname], [
      PUBLIC_V4,
      4,
      'hooks.example.com',
    ]);
    const v6 = await resolveDestination('https://hooks.example.com/x', NONE, answers(PUBLIC_V6));
    assert.ok(v6.ok && v6.address === PUBLIC_V6 && v6.family === 6);
  });

  test('refused if ANY answer is private, whatever the order', async () => {
    for (const list of [
      [PUBLIC_V4, '10.0.0.1'],
      ['127.0.0.1', PUBLIC_V4],
      [PUBLIC_V6, '::1'],
      [PUBLIC_V4, '::ffff:169.254.169.254'],
    ]) {
      const result = await resolveDestination('https://rebind.example.com/', NONE, answers(...list));
      assert.equal(result.ok, false, list.join(','));
      assert.match(!result.ok ? result.reason : '', /^host resolves to /);
    }
  });

  test('a name resolving to loopback is refused (DNS rebinding), and the reason names no address', async () => {
    const result = await resolveDestination('https://example.test/', NONE, answers('127.0.0.1'));
    assert.deepEqual(result, { ok: false, reason: 'host resolves to a loopback address' });
  });

  test('IP literals skip DNS', async () => {
    const result = await resolveDestination(`https://${PUBLIC_V4}/`, NONE, async () => {
      throw new Error('lookup must not be called');
    });
    assert.ok(result.ok && result.address === PUBLIC_V4);
    const literal6 = await resolveDestination(`https://[${PUBLIC_V6}]/`, NONE, async () => []);
    assert.ok(literal6.ok && literal6.address === PUBLIC_V6 && literal6.family === 6);
  });

  test('DNS failures and empty answers are refused with a short reason', async () => {
    const notFound = Object.assign(new Error('getaddrinfo ENOTFOUND nope.example'), { code: 'ENOTFOUND' });
    assert.deepEqual(
      await resolveDestination('https://nope.example/', NONE, async () => {
        throw notFound;
      }),
      { ok: false, reason: 'host not found' },
    );
    assert.deepEqual(await resolveDestination('https://nope.example/', NONE, async () => []), {
      ok: false,
      reason: 'host not found',
    });
    assert.deepEqual(
      await resolveDestination('https://nope.example/', NONE, async () => {
        throw Object.assign(new Error('boom'), { code: 'ESERVFAIL' });
      }),
      { ok: false, reason: 'DNS lookup failed' },
    );
  });

  test('syntax failures come first, without a lookup', async () => {
    let called = false;
    const result = await resolveDestination('http://example.com/', NONE, async () => {
      called = true;
      return [];
    });
    assert.deepEqual(result, { ok: false, reason: 'URL must use https' });
    assert.equal(called, false);
  });

  test('an allowlisted name may resolve to loopback, but never to a metadata address', async () => {
    const policy: DestinationPolicy = { allowedPrivateHosts: ['receiver.internal:8080'] };
    const ok = await resolveDestination('http://receiver.internal:8080/', policy, answers('127.0.0.1'));
    assert.ok(ok.ok && ok.address === '127.0.0.1');
    const metadata = await resolveDestination(
      'http://receiver.internal:8080/',
      policy,
      answers('169.254.169.254'),
    );
    assert.deepEqual(metadata, { ok: false, reason: 'host resolves to a cloud metadata address' });
  });

  test('the default lookup resolves real names (localhost is loopback)', async () => {
    const result = await resolveDestination('https://localhost/', NONE);
    assert.equal(result.ok, false);
    const allowed = await resolveDestination('http://localhost:1/', { allowedPrivateHosts: ['localhost'] });
    assert.ok(allowed.ok && forbiddenAddress(allowed.address)?.includes('loopback'));
  });
});

describe('WEBHOOK_* configuration', () => {
  test('the allowlist is parsed like CORS_ORIGINS, lower-cased', () => {
    assert.deepEqual(loadConfig({}).WEBHOOK_ALLOWED_PRIVATE_HOSTS, []);
    const config = loadConfig({ WEBHOOK_ALLOWED_PRIVATE_HOSTS: ' LocalHost:8080 ,,127.0.0.1, [::1]:9000' });
    assert.deepEqual(config.WEBHOOK_ALLOWED_PRIVATE_HOSTS, ['localhost:8080', '127.0.0.1', '[::1]:9000']);
    assert.deepEqual(destinationPolicy(config), {
      allowedPrivateHosts: ['localhost:8080', '127.0.0.1', '[::1]:9000'],
    });
  });

  test('entries that are not a host or host:port stop the start', () => {
    for (const bad of [
      'http://localhost',
      'localhost/x',
      'localhost:0',
      'localhost:70000',
      '0x7f.1',
      'a b',
      '::1',
    ]) {
      assert.throws(() => loadConfig({ WEBHOOK_ALLOWED_PRIVATE_HOSTS: bad }), ConfigError, bad);
    }
  });

  test('timeouts have defaults and bounds', () => {
    const config = loadConfig({});
    assert.equal(config.WEBHOOK_CONNECT_TIMEOUT_MS, 5000);
    assert.equal(config.WEBHOOK_TIMEOUT_MS, 15000);
    assert.equal(loadConfig({ WEBHOOK_TIMEOUT_MS: '2000' }).WEBHOOK_TIMEOUT_MS, 2000);
    assert.throws(() => loadConfig({ WEBHOOK_CONNECT_TIMEOUT_MS: '50' }), ConfigError);
    assert.throws(() => loadConfig({ WEBHOOK_TIMEOUT_MS: '200000' }), ConfigError);
  });
});
