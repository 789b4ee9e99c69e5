import { readFileSync } from 'node:fs';
import type { AppRoute } from '@ts-rest/core';
import { ErrorSchema, EventCreateSchema } from '@boxoffice/contract';
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { describeZodError } from '../http/validation';
import { errorExamples, operationExamples, type OperationExample } from './examples';
import { OPERATIONS } from './operations';

const routes = OPERATIONS;
const examples = operationExamples as Readonly<Record<string, OperationExample>>;

const isSchema = (value: unknown): value is z.ZodTypeAny =>
  typeof (value as { safeParse?: unknown } | null)?.safeParse === 'function';

/** The schema of the route's one success status (200 or 201). */
function successSchema(route: AppRoute): z.ZodTypeAny {
  const success = Object.entries(route.responses).filter(([status]) => /^2\d\d$/.test(status));
  expect(success, 'one success status').toHaveLength(1);
  const schema = success[0]![1];
  if (!isSchema(schema)) throw new Error('the success response has no zod schema');
  return schema;
}

/**
 * Zod's objects drop keys they do not know, so a parse that gives the example back unchanged
 * proves it has no unknown key at any depth, and that no transform (a trim, a canonical time zone)
 * would have changed what the server stores or sends.
 */
function expectExact(schema: z.ZodTypeAny, value: unknown): void {
  const parsed = schema.safeParse(value);
  expect(parsed.error?.issues ?? []).toEqual([]);
  expect(parsed.data).toStrictEqual(value);
}

describe('operationExamples', () => {
  it('has one example per operation of the contract, and none for anything else', () => {
    expect(Object.keys(examples).sort()).toEqual(routes.map(([key]) => key).sort());
  });

  describe.each(routes)('%s', (key, route) => {
    const example = examples[key]!;

    it('answers with its success body, exactly', () => {
      // An export's file (a whole file, or a range of it) is text, not JSON.
      if (key === 'exports.file') {
        expect(Object.keys(route.responses).filter((status) => /^2/.test(status))).toEqual([
          '200',
          '206',
        ]);
        expect(typeof example.response).toBe('string');
        return;
      }
      expectExact(successSchema(route), example.response);
    });

    it('has request bodies exactly where the route takes one', () => {
      const body = 'body' in route ? route.body : undefined;
      if (!isSchema(body)) {
        expect(example.requests).toBeUndefined();
        return;
      }
      const requests = Object.values(example.requests ?? {});
      expect(requests.length).toBeGreaterThan(0);
      for (const request of requests) {
        expect(request.summary).not.toBe('');
        expectExact(body, request.value);
      }
    });
  });
});

// ---------------------------------------------------------------------------
// One world: every reference resolves, and the numbers add up.

type Item = Record<string, unknown> & { id: string; created_at: string; updated_at: string };

const PREFIXES: Record<string, string> = {
  events: 'evt',
  tiers: 'tier',
  orders: 'ord',
  tickets: 'tkt',
  attendees: 'att',
  checkins: 'chk',
  payouts: 'po',
  webhookEndpoints: 'we',
  exports: 'exp',
};

/** Every object the responses show, by router; an id may come in several versions. */
function objectsByRouter(): Map<string, Item[]> {
  const found = new Map<string, Item[]>();
  for (const [key, example] of Object.entries(examples)) {
    const router = key.split('.')[0]!;
    // The test helpers show the test data: a world of its own, checked by their own test.
    // An export's file is text, not an object.
    if (key === 'webhookEndpoints.delete' || key === 'exports.file' || router === 'testHelpers') {
      continue;
    }
    const { data } = example.response as { data: Item | Item[] };
    // A batch of check-ins answers results, which hold the check-ins made and those met.
    const shown =
      key === 'checkins.createBatch'
        ? (data as unknown as { data: Item | null; admission?: Item }[]).flatMap((result) =>
            [result.data, result.admission].filter((item) => item != null),
          )
        : Array.isArray(data)
          ? data
          : [data];
    found.set(router, [...(found.get(router) ?? []), ...shown]);
  }
  return found;
}

const objects = objectsByRouter();
const all = (router: string): Item[] => objects.get(router) ?? [];
const ids = (router: string): Set<string> => new Set(all(router).map((item) => item.id));
/** The object as the reads show it now: its latest version. */
const current = (router: string, id: string): Item =>
  all(router)
    .filter((item) => item.id === id)
    .sort((a, b) => b.updated_at.localeCompare(a.updated_at))[0]!;
/** Every object of a router once, as the reads show it now. */
const latest = (router: string): Item[] => [...ids(router)].map((id) => current(router, id));

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
/** The creation time the server writes into an id's first 8 characters. */
const idTime = (id: string): number =>
  [...id.slice(id.indexOf('_') + 1, id.indexOf('_') + 9)].reduce(
    (ms, char) => ms * 62 + BASE62.indexOf(char),
    0,
  );

/** Every request body of an operation. */
const requestsOf = (key: string): Record<string, unknown>[] =>
  Object.values(examples[key]?.requests ?? {}).map(
    (request) => request.value as Record<string, unknown>,
  );

describe('the examples’ world', () => {
  it('has ids of the server’s form, made when the object was created', () => {
    for (const [router, items] of objects) {
      for (const item of items) {
        expect(item.id).toMatch(new RegExp(`^${PREFIXES[router]}_[0-9A-Za-z]{24}$`));
        expect(new Date(idTime(item.id)).toISOString(), item.id).toBe(item.created_at);
        expect(item.updated_at >= item.created_at, item.id).toBe(true);
      }
    }
  });

  it('shows every version of an object with the same creation time', () => {
    for (const items of objects.values()) {
      for (const item of items) {
        const versions = items.filter((other) => other.id === item.id);
        expect(new Set(versions.map((version) => version.created_at)).size).toBe(1);
      }
    }
  });

  it('reads the same object by id as in its list', () => {
    for (const router of objects.keys()) {
      const got = (examples[`${router}.get`]!.response as { data: Item }).data;
      const listed = (examples[`${router}.list`]!.response as { data: Item[] }).data;
      expect(listed).toContainEqual(got);
    }
  });

  it('refers only to objects it shows', () => {
    const events = ids('events');
    const references: [string, Set<string>][] = [
      ['event_id', events],
      ['order_id', ids('orders')],
      ['tier_id', ids('tiers')],
      ['ticket_id', ids('tickets')],
      ['attendee_id', ids('attendees')],
    ];
    const bodies = [
      ...[...objects.values()].flat(),
      ...requestsOf('tiers.create'),
      ...requestsOf('checkins.create'),
      ...requestsOf('checkins.createBatch').flatMap(
        (body) => body.checkins as Record<string, unknown>[],
      ),
    ];
    for (const body of bodies) {
      for (const [field, known] of references) {
        if (field in body && body[field] !== null) expect(known, field).toContain(body[field]);
      }
    }
    const deleted = examples['webhookEndpoints.delete']!.response as { data: { id: string } };
    expect(ids('webhookEndpoints')).toContain(deleted.data.id);
  });

  it("prices everything in the event's currency", () => {
    const currencies = new Map(all('events').map((event) => [event.id, event.currency]));
    for (const router of ['tiers', 'orders', 'tickets', 'payouts']) {
      for (const item of all(router))
        expect(item.currency).toBe(currencies.get(item.event_id as string));
    }
  });

  it('links tickets, attendees and check-ins both ways', () => {
    for (const ticket of latest('tickets')) {
      const attendee = current('attendees', ticket.attendee_id as string);
      expect(attendee.ticket_id).toBe(ticket.id);
      expect(attendee.order_id).toBe(ticket.order_id);
      expect(attendee.event_id).toBe(ticket.event_id);
      expect(ticket.price).toBe(current('tiers', ticket.tier_id as string).price);
      expect(attendee.checked_in).toBe(ticket.status === 'checked_in');
    }
    for (const checkin of latest('checkins')) {
      const ticket = current('tickets', checkin.ticket_id as string);
      expect(checkin.attendee_id).toBe(ticket.attendee_id);
      expect(checkin.event_id).toBe(ticket.event_id);
      // A scan stamps the ticket and its attendee with its own receipt time.
      expect(ticket.checked_in_at).toBe(checkin.created_at);
      expect(current('attendees', ticket.attendee_id as string).updated_at).toBe(
        checkin.created_at,
      );
    }
    const response = examples['checkins.create']!.response as { data: Item };
    const scanned = current('tickets', response.data.ticket_id as string);
    for (const request of requestsOf('checkins.create')) {
      if ('ticket_id' in request) expect(request.ticket_id).toBe(scanned.id);
      else expect(request.code).toBe(scanned.code);
      expect(request.event_id).toBe(scanned.event_id);
    }
  });

  it('adds up orders, tiers and payouts', () => {
    for (const order of all('orders')) {
      const tickets = latest('tickets').filter((ticket) => ticket.order_id === order.id);
      expect(order.ticket_count).toBe(tickets.length);
      expect(order.subtotal).toBe(tickets.reduce((sum, ticket) => sum + Number(ticket.price), 0));
      expect(order.total).toBe(Number(order.subtotal) + Number(order.fees));
    }
    for (const tier of all('tiers')) {
      const total = tier.quantity_total as number | null;
      expect(tier.quantity_available).toBe(
        total === null ? null : total - Number(tier.quantity_sold),
      );
    }
    for (const payout of all('payouts')) {
      expect(payout.amount).toBe(
        Number(payout.gross_amount) - Number(payout.fees_amount) - Number(payout.refunds_amount),
      );
    }
  });

  it('serves every list page of one moment with the same checkpoint', () => {
    const checkpoints = new Set(
      Object.values(examples)
        .map((example) => (example.response as { sync_checkpoint?: string }).sync_checkpoint)
        .filter((checkpoint) => checkpoint !== undefined),
    );
    expect(checkpoints.size).toBe(1);
    const [checkpoint] = checkpoints;
    for (const items of objects.values()) {
      for (const item of items) expect(item.updated_at < checkpoint!, item.id).toBe(true);
    }
  });
});

// ---------------------------------------------------------------------------
// Errors, against the table of docs/api.md.

/** `code → status` from the table "Status codes and error codes" of docs/api.md. */
function documentedCodes(): Map<string, number> {
  const docs = readFileSync(new URL('../../../../docs/api.md', import.meta.url), 'utf8');
  const section = docs.split('## Status codes and error codes')[1]!.split('\n## ')[0]!;
  const codes = new Map<string, number>();
  for (const line of section.split('\n')) {
    const cells = line.split('|').map((cell) => cell.trim());
    const status = Number(cells[1]);
    if (!Number.isInteger(status) || status < 400) continue;
    // Only the `code` column: the explanations name codes of the dashboard too.
    for (const [, code] of cells[2]!.matchAll(/`([a-z_]+)`/g)) codes.set(code!, status);
  }
  return codes;
}

describe('the test helpers’ examples', () => {
  const example = (key: string) => examples[`testHelpers.${key}`]!.response as { data: Item };
  const order = example('createOrder').data as Item & { tickets: Item[]; attendees: Item[] };

  it('show test data, with ids of the server’s form', () => {
    const items = [order, ...order.tickets, ...order.attendees, example('advancePayout').data];
    for (const item of items) {
      expect(item.livemode, item.id).toBe(false);
      expect(item.id).toMatch(/^[a-z]+_[0-9A-Za-z]{24}$/);
      expect(new Date(idTime(item.id)).toISOString(), item.id).toBe(item.created_at);
    }
  });

  it('answer a test order with its tickets and their attendees, and refund that order', () => {
    const [request] = requestsOf('testHelpers.createOrder');
    expect(order).toMatchObject({ event_id: request!.event_id, ticket_count: request!.quantity });
    expect(order.tickets.map((ticket) => ticket.attendee_id)).toEqual(
      order.attendees.map((attendee) => attendee.id),
    );
    for (const ticket of order.tickets) expect(ticket.tier_id).toBe(request!.tier_id);
    expect(order.total).toBe(Number(order.subtotal) + Number(order.fees));
    const { tickets: _tickets, attendees: _attendees, ...alone } = order;
    expect(example('refundOrder').data).toEqual({
      ...alone,
      status: 'refunded',
      refunded_amount: order.total,
      cancelled_at: example('refundOrder').data.updated_at,
      updated_at: example('refundOrder').data.updated_at,
    });
  });
});

describe('errorExamples', () => {
  const documented = documentedCodes();

  it('has one example per documented code, with its documented status', () => {
    expect(documented.size).toBeGreaterThan(20);
    expect(Object.keys(errorExamples).sort()).toEqual([...documented.keys()].sort());
    for (const [code, example] of Object.entries(errorExamples)) {
      expect(example.status, code).toBe(documented.get(code));
    }
  });

  it.each(Object.entries(errorExamples))('%s is an error body with its code', (code, example) => {
    expect(ErrorSchema.safeParse(example.body).success).toBe(true);
    expect(example.body.code).toBe(code);
    expect(example.body.error).not.toBe('');
    expect('request_id' in example.body).toBe(example.status === 500);
  });

  it('describes validation problems as the server does', () => {
    const sent = {
      name: 'Harbour Lights Festival',
      timezone: 'Europe/London',
      starts_at: '2026-07-18 14:00',
      ends_at: '2026-07-18T22:30:00+01:00',
      currency: 'gbp',
    };
    const parsed = EventCreateSchema.safeParse(sent);
    expect(parsed.success).toBe(false);
    const details = describeZodError(parsed.error!, 'body');
    expect(errorExamples.validation_failed!.body).toStrictEqual({
      error: details[0]!.message,
      code: 'validation_failed',
      details,
    });
  });
});
