import { createHash, createHmac, timingSafeEqual, type KeyObject } from 'node:crypto';
import { badRequest } from '../core/errors';
import type { SortValue } from '../db/pages';

/** Where a walk through a list stands: what the next page needs to know. */
export interface Walk {
  /** The sort key of the last item served; none on a walk's first page. */
  after: SortValue[] | undefined;
  /** The number of the page to serve. */
  page: number;
  /** Every match when the walk began; none on its first page, which counts. */
  total: number | undefined;
  /** When the walk's first page was served (ms since the epoch, this server's clock). */
  startedAt: number;
}

/** What a cursor is bound to: one list of one organisation, with one set of filters. */
export interface CursorScope {
  list: string;
  organisationId: string;
  /** The filters' `filterDigest`. */
  filters: string;
}

const VERSION = 1;
/** The length of a cursor's signature, as issued. */
export const SIGNATURE_BYTES = 16;

/**
 * The filters as one string, whatever order they came in: absent ones left out, dates as
 * ISO-8601, lists (`status=paid,pending`) sorted.
 */
function canonicalFilters(filters: Record<string, unknown>): string {
  const entries = Object.keys(filters)
    .filter((name) => filters[name] !== undefined)
    .sort()
    .map((name) => {
      const value = filters[name];
      if (value instanceof Date) return [name, value.toISOString()];
      if (Array.isArray(value)) return [name, [...(value as string[])].sort()];
      return [name, value];
    });
  return JSON.stringify(entries);
}

/** The filters of a list request, as a cursor carries them. */
export const filterDigest = (filters: Record<string, unknown>): string =>
  createHash('sha256').update(canonicalFilters(filters)).digest('base64url').slice(0, 16);

const sign = (secret: KeyObject, scope: CursorScope, payload: string): Buffer =>
  createHmac('sha256', secret)
    .update(`${scope.list}\n${scope.organisationId}\n${payload}`)
    .digest()
    .subarray(0, SIGNATURE_BYTES);

/** The opaque `next_cursor`: the walk's state, signed for this list and organisation. */
export function sealCursor(secret: KeyObject, scope: CursorScope, walk: Walk): string {
  const state = { v: VERSION, a: walk.after, p: walk.page, t: walk.total, s: walk.startedAt };
  const payload = Buffer.from(JSON.stringify({ ...state, f: scope.filters }), 'utf8').toString(
    'base64url',
  );
  return `${payload}.${sign(secret, scope, payload).toString('base64url')}`;
}

const invalid = () =>
  badRequest(
    'cursor is not a next_cursor of this list: send the next_cursor of an earlier page unchanged',
    'invalid_cursor',
  );

const isSortValue = (value: unknown): value is SortValue =>
  typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value));
const isCount = (value: unknown): value is number =>
  typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;

/**
 * The state a cursor carries, read without its signature (which only the server can check): the
 * walk and the filters' digest. Anything else than a cursor of this server's form is a 400.
 */
export function readCursor(cursor: string): { walk: Walk; filters: string } {
  const [payload, signature, ...rest] = cursor.split('.');
  if (!payload || !signature || rest.length > 0) throw invalid();
  let state: Record<string, unknown>;
  try {
    state = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<
      string,
      unknown
    >;
  } catch {
    throw invalid();
  }
  const { v, a, p, t, s, f } = state;
  const valid =
    v === VERSION &&
    Array.isArray(a) &&
    a.every(isSortValue) &&
    isCount(p) &&
    p >= 1 &&
    isCount(t) &&
    isCount(s) &&
    typeof f === 'string';
  if (!valid) throw invalid();
  return { walk: { after: a, page: p, total: t, startedAt: s }, filters: f };
}

/**
 * The walk a cursor continues. A cursor that was altered, or belongs to another list or
 * organisation, or comes with other filters than the request that returned it, is a 400.
 */
export function openCursor(secret: KeyObject, scope: CursorScope, cursor: string): Walk {
  const [payload = '', signature = ''] = cursor.split('.');
  const expected = sign(secret, scope, payload);
  const given = Buffer.from(signature, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw invalid();
  const { walk, filters } = readCursor(cursor);
  if (filters !== scope.filters) {
    throw badRequest(
      'cursor was issued for other filters: send the same filters as the request that returned it',
      'cursor_filters_mismatch',
    );
  }
  return walk;
}
