import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  APIConnectionError,
  APIError,
  AuthenticationError,
  BadRequestError,
  Boxoffice,
  ConflictError,
  NotFoundError,
  Page,
  PermissionDeniedError,
  PlanRequiredError,
  RateLimitError,
  UnexpectedResponseError,
  UnprocessableEntityError,
  type ClientOptions,
  type Clock,
} from '@boxoffice/sdk';
import { randomBase62 } from '../src/core/ids';
import { revokeKey } from '../src/modules/api-keys/api-key.service';
import { createRateLimits, type RateLimits } from '../src/http/rate-limit';
import { addOrder, buildEvent, buildPayout, cancelFixtureOrder } from './fixtures';
import {
  closedPort,
  createTenant,
  createTestKey,
  getTestOrm,
  startTestServer,
  useTestServer,
  type TestServer,
  type TestTenant,
} from './setup';

const ID = (prefix: string) => new RegExp(`^${prefix}_[0-9A-Za-z]{16,}$`);

const eventBody = (name: string) => ({
  name,
  timezone: 'Europe/London',
  starts_at: '2027-06-01T18:00:00Z',
  ends_at: '2027-06-01T22:00:00Z',
  currency: 'GBP',
});

interface Sent {
  method: string;
  path: string;
  status: number | undefined;
  retryAfter: string | null;
  idempotencyKey: string | null;
}

/**
 * The global `fetch`, recording what the client sent and what came back. `intercept` may replace
 * an answer (e.g. lose it on the way back after the server has acted on the request).
 */
function recordingFetch(
  intercept?: (sent: Sent, response: Response) => Promise<Response> | Response,
) {
  const sent: Sent[] = [];
  let inFlight = 0;
  const waiters: (() => void)[] = [];
  const wrapped = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    const record: Sent = {
      method: init?.method ?? 'GET',
      path: `${url.pathname}${url.search}`,
      status: undefined,
      retryAfter: null,
      idempotencyKey: new Headers(init?.headers).get('idempotency-key'),
    };
    sent.push(record);
    inFlight += 1;
    let response: Response;
    try {
      const answer = await fetch(input, init);
      // Read in full here, so that an answered request is one the client can act on at once.
      response = new Response(await answer.arrayBuffer(), answer);
    } finally {
      inFlight -= 1;
      if (inFlight === 0) waiters.splice(0).forEach((wake) => wake());
    }
    record.status = response.status;
    record.retryAfter = response.headers.get('retry-after');
    return intercept ? intercept(record, response) : response;
  };
  /** Resolves when every request sent so far has been answered (so the server has counted it). */
  const idle = (): Promise<void> =>
    inFlight === 0 ? Promise.resolve() : new Promise((resolve) => waiters.push(resolve));
  return { sent, fetch: wrapped, idle };
}

/**
 * Time for the client that skips its waits: `sleep` returns at once (after `onSleep`), and `now`
 * jumps to the end of the wait, so the client sees it as done. Waits that overlap (concurrent
 * calls) overlap here too rather than adding up.
 */
function skippingClock(onSleep?: (ms: number) => void | Promise<void>) {
  const sleeps: number[] = [];
  let skipped = 0;
  const clock: Clock = {
    now: () => Date.now() + skipped,
    sleep: async (ms) => {
      sleeps.push(ms);
      const until = clock.now() + ms;
      await onSleep?.(ms);
      skipped = Math.max(skipped, until - Date.now());
    },
  };
  return { clock, sleeps };
}

async function count(sql: string, params: unknown[]): Promise<number> {
  const orm = await getTestOrm();
  const [row] = await orm.em.fork().execute<{ count: string }[]>(sql, params);
  return Number(row!.count);
}

const checkinRows = (ticketId: string) =>
  count('select count(*) as count from checkins where ticket_id = ?', [ticketId]);

/** The rejection of `promise`, which must reject. */
async function failure(promise: PromiseLike<unknown>): Promise<APIError> {
  const outcome = await Promise.resolve(promise).then(
    () => undefined,
    (error: unknown) => error,
  );
  expect(outcome, 'the call should have failed').toBeInstanceOf(APIError);
  return outcome as APIError;
}

const server = useTestServer();

const clientFor = (
  tenant: Pick<TestTenant, 'key'>,
  options: ClientOptions = {},
  target: Pick<TestServer, 'baseUrl'> = server,
) =>
  new Boxoffice({
    apiKey: tenant.key,
    baseURL: `${target.baseUrl}/api/v1`,
    logLevel: 'off',
    ...options,
  });

describe('events and tiers', () => {
  it('creates, reads, updates and lists events', async () => {
    const tenant = await createTenant();
    const client = clientFor(tenant);

    const created = await client.events.create({ ...eventBody('Jazz night'), capacity: 300 });
    expect(created).toMatchObject({
      name: 'Jazz night',
      status: 'draft',
      capacity: 300,
      currency: 'GBP',
      starts_at: '2027-06-01T18:00:00.000Z',
    });
    expect(created.id).toMatch(ID('evt'));

    await expect(client.events.get(created.id)).resolves.toEqual(created);

    const published = await client.events.update(created.id, {
      status: 'published',
      venue: 'Ronnie’s',
    });
    expect(published).toMatchObject({ id: created.id, status: 'published', venue: 'Ronnie’s' });
    expect(published.published_at).toEqual(expect.any(String));

    const draft = await client.events.create(eventBody('Blues night'));
    const page = await client.events.list();
    expect(page).toBeInstanceOf(Page);
    expect(page).toMatchObject({ total: 2, page: 1, limit: 20 });
    expect(page.data.map((e) => e.id)).toEqual([created.id, draft.id]);
    expect(page.hasNextPage()).toBe(false);

    const filtered = await client.events.list({ status: ['draft', 'cancelled'], q: 'blues' });
    expect(filtered.data.map((e) => e.id)).toEqual([draft.id]);
    const later = await client.events.list({ starts_after: new Date('2027-06-02T00:00:00Z') });
    expect(later.total).toBe(0);
  });

  it('creates, reads, updates and lists ticket tiers', async () => {
    const tenant = await createTenant();
    const client = clientFor(tenant);
    const event = await client.events.create(eventBody('Tiered'));

    const early = await client.tiers.create({
      event_id: event.id,
      name: 'Early bird',
      price: 1500,
      quantity_total: 50,
      sort_order: 1,
    });
    expect(early).toMatchObject({
      event_id: event.id,
      name: 'Early bird',
      price: 1500,
      currency: 'GBP',
      quantity_total: 50,
      quantity_sold: 0,
      status: 'on_sale',
    });
    expect(early.id).toMatch(ID('tier'));
    const vip = await client.tiers.create({ event_id: event.id, name: 'VIP', price: 9000 });

    await expect(client.tiers.get(early.id)).resolves.toEqual(early);
    const paused = await client.tiers.update(early.id, { status: 'paused', price: 1800 });
    expect(paused).toMatchObject({ id: early.id, status: 'paused', price: 1800 });

    const tiers = await client.tiers.list({ event_id: event.id });
    expect(tiers.total).toBe(2);
    expect(tiers.data.map((t) => t.id).sort()).toEqual([early.id, vip.id].sort());
  });
});

describe('orders, tickets, attendees and payouts', () => {
  it('reads each of them, one by one and as lists', async () => {
    const tenant = await createTenant();
    const { event, tier, order, tickets } = await buildEvent(tenant.organisationId, {
      tickets: 2,
      buyerEmail: 'ada@example.com',
    });
    const client = clientFor(tenant);

    const orders = await client.orders.list({ event_id: event.id, email: 'ada@example.com' });
    expect(orders.total).toBe(1);
    expect(orders.data[0]).toMatchObject({ id: order.id, event_id: event.id, ticket_count: 2 });
    await expect(client.orders.get(order.id)).resolves.toMatchObject({
      id: order.id,
      status: 'completed',
      buyer_email: 'ada@example.com',
    });

    const byOrder = await client.tickets.list({ order_id: order.id });
    expect(byOrder.data.map((t) => t.id).sort()).toEqual(tickets.map((t) => t.id).sort());
    const ticket = tickets[0]!;
    await expect(client.tickets.get(ticket.id)).resolves.toMatchObject({
      id: ticket.id,
      tier_id: tier.id,
      status: 'valid',
      code: ticket.code,
    });
    const byCode = await client.tickets.list({ code: ticket.code });
    expect(byCode.data.map((t) => t.id)).toEqual([ticket.id]);

    const attendees = await client.attendees.list({ event_id: event.id, checked_in: false });
    expect(attendees.total).toBe(2);
    const attendee = await client.attendees.get(ticket.attendeeId);
    expect(attendee).toMatchObject({
      id: ticket.attendeeId,
      ticket_id: ticket.id,
      checked_in: false,
      answers: [{ question: 'Dietary requirements', answer: 'None' }],
    });

    const payout = await buildPayout(tenant.organisationId, { eventId: event.id });
    await buildPayout(tenant.organisationId, { status: 'paid', paidAt: new Date() });
    const payouts = await client.payouts.list({ event_id: event.id });
    expect(payouts.data.map((p) => p.id)).toEqual([payout.id]);
    await expect(client.payouts.get(payout.id)).resolves.toMatchObject({
      id: payout.id,
      gross_amount: 100_000,
      amount: 93_000,
      status: 'pending',
    });
    expect((await client.payouts.list({ status: ['paid'] })).total).toBe(1);
  });

  it('reads every item across several pages with for await, and page by page', async () => {
    const tenant = await createTenant();
    const { event, tier } = await buildEvent(tenant.organisationId, { tickets: 4 });
    await addOrder(tenant.organisationId, tier, { tickets: 3 });
    const recorder = recordingFetch();
    const client = clientFor(tenant, { fetch: recorder.fetch });

    const seen: string[] = [];
    for await (const ticket of client.tickets.list({ event_id: event.id, limit: 3 })) {
      seen.push(ticket.id);
    }
    expect(seen).toHaveLength(7);
    expect(new Set(seen).size).toBe(7);
    // The first page by its query, the others by the cursor of the page before.
    const paths = recorder.sent.map((s) => s.path);
    expect(paths[0]).toBe(`/api/v1/tickets?event_id=${event.id}&limit=3`);
    expect(paths.slice(1)).toEqual([
      expect.stringMatching(
        new RegExp(`^/api/v1/tickets\\?event_id=${event.id}&limit=3&cursor=[\\w.-]+$`),
      ),
      expect.stringMatching(
        new RegExp(`^/api/v1/tickets\\?event_id=${event.id}&limit=3&cursor=[\\w.-]+$`),
      ),
    ]);

    const sizes: number[] = [];
    for await (const page of client.attendees.list({ event_id: event.id, limit: 3 }).iterPages()) {
      sizes.push(page.data.length);
    }
    expect(sizes).toEqual([3, 3, 1]);

    const fromSecond: string[] = [];
    for await (const ticket of client.tickets.list({ event_id: event.id, limit: 3, page: 2 })) {
      fromSecond.push(ticket.id);
    }
    expect(fromSecond).toEqual(seen.slice(3));
    expect(recorder.sent).toHaveLength(3 + 3 + 2);
  });
});

describe('walking a list', () => {
  it('asks for the next page from the Link header, before the page it waits for is read', async () => {
    const tenant = await createTenant();
    const { event, tier } = await buildEvent(tenant.organisationId, { tickets: 6 });
    await addOrder(tenant.organisationId, tier, { tickets: 6 });
    const log: string[] = [];
    let asked = 0;
    const fetchInOrder = async (input: string | URL | Request, init?: RequestInit) => {
      const n = ++asked;
      log.push(`ask ${n}`);
      const answer = await fetch(input, init);
      const read = answer.text.bind(answer);
      // A body that takes a while to arrive, as a large page does on a slow link.
      Object.defineProperty(answer, 'text', {
        value: async () => {
          await new Promise((resolve) => setTimeout(resolve, 50));
          const text = await read();
          log.push(`read ${n}`);
          return text;
        },
      });
      return answer;
    };
    const client = clientFor(tenant, { fetch: fetchInOrder });
    const seen: string[] = [];
    for await (const ticket of client.tickets.list({ event_id: event.id, limit: 3 })) {
      seen.push(ticket.id);
    }
    expect(seen).toHaveLength(12);
    expect(new Set(seen).size).toBe(12);
    // Four pages, no request past the end, and each page after the second asked for while the
    // one before it was still arriving.
    expect(asked).toBe(4);
    expect(log.indexOf('ask 3')).toBeLessThan(log.indexOf('read 2'));
    expect(log.indexOf('ask 4')).toBeLessThan(log.indexOf('read 3'));
  });
});

describe('check-ins', () => {
  it('checks a ticket in and out, and reads the check-ins back', async () => {
    const tenant = await createTenant();
    const { event, tickets } = await buildEvent(tenant.organisationId, { tickets: 2 });
    const ticket = tickets[0]!;
    const client = clientFor(tenant);

    const entry = await client.checkins.create({
      code: ticket.code,
      event_id: event.id,
      gate: 'North',
    });
    expect(entry).toMatchObject({
      ticket_id: ticket.id,
      attendee_id: ticket.attendeeId,
      event_id: event.id,
      direction: 'entry',
      gate: 'North',
      api_key_id: tenant.apiKeyId,
    });
    expect(entry.id).toMatch(ID('chk'));
    await expect(client.checkins.get(entry.id)).resolves.toEqual(entry);
    await expect(client.tickets.get(ticket.id)).resolves.toMatchObject({ status: 'checked_in' });
    const inside = await client.attendees.list({ event_id: event.id, checked_in: true });
    expect(inside.data.map((a) => a.id)).toEqual([ticket.attendeeId]);

    const exit = await client.checkins.create({ ticket_id: ticket.id, direction: 'exit' });
    expect(exit.direction).toBe('exit');
    await expect(client.tickets.get(ticket.id)).resolves.toMatchObject({ status: 'valid' });

    const all = await client.checkins.list({ event_id: event.id });
    expect(all.data.map((c) => c.id)).toEqual([entry.id, exit.id]);
    const exits = await client.checkins.list({ ticket_id: ticket.id, direction: ['exit'] });
    expect(exits.data.map((c) => c.id)).toEqual([exit.id]);
  });

  it('retries a scan whose answer was lost with the same key: one scan, one check-in', async () => {
    const tenant = await createTenant();
    const { event, tickets } = await buildEvent(tenant.organisationId, { tickets: 1 });
    const ticket = tickets[0]!;
    let lost: unknown;
    const recorder = recordingFetch(async (sent, response) => {
      if (sent.method === 'POST' && lost === undefined) {
        // The server has stored the check-in; the answer never reaches the door.
        lost = await response.json();
        throw new TypeError('fetch failed', { cause: new Error('socket hang up') });
      }
      return response;
    });
    const { clock, sleeps } = skippingClock();
    const client = clientFor(tenant, { fetch: recorder.fetch, clock });

    const { data, response } = await client.checkins
      .create({ ticket_id: ticket.id, event_id: event.id, gate: 'East' })
      .withResponse();

    expect(recorder.sent.map((s) => [s.method, s.status])).toEqual([
      ['POST', 201],
      ['POST', 201],
    ]);
    const [first, second] = recorder.sent;
    expect(first!.idempotencyKey).toMatch(/^sdk_/);
    expect(second!.idempotencyKey).toBe(first!.idempotencyKey);
    expect(sleeps).toHaveLength(1);
    expect(response.headers.get('idempotent-replayed')).toBe('true');
    expect(data).toEqual((lost as { data: unknown }).data);
    expect(await checkinRows(ticket.id)).toBe(1);
    await expect(client.tickets.get(ticket.id)).resolves.toMatchObject({ status: 'checked_in' });
  });

  it('creates one event when a create is retried after its answer was lost', async () => {
    const tenant = await createTenant();
    let dropped = false;
    const recorder = recordingFetch((sent, response) => {
      if (sent.method === 'POST' && !dropped) {
        dropped = true;
        throw new TypeError('fetch failed');
      }
      return response;
    });
    const client = clientFor(tenant, { fetch: recorder.fetch, clock: skippingClock().clock });
    const event = await client.events.create(eventBody('Retried once'));
    expect(recorder.sent.map((s) => s.status)).toEqual([201, 201]);
    expect(
      await count('select count(*) as count from events where organisation_id = ? and name = ?', [
        tenant.organisationId,
        'Retried once',
      ]),
    ).toBe(1);
    await expect(client.events.get(event.id)).resolves.toMatchObject({ name: 'Retried once' });
  });

  it('admits exactly one of several doors scanning one ticket at once', async () => {
    const tenant = await createTenant();
    const { event, tickets } = await buildEvent(tenant.organisationId, { tickets: 1 });
    const ticket = tickets[0]!;
    const recorder = recordingFetch();
    const doors = Array.from({ length: 8 }, () => clientFor(tenant, { fetch: recorder.fetch }));

    const results = await Promise.allSettled(
      doors.map((door, i) =>
        door.checkins.create({ code: ticket.code, event_id: event.id, gate: `Door ${i}` }),
      ),
    );

    const admitted = results.filter((r) => r.status === 'fulfilled');
    const refused = results.flatMap((r) => (r.status === 'rejected' ? [r.reason] : []));
    expect(admitted).toHaveLength(1);
    expect(refused).toHaveLength(7);
    for (const error of refused) {
      expect(error).toBeInstanceOf(ConflictError);
      expect(error).toMatchObject({ status: 409, code: 'already_checked_in' });
    }
    // A real conflict is final: no door retried.
    expect(recorder.sent).toHaveLength(8);
    expect(new Set(recorder.sent.map((s) => s.idempotencyKey)).size).toBe(8);
    expect(await checkinRows(ticket.id)).toBe(1);
  });
});

describe('test helpers', () => {
  it('sell a test order whose tickets check in by code, refund it, move payouts on, and reset', async () => {
    const live = await createTenant();
    const tenant = await createTestKey(live.organisationId);
    const { event, tier } = await buildEvent(tenant.organisationId, { tickets: 1 });
    const client = clientFor(tenant);

    const order = await client.testHelpers.orders.create({
      event_id: event.id,
      tier_id: tier.id,
      quantity: 2,
    });
    expect(order).toMatchObject({ status: 'completed', ticket_count: 2, livemode: false });
    expect(order.attendees.map((attendee) => attendee.id)).toEqual(
      order.tickets.map((ticket) => ticket.attendee_id),
    );
    const checkin = await client.checkins.create({ code: order.tickets[0]!.code });
    expect(checkin).toMatchObject({ ticket_id: order.tickets[0]!.id, livemode: false });
    expect((await client.tiers.get(tier.id)).quantity_sold).toBe(3);

    const refunded = await client.testHelpers.orders.refund(order.id);
    expect(refunded).toMatchObject({ id: order.id, status: 'refunded', livemode: false });
    const again = await client.testHelpers.orders.refund(order.id).catch((error: unknown) => error);
    expect(again).toBeInstanceOf(ConflictError);
    expect((again as ConflictError).code).toBe('order_refunded');

    const payout = await buildPayout(tenant.organisationId);
    expect((await client.testHelpers.payouts.advance(payout.id)).status).toBe('in_transit');
    expect(await client.testHelpers.payouts.advance(payout.id, { fail: true })).toMatchObject({
      status: 'failed',
      failure_reason: 'The bank returned the payout.',
    });

    const counts = await client.testHelpers.reset();
    expect(counts.events).toBe(3);
    await expect(client.events.get(event.id)).rejects.toBeInstanceOf(NotFoundError);
  });

  it('sell from the sample data as the SDK README does: an upcoming event, a tier on sale', async () => {
    const tenant = await createTestKey((await createTenant()).organisationId);
    const client = clientFor(tenant);
    const now = new Date().toISOString();
    const [event] = (await client.events.list({ status: 'published', starts_after: now })).data;
    const [tier] = (await client.tiers.list({ event_id: event!.id, status: 'on_sale' })).data;
    const order = await client.testHelpers.orders.create({
      event_id: event!.id,
      tier_id: tier!.id,
      quantity: 2,
      buyer_name: 'Ada Lovelace',
    });
    const checkin = await client.checkins.create({
      code: order.tickets[0]!.code,
      event_id: event!.id,
    });
    expect([checkin.direction, checkin.livemode]).toEqual(['entry', false]);
  });

  it('with a live key, throw a PermissionDeniedError whose code is test_mode_only', async () => {
    const tenant = await createTenant();
    const { event, tier } = await buildEvent(tenant.organisationId, { tickets: 1 });
    const client = clientFor(tenant);
    const refused = await client.testHelpers.orders
      .create({ event_id: event.id, tier_id: tier.id, quantity: 1 })
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(PermissionDeniedError);
    const code: 'missing_scope' | 'test_mode_only' | (string & {}) | undefined = (
      refused as PermissionDeniedError
    ).code;
    expect(code).toBe('test_mode_only');
    expect((refused as PermissionDeniedError).error).toMatch(/bxo_test_/);
    await expect(client.testHelpers.reset()).rejects.toMatchObject({ code: 'test_mode_only' });
    expect((await client.tiers.get(tier.id)).quantity_sold).toBe(1);
  });
});

describe('errors from the server', () => {
  it('401: an unknown key is an AuthenticationError, not retried', async () => {
    const recorder = recordingFetch();
    const key = `bxo_live_${randomBase62(40)}`;
    const client = clientFor({ key }, { fetch: recorder.fetch });
    const error = await failure(client.events.list());
    expect(error).toBeInstanceOf(AuthenticationError);
    const said = `Invalid API key provided: bxo_live_…${key.slice(-4)}. Check that the whole key was copied, or create a new one in the dashboard (Settings → API keys).`;
    expect(error).toMatchObject({
      status: 401,
      error: said,
      code: 'invalid_api_key',
      message: `401 ${said}`,
    });
    expect(error.requestId).toEqual(expect.any(String));
    expect(error.requestId).toBe(error.headers?.get('x-request-id'));
    expect(recorder.sent).toHaveLength(1);
  });

  it('401: a malformed or revoked key is an AuthenticationError too, with its own code', async () => {
    const malformed = await failure(clientFor({ key: 'bxo_live_cut-short' }).events.list());
    expect(malformed).toBeInstanceOf(AuthenticationError);
    expect(malformed).toMatchObject({ status: 401, code: 'malformed_authorization' });
    const tenant = await createTenant(['read']);
    await revokeKey((await getTestOrm()).em.fork(), tenant.apiKeyId);
    const revoked = await failure(clientFor(tenant).events.list());
    expect(revoked).toBeInstanceOf(AuthenticationError);
    expect(revoked).toMatchObject({ status: 401, code: 'revoked_api_key' });
    expect(revoked.error).toMatch(/^This API key \(bxo_live_…\w{4}\) was revoked on /);
  });

  it('402: an organisation on the free plan gets a PlanRequiredError', async () => {
    const tenant = await createTenant(['read', 'write', 'checkins:write'], 'free');
    const error = await failure(clientFor(tenant).events.list());
    expect(error).toBeInstanceOf(PlanRequiredError);
    expect(error).toMatchObject({ status: 402, code: 'plan_required' });
    expect(error.error).toMatch(/Pro plan/);
  });

  it('403: a key without the scope gets a PermissionDeniedError naming it', async () => {
    const tenant = await createTenant(['read']);
    const { tickets } = await buildEvent(tenant.organisationId, { tickets: 1 });
    const client = clientFor(tenant);
    const write = await failure(client.events.create(eventBody('Not allowed')));
    expect(write).toBeInstanceOf(PermissionDeniedError);
    expect(write).toMatchObject({
      status: 403,
      error: "This API key lacks the 'write' scope",
      code: 'missing_scope',
    });
    const scan = await failure(client.checkins.create({ ticket_id: tickets[0]!.id }));
    expect(scan).toBeInstanceOf(PermissionDeniedError);
    expect(scan.error).toBe("This API key lacks the 'checkins:write' scope");
  });

  it('404: a missing object, or another organisation’s, is a NotFoundError', async () => {
    const tenant = await createTenant();
    const other = await createTenant();
    const { event } = await buildEvent(other.organisationId, { tickets: 1 });
    const client = clientFor(tenant);

    const missing = await failure(client.events.get('evt_0000000000000000'));
    expect(missing).toBeInstanceOf(NotFoundError);
    expect(missing).toMatchObject({ status: 404, error: 'event not found', code: 'not_found' });
    const foreign = await failure(client.events.get(event.id));
    expect(foreign).toBeInstanceOf(NotFoundError);
    const wrongKind = await failure(client.tickets.get(event.id));
    expect(wrongKind.error).toBe('ticket not found');
    const odd = await failure(client.orders.get('ord_ä/..'));
    expect(odd).toBeInstanceOf(NotFoundError);
    expect(odd.error).toBe('order not found');
  });

  it('409: a ticket already inside, or void, is a ConflictError with its code', async () => {
    const tenant = await createTenant();
    const { tickets } = await buildEvent(tenant.organisationId, { tickets: 1 });
    const { tier } = await buildEvent(tenant.organisationId, { tickets: 1 });
    const other = await addOrder(tenant.organisationId, tier, { tickets: 1 });
    const recorder = recordingFetch();
    const client = clientFor(tenant, { fetch: recorder.fetch });

    await client.checkins.create({ ticket_id: tickets[0]!.id });
    const again = await failure(client.checkins.create({ ticket_id: tickets[0]!.id }));
    expect(again).toBeInstanceOf(ConflictError);
    expect(again.code).toBe('already_checked_in');
    expect(again.error).toMatch(/^ticket already checked in at /);
    expect(recorder.sent).toHaveLength(2);

    await cancelFixtureOrder(tenant.organisationId, other.order.id);
    const voided = await failure(client.checkins.create({ ticket_id: other.tickets[0]!.id }));
    expect(voided).toBeInstanceOf(ConflictError);
    expect(voided).toMatchObject({ error: 'ticket is void', code: 'ticket_void' });
  });

  it('422: a ticket of another event, or a tier for an unknown event, is an UnprocessableEntityError', async () => {
    const tenant = await createTenant();
    const { tickets } = await buildEvent(tenant.organisationId, { tickets: 1 });
    const { event: otherEvent } = await buildEvent(tenant.organisationId, { tickets: 1 });
    const client = clientFor(tenant);

    const wrongDoor = await failure(
      client.checkins.create({ ticket_id: tickets[0]!.id, event_id: otherEvent.id }),
    );
    expect(wrongDoor).toBeInstanceOf(UnprocessableEntityError);
    expect(wrongDoor).toMatchObject({ status: 422, error: 'ticket is for a different event' });

    const orphan = await failure(
      client.tiers.create({ event_id: 'evt_0000000000000000', name: 'GA', price: 100 }),
    );
    expect(orphan).toBeInstanceOf(UnprocessableEntityError);
    expect(await checkinRows(tickets[0]!.id)).toBe(0);
  });

  it('400: a bad value is a BadRequestError naming the field, not retried', async () => {
    const tenant = await createTenant();
    const recorder = recordingFetch();
    const client = clientFor(tenant, { fetch: recorder.fetch });

    const limit = await failure(client.events.list({ limit: 500 }));
    expect(limit).toBeInstanceOf(BadRequestError);
    expect(limit).toMatchObject({
      status: 400,
      error: 'limit must be an integer between 1 and 100',
      code: 'validation_failed',
    });
    const backwards = await failure(
      client.events.create({ ...eventBody('Backwards'), ends_at: '2027-06-01T17:00:00Z' }),
    );
    expect(backwards).toBeInstanceOf(BadRequestError);
    expect(backwards.error).toMatch(/ends_at/);
    expect(recorder.sent).toHaveLength(2);
  });

  it('echoes the request id the caller sent', async () => {
    const tenant = await createTenant();
    const error = await failure(
      clientFor(tenant).events.get('evt_0000000000000000', {
        headers: { 'X-Request-Id': 'req_door_7_scan_12' },
      }),
    );
    expect(error.requestId).toBe('req_door_7_scan_12');
  });

  it('gives up on a server that is not there with an APIConnectionError', async () => {
    const port = await closedPort();
    const recorder = recordingFetch();
    const { clock, sleeps } = skippingClock();
    const client = clientFor(
      { key: `bxo_live_${randomBase62(40)}` },
      { fetch: recorder.fetch, clock, maxRetries: 1, random: () => 0 },
      { baseUrl: `http://127.0.0.1:${port}` },
    );
    const error = await failure(client.events.list());
    expect(error).toBeInstanceOf(APIConnectionError);
    expect(error.status).toBeUndefined();
    expect(recorder.sent).toHaveLength(2);
    expect(sleeps).toEqual([500]);
    // The message says where the client tried to go and why it could not.
    const url = `http://127.0.0.1:${port}/api/v1/events`;
    expect(error.message).toBe(
      `Connection error: could not reach ${url} (connect ECONNREFUSED 127.0.0.1:${port}).`,
    );
    expect((error as APIConnectionError).url).toBe(url);
  });

  it('says what is wrong when baseURL lacks /api/v1, and only then', async () => {
    const tenant = await createTenant();
    const root = new Boxoffice({ apiKey: tenant.key, baseURL: server.baseUrl, logLevel: 'off' });
    const error = await failure(root.events.get('evt_0000000000000000'));
    expect(error).toBeInstanceOf(NotFoundError);
    expect(error.code).toBe('route_not_found');
    expect(error.message).toBe(
      `404 route not found: GET /events/evt_0000000000000000. The baseURL ${server.baseUrl} does not end in /api/v1, where the Boxoffice API is served: try ${server.baseUrl}/api/v1`,
    );
    const listError = await failure(root.events.list());
    expect(listError.message).toContain(`The baseURL ${server.baseUrl} does not end in /api/v1`);

    const right = new Boxoffice({
      apiKey: tenant.key,
      baseURL: `${server.baseUrl}/api/v1`,
      logLevel: 'off',
    });
    const missing = await failure(right.events.get('evt_0000000000000000'));
    expect(missing).toBeInstanceOf(NotFoundError);
    expect(missing.message).not.toContain('baseURL');
  });

  describe('with baseURL pointing at the dashboard instead of the API', () => {
    const withDashboard = useTestServer({
      dashboardFiles: {
        'index.html': '<!doctype html><html><body><div id="root"></div></body></html>',
      },
    });

    it('fails with an UnexpectedResponseError naming the URL and the content type', async () => {
      const tenant = await createTenant();
      const client = new Boxoffice({
        apiKey: tenant.key,
        baseURL: `${withDashboard.baseUrl}/dashboard`,
        logLevel: 'off',
      });
      const url = `${withDashboard.baseUrl}/dashboard/events/evt_0000000000000000`;
      const error = await failure(client.events.get('evt_0000000000000000'));
      expect(error).toBeInstanceOf(UnexpectedResponseError);
      expect(error).toMatchObject({ status: 200, url, contentType: 'text/html; charset=utf-8' });
      expect(error.message).toContain(url);
      expect(error.message).toContain('text/html');

      const walk = async () => {
        for await (const event of client.events.list()) void event;
      };
      const listError = await failure(walk());
      expect(listError).toBeInstanceOf(UnexpectedResponseError);
      expect(listError.message).toContain(`${withDashboard.baseUrl}/dashboard/events`);
    });
  });
});

describe('rate limits', () => {
  const READS = 3;
  const WRITES = 2;
  let limited: TestServer;
  let store = createRateLimits({ readsPerMinute: READS, writesPerMinute: WRITES });
  /** Starts a new one-minute window for every key, as if the minute had passed. */
  const nextWindow = () => {
    store = createRateLimits({ readsPerMinute: READS, writesPerMinute: WRITES });
  };
  const rateLimits: RateLimits = {
    store: 'memory',
    consume: (apiKeyId, kind) => store.consume(apiKeyId, kind),
    peek: (apiKeyId, kind) => store.peek(apiKeyId, kind),
    ping: () => store.ping(),
  };

  beforeAll(async () => {
    limited = await startTestServer({ rateLimits });
  });
  afterAll(() => limited.close());

  it('reports the window in the headers and in client.rateLimit()', async () => {
    const tenant = await createTenant();
    const client = clientFor(tenant, {}, limited);
    const { response } = await client.events.list().withResponse();
    expect(response.headers.get('x-ratelimit-limit')).toBe(String(READS));
    expect(response.headers.get('x-ratelimit-remaining')).toBe(String(READS - 1));
    const reset = Number(response.headers.get('x-ratelimit-reset'));
    expect(reset).toBeGreaterThanOrEqual(1);
    expect(reset).toBeLessThanOrEqual(60);
    expect(client.rateLimit('read')).toMatchObject({ limit: READS, remaining: READS - 1 });
    expect(client.rateLimit('write').limit).toBeUndefined();

    await client.events.create(eventBody('Counted apart'));
    expect(client.rateLimit('write')).toMatchObject({ limit: WRITES, remaining: WRITES - 1 });
    expect(client.rateLimit('read').remaining).toBe(READS - 1);
  });

  it('holds a read until the window resets instead of sending it to be refused', async () => {
    const tenant = await createTenant();
    const recorder = recordingFetch();
    const { clock, sleeps } = skippingClock(nextWindow);
    const client = clientFor(tenant, { fetch: recorder.fetch, clock }, limited);

    for (let i = 1; i < READS; i++) await client.events.list();
    const { response } = await client.events.list().withResponse();
    const reset = Number(response.headers.get('x-ratelimit-reset'));
    expect(client.rateLimit('read').remaining).toBe(0);

    await client.events.list();
    expect(sleeps).toHaveLength(1);
    expect(sleeps[0]).toBeGreaterThan(0);
    expect(sleeps[0]).toBeLessThanOrEqual(reset * 1000);
    expect(recorder.sent.map((s) => s.status)).toEqual([200, 200, 200, 200]);
    // Writes are counted apart: one goes straight through.
    await client.events.create(eventBody('Not held'));
    expect(sleeps).toHaveLength(1);
  });

  it('shares what is left among concurrent calls', async () => {
    const tenant = await createTenant();
    const recorder = recordingFetch();
    // The window resets once the calls let through have been answered in the old one, and the
    // client has read their headers.
    const turn = () => new Promise((resolve) => setImmediate(resolve));
    const { clock, sleeps } = skippingClock(async () => {
      await turn();
      await recorder.idle();
      await turn();
      nextWindow();
    });
    const client = clientFor(tenant, { fetch: recorder.fetch, clock, maxRetryAfter: 500 }, limited);

    await client.events.list();
    expect(client.rateLimit('read').remaining).toBe(READS - 1);
    const results = await Promise.all(
      Array.from({ length: READS + 2 }, () => client.events.list()),
    );
    expect(results).toHaveLength(READS + 2);
    // Two went at once; the other three waited for the window, so none was refused.
    expect(recorder.sent.map((s) => s.status)).toEqual(Array(READS + 3).fill(200));
    expect(sleeps.length).toBeGreaterThanOrEqual(3);
  });

  it('waits out a 429 for its Retry-After, then retries', async () => {
    const tenant = await createTenant();
    const recorder = recordingFetch();
    const { clock, sleeps } = skippingClock(nextWindow);
    const client = clientFor(tenant, { fetch: recorder.fetch, clock, throttle: false }, limited);

    for (let i = 0; i < READS; i++) await client.events.list();
    const { response } = await client.events.list().withResponse();
    expect(response.status).toBe(200);
    expect(recorder.sent.map((s) => s.status)).toEqual([200, 200, 200, 429, 200]);
    const retryAfter = Number(recorder.sent[3]!.retryAfter);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(sleeps).toEqual([retryAfter * 1000]);
  });

  it('throws a RateLimitError at once when Retry-After is above maxRetryAfter', async () => {
    const tenant = await createTenant();
    const recorder = recordingFetch();
    const { clock, sleeps } = skippingClock();
    const client = clientFor(
      tenant,
      { fetch: recorder.fetch, clock, throttle: false, maxRetryAfter: 500 },
      limited,
    );

    for (let i = 0; i < WRITES; i++) await client.events.create(eventBody(`Write ${i}`));
    const error = await failure(client.events.create(eventBody('One too many')));
    expect(error).toBeInstanceOf(RateLimitError);
    const retryAfter = Number(error.headers?.get('retry-after'));
    expect(error).toMatchObject({ status: 429, code: 'rate_limited', retryAfter });
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(error.error).toBe(
      `Rate limit exceeded: ${WRITES} write requests per minute. Retry after ${retryAfter} s.`,
    );
    expect(recorder.sent.map((s) => s.status)).toEqual([201, 201, 429]);
    expect(sleeps).toEqual([]);
  });
});
