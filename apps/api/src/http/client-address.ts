import { isIPv6 } from 'node:net';
import type { Request } from 'express';

/**
 * The client address that per-address limits count against: `req.ip`, which honours `trust proxy`.
 * An IPv6 address counts as its /64 network: one subscriber usually holds a whole /64 and could
 * otherwise step around any limit by changing addresses.
 */
export function clientAddress(req: Request): string {
  return limitKeyOfAddress(req.ip ?? 'unknown');
}

export function limitKeyOfAddress(address: string): string {
  // Without its zone (`fe80::1%eth0`).
  const plain = (address.split('%', 1)[0] ?? address).toLowerCase();
  // An IPv4 address has no colon: spares it the IPv6 pattern, a long regular expression.
  if (!plain.includes(':') || !isIPv6(plain)) return plain;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(plain)?.[1];
  if (mapped) return mapped;
  const [left = '', right] = plain.split('::');
  const groups = (part: string | undefined) =>
    part ? part.split(':').flatMap((group) => (group.includes('.') ? ['0', '0'] : [group])) : [];
  const head = groups(left);
  const tail = groups(right);
  const all =
    right === undefined
      ? head
      : [...head, ...Array<string>(8 - head.length - tail.length).fill('0'), ...tail];
  return `${all
    .slice(0, 4)
    .map((group) => parseInt(group, 16).toString(16))
    .join(':')}::/64`;
}
