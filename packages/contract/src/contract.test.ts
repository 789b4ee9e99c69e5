import { isAppRoute, type AppRoute, type AppRouter } from '@ts-rest/core';
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import {
  CheckinBatchCreateSchema,
  CheckinCreateSchema,
  MAX_CHECKIN_BATCH,
  contract,
  EventCreateSchema,
  EventListQuerySchema,
  EventUpdateSchema,
  AttendeeListQuerySchema,
  PaginationQuerySchema,
  TierCreateSchema,
  TierUpdateSchema,
  TestOrderCreateSchema,
  TestPayoutAdvanceSchema,
  type RouteMetadata,
} from './index';

function routes(router: AppRouter): AppRoute[] {
  return Object.values(router).flatMap((value) => (isAppRoute(value) ? [value] : routes(value)));
}

const firstMessage = (result: { success: boolean; error?: { issues: { message: string }[] } }) =>
  result.error?.issues[0]?.message;

describe('the router', () => {
  const all = routes(contract);

  it('has the 33 endpoints of the reference, each with a scope', () => {
    expect(all).toHaveLength(33);
    const signatures = all.map((route) => `${route.method} ${route.path}`).sort();
    expect(signatures).toContain('POST /checkins');
    expect(signatures).toContain('POST /checkins/batch');
    expect(signatures).toContain('PATCH /tiers/:id');
    expect(signatures).toContain('DELETE /webhook_endpoints/:id');
    expect(signatures).toContain('POST /test_helpers/orders/:id/refund');
    expect(signatures).toContain('GET /exports/:id/file');
    expect(new Set(signatures).size).toBe(33);
    for (const route of all) {
      const scope = (route.metadata as RouteMetadata).scope;
      // Webhook endpoints receive every change: even reading them needs the write scope. An
      // export is a read of a list, made in the background: it needs the read scope only.
      const expected = route.path.startsWith('/webhook_endpoints')
        ? 'write'
        : route.method === 'GET' || route.path.startsWith('/exports')
          ? 'read'
          : route.path.startsWith('/checkins')
            ? 'checkins:write'
            : 'write';
      expect(scope, `${route.method} ${route.path}`).toBe(expected);
      // Test helpers, and they alone, are for test keys.
      expect((route.metadata as RouteMetadata).testModeOnly, route.path).toBe(
        route.path.startsWith('/test_helpers/') ? true : undefined,
      );
    }
  });

  it('declares the shared error responses on every route', () => {
    for (const route of all) {
      for (const status of [400, 401, 402, 403, 429, 500, 503]) {
        expect(route.responses, `${route.method} ${route.path}`).toHaveProperty(String(status));
      }
      expect(route.strictStatusCodes).toBe(true);
    }
  });
});

describe('pagination', () => {
  it('defaults to 20 items and leaves page to the server, so it can tell an explicit one', () => {
    expect(PaginationQuerySchema.parse({})).toEqual({ limit: 20 });
  });

  it('takes a cursor as it came, and refuses what cannot be one', () => {
    expect(PaginationQuerySchema.parse({ cursor: 'eyJ2IjoxfQ.c2ln' })).toEqual({
      limit: 20,
      cursor: 'eyJ2IjoxfQ.c2ln',
    });
    for (const cursor of ['', 'a b', 'a/b', ['a', 'b'], 'x'.repeat(2001)]) {
      expect(firstMessage(PaginationQuerySchema.safeParse({ cursor }))).toBe(
        'cursor must be the next_cursor of an earlier page of this list',
      );
    }
  });

  it('accepts strings from the query and numbers from code', () => {
    expect(PaginationQuerySchema.parse({ page: '3', limit: '100' })).toEqual({
      page: 3,
      limit: 100,
    });
    expect(PaginationQuerySchema.parse({ page: 2, limit: 1 })).toEqual({ page: 2, limit: 1 });
  });

  it.each(['0', '101', 'abc', '1.5', '-1', '', ' ', '1e2', ['1', '2']])(
    'refuses limit=%j with a message naming limit',
    (limit) => {
      const result = PaginationQuerySchema.safeParse({ limit });
      expect(result.success).toBe(false);
      expect(firstMessage(result)).toBe('limit must be an integer between 1 and 100');
    },
  );

  it.each(['0', '-3', 'x', '2.5', '9007199254740992', '12345678901234567890'])(
    'refuses page=%j with a message naming page and its range',
    (page) => {
      const result = PaginationQuerySchema.safeParse({ page });
      expect(firstMessage(result)).toBe('page must be an integer between 1 and 9007199254740991');
    },
  );

  it('takes the last safe page', () => {
    expect(PaginationQuerySchema.parse({ page: '9007199254740991' }).page).toBe(
      Number.MAX_SAFE_INTEGER,
    );
  });
});

describe('query parameters', () => {
  const gets = routes(contract).filter((route) => route.method === 'GET');

  it('are strict on every GET: a misspelt parameter is refused, not ignored', () => {
    expect(gets).toHaveLength(19);
    for (const route of gets) {
      const query = route.query as z.ZodTypeAny | undefined;
      expect(query, route.path).toBeDefined();
      const result = query?.safeParse({ staus: 'refunded' });
      expect(result?.error?.issues[0], route.path).toMatchObject({
        code: 'unrecognized_keys',
        keys: ['staus'],
      });
    }
  });

  it('refuse a NUL in a text filter, naming it and the character', () => {
    expect(firstMessage(EventListQuerySchema.safeParse({ q: 'a\u0000b' }))).toBe(
      'q must be text without NUL characters (%00)',
    );
    expect(firstMessage(EventListQuerySchema.safeParse({ q: ['a', 'b'] }))).toBe(
      'q must be a single value between 1 and 200 characters',
    );
  });
});

describe('list filters', () => {
  it('parses a comma-separated status list and refuses unknown values', () => {
    expect(EventListQuerySchema.parse({ status: 'draft, published' }).status).toEqual([
      'draft',
      'published',
    ]);
    const bad = EventListQuerySchema.safeParse({ status: 'draft,sold' });
    expect(firstMessage(bad)).toMatch(/^status must be one or more of: draft, published/);
  });

  it('parses timestamps and refuses other text', () => {
    const parsed = EventListQuerySchema.parse({ updated_since: '2026-01-01T10:00:00+01:00' });
    expect(parsed.updated_since?.toISOString()).toBe('2026-01-01T09:00:00.000Z');
    expect(firstMessage(EventListQuerySchema.safeParse({ starts_after: 'tomorrow' }))).toMatch(
      /^starts_after must be an ISO-8601 timestamp/,
    );
  });

  it('parses booleans strictly', () => {
    expect(AttendeeListQuerySchema.parse({ checked_in: 'false' }).checked_in).toBe(false);
    expect(AttendeeListQuerySchema.parse({ checked_in: true }).checked_in).toBe(true);
    expect(firstMessage(AttendeeListQuerySchema.safeParse({ checked_in: 'yes' }))).toBe(
      'checked_in must be true or false',
    );
  });
});

describe('bodies', () => {
  const event = {
    name: 'Gig',
    timezone: 'Europe/Berlin',
    starts_at: '2027-01-01T19:00:00Z',
    ends_at: '2027-01-01T23:00:00Z',
    currency: 'EUR',
  };

  it('accepts a minimal event and refuses unknown fields', () => {
    expect(EventCreateSchema.safeParse(event).success).toBe(true);
    const extra = EventCreateSchema.safeParse({ ...event, staus: 'draft' });
    expect(extra.error?.issues[0]?.code).toBe('unrecognized_keys');
  });

  it('takes any well-formed text but refuses NUL and unpaired surrogates', () => {
    for (const name of ['Gig 🎟️ Großes Fest', 'مرحبا', '𝄞 clef']) {
      expect(EventCreateSchema.safeParse({ ...event, name }).success, name).toBe(true);
    }
    for (const name of ['a\u0000b', 'lone \ud800', '\udc00 first', 'swapped \udc00\ud800']) {
      expect(EventCreateSchema.safeParse({ ...event, name }).success, JSON.stringify(name)).toBe(
        false,
      );
    }
  });

  it('checks time zones and currencies with messages naming the field', () => {
    expect(firstMessage(EventCreateSchema.safeParse({ ...event, timezone: 'Mars/Base' }))).toMatch(
      /^timezone must be an IANA time zone/,
    );
    expect(firstMessage(EventCreateSchema.safeParse({ ...event, currency: 'eur' }))).toMatch(
      /^currency must be a three-letter upper-case ISO 4217 code/,
    );
  });

  it('lets any event status be asked for in an update (the server judges transitions)', () => {
    expect(EventUpdateSchema.safeParse({ status: 'completed' }).success).toBe(true);
    expect(EventUpdateSchema.safeParse({ status: 'archived' }).success).toBe(false);
  });

  it('never lets a client write sold_out on a tier', () => {
    expect(TierCreateSchema.safeParse({ event_id: 'evt_x', name: 'GA', price: 0 }).success).toBe(
      true,
    );
    expect(TierUpdateSchema.safeParse({ status: 'sold_out' }).success).toBe(false);
    expect(TierCreateSchema.safeParse({ event_id: 'evt_x', name: 'GA', price: 9.99 }).success).toBe(
      false,
    );
  });

  it('needs exactly one of ticket_id and code for a check-in', () => {
    expect(CheckinCreateSchema.safeParse({ code: 'abc' }).success).toBe(true);
    expect(CheckinCreateSchema.safeParse({ ticket_id: 'tkt_x' }).success).toBe(true);
    expect(firstMessage(CheckinCreateSchema.safeParse({}))).toBe(
      'exactly one of ticket_id or code is required',
    );
    expect(CheckinCreateSchema.safeParse({ code: 'a', ticket_id: 'tkt_x' }).success).toBe(false);
    expect(CheckinCreateSchema.safeParse({ code: 'a', direction: 'sideways' }).success).toBe(false);
  });

  it('takes a batch of 1 to 100 scans, each naming one ticket, with an optional idempotency key', () => {
    const scan = { code: 'abc', scanned_at: '2026-12-06T20:00:00Z', idempotency_key: 'door-1:42' };
    expect(CheckinBatchCreateSchema.safeParse({ checkins: [scan] }).success).toBe(true);
    expect(CheckinBatchCreateSchema.safeParse({ checkins: [] }).success).toBe(false);
    const full = Array.from({ length: MAX_CHECKIN_BATCH }, () => scan);
    expect(CheckinBatchCreateSchema.safeParse({ checkins: full }).success).toBe(true);
    expect(CheckinBatchCreateSchema.safeParse({ checkins: [...full, scan] }).success).toBe(false);
    expect(
      firstMessage(CheckinBatchCreateSchema.safeParse({ checkins: [scan, { gate: 'North' }] })),
    ).toBe('exactly one of ticket_id or code is required');
    expect(
      CheckinBatchCreateSchema.safeParse({ checkins: [{ ...scan, idempotency_key: '' }] }).success,
    ).toBe(false);
    expect(CheckinBatchCreateSchema.safeParse({ checkins: [scan], extra: 1 }).success).toBe(false);
    // A single check-in takes no idempotency key in its body: that is the header's.
    expect(CheckinCreateSchema.safeParse(scan).success).toBe(false);
  });

  it('takes a test order of whole tickets, leaving their number to the server, and trims the buyer', () => {
    const order = { event_id: 'evt_x', tier_id: 'tier_x', quantity: 2 };
    expect(TestOrderCreateSchema.safeParse(order).success).toBe(true);
    // 0 or 500 is the server's to refuse (400 `invalid_quantity`, naming the range); 1.5 is no count.
    expect(TestOrderCreateSchema.safeParse({ ...order, quantity: 0 }).success).toBe(true);
    expect(TestOrderCreateSchema.safeParse({ ...order, quantity: 1.5 }).success).toBe(false);
    expect(TestOrderCreateSchema.safeParse({ ...order, quantity: '2' }).success).toBe(false);
    expect(TestOrderCreateSchema.safeParse({ ...order, buyer: 'Ann' }).error?.issues[0]?.code).toBe(
      'unrecognized_keys',
    );
    expect(TestOrderCreateSchema.safeParse({ ...order, buyer_email: 'nobody' }).success).toBe(
      false,
    );
    expect(TestOrderCreateSchema.parse({ ...order, buyer_name: '  Ann Lee ' }).buyer_name).toBe(
      'Ann Lee',
    );
  });

  it('advances a test payout with an optional fail flag and nothing else', () => {
    expect(TestPayoutAdvanceSchema.safeParse({}).success).toBe(true);
    expect(TestPayoutAdvanceSchema.safeParse({ fail: true }).success).toBe(true);
    expect(TestPayoutAdvanceSchema.safeParse({ fail: 'yes' }).success).toBe(false);
    expect(TestPayoutAdvanceSchema.safeParse({ reason: 'x' }).success).toBe(false);
  });
});
