import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { BlockList, isIP } from 'node:net';

/** What the operator allows webhook URLs to reach (both off in production). */
export interface UrlPolicy {
  /** `http:` URLs, for local development; otherwise only `https:`. */
  allowHttp: boolean;
  /** Loopback, private, link-local and other non-public addresses (tests, local development). */
  allowPrivate: boolean;
}

/** Addresses no webhook may reach unless the operator allows private URLs. */
const NON_PUBLIC = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8], // "this" network
  ['10.0.0.0', 8], // private
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local (cloud metadata services live here)
  ['172.16.0.0', 12], // private
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // documentation
  ['192.168.0.0', 16], // private
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // documentation
  ['203.0.113.0', 24], // documentation
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
] as const) {
  NON_PUBLIC.addSubnet(net, prefix, 'ipv4');
}
for (const [net, prefix] of [
  ['::', 128], // unspecified
  ['::1', 128], // loopback
  ['64:ff9b:1::', 48], // local-use NAT64
  ['100::', 64], // discard
  ['2001:db8::', 32], // documentation
  ['fc00::', 7], // unique local (private)
  ['fe80::', 10], // link-local
  ['ff00::', 8], // multicast
] as const) {
  NON_PUBLIC.addSubnet(net, prefix, 'ipv6');
}

/** Whether an IP address is on the public internet (an IPv4-mapped IPv6 address as its IPv4). */
export function isPublicAddress(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];
  if (mapped) return isPublicAddress(mapped);
  const family = isIP(address);
  if (family === 0) return false;
  return !NON_PUBLIC.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

export class UrlRefused extends Error {
  override name = 'UrlRefused';
}

/** The URL as stored, or a refusal naming what is wrong with it. */
export function checkUrlShape(raw: string, policy: UrlPolicy): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UrlRefused('url must be an absolute URL, e.g. https://example.com/webhooks');
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && policy.allowHttp)) {
    throw new UrlRefused(policy.allowHttp ? 'url must use https or http' : 'url must use https');
  }
  if (url.username || url.password) throw new UrlRefused('url must not contain credentials');
  if (url.hash) throw new UrlRefused('url must not contain a fragment');
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (!policy.allowPrivate) {
    if (isIP(host) !== 0 && !isPublicAddress(host)) {
      throw new UrlRefused(`url must not point to a private, loopback or link-local address`);
    }
    if (host === 'localhost' || host.endsWith('.localhost')) {
      throw new UrlRefused(`url must not point to a private, loopback or link-local address`);
    }
  }
  return url;
}

/** Resolves `host` to every address it has. */
function resolveAll(host: string): Promise<LookupAddress[]> {
  return new Promise((resolve, reject) => {
    dnsLookup(host, { all: true, verbatim: true }, (error, addresses) =>
      error ? reject(error) : resolve(addresses),
    );
  });
}

/**
 * A URL for a new or changed endpoint: its shape, and when its host resolves, its addresses. A
 * host that does not resolve (yet) is accepted: each delivery checks again.
 */
export async function checkUrl(raw: string, policy: UrlPolicy, timeoutMs = 2000): Promise<URL> {
  const url = checkUrlShape(raw, policy);
  if (policy.allowPrivate) return url;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host) !== 0) return url;
  let timer: NodeJS.Timeout | undefined;
  const addresses = await Promise.race([
    resolveAll(host).catch(() => []),
    new Promise<LookupAddress[]>((resolve) => {
      timer = setTimeout(() => resolve([]), timeoutMs);
    }),
  ]).finally(() => clearTimeout(timer));
  if (addresses.some((entry) => !isPublicAddress(entry.address))) {
    throw new UrlRefused(`url must not point to a private, loopback or link-local address`);
  }
  return url;
}

type LookupCallback = (
  error: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

/**
 * A `lookup` for `http.request` that refuses non-public addresses at connect time: the address
 * checked is the address connected to, so a name that changes its answer between the check and
 * the connection (DNS rebinding) gains nothing.
 */
export function guardedLookup(policy: UrlPolicy) {
  return (
    hostname: string,
    options: { all?: boolean; family?: number | string },
    callback: LookupCallback,
  ): void => {
    dnsLookup(hostname, { all: true, verbatim: true }, (error, addresses) => {
      if (error) return callback(error, []);
      const refused = addresses.find((entry) => !isPublicAddress(entry.address));
      if (refused && !policy.allowPrivate) {
        const denied = new UrlRefused(
          `${hostname} resolves to ${refused.address}, a private, loopback or link-local address`,
        ) as NodeJS.ErrnoException;
        denied.code = 'EADDRNOTPUBLIC';
        return callback(denied, []);
      }
      if (options.all) return callback(null, addresses);
      const first = addresses[0];
      if (!first) return callback(new Error(`${hostname} has no address`), []);
      callback(null, first.address, first.family);
    });
  };
}
