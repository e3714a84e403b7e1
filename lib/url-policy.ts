/**
 * Where the service may send outbound HTTP on a customer's behalf (webhook and
 * integration URLs). Only http and https. Link-local and cloud-metadata addresses are
 * always refused; loopback and private networks only when `ALLOW_PRIVATE_WEBHOOK_URLS`
 * (the local stack's receivers live on localhost). The rule is applied to the URL when it
 * is stored and again to the address actually connected to, so a name that later
 * resolves elsewhere (DNS rebinding) cannot reach the internal network.
 */
import { lookup as dnsLookup, promises as dnsPromises, type LookupAddress } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';
import { Agent, buildConnector } from 'undici';

export interface UrlPolicy {
  allowPrivate: boolean;
}

export class UrlPolicyError extends Error {
  override name = 'UrlPolicyError';
}

/** Always refused: instance-metadata services and other link-local or non-unicast targets. */
const NEVER = new Set(['linkLocal', 'unspecified', 'multicast', 'broadcast']);
const METADATA_V6 = ipaddr.parseCIDR('fd00:ec2::/32');

/** Why the service must not connect to `ip`, or null when it may. */
export function addressRefusal(ip: string, policy: UrlPolicy): string | null {
  if (!ipaddr.isValid(ip)) return `${ip} is not an IP address`;
  let addr = ipaddr.parse(ip);
  // ::ffff:169.254.169.254 is the IPv4 address in disguise.
  if (addr.kind() === 'ipv6' && (addr as ipaddr.IPv6).isIPv4MappedAddress()) addr = (addr as ipaddr.IPv6).toIPv4Address();
  const range = addr.range();
  if (NEVER.has(range) || (addr.kind() === 'ipv6' && (addr as ipaddr.IPv6).match(METADATA_V6))) {
    return `${ip} is a link-local or metadata address`;
  }
  if (range !== 'unicast' && !policy.allowPrivate) return `${ip} is a loopback or private address`;
  return null;
}

/**
 * Checks a URL's text: scheme, credentials, and the host when it is an IP literal or
 * `localhost`. Names are checked when they are resolved, at connect time.
 */
export function urlRefusal(raw: string, policy: UrlPolicy): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'must be an absolute URL';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'must use http or https';
  if (url.username || url.password) return 'must not contain credentials';
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  if (isIP(host)) return addressRefusal(host, policy);
  if (host === 'localhost' || host.endsWith('.localhost')) return policy.allowPrivate ? null : `${host} is a loopback address`;
  return null;
}

/**
 * `urlRefusal`, plus the addresses the name resolves to now (at subscribe time, so a name
 * pointing at a metadata service is refused at once). A name that does not resolve yet is
 * accepted: every delivery checks the address it connects to anyway.
 */
export async function resolvedUrlRefusal(raw: string, policy: UrlPolicy, timeoutMs = 2000): Promise<string | null> {
  const refused = urlRefusal(raw, policy);
  if (refused) return refused;
  const host = new URL(raw).hostname;
  if (host.startsWith('[') || isIP(host)) return null;
  const addresses = await Promise.race([
    dnsPromises.lookup(host, { all: true }).catch(() => []),
    new Promise<LookupAddress[]>((resolve) => setTimeout(() => resolve([]), timeoutMs).unref()),
  ]);
  const bad = addresses.map((a) => addressRefusal(a.address, policy)).find((r) => r !== null);
  return bad ? `${host} resolves to ${bad.replace(/ is /, ', which is ')}` : null;
}

/** `dns.lookup` that fails when any resolved address is refused (both single and `all` forms). */
export function guardedLookup(policy: UrlPolicy): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (err, addresses: LookupAddress[]) => {
      if (err) return callback(err, '', 0);
      const refused = addresses.map((a) => addressRefusal(a.address, policy)).find((r) => r !== null);
      if (refused) return callback(new UrlPolicyError(`${hostname} resolves to ${refused.replace(/ is /, ', which is ')}`), '', 0);
      if (options.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
      const [first] = addresses;
      if (!first) return callback(new UrlPolicyError(`${hostname} did not resolve`), '', 0);
      callback(null, first.address, first.family);
    });
  };
}

/**
 * An undici dispatcher that only connects to allowed addresses: IP literals are checked
 * before connecting, names through `guardedLookup` on every new connection. undici's
 * `request` never follows redirects, so a 3xx cannot lead elsewhere either.
 */
export function createPolicyAgent(policy: UrlPolicy, connectTimeoutMs = 5000): Agent {
  const connector = buildConnector({ lookup: guardedLookup(policy), timeout: connectTimeoutMs });
  return new Agent({
    connect(opts, callback) {
      const refused = isIP(opts.hostname) ? addressRefusal(opts.hostname, policy) : null;
      if (refused) return callback(new UrlPolicyError(refused), null);
      connector(opts, callback);
    },
  });
}
