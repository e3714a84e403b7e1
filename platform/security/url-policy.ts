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
/**
 * Cloud metadata services outside the link-local range: AWS over IPv6, Azure's wire server
 * and Alibaba's metadata service (the latter inside the carrier-grade NAT range, so it
 * would pass as "private" when private addresses are allowed).
 */
const METADATA = ['fd00:ec2::/32', '168.63.129.16/32', '100.100.100.200/32'].map((cidr) => ipaddr.parseCIDR(cidr));

/**
 * IPv6 forms that carry an IPv4 address in their last 32 bits and reach that address:
 * IPv4-compatible `::a.b.c.d` (deprecated, but some stacks still route it), IPv4-mapped
 * `::ffff:a.b.c.d`, IPv4-translated `::ffff:0:a.b.c.d` and NAT64 `64:ff9b::/96` (and the
 * local-use `64:ff9b:1::/48`, RFC 8215, whose common /96 prefixes embed the same way).
 */
const EMBEDDING_V4 = ['::/96', '::ffff:0:0/96', '::ffff:0:0:0/96', '64:ff9b::/96', '64:ff9b:1::/48'].map((cidr) => ipaddr.parseCIDR(cidr));

/** The address a connection to `addr` actually reaches, as far as the address itself says. */
function effectiveAddress(addr: ipaddr.IPv4 | ipaddr.IPv6): ipaddr.IPv4 | ipaddr.IPv6 {
  if (addr.kind() === 'ipv4') return addr;
  const v6 = addr as ipaddr.IPv6;
  // `::` and `::1` sit in ::/96 but are themselves (unspecified, loopback), not IPv4.
  if (v6.range() === 'unspecified' || v6.range() === 'loopback') return v6;
  if (!EMBEDDING_V4.some((cidr) => v6.match(cidr))) return v6;
  const bytes = v6.toByteArray();
  return new ipaddr.IPv4(bytes.slice(12));
}

/**
 * Why the service must not connect to `ip` (the kind of address, never the address
 * itself, so a refusal can be shown to whoever supplied a name), or null when it may.
 */
export function addressRefusal(ip: string, policy: UrlPolicy): string | null {
  if (!ipaddr.isValid(ip)) return 'not an IP address';
  const addr = effectiveAddress(ipaddr.parse(ip));
  const range = addr.range();
  if (NEVER.has(range) || METADATA.some((cidr) => addr.kind() === cidr[0].kind() && addr.match(cidr)))
    return 'a link-local or metadata address';
  if (range !== 'unicast' && !policy.allowPrivate) return 'a loopback or private address';
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
  if (isIP(host)) {
    const refused = addressRefusal(host, policy);
    return refused && `${host} is ${refused}`;
  }
  if (host === 'localhost' || host.endsWith('.localhost')) return policy.allowPrivate ? null : `${host} is a loopback address`;
  return null;
}

/** The refusal of a name: the kind of address it resolves to, never the address itself. */
const resolvesTo = (host: string, refused: string) => `${host} resolves to ${refused}`;

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
  return bad ? resolvesTo(host, bad) : null;
}

/** `dns.lookup` that fails when any resolved address is refused (both single and `all` forms). */
export function guardedLookup(policy: UrlPolicy): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (err, addresses: LookupAddress[]) => {
      if (err) return callback(err, '', 0);
      const refused = addresses.map((a) => addressRefusal(a.address, policy)).find((r) => r !== null);
      if (refused) return callback(new UrlPolicyError(resolvesTo(hostname, refused)), '', 0);
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
      if (refused) return callback(new UrlPolicyError(`${opts.hostname} is ${refused}`), null);
      connector(opts, callback);
    },
  });
}

/** Network failures by their code, in words that carry no address. */
const NETWORK_FAILURES: Record<string, string> = {
  ECONNREFUSED: 'the connection was refused',
  ECONNRESET: 'the connection was reset',
  EPIPE: 'the connection was reset',
  ETIMEDOUT: 'the connection timed out',
  UND_ERR_CONNECT_TIMEOUT: 'the connection timed out',
  EHOSTUNREACH: 'the host is unreachable',
  ENETUNREACH: 'the network is unreachable',
  ENOTFOUND: 'the name did not resolve',
  EAI_AGAIN: 'the name did not resolve',
  UND_ERR_SOCKET: 'the connection closed unexpectedly',
};

/**
 * What a failed outbound call may tell the customer (delivery `last_error`, an integration
 * test's detail): the policy's own refusal, or the kind of network or TLS failure. Never
 * the system's message, which names the address a name resolved to ("connect
 * ECONNREFUSED 10.0.3.7:443", a certificate's "IP: 10.0.3.7 is not in the cert's list").
 * An error without a network cause is the service's own and says so itself.
 */
export function connectionFailure(err: unknown): string {
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    if (e instanceof UrlPolicyError) return `url refused: ${e.message}`;
    const code = (e as { code?: unknown }).code;
    if (typeof code !== 'string') continue;
    if (NETWORK_FAILURES[code]) return NETWORK_FAILURES[code];
    if (/^(ERR_TLS|ERR_SSL|CERT_|UNABLE_TO_|DEPTH_ZERO|SELF_SIGNED)/.test(code)) return `the TLS handshake failed (${code})`;
    return `the connection failed (${code})`;
  }
  return err instanceof Error && !(err.cause instanceof Error) && err.message !== 'fetch failed' ? err.message : 'the connection failed';
}
