import { createHash, randomInt } from 'node:crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** `n` characters drawn uniformly from base62 by a CSPRNG. */
export function randomBase62(n: number): string {
  let out = '';
  for (let i = 0; i < n; i++) out += BASE62[randomInt(62)];
  return out;
}

function base62Time(ms: number, width: number): string {
  let out = '';
  let rest = ms;
  while (rest > 0) {
    out = BASE62[rest % 62] + out;
    rest = Math.floor(rest / 62);
  }
  return out.padStart(width, '0');
}

export const ID_PREFIXES = {
  organisation: 'org',
  apiKey: 'key',
  event: 'evt',
  tier: 'tier',
  order: 'ord',
  ticket: 'tkt',
  attendee: 'att',
  checkin: 'chk',
  payout: 'po',
  user: 'usr',
  session: 'ses',
  planChange: 'plc',
  webhookEndpoint: 'we',
  webhookMessage: 'msg',
  export: 'exp',
} as const;
export type IdKind = keyof typeof ID_PREFIXES;

/**
 * `<prefix>_` + 8 characters of millisecond time + 16 random characters, all base62, so ids
 * sort by creation time in both byte and locale order.
 */
export function newId(kind: IdKind, at: Date = new Date()): string {
  return `${ID_PREFIXES[kind]}_${base62Time(at.getTime(), 8)}${randomBase62(16)}`;
}

/**
 * An id shaped as `newId`'s, whose 16 characters after the time are drawn from a hash of `key`
 * instead of at random: the same kind, time and key always give the same id. For rows that may be
 * made twice, by two processes that must agree on the id without asking each other.
 */
export function derivedId(kind: IdKind, at: Date, key: string): string {
  const digest = createHash('sha256').update(key).digest();
  let out = '';
  for (const byte of digest.subarray(0, 16)) out += BASE62[byte % 62];
  return `${idsFrom(kind, at)}${out}`;
}

/** Every id of `kind` made at or after `at` sorts at or above this string; every earlier one below. */
export function idsFrom(kind: IdKind, at: Date): string {
  return `${ID_PREFIXES[kind]}_${base62Time(at.getTime(), 8)}`;
}

/** Only the shape is checked: it saves a query for ids that cannot exist. */
export function looksLikeId(kind: IdKind, value: string): boolean {
  const prefix = `${ID_PREFIXES[kind]}_`;
  return value.startsWith(prefix) && /^[0-9A-Za-z]{24}$/.test(value.slice(prefix.length));
}

/** Letters and digits that cannot be misread over the phone (no 0/O, 1/I/L). */
const REFERENCE_ALPHABET = '23456789ABCDEFGHJKMNPQRSTUVWXYZ';

/** A short human order reference such as `BX-7K3Q9P`. */
export function newOrderReference(): string {
  let out = '';
  for (let i = 0; i < 6; i++) out += REFERENCE_ALPHABET[randomInt(REFERENCE_ALPHABET.length)];
  return `BX-${out}`;
}

/** The barcode secret printed on a ticket: 24 base62 characters, about 143 bits. */
export function newTicketCode(): string {
  return randomBase62(24);
}
