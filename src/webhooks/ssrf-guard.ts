import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import type { Config } from '../config.ts';

/**
 * SPEC 6: webhook destinations are integrator-supplied URLs, so every delivery is a potential SSRF. Only
 * https to public unicast addresses is allowed, checked on the resolved addresses (not the name), and the
 * connection is pinned to the address that was checked (see http-sender.ts).
 */
export interface DestinationPolicy {
  /** exact `host` or `host:port` entries (lower-case) allowed even when private/loopback, and over http */
  readonly allowedPrivateHosts: readonly string[];
}

export function destinationPolicy(config: Pick<Config, 'WEBHOOK_ALLOWED_PRIVATE_HOSTS'>): DestinationPolicy {
  return { allowedPrivateHosts: [...config.WEBHOOK_ALLOWED_PRIVATE_HOSTS] };
}

export type DestinationCheck = { ok: true; url: URL } | { ok: false; reason: string };
export type ResolvedDestination =
  | { ok: true; url: URL; address: string; family: 4 | 6 }
  | { ok: false; reason: string };
export type Lookup = (host: string) => Promise<{ address: string; family: number }[]>;

/** Longest URL accepted; well above real endpoints, and bounds what we store and log. */
const MAX_URL_LENGTH = 2048;

/**
 * Cloud instance-metadata endpoints (AWS, GCP, Azure, Oracle: 169.254.169.254; AWS IPv6: fd00:ec2::254;
 * Alibaba: 100.100.100.200). Refused even for allowlisted hosts: no development setup needs them and they
 * hand out credentials.
 */
const METADATA_ADDRESSES = new Set(
  ['169.254.169.254', 'fd00:ec2::254', '100.100.100.200'].map((a) => ipaddr.parse(a).toNormalizedString()),
);

/** IANA global unicast (2000::/3): the only IPv6 block allocated for public addresses today. */
const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR('2000::/3');
/** RFC 6052 well-known NAT64 prefix: the last 32 bits are an IPv4 address, judged as such. */
const NAT64_WELL_KNOWN = ipaddr.parseCIDR('64:ff9b::/96');

const RANGE_TEXT: Record<string, string> = {
  unspecified: 'an unspecified',
  broadcast: 'a broadcast',
  multicast: 'a multicast',
  linkLocal: 'a link-local',
  loopback: 'a loopback',
  carrierGradeNat: 'a carrier-grade NAT',
  private: 'a private',
  uniqueLocal: 'a private',
};

/**
 * Why an IP address may not receive webhooks (a noun phrase, like "a loopback address"), or null when it
 * is public unicast. Embedded IPv4 (mapped ::ffff:a.b.c.d and NAT64 64:ff9b::a.b.c.d) is judged as IPv4, so
 * `::ffff:127.0.0.1` is loopback; any other non-unicast or unallocated range is refused.
 */
export function forbiddenAddress(address: string): string | null {
  // Canonical forms only: ipaddr.js would also read `0x7f.1`, which no resolver returns.
  const family = isIP(address);
  if (family === 0) return 'an invalid address';
  let ip = ipaddr.parse(family === 6 ? canonicalV6(address) : address);
  if (METADATA_ADDRESSES.has(ip.toNormalizedString())) return 'a cloud metadata address';
  if (ip.kind() === 'ipv6') {
    const v6 = ip as ipaddr.IPv6;
    if (v6.isIPv4MappedAddress()) ip = v6.toIPv4Address();
    else if (v6.match(NAT64_WELL_KNOWN)) ip = ipaddr.fromByteArray(v6.toByteArray().slice(12));
    else {
      const range = v6.range();
      if (range !== 'unicast') return `${RANGE_TEXT[range] ?? 'a reserved'} address`;
      if (!v6.match(GLOBAL_UNICAST_V6)) return 'a reserved address';
      return null;
    }
    if (METADATA_ADDRESSES.has(ip.toNormalizedString())) return 'a cloud metadata address';
  }
  const range = (ip as ipaddr.IPv4).range();
  return range === 'unicast' ? null : `${RANGE_TEXT[range] ?? 'a reserved'} address`;
}

/**
 * IPv6 text through the WHATWG serializer first: ipaddr.js reads the deprecated IPv4-compatible `::a.b.c.d`
 * (which glibc prints for ::/96) as IPv4-mapped. The zone (`%eth0`) does not change the range.
 */
function canonicalV6(address: string): string {
  return new URL(`http://[${address.replace(/%.*$/, '')}]/`).hostname.slice(1, -1);
}

function isMetadata(address: string): boolean {
  return forbiddenAddress(address) === 'a cloud metadata address';
}

function allowlisted(url: URL, policy: DestinationPolicy): boolean {
  const port = url.port || (url.protocol === 'https:' ? '443' : '80');
  const host = url.hostname;
  return policy.allowedPrivateHosts.some((entry) => entry === host || entry === `${host}:${port}`);
}

/** The IP literal of a parsed URL host (WHATWG already turned `0x7f.1` into `127.0.0.1`), or null. */
function ipLiteral(url: URL): string | null {
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  return isIP(host) === 0 ? null : host;
}

/** Syntax-only check without DNS (for validating a URL at registration / charge creation): parses, https (or allowlisted), no credentials in URL, and a literal IP host must be public. */
export function checkDestinationSyntax(url: string, policy: DestinationPolicy): DestinationCheck {
  if (url.length > MAX_URL_LENGTH)
    return { ok: false, reason: `URL longer than ${MAX_URL_LENGTH} characters` };
  if (!URL.canParse(url)) return { ok: false, reason: 'not a valid URL' };
  const parsed = new URL(url);
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') {
    return { ok: false, reason: 'URL must use https' };
  }
  if (parsed.username !== '' || parsed.password !== '') {
    return { ok: false, reason: 'URL must not contain credentials' };
  }
  if (parsed.hostname === '') return { ok: false, reason: 'URL has no host' };
  // Issue 23 item 2.9: WHATWG keeps an explicit port 0, which no receiver listens on.
  if (parsed.port === '0') return { ok: false, reason: 'URL port 0 is not a destination' };
  const trusted = allowlisted(parsed, policy);
  if (parsed.protocol !== 'https:' && !trusted) return { ok: false, reason: 'URL must use https' };
  const literal = ipLiteral(parsed);
  if (literal !== null) {
    const forbidden = forbiddenAddress(literal);
    if (forbidden !== null && (!trusted || isMetadata(literal))) {
      return { ok: false, reason: `URL host is ${forbidden}` };
    }
  } else if (!trusted) {
    // RFC 6761: these names are loopback by definition; say so now rather than at the first delivery.
    const name = parsed.hostname.replace(/\.$/, '');
    if (name === 'localhost' || name.endsWith('.localhost')) {
      return { ok: false, reason: 'URL host is a loopback address' };
    }
  }
  return { ok: true, url: parsed };
}

/** The system resolver (getaddrinfo, so /etc/hosts too), every address. */
export const systemLookup: Lookup = (host) => dnsLookup(host, { all: true });

/** Full check: syntax, then DNS (injectable lookup for tests, default node:dns/promises lookup with all:true); refuses if ANY resolved address is forbidden; returns the address to pin the connection to (defeats DNS rebinding). */
export async function resolveDestination(
  url: string,
  policy: DestinationPolicy,
  lookup: Lookup = systemLookup,
): Promise<ResolvedDestination> {
  const syntax = checkDestinationSyntax(url, policy);
  if (!syntax.ok) return syntax;
  const parsed = syntax.url;
  const literal = ipLiteral(parsed);
  if (literal !== null) {
    return { ok: true, url: parsed, address: literal, family: isIP(literal) === 6 ? 6 : 4 };
  }
  let answers: { address: string; family: number }[];
  try {
    answers = await lookup(parsed.hostname);
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    return {
      ok: false,
      reason: code === 'ENOTFOUND' || code === 'ENODATA' ? 'host not found' : 'DNS lookup failed',
    };
  }
  const [first] = answers;
  if (first === undefined) return { ok: false, reason: 'host not found' };
  const trusted = allowlisted(parsed, policy);
  // Every answer must pass, not just the one we connect to: a mixed answer is the classic rebinding setup.
  for (const { address } of answers) {
    const forbidden = forbiddenAddress(address);
    if (forbidden !== null && (!trusted || isMetadata(address))) {
      return { ok: false, reason: `host resolves to ${forbidden}` };
    }
  }
  const address = first.address;
  return { ok: true, url: parsed, address, family: isIP(address) === 6 ? 6 : 4 };
}
