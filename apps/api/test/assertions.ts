import { expect } from 'vitest';
import type { CallResult } from './setup';

export const JSON_TYPE = 'application/json; charset=utf-8';

/** ISO-8601 in UTC with `Z`, as every timestamp on the wire. */
export const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,6})?Z$/;

/** `<prefix>_` followed by at least 16 base62 characters. */
export const idPattern = (prefix: string): RegExp => new RegExp(`^${prefix}_[0-9A-Za-z]{16,}$`);

const show = (result: CallResult): string => JSON.stringify(result.body);

/** A JSON response with this status; returns its body. */
export function expectJson(result: CallResult, status: number) {
  expect(result.status, show(result)).toBe(status);
  expect(result.headers.get('content-type')).toBe(JSON_TYPE);
  return result.body;
}

/** `{ data }` and nothing else; returns the item. */
export function expectItem(result: CallResult, status = 200) {
  const body = expectJson(result, status);
  expect(Object.keys(body)).toEqual(['data']);
  expect(body.data).toBeTypeOf('object');
  return body.data;
}

/**
 * `{ data, total, page, limit, next_cursor, sync_checkpoint }` with these values where given;
 * returns the body.
 */
export function expectList(
  result: CallResult,
  expected: { total?: number; page?: number; limit?: number } = {},
) {
  const body = expectJson(result, 200);
  expect(Object.keys(body).sort()).toEqual([
    'data',
    'limit',
    'next_cursor',
    'page',
    'sync_checkpoint',
    'total',
  ]);
  expect(Array.isArray(body.data)).toBe(true);
  expect(Number.isInteger(body.total)).toBe(true);
  expect(body.next_cursor === null || typeof body.next_cursor === 'string').toBe(true);
  expect(body.sync_checkpoint).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
  expect(body).toMatchObject(expected);
  return body as {
    data: any[];
    total: number;
    page: number;
    limit: number;
    next_cursor: string | null;
    sync_checkpoint: string;
  };
}

/** An error envelope with this status and message (exact string, or a pattern). */
export function expectError(result: CallResult, status: number, message: string | RegExp) {
  const body = expectJson(result, status);
  expect(body).not.toHaveProperty('data');
  expect(body.error).toBeTypeOf('string');
  if (typeof message === 'string') expect(body.error).toBe(message);
  else expect(body.error).toMatch(message);
  return body;
}

/** A 400 whose message names `field` as a word of its own. */
export function expectBadRequest(result: CallResult, field: string) {
  const escaped = field.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return expectError(result, 400, new RegExp(`(^|[^a-z_])${escaped}([^a-z_]|$)`));
}

/**
 * Exactly these fields, an id of this kind, and every non-null `timestamps` field in ISO UTC with
 * `Z`, every `money` field an integer.
 */
export function expectResource(
  item: Record<string, unknown>,
  shape: {
    prefix: string;
    fields: readonly string[];
    timestamps: readonly string[];
    money?: readonly string[];
  },
) {
  expect(Object.keys(item).sort()).toEqual([...shape.fields].sort());
  expect(item.id).toMatch(idPattern(shape.prefix));
  for (const field of shape.timestamps) {
    expect(shape.fields).toContain(field);
    if (item[field] !== null) expect(item[field], field).toMatch(ISO_UTC);
  }
  for (const field of shape.money ?? []) {
    expect(Number.isInteger(item[field]), `${field} is an integer`).toBe(true);
  }
}

export const idsOf = (items: { id: string }[]): string[] => items.map((item) => item.id);

/** Byte order, as PostgreSQL's C collation orders the ids. */
export const byId = (a: { id: string }, b: { id: string }): number =>
  a.id < b.id ? -1 : a.id > b.id ? 1 : 0;

/** Lets the clock move on, so that the next write gets a later timestamp. */
export const tick = (ms = 5): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Now, in ISO, with the clock let move on before and after: what was written before is older, what
 * is written after is newer (an `updated_since` between two writes).
 */
export async function instantBetweenWrites(): Promise<string> {
  await tick();
  const instant = new Date().toISOString();
  await tick();
  return instant;
}

/** The counts a test data reset answers: `events` sample events, some of every other kind. */
export function expectSampleCounts(counts: unknown, events: number) {
  expect(counts).toEqual({
    events,
    tiers: expect.any(Number),
    orders: expect.any(Number),
    tickets: expect.any(Number),
    attendees: expect.any(Number),
    checkins: expect.any(Number),
    payouts: expect.any(Number),
  });
}

/**
 * A burst of one key's requests of which `admitted` got through (200): each of those saw its own
 * place in the rate-limit window, its X-RateLimit-Remaining one of `admitted - 1` down to 0.
 */
export function expectOwnPlacesInWindow(
  results: readonly Pick<CallResult, 'status' | 'headers'>[],
  admitted: number,
) {
  const remaining = results
    .filter((result) => result.status === 200)
    .map((result) => Number(result.headers.get('x-ratelimit-remaining')))
    .sort((a, b) => a - b);
  expect(remaining).toEqual(Array.from({ length: admitted }, (_, i) => i));
}
