import { afterEach, describe, expect, it, vi } from 'vitest';
import { systemClock } from '../core/clock';
import {
  APIConnectionError,
  APIConnectionTimeoutError,
  type APIError,
  APIUserAbortError,
  AuthenticationError,
  BadRequestError,
  ConflictError,
  InternalServerError,
  NotFoundError,
  PermissionDeniedError,
  PlanRequiredError,
  RateLimitError,
  UnexpectedResponseError,
  UnprocessableEntityError,
} from '../core/errors';
import { CLOCK_START, turn, until } from '../../test/fake-clock';
import { harness, TEST_BASE_URL, TEST_KEY } from '../../test/harness';
import {
  error,
  hang,
  item,
  json,
  networkError,
  rateLimitHeaders,
  stallBody,
  type Reply,
} from '../../test/scripted-fetch';

const event = { id: 'evt_0123456789abcdef', name: 'Gig' };
const ok = item(event);
const created = item({ id: 'chk_0123456789abcdef' }, 201);
/** The event, with nothing left of the read window for the next 30 s. */
const lastOfWindow = item(event, 200, rateLimitHeaders(60, 0, 30));
/** A client of `options` whose first answer spends the read window, and whose second is `ok`. */
const spentWindow = (options: Parameters<typeof harness>[0]) => harness(options, lastOfWindow, ok);
const emptyList = {
  data: [],
  total: 0,
  page: 1,
  limit: 20,
  next_cursor: null,
  sync_checkpoint: '2030-01-01T00:00:00.000Z',
};
const eventBody = {
  name: 'Gig',
  timezone: 'Europe/London',
  starts_at: '2030-03-01T19:00:00Z',
  ends_at: '2030-03-01T23:00:00Z',
  currency: 'GBP',
};

afterEach(() => {
  vi.useRealTimers();
});

describe('retry policy', () => {
  it.each<[string, Reply]>([
    ['a connection error', networkError()],
    ['408', error(408, 'Request timeout')],
    ['429', error(429, 'Rate limit exceeded', { headers: { 'retry-after': '1' } })],
    ['500', error(500, 'Internal server error')],
    ['502', error(502, 'Bad gateway')],
    ['503', error(503, 'Service temporarily unavailable')],
    ['504', error(504, 'Gateway timeout')],
  ])('retries after %s', async (_, failure) => {
    const { client, script } = harness({}, failure, ok);
    await expect(client.events.get(event.id)).resolves.toEqual(event);
    expect(script.requests).toHaveLength(2);
  });

  it.each([
    [400, BadRequestError],
    [401, AuthenticationError],
    [402, PlanRequiredError],
    [403, PermissionDeniedError],
    [404, NotFoundError],
    [422, UnprocessableEntityError],
  ] as const)('does not retry %i', async (status, Class) => {
    const { client, script, clock } = harness({}, error(status, 'no'), ok);
    const failure = client.events.get(event.id);
    await expect(failure).rejects.toBeInstanceOf(Class);
    await expect(failure).rejects.toMatchObject({ status, error: 'no' });
    expect(script.requests).toHaveLength(1);
    expect(clock.sleeps).toEqual([]);
  });

  it('does not retry a real conflict such as a ticket already checked in', async () => {
    const { client, script } = harness(
      {},
      error(409, 'ticket already checked in at 2030-01-01T19:00:00Z', {
        code: 'already_checked_in',
      }),
      created,
    );
    const scan = client.checkins.create({ ticket_id: 'tkt_0123456789abcdef' });
    await expect(scan).rejects.toBeInstanceOf(ConflictError);
    await expect(scan).rejects.toMatchObject({ code: 'already_checked_in' });
    expect(script.requests).toHaveLength(1);
  });

  it('retries a 409 while the same idempotency key is still in flight, after its Retry-After', async () => {
    const { client, script, clock } = harness(
      {},
      error(409, 'A request with this Idempotency-Key is still in progress; retry shortly', {
        code: 'idempotency_in_flight',
        headers: { 'retry-after': '1' },
      }),
      created,
    );
    await expect(client.checkins.create({ ticket_id: 'tkt_0123456789abcdef' })).resolves.toEqual({
      id: 'chk_0123456789abcdef',
    });
    expect(script.requests).toHaveLength(2);
    expect(clock.sleeps).toEqual([1000]);
  });

  it('makes 1 + maxRetries attempts (2 retries by default), then throws the last failure', async () => {
    const { client, script, clock } = harness({
      fallback: error(503, 'Service temporarily unavailable'),
    });
    const failure = client.events.get(event.id);
    await expect(failure).rejects.toBeInstanceOf(InternalServerError);
    await expect(failure).rejects.toMatchObject({ status: 503 });
    expect(script.requests).toHaveLength(3);
    expect(clock.sleeps).toEqual([500, 1000]);
  });

  it('takes maxRetries from the client and from each call', async () => {
    const none = harness({ maxRetries: 0, fallback: networkError() });
    await expect(none.client.events.get(event.id)).rejects.toBeInstanceOf(APIConnectionError);
    expect(none.script.requests).toHaveLength(1);

    const five = harness({ maxRetries: 0, fallback: networkError() });
    await expect(five.client.events.get(event.id, { maxRetries: 5 })).rejects.toBeInstanceOf(
      APIConnectionError,
    );
    expect(five.script.requests).toHaveLength(6);
  });

  it('keeps the cause of a connection error', async () => {
    const { client } = harness({ maxRetries: 0 }, networkError('ECONNREFUSED'));
    const failure: unknown = await client.events.get(event.id).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(APIConnectionError);
    expect(failure).not.toBeInstanceOf(APIConnectionTimeoutError);
    expect((failure as APIConnectionError).cause).toBeInstanceOf(TypeError);
  });

  it('does not retry a failure of the caller’s own making', async () => {
    const { client, script } = harness({}, ok);
    await expect(client.events.get('')).rejects.toThrow(TypeError);
    expect(script.requests).toHaveLength(0);
  });
});

describe('backoff', () => {
  it('doubles from 500 ms up to 8 s', async () => {
    const { client, script, clock } = harness({ maxRetries: 7, fallback: error(500, 'x') });
    await expect(client.events.get(event.id)).rejects.toBeInstanceOf(InternalServerError);
    expect(script.requests).toHaveLength(8);
    expect(clock.sleeps).toEqual([500, 1000, 2000, 4000, 8000, 8000, 8000]);
  });

  it('is reduced by at most 25 % by the jitter', async () => {
    const top = 1 - Number.EPSILON;
    const { client, clock } = harness({
      maxRetries: 5,
      random: () => top,
      fallback: networkError(),
    });
    await expect(client.events.get(event.id)).rejects.toBeInstanceOf(APIConnectionError);
    const bases = [500, 1000, 2000, 4000, 8000];
    expect(clock.sleeps).toHaveLength(bases.length);
    clock.sleeps.forEach((slept, i) => {
      expect(slept).toBeGreaterThanOrEqual(bases[i]! * 0.75);
      expect(slept).toBeCloseTo(bases[i]! * 0.75, 6);
    });
  });

  it('uses a 5xx answer’s Retry-After, capped at maxRetryAfter', async () => {
    const { client, clock } = harness(
      { maxRetryAfter: 5000 },
      error(503, 'Service temporarily unavailable', { headers: { 'retry-after': '2' } }),
      error(503, 'Service temporarily unavailable', { headers: { 'retry-after': '120' } }),
      ok,
    );
    await expect(client.events.get(event.id)).resolves.toEqual(event);
    expect(clock.sleeps).toEqual([2000, 5000]);
  });
});

describe('429 and Retry-After', () => {
  const limited = (retryAfter?: string) =>
    error(429, 'Rate limit exceeded', {
      headers: retryAfter === undefined ? {} : { 'retry-after': retryAfter },
    });

  it.each([true, false])('waits exactly Retry-After seconds (throttle %s)', async (throttle) => {
    const { client, clock, script, start } = harness({ throttle }, limited('3'), ok);
    await expect(client.events.get(event.id)).resolves.toEqual(event);
    expect(clock.sleeps).toEqual([3000]);
    expect(script.requests.map((r) => r.at - start)).toEqual([0, 3000]);
  });

  it('waits until an HTTP-date Retry-After', async () => {
    const at = new Date(CLOCK_START + 7000).toUTCString();
    const { client, clock, script, start } = harness({}, limited(at), ok);
    await expect(client.events.get(event.id)).resolves.toEqual(event);
    expect(clock.sleeps).toEqual([7000]);
    expect(script.requests[1]!.at - start).toBe(7000);
  });

  it('retries at once after a Retry-After date already past', async () => {
    const { client, clock } = harness(
      {},
      limited(new Date(CLOCK_START - 60_000).toUTCString()),
      ok,
    );
    await expect(client.events.get(event.id)).resolves.toEqual(event);
    expect(clock.sleeps.every((ms) => ms === 0)).toBe(true);
  });

  it.each([undefined, 'soon', '-5'])('backs off when Retry-After is %j', async (value) => {
    const { client, clock } = harness({ throttle: false }, limited(value), ok);
    await expect(client.events.get(event.id)).resolves.toEqual(event);
    expect(clock.sleeps).toEqual([500]);
  });

  it('throws at once when Retry-After is above maxRetryAfter', async () => {
    const { client, clock, script } = harness({ maxRetryAfter: 10_000 }, limited('30'), ok);
    const failure = client.events.get(event.id);
    await expect(failure).rejects.toBeInstanceOf(RateLimitError);
    await expect(failure).rejects.toMatchObject({ status: 429, retryAfter: 30 });
    expect(script.requests).toHaveLength(1);
    expect(clock.sleeps).toEqual([]);
  });

  it('waits for a Retry-After equal to maxRetryAfter', async () => {
    const { client, clock } = harness({ maxRetryAfter: 10_000 }, limited('10'), ok);
    await expect(client.events.get(event.id)).resolves.toEqual(event);
    expect(clock.sleeps).toEqual([10_000]);
  });

  it('throws a RateLimitError with retryAfter once the retries are used up', async () => {
    const { client, script } = harness({ maxRetries: 1, fallback: limited('2') });
    const failure = client.events.get(event.id);
    await expect(failure).rejects.toBeInstanceOf(RateLimitError);
    await expect(failure).rejects.toMatchObject({ retryAfter: 2 });
    expect(script.requests).toHaveLength(2);
  });
});

describe('idempotency keys', () => {
  it('sends one key per POST call, the same on each of its retries', async () => {
    const { client, script } = harness({}, error(503, 'x'), networkError(), item(event, 201));
    await client.events.create(eventBody);
    const keys = script.requests.map((r) => r.headers['idempotency-key']);
    expect(keys).toHaveLength(3);
    expect(keys[0]).toMatch(
      /^sdk_[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    );
    expect(new Set(keys)).toEqual(new Set([keys[0]]));
  });

  it('sends a different key on each call', async () => {
    const { client, script } = harness({ fallback: created });
    await client.checkins.create({ ticket_id: 'tkt_0123456789abcdef' });
    await client.checkins.create({ ticket_id: 'tkt_0123456789abcdef' });
    await client.events.create(eventBody);
    const keys = script.requests.map((r) => r.headers['idempotency-key']);
    expect(new Set(keys).size).toBe(3);
  });

  it('uses the caller’s key on every attempt', async () => {
    const { client, script } = harness({}, networkError(), created);
    await client.checkins.create(
      { ticket_id: 'tkt_0123456789abcdef' },
      { idempotencyKey: 'door-3-scan-991' },
    );
    expect(script.requests.map((r) => r.headers['idempotency-key'])).toEqual([
      'door-3-scan-991',
      'door-3-scan-991',
    ]);
  });

  it('sends none with GET or PATCH', async () => {
    const { client, script } = harness({
      fallback: (request) =>
        request.url.endsWith('/events') ? json(200, emptyList)(request) : ok(request),
    });
    await client.events.get(event.id);
    await client.events.update(event.id, { name: 'New name' });
    await client.tiers.update('tier_0123456789abcdef', { price: 100 });
    await client.events.list();
    expect(script.requests.map((r) => r.method)).toEqual(['GET', 'PATCH', 'PATCH', 'GET']);
    for (const request of script.requests)
      expect(request.headers).not.toHaveProperty('idempotency-key');
  });

  it('sends a header given in any case once, not beside the generated one', async () => {
    const { client, script } = harness({ defaultHeaders: { 'X-Door': 'north' } }, created);
    await client.checkins.create(
      { ticket_id: 'tkt_0123456789abcdef' },
      { headers: { 'Idempotency-Key': 'mine', 'X-Door': 'south' } },
    );
    expect(script.requests[0]!.headers['idempotency-key']).toBe('mine');
    expect(script.requests[0]!.headers['x-door']).toBe('south');
  });
});

describe('request', () => {
  it('authenticates, asks for JSON and sends a JSON body only when there is one', async () => {
    const { client, script } = harness({ fallback: ok });
    await client.events.get(event.id);
    await client.events.create(eventBody);
    const [get, post] = script.requests;
    expect(get!.headers).toMatchObject({
      authorization: `Bearer ${TEST_KEY}`,
      accept: 'application/json',
    });
    expect(get!.headers).not.toHaveProperty('content-type');
    expect(get!.body).toBeUndefined();
    expect(post!.headers['content-type']).toBe('application/json');
    expect(post!.body).toEqual(eventBody);
  });

  it('sends the client’s default headers and the call’s own', async () => {
    const { client, script } = harness({ defaultHeaders: { 'x-client': 'door-app' } }, ok);
    await client.events.get(event.id, { headers: { 'x-request-id': 'req_mine' } });
    expect(script.requests[0]!.headers).toMatchObject({
      'x-client': 'door-app',
      'x-request-id': 'req_mine',
    });
  });
});

describe('totalTimeout', () => {
  it('makes no retry whose wait would pass the deadline', async () => {
    const { client, script, clock } = harness({
      totalTimeout: 1200,
      fallback: error(503, 'Service temporarily unavailable'),
    });
    await expect(client.events.get(event.id)).rejects.toBeInstanceOf(InternalServerError);
    // 0 + 500 fits; 500 + 1000 would not.
    expect(script.requests).toHaveLength(2);
    expect(clock.sleeps).toEqual([500]);
  });

  it('throws a 429 at once when its Retry-After would pass the deadline', async () => {
    const { client, script, clock } = harness(
      { totalTimeout: 3000 },
      error(429, 'Rate limit exceeded', { headers: { 'retry-after': '5' } }),
      ok,
    );
    await expect(client.events.get(event.id)).rejects.toBeInstanceOf(RateLimitError);
    expect(script.requests).toHaveLength(1);
    expect(clock.sleeps).toEqual([]);
  });

  it('does not hold a call for the rate limit past the deadline', async () => {
    const { client, script, clock } = spentWindow({ totalTimeout: 10_000 });
    await client.events.get(event.id);
    await client.events.get(event.id);
    expect(script.requests).toHaveLength(2);
    expect(clock.sleeps).toEqual([]);
  });

  it('starts no attempt once the deadline is reached', async () => {
    const { client, script, clock } = spentWindow({ totalTimeout: 30_000 });
    await client.events.get(event.id);
    await expect(client.events.get(event.id)).rejects.toBeInstanceOf(APIConnectionTimeoutError);
    expect(clock.sleeps).toEqual([30_000]);
    expect(script.requests).toHaveLength(1);
  });

  it('has no deadline when 0', async () => {
    const { client, script } = harness({
      totalTimeout: 0,
      maxRetries: 12,
      fallback: error(500, 'x'),
    });
    await expect(client.events.get(event.id)).rejects.toBeInstanceOf(InternalServerError);
    expect(script.requests).toHaveLength(13);
  });

  it('cuts an attempt short at the deadline', async () => {
    // The system clock on fake timers: time moves only as the test advances it, for both the
    // attempt's timer and the deadline.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    const { client, script } = harness(
      { totalTimeout: 2000, timeout: 60_000, clock: systemClock },
      hang(),
      ok,
    );
    const settled = client.events.get(event.id).then(
      () => 'resolved',
      (e: unknown) => e,
    );
    await vi.advanceTimersByTimeAsync(1999);
    expect(script.requests[0]!.signal?.aborted).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(await settled).toBeInstanceOf(APIConnectionTimeoutError);
    expect(script.requests).toHaveLength(1);
  });
});

describe('timeout', () => {
  it('abandons an attempt after `timeout` and retries it', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const { client, script, clock } = harness({ timeout: 5000 }, hang(), ok);
    const result = client.events.get(event.id);
    await vi.advanceTimersByTimeAsync(4999);
    expect(script.requests).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    await expect(result).resolves.toEqual(event);
    expect(script.requests).toHaveLength(2);
    expect(clock.sleeps).toEqual([500]);
  });

  it('throws APIConnectionTimeoutError when every attempt times out', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const { client, script } = harness({ timeout: 1000, maxRetries: 1, fallback: hang() });
    const settled = client.events.get(event.id).catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(1000);
    // The backoff runs on the fake clock; then the second attempt starts its own timer.
    await until(() => script.requests.length === 2);
    await vi.advanceTimersByTimeAsync(1000);
    const failure = await settled;
    expect(failure).toBeInstanceOf(APIConnectionTimeoutError);
    expect(failure).toBeInstanceOf(APIConnectionError);
    expect(script.requests).toHaveLength(2);
  });

  it('takes a per-call timeout', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const { client } = harness({ timeout: 60_000, maxRetries: 0 }, hang());
    const settled = client.events.get(event.id, { timeout: 100 }).catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(100);
    expect(await settled).toBeInstanceOf(APIConnectionTimeoutError);
  });

  it('counts a body that stalls as a timeout', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const { client } = harness({ timeout: 1000, maxRetries: 0 }, stallBody());
    const settled = client.events.get(event.id).catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(1000);
    expect(await settled).toBeInstanceOf(APIConnectionTimeoutError);
  });
});

describe('abort', () => {
  it('sends nothing when the signal has already fired', async () => {
    const { client, script } = harness({}, ok);
    const controller = new AbortController();
    controller.abort();
    await expect(client.events.get(event.id, { signal: controller.signal })).rejects.toBeInstanceOf(
      APIUserAbortError,
    );
    expect(script.requests).toHaveLength(0);
  });

  it('aborts a request in flight, without retrying it', async () => {
    const { client, script } = harness({}, hang(), ok);
    const controller = new AbortController();
    const result = client.events.get(event.id, { signal: controller.signal });
    await vi.waitFor(() => expect(script.requests).toHaveLength(1));
    expect(script.requests[0]!.signal?.aborted).toBe(false);
    controller.abort();
    await expect(result).rejects.toBeInstanceOf(APIUserAbortError);
    expect(script.requests[0]!.signal?.aborted).toBe(true);
    expect(script.requests).toHaveLength(1);
  });

  it('aborts during the backoff between attempts', async () => {
    const { client, script, clock } = harness({ auto: false }, error(503, 'x'), ok);
    const controller = new AbortController();
    const result = client.events.get(event.id, { signal: controller.signal });
    await clock.sleepsAsked(1);
    expect(clock.sleeps).toEqual([500]);
    controller.abort();
    await expect(result).rejects.toBeInstanceOf(APIUserAbortError);
    await clock.advance(10_000);
    expect(script.requests).toHaveLength(1);
    expect(clock.pending).toBe(0);
  });

  it('aborts while held back by the rate limit', async () => {
    const { client, script, clock } = spentWindow({ auto: false });
    await client.events.get(event.id);
    const controller = new AbortController();
    const result = client.events.get(event.id, { signal: controller.signal });
    await clock.sleepsAsked(1);
    controller.abort();
    await expect(result).rejects.toBeInstanceOf(APIUserAbortError);
    expect(script.requests).toHaveLength(1);
  });
});

describe('proactive throttling', () => {
  it('holds a call until the window resets once nothing is left', async () => {
    const { client, script, clock, start } = harness(
      {},
      lastOfWindow,
      item(event, 200, rateLimitHeaders(60, 59, 60)),
    );
    await client.events.get(event.id);
    expect(client.rateLimit('read')).toEqual({
      limit: 60,
      remaining: 0,
      resetAt: start + 30_000,
      pausedUntil: 0,
    });
    await client.events.get(event.id);
    expect(clock.sleeps).toEqual([30_000]);
    expect(script.requests.map((r) => r.at - start)).toEqual([0, 30_000]);
    expect(client.rateLimit('read')).toMatchObject({ limit: 60, remaining: 59 });
  });

  it('sends at once with throttle: false', async () => {
    const { client, script, clock } = spentWindow({ throttle: false });
    await client.events.get(event.id);
    await client.events.get(event.id);
    expect(clock.sleeps).toEqual([]);
    expect(script.requests).toHaveLength(2);
  });

  it('shares what is left among concurrent calls: 2 left, 5 calls → 2 now, 3 at the reset', async () => {
    // The server's count: 3 left before the first call, a fresh window of 60 after the reset.
    let remaining = 3;
    const { client, script, clock, start } = harness({
      fallback: (request) => {
        remaining = remaining > 0 ? remaining - 1 : 59;
        return item(event, 200, rateLimitHeaders(60, remaining, 10))(request);
      },
    });
    await client.events.get(event.id);
    expect(client.rateLimit('read').remaining).toBe(2);

    const results = await Promise.all(Array.from({ length: 5 }, () => client.events.get(event.id)));
    expect(results).toHaveLength(5);
    const times = script.requests.slice(1).map((r) => r.at - start);
    expect(times.filter((t) => t === 0)).toHaveLength(2);
    expect(times.filter((t) => t === 10_000)).toHaveLength(3);
    expect(clock.now() - start).toBe(10_000);
  });

  it('tracks reads and writes apart', async () => {
    const { client, script, clock } = harness(
      {},
      lastOfWindow,
      item({ id: 'evt_1' }, 201, rateLimitHeaders(10, 9, 30)),
    );
    await client.events.get(event.id);
    await client.events.create(eventBody);
    expect(clock.sleeps).toEqual([]);
    expect(script.requests).toHaveLength(2);
    expect(client.rateLimit('read').remaining).toBe(0);
    expect(client.rateLimit('write')).toMatchObject({ limit: 10, remaining: 9 });
  });

  it('after a 429, holds every call of that class for one shared pause', async () => {
    const { client, script, clock, start } = harness(
      { auto: false, fallback: ok },
      error(429, 'Rate limit exceeded', {
        headers: { 'retry-after': '4', ...rateLimitHeaders(60, 0, 4) },
      }),
    );
    const first = client.events.get(event.id);
    await clock.sleepsAsked(1);
    expect(client.rateLimit('read').pausedUntil).toBe(start + 4000);
    // Calls made during the pause wait for it instead of being sent into the limit.
    const later = [client.events.get(event.id), client.orders.get('ord_0123456789abcdef')];
    await clock.sleepsAsked(3);
    expect(script.requests).toHaveLength(1);
    // A write is not held.
    await client.events.update(event.id, { name: 'x' });
    expect(script.requests).toHaveLength(2);

    await clock.advance(4000);
    await Promise.all([first, ...later]);
    const reads = script.requests.filter((r) => r.method === 'GET');
    expect(reads.map((r) => r.at - start)).toEqual([0, 4000, 4000, 4000]);
    expect(clock.now() - start).toBe(4000);
  });

  it('pauses once when several concurrent calls are refused together', async () => {
    const limited = error(429, 'Rate limit exceeded', {
      headers: { 'retry-after': '4', ...rateLimitHeaders(60, 0, 4) },
    });
    const { client, script, clock, start } = harness({ fallback: ok }, limited, limited, limited);
    await Promise.all([1, 2, 3].map(() => client.events.get(event.id)));
    expect(script.requests.map((r) => r.at - start)).toEqual([0, 0, 0, 4000, 4000, 4000]);
    expect(clock.now() - start).toBe(4000);
  });

  it('does not count a 429 pause into a wait past Retry-After', async () => {
    const { client, clock } = harness(
      {},
      error(429, 'Rate limit exceeded', {
        headers: { 'retry-after': '2', ...rateLimitHeaders(60, 0, 2) },
      }),
      ok,
      ok,
    );
    await client.events.get(event.id);
    await client.events.get(event.id);
    expect(clock.sleeps).toEqual([2000]);
  });
});

describe('logging', () => {
  it('logs each retry at info and each attempt at debug', async () => {
    const { client, logger } = harness({}, error(503, 'x'), ok);
    await client.events.get(event.id);
    expect(logger.lines.filter((l) => l.level === 'info').map((l) => l.message)).toEqual([
      `boxoffice: GET ${TEST_BASE_URL}/events/${event.id} failed (503); retry 1 of 2 in 500 ms`,
    ]);
    expect(logger.lines.filter((l) => l.level === 'debug').map((l) => l.message)).toEqual([
      `boxoffice: GET ${TEST_BASE_URL}/events/${event.id} (attempt 1 of 3)`,
      `boxoffice: GET ${TEST_BASE_URL}/events/${event.id} → 503 in 0 ms (attempt 1)`,
      `boxoffice: GET ${TEST_BASE_URL}/events/${event.id} (attempt 2 of 3)`,
      `boxoffice: GET ${TEST_BASE_URL}/events/${event.id} → 200 in 0 ms (attempt 2)`,
    ]);
  });

  it('names a connection failure by its class', async () => {
    const { client, logger } = harness({ logLevel: 'info' }, networkError(), ok);
    await client.events.get(event.id);
    expect(logger.lines).toEqual([
      {
        level: 'info',
        message: `boxoffice: GET ${TEST_BASE_URL}/events/${event.id} failed (APIConnectionError); retry 1 of 2 in 500 ms`,
      },
    ]);
  });

  it('keeps retries out of the default warn level', async () => {
    const { client, logger } = harness({ logLevel: 'warn' }, error(503, 'x'), ok);
    await client.events.get(event.id);
    expect(logger.lines).toEqual([]);
  });

  it('says nothing at all when off', async () => {
    const { client, logger } = harness({ logLevel: 'off' }, error(503, 'x'), networkError(), ok);
    await client.events.get(event.id);
    expect(logger.lines).toEqual([]);
  });
});

describe('responses', () => {
  it('reads the error of a non-JSON answer', async () => {
    const { client } = harness(
      { maxRetries: 0 },
      () => new Response('upstream down', { status: 502 }),
    );
    const failure: unknown = await client.events.get(event.id).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(InternalServerError);
    expect((failure as APIError).body).toBe('upstream down');
  });

  it('gives the whole answer to withResponse', async () => {
    const { client } = harness({}, item(event, 200, { 'x-request-id': 'req_1' }));
    const { data, response } = await client.events.get(event.id).withResponse();
    expect(data).toEqual(event);
    expect(response.status).toBe(200);
    expect(response.headers.get('x-request-id')).toBe('req_1');
    await turn();
  });
});

describe('per-call limits', () => {
  it('takes maxRetryAfter from the call: a long 429 is thrown at once', async () => {
    const limited = error(429, 'Rate limit exceeded', { headers: { 'retry-after': '52' } });
    const { client, clock } = harness({}, limited, ok);
    const scan = client.events.get(event.id, { maxRetryAfter: 2000 });
    await expect(scan).rejects.toBeInstanceOf(RateLimitError);
    expect(clock.sleeps).toEqual([]);
  });

  it('takes totalTimeout from the call', async () => {
    const { client, script, clock, start } = harness({ fallback: networkError() });
    await expect(client.events.get(event.id, { totalTimeout: 1000 })).rejects.toBeInstanceOf(
      APIConnectionError,
    );
    // The first retry (0.5 s) fits; the second (1 s more) would end past the deadline.
    expect(script.requests).toHaveLength(2);
    expect(clock.now() - start).toBe(500);
  });

  it('gives a derived client other options, sharing the rate-limit picture of its key', async () => {
    const { client, script } = harness(
      { maxRetries: 5, defaultHeaders: { 'x-app': 'door' } },
      item(event, 200, rateLimitHeaders(60, 10, 30)),
      networkError(),
    );
    await client.events.get(event.id);
    const door = client.withOptions({ maxRetries: 0 });
    expect(door).not.toBe(client);
    expect(door.rateLimit('read')).toEqual(client.rateLimit('read'));
    await expect(door.events.get(event.id)).rejects.toBeInstanceOf(APIConnectionError);
    expect(script.requests).toHaveLength(2);
    expect(script.requests[1]!.headers['x-app']).toBe('door');
    // The original keeps its own options.
    expect(client.withOptions({}).rateLimit('read').remaining).toBe(10);
  });
});

describe('server hints', () => {
  it('waits what retry-after-ms says, before Retry-After', async () => {
    const { client, clock } = harness(
      {},
      error(503, 'busy', { headers: { 'retry-after-ms': '250', 'retry-after': '5' } }),
      ok,
    );
    await client.events.get(event.id);
    expect(clock.sleeps).toEqual([250]);
  });

  it('follows x-should-retry either way', async () => {
    const never = harness({}, error(503, 'no', { headers: { 'x-should-retry': 'false' } }), ok);
    await expect(never.client.events.get(event.id)).rejects.toBeInstanceOf(InternalServerError);
    expect(never.script.requests).toHaveLength(1);
    const again = harness(
      {},
      error(400, 'try again', { headers: { 'x-should-retry': 'true' } }),
      ok,
    );
    await expect(again.client.events.get(event.id)).resolves.toEqual(event);
    expect(again.script.requests).toHaveLength(2);
  });
});

describe('identification', () => {
  it('sends its name, version and runtime, and how many retries came before', async () => {
    const { client, script } = harness({}, error(503, 'x'), error(503, 'x'), ok);
    await client.events.get(event.id);
    const version = (await import('../../package.json')).version;
    for (const request of script.requests) {
      expect(request.headers['user-agent']).toBe(
        `boxoffice-sdk/${version} node/${process.versions.node} (${process.platform} ${process.arch})`,
      );
    }
    expect(script.requests.map((r) => r.headers['x-boxoffice-retry-count'])).toEqual([
      '0',
      '1',
      '2',
    ]);
  });

  it('passes fetchOptions of the client and of the call to fetch', async () => {
    const seen: RequestInit[] = [];
    const { client } = harness({
      fetchOptions: { keepalive: true, cache: 'no-store' },
      fetch: (_input, init) => {
        seen.push(init ?? {});
        return Promise.resolve(ok({} as never) as Response);
      },
    });
    await client.events.get(event.id, { fetchOptions: { cache: 'reload' } });
    expect(seen[0]).toMatchObject({ keepalive: true, cache: 'reload', method: 'GET' });
    expect(seen[0]!.signal).toBeInstanceOf(AbortSignal);
  });

  it('logs the full URL, status, duration, attempt and request id, never the key', async () => {
    const { client, logger } = harness({}, item(event, 200, { 'x-request-id': 'req_42' }));
    await client.events.get(event.id, { headers: { 'x-trace': '1' } });
    const url = `${TEST_BASE_URL}/events/${event.id}`;
    expect(logger.lines.map((l) => l.message)).toEqual([
      `boxoffice: GET ${url} (attempt 1 of 3)`,
      `boxoffice: GET ${url} → 200 in 0 ms (attempt 1, request req_42)`,
    ]);
    expect(JSON.stringify(logger.lines)).not.toContain(TEST_KEY);
  });
});

describe('unexpected success bodies', () => {
  const page =
    (status = 200) =>
    () =>
      new Response('<!doctype html><title>Boxoffice</title>', {
        status,
        headers: { 'content-type': 'text/html; charset=utf-8' },
      });

  it('throws a typed error naming the URL and the content type for a web page', async () => {
    const { client, script } = harness({}, page());
    const failure: unknown = await client.events.get(event.id).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(UnexpectedResponseError);
    expect(failure).toMatchObject({
      status: 200,
      url: `${TEST_BASE_URL}/events/${event.id}`,
      contentType: 'text/html; charset=utf-8',
    });
    expect((failure as Error).message).toContain(`${TEST_BASE_URL}/events/${event.id}`);
    expect((failure as Error).message).toContain('text/html');
    expect(script.requests).toHaveLength(1);
  });

  it('throws it for JSON of another shape, from get and from a list', async () => {
    const { client } = harness({}, json(200, { ok: true }), json(200, { data: { id: 'evt_1' } }));
    await expect(client.events.get(event.id)).rejects.toBeInstanceOf(UnexpectedResponseError);
    const loop = async () => {
      for await (const e of client.events.list()) void e;
    };
    await expect(loop()).rejects.toThrow(/not a \{ "data": \[ … \] \} list/);
  });

  it('throws it for an empty body', async () => {
    const { client } = harness({}, () => new Response(null, { status: 200 }));
    await expect(client.events.get(event.id)).rejects.toThrow(/is empty/);
  });
});

describe('a 404 from a baseURL without /api/v1', () => {
  const root = 'https://api.boxoffice.test';
  const hint = `The baseURL ${root} does not end in /api/v1, where the Boxoffice API is served: try ${root}/api/v1`;

  it('says what is wrong with the baseURL, for a route_not_found and for a 404 of another server', async () => {
    const routeNotFound = json(404, {
      error: 'route not found: GET /events/evt_1',
      code: 'route_not_found',
    });
    const page = () => new Response('<h1>Not Found</h1>', { status: 404 });
    for (const reply of [routeNotFound, page]) {
      const { client } = harness({ baseURL: `${root}/` }, reply);
      const failure = await client.events.get('evt_1').catch((e: unknown) => e);
      expect(failure).toBeInstanceOf(NotFoundError);
      expect((failure as Error).message).toContain(hint);
    }
  });

  it('says nothing more of an object not found, or when the baseURL ends in /api/v1', async () => {
    const notFound = json(404, { error: 'event not found', code: 'not_found' });
    const { client } = harness({ baseURL: root }, notFound);
    const failure = await client.events.get('evt_1').catch((e: unknown) => e);
    expect((failure as Error).message).toBe('404 event not found');
    const routeNotFound = json(404, { error: 'route not found: GET /x', code: 'route_not_found' });
    const right = harness({}, routeNotFound);
    const other = await right.client.events.get('evt_1').catch((e: unknown) => e);
    expect((other as Error).message).toBe('404 route not found: GET /x');
  });
});
