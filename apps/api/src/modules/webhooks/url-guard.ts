import { promises as dns, type LookupAddress } from 'node:dns';
import { BlockList, isIP } from 'node:net';

/** What the operator allows webhook URLs to reach (both off in production). */
export interface UrlPolicy {
  /** `http:` URLs, for local development; otherwise only `https:`. */
  allowHttp: boolean;
  /** Loopback, private, link-local and other non-public addresses (tests, local development). */
  allowPrivate: boolean;
}

/** The settings that allow what a refusal refuses, named in its message. */
const ALLOW_HTTP_SETTING = 'WEBHOOK_ALLOW_HTTP=true';
const ALLOW_PRIVATE_SETTING = 'WEBHOOK_ALLOW_PRIVATE_URLS=true';

/** Resolves a host name to every address it has. */
export type Resolver = (host: string) => Promise<LookupAddress[]>;

/** The system's resolver (`getaddrinfo`, as connections use it). */
export const systemResolver: Resolver = (host) => dns.lookup(host, { all: true, verbatim: true });

type Range = readonly [network: string, prefix: number, what: string];

/**
 * IPv4 ranges no webhook may reach (IANA IPv4 special-purpose registry, and multicast), each with
 * what it is, for the refusal's message. More specific ranges first: the first match names it.
 */
const IPV4_RANGES: readonly Range[] = [
  ['0.0.0.0', 8, '"this" network'],
  ['10.0.0.0', 8, 'private'],
  ['100.64.0.0', 10, 'carrier-grade NAT'],
  ['127.0.0.0', 8, 'loopback'],
  ['169.254.0.0', 16, 'link-local (cloud metadata services live here)'],
  ['172.16.0.0', 12, 'private'],
  ['192.0.0.0', 24, 'IETF protocol assignments'],
  ['192.0.2.0', 24, 'documentation'],
  ['192.88.99.0', 24, '6to4 relay anycast'],
  ['192.168.0.0', 16, 'private'],
  ['198.18.0.0', 15, 'benchmarking'],
  ['198.51.100.0', 24, 'documentation'],
  ['203.0.113.0', 24, 'documentation'],
  ['224.0.0.0', 4, 'multicast'],
  ['240.0.0.0', 4, 'reserved, broadcast'],
];

/**
 * IPv6 ranges no webhook may reach (IANA IPv6 special-purpose registry, deprecated forms that
 * embed an IPv4 address; everything outside global unicast `2000::/3` is refused too). More
 * specific first.
 * `::ffff:0:0/96` (IPv4-mapped) and `64:ff9b::/96` (NAT64's well-known prefix) are not here: they
 * reach the IPv4 address they embed, which is checked instead (a DNS64 resolver gives public IPv4
 * receivers such addresses on IPv6-only networks).
 */
const IPV6_RANGES: readonly Range[] = [
  ['::', 128, 'unspecified'],
  ['::1', 128, 'loopback'],
  ['::', 96, 'IPv4-compatible (deprecated; reaches the IPv4 address it embeds)'],
  ['::ffff:0:0:0', 96, 'IPv4-translated (reaches the IPv4 address it embeds)'],
  ['64:ff9b:1::', 48, 'local-use NAT64 (reaches an IPv4 address of the local network)'],
  ['100::', 64, 'discard-only'],
  ['100:0:0:1::', 64, 'dummy prefix'],
  ['2001::', 32, 'Teredo (reaches the IPv4 addresses it embeds)'],
  ['2001:db8::', 32, 'documentation'],
  ['2001::', 23, 'IETF protocol assignments'],
  ['2002::', 16, '6to4 (reaches the IPv4 address it embeds)'],
  ['3fff::', 20, 'documentation'],
  ['5f00::', 16, 'segment routing'],
  ['fc00::', 7, 'unique local (private)'],
  ['fe80::', 10, 'link-local'],
  ['fec0::', 10, 'site-local (deprecated)'],
  ['ff00::', 8, 'multicast'],
];

/** Global unicast: every other IPv6 address is unassigned or special. */
const GLOBAL_UNICAST = new BlockList();
GLOBAL_UNICAST.addSubnet('2000::', 3, 'ipv6');

/** The IPv6 prefixes whose last 32 bits are the IPv4 address reached. */
const EMBEDDING_IPV4: readonly Range[] = [
  ['::ffff:0:0', 96, 'IPv4-mapped'],
  ['64:ff9b::', 96, 'NAT64'],
];

interface Matcher {
  list: BlockList;
  range: string;
  what: string;
}

const matchers = (ranges: readonly Range[], family: 'ipv4' | 'ipv6'): Matcher[] =>
  ranges.map(([network, prefix, what]) => {
    const list = new BlockList();
    list.addSubnet(network, prefix, family);
    return { list, range: `${network}/${prefix}`, what };
  });

const IPV4 = matchers(IPV4_RANGES, 'ipv4');
const IPV6 = matchers(IPV6_RANGES, 'ipv6');
const EMBEDDING = matchers(EMBEDDING_IPV4, 'ipv6');

/** The eight 16-bit groups of a valid IPv6 address (a trailing dotted IPv4 part included). */
function ipv6Groups(address: string): number[] {
  let text = address;
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const part = (s: string) => (s === '' ? [] : s.split(':').map((group) => parseInt(group, 16)));
  const before = part(head);
  const after = tail === undefined ? [] : part(tail);
  return [...before, ...Array<number>(8 - before.length - after.length).fill(0), ...after];
}

/**
 * Why an IP address is not on the public internet (what it is, and the range), or null when it
 * is. An address that embeds the IPv4 address it reaches is judged by that address.
 */
export function nonPublicReason(address: string): string | null {
  const ip = address.replace(/%.*$/, '');
  const family = isIP(ip);
  if (family === 0) return `${address} is not an IP address`;
  if (family === 4) {
    const what = ipv4Range(ip);
    return what && `${ip} is ${what}`;
  }
  const embedding = EMBEDDING.find((m) => m.list.check(ip, 'ipv6'));
  if (embedding) {
    const [high = 0, low = 0] = ipv6Groups(ip).slice(6);
    const ipv4 = [high >> 8, high & 255, low >> 8, low & 255].join('.');
    const what = ipv4Range(ipv4);
    return what && `${ip} is ${embedding.what} (${embedding.range}) of ${ipv4}, which is ${what}`;
  }
  const match = IPV6.find((m) => m.list.check(ip, 'ipv6'));
  if (match) return `${ip} is ${match.what} (${match.range})`;
  return GLOBAL_UNICAST.check(ip, 'ipv6') ? null : `${ip} is not global unicast (2000::/3)`;
}

/** What a non-public IPv4 address is, and its range; null for a public one. */
function ipv4Range(ip: string): string | null {
  const match = IPV4.find((m) => m.list.check(ip, 'ipv4'));
  return match ? `${match.what} (${match.range})` : null;
}

/** Whether an IP address is on the public internet (see `nonPublicReason`). */
export function isPublicAddress(address: string): boolean {
  return nonPublicReason(address) === null;
}

export class UrlRefused extends Error {
  override name = 'UrlRefused';
}

const notPublic = (reason: string) =>
  new UrlRefused(
    `url must not point to a non-public address: ${reason}. Loopback and private receivers are ` +
      `accepted only when the server runs with ${ALLOW_PRIVATE_SETTING} (local development)`,
  );

/** The URL as stored, or a refusal naming what is wrong with it. */
export function checkUrlShape(raw: string, policy: UrlPolicy): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UrlRefused('url must be an absolute URL, e.g. https://example.com/webhooks');
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && policy.allowHttp)) {
    if (policy.allowHttp) throw new UrlRefused('url must use https or http');
    throw new UrlRefused(
      url.protocol === 'http:'
        ? `url must use https. Plain http is accepted only when the server runs with ${ALLOW_HTTP_SETTING} (local development)`
        : 'url must use https',
    );
  }
  if (url.username || url.password) throw new UrlRefused('url must not contain credentials');
  if (url.hash) throw new UrlRefused('url must not contain a fragment');
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (!policy.allowPrivate) {
    const reason = isIP(host) === 0 ? null : nonPublicReason(host);
    if (reason) throw notPublic(reason);
    if (host === 'localhost' || host.endsWith('.localhost')) {
      throw notPublic(`${host} is loopback`);
    }
  }
  return url;
}

export interface CheckUrlOptions {
  /** How long the host's resolution may take; past it the URL is accepted (as unresolved). */
  timeoutMs?: number;
  resolve?: Resolver;
}

/**
 * A URL for a new or changed endpoint: its shape, and when its host resolves, its addresses. A
 * host that does not resolve (yet) is accepted: each delivery checks again.
 */
export async function checkUrl(
  raw: string,
  policy: UrlPolicy,
  { timeoutMs = 2000, resolve = systemResolver }: CheckUrlOptions = {},
): Promise<URL> {
  const url = checkUrlShape(raw, policy);
  if (policy.allowPrivate) return url;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host) !== 0) return url;
  let timer: NodeJS.Timeout | undefined;
  const addresses = await Promise.race([
    resolve(host).catch(() => []),
    new Promise<LookupAddress[]>((done) => {
      timer = setTimeout(() => done([]), timeoutMs);
    }),
  ]).finally(() => clearTimeout(timer));
  for (const entry of addresses) {
    const reason = nonPublicReason(entry.address);
    if (reason) throw notPublic(`${host} resolves to ${reason}`);
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
export function guardedLookup(policy: UrlPolicy, resolve: Resolver = systemResolver) {
  return (
    hostname: string,
    options: { all?: boolean; family?: number | string },
    callback: LookupCallback,
  ): void => {
    resolve(hostname).then(
      (addresses) => {
        if (!policy.allowPrivate) {
          for (const entry of addresses) {
            const reason = nonPublicReason(entry.address);
            if (!reason) continue;
            const denied = new UrlRefused(
              `${hostname} resolves to a non-public address: ${reason}`,
            ) as NodeJS.ErrnoException;
            denied.code = 'EADDRNOTPUBLIC';
            return callback(denied, []);
          }
        }
        if (options.all) return callback(null, addresses);
        const first = addresses[0];
        if (!first) return callback(new Error(`${hostname} has no address`), []);
        callback(null, first.address, first.family);
      },
      (error: NodeJS.ErrnoException) => callback(error, []),
    );
  };
}
