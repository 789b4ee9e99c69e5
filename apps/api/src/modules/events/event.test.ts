import { describe, expect, it } from 'vitest';
import {
  expectBadRequest,
  expectError,
  expectItem,
  expectList,
  expectResource,
  idsOf,
  instantBetweenWrites,
  ISO_UTC,
  tick,
} from '../../../test/assertions';
import { buildEvent } from '../../../test/fixtures';
import { expectIds, expectStablePagesWhileAppending, itRefusesQueries } from '../../../test/lists';
import {
  call,
  createTenant,
  useTestServer,
  type CallResult,
  type TestTenant,
} from '../../../test/setup';

const EVENT = {
  prefix: 'evt',
  fields: [
    'id',
    'name',
    'description',
    'venue',
    'timezone',
    'starts_at',
    'ends_at',
    'doors_open_at',
    'currency',
    'capacity',
    'status',
    'published_at',
    'cancelled_at',
    'livemode',
    'created_at',
    'updated_at',
  ],
  timestamps: [
    'starts_at',
    'ends_at',
    'doors_open_at',
    'published_at',
    'cancelled_at',
    'created_at',
    'updated_at',
  ],
} as const;

const LIMIT_MESSAGE = 'limit must be an integer between 1 and 100';

const server = useTestServer();

const minimal = {
  name: 'Spring gala',
  timezone: 'Europe/Berlin',
  starts_at: '2027-04-10T18:00:00Z',
  ends_at: '2027-04-10T23:00:00Z',
  currency: 'EUR',
};

const post = (tenant: TestTenant, body: unknown) => server.post(tenant, '/api/v1/events', body);
const patch = (tenant: TestTenant, id: string, body: unknown) =>
  server.patch(tenant, `/api/v1/events/${id}`, body);
const { get } = server;

async function createEvent(tenant: TestTenant, body: Record<string, unknown> = {}) {
  return expectItem(await post(tenant, { ...minimal, ...body }), 201);
}

describe('POST /events', () => {
  it('creates a draft with the optional fields null', async () => {
    const tenant = await createTenant();
    const created = await post(tenant, {
      ...minimal,
      ends_at: '2027-04-11T01:00:00+02:00',
    });
    const event = expectItem(created, 201);
    expectResource(event, EVENT);
    expect(event).toMatchObject({
      name: 'Spring gala',
      timezone: 'Europe/Berlin',
      starts_at: '2027-04-10T18:00:00.000Z',
      ends_at: '2027-04-10T23:00:00.000Z',
      currency: 'EUR',
      status: 'draft',
      description: null,
      venue: null,
      doors_open_at: null,
      capacity: null,
      published_at: null,
      cancelled_at: null,
    });
    expect(event.created_at).toMatch(ISO_UTC);
    expect(event.updated_at).toBe(event.created_at);

    const read = expectItem(await get(tenant, `/api/v1/events/${event.id}`));
    expect(read).toEqual(event);
  });

  it('takes every optional field, and may publish at once', async () => {
    const tenant = await createTenant();
    const event = await createEvent(tenant, {
      description: 'Dinner and dance',
      venue: 'Kulturbrauerei',
      doors_open_at: '2027-04-10T19:30:00+02:00',
      capacity: 450,
      status: 'published',
    });
    expect(event).toMatchObject({
      description: 'Dinner and dance',
      venue: 'Kulturbrauerei',
      doors_open_at: '2027-04-10T17:30:00.000Z',
      capacity: 450,
      status: 'published',
      cancelled_at: null,
    });
    expect(event.published_at).toMatch(ISO_UTC);
  });

  it.each(['name', 'timezone', 'starts_at', 'ends_at', 'currency'])(
    'requires %s',
    async (field) => {
      const tenant = await createTenant();
      const body: Record<string, unknown> = { ...minimal };
      delete body[field];
      expectBadRequest(await post(tenant, body), field);
    },
  );

  it('bounds the name to 1–200 characters', async () => {
    const tenant = await createTenant();
    expectBadRequest(await post(tenant, { ...minimal, name: '' }), 'name');
    expectBadRequest(await post(tenant, { ...minimal, name: '   ' }), 'name');
    expectBadRequest(await post(tenant, { ...minimal, name: 'x'.repeat(201) }), 'name');
    expect((await createEvent(tenant, { name: 'x'.repeat(200) })).name).toHaveLength(200);
    expect((await createEvent(tenant, { name: 'X' })).name).toBe('X');
  });

  it.each([
    ['timezone', 'Mars/Olympus_Mons'],
    ['timezone', 'Berlin'],
    ['timezone', '+01:00'],
    ['currency', 'eur'],
    ['currency', 'EURO'],
    ['currency', 'E1R'],
    ['starts_at', 'next friday'],
    ['starts_at', '2027-04-10'],
    ['ends_at', 1_800_000_000],
    ['capacity', '450'],
    ['capacity', 12.5],
    ['capacity', 0],
    ['name', 42],
    ['name', 'Gala\u0000'],
    ['description', 'Line one\u0000'],
    ['venue', '\u0000'],
    ['description', 'Lone \ud800 surrogate'],
    ['name', '\udc00'],
    ['starts_at', '2027-04-10T18:00:00'],
    ['starts_at', '0000-06-01T00:00:00Z'],
    ['ends_at', '9999-12-31T23:00:00-05:00'],
    ['status', 'completed'],
    ['status', 'cancelled'],
  ])('refuses %s = %j', async (field, value) => {
    const tenant = await createTenant();
    expectBadRequest(await post(tenant, { ...minimal, [field]: value }), field);
  });

  it('stores time zones under their canonical IANA name', async () => {
    const tenant = await createTenant();
    const created = await post(tenant, { ...minimal, timezone: 'europe/berlin' });
    expect(created.status).toBe(201);
    expect(created.body.data.timezone).toBe('Europe/Berlin');
  });

  it('says which field holds a time outside the years 0001–9999', async () => {
    const tenant = await createTenant();
    const refused = await post(tenant, { ...minimal, starts_at: '0000-06-01T00:00:00Z' });
    expect(refused.body.error).toBe('starts_at must be a time between the years 0001 and 9999');
  });

  it('requires ends_at after starts_at', async () => {
    const tenant = await createTenant();
    expectBadRequest(
      await post(tenant, { ...minimal, ends_at: '2027-04-10T17:59:59Z' }),
      'ends_at',
    );
    expectBadRequest(await post(tenant, { ...minimal, ends_at: minimal.starts_at }), 'ends_at');
    // The same instant written in another offset is not after it either.
    expectBadRequest(
      await post(tenant, { ...minimal, ends_at: '2027-04-10T20:00:00+02:00' }),
      'ends_at',
    );
    expectList(await get(tenant, '/api/v1/events'), { total: 0 });
  });

  it.each(['colour', 'id', 'published_at', 'created_at'])(
    'refuses the unknown or read-only field %s',
    async (field) => {
      const tenant = await createTenant();
      const result = await post(tenant, { ...minimal, [field]: '2027-01-01T00:00:00Z' });
      expectBadRequest(result, field);
      expect(result.body.error).toMatch(/unknown field/);
    },
  );
});

describe('GET /events/{id}', () => {
  it('is a 404 for unknown ids and for ids of other kinds', async () => {
    const tenant = await createTenant();
    const { tier, tickets, order } = await buildEvent(tenant.organisationId, { tickets: 1 });
    for (const id of [
      'evt_0000000000000000000000',
      tier.id,
      tickets[0]!.id,
      order.id,
      `evt_${tier.id.slice(5)}`,
      'nope',
    ]) {
      expectError(await get(tenant, `/api/v1/events/${id}`), 404, 'event not found');
    }
  });

  it("is a 404 for another organisation's event, on GET and PATCH", async () => {
    const owner = await createTenant();
    const other = await createTenant();
    const event = await createEvent(owner);
    expectError(await get(other, `/api/v1/events/${event.id}`), 404, 'event not found');
    expectError(await patch(other, event.id, { name: 'Taken' }), 404, 'event not found');
    expectError(await patch(other, event.id, { status: 'cancelled' }), 404, 'event not found');
    expect(expectItem(await get(owner, `/api/v1/events/${event.id}`))).toEqual(event);
  });
});

describe('PATCH /events/{id}', () => {
  it('changes only the fields sent', async () => {
    const tenant = await createTenant();
    const event = await createEvent(tenant, { description: 'Old', venue: 'Old hall' });
    await tick();
    const updated = expectItem(await patch(tenant, event.id, { venue: 'New hall', capacity: 80 }));
    expect(updated).toEqual({
      ...event,
      venue: 'New hall',
      capacity: 80,
      updated_at: updated.updated_at,
    });
    expect(Date.parse(updated.updated_at)).toBeGreaterThan(Date.parse(event.updated_at));
    expect(updated.created_at).toBe(event.created_at);

    const cleared = expectItem(await patch(tenant, event.id, { description: null, venue: null }));
    expect(cleared).toMatchObject({ description: null, venue: null, capacity: 80 });
    expect(expectItem(await get(tenant, `/api/v1/events/${event.id}`))).toEqual(cleared);
  });

  it('checks ends_at against the stored starts_at', async () => {
    const tenant = await createTenant();
    const event = await createEvent(tenant);
    expectBadRequest(
      await patch(tenant, event.id, { starts_at: '2027-04-11T00:00:00Z' }),
      'ends_at',
    );
    expectBadRequest(await patch(tenant, event.id, { ends_at: '2027-04-10T12:00:00Z' }), 'ends_at');
    expect(expectItem(await get(tenant, `/api/v1/events/${event.id}`))).toEqual(event);
    const moved = expectItem(
      await patch(tenant, event.id, {
        starts_at: '2027-05-01T18:00:00Z',
        ends_at: '2027-05-01T22:00:00Z',
      }),
    );
    expect(moved).toMatchObject({
      starts_at: '2027-05-01T18:00:00.000Z',
      ends_at: '2027-05-01T22:00:00.000Z',
    });
  });

  it.each([
    ['colour', 'red'],
    ['published_at', '2027-01-01T00:00:00Z'],
    ['id', 'evt_0000000000000000000000'],
    ['status', 'bogus'],
    ['name', ''],
    ['name', null],
    ['timezone', 'Nowhere/Atlantis'],
    ['currency', 'usd'],
    ['starts_at', null],
    ['capacity', -1],
    ['venue', 'Hall\u0000B'],
    ['ends_at', '+010000-01-01T00:00:00Z'],
  ])('refuses %s = %j', async (field, value) => {
    const tenant = await createTenant();
    const event = await createEvent(tenant);
    expectBadRequest(await patch(tenant, event.id, { [field]: value }), field);
    expect(expectItem(await get(tenant, `/api/v1/events/${event.id}`))).toEqual(event);
  });

  it('accepts an empty body and changes nothing', async () => {
    const tenant = await createTenant();
    const event = await createEvent(tenant);
    expect(expectItem(await patch(tenant, event.id, {}))).toEqual(event);
  });

  it('locks the currency once the event has ticket tiers', async () => {
    const tenant = await createTenant();
    const untiered = await createEvent(tenant);
    expect(expectItem(await patch(tenant, untiered.id, { currency: 'USD' })).currency).toBe('USD');

    const event = await createEvent(tenant);
    const tier = expectItem(
      await call(server, 'POST', '/api/v1/tiers', {
        key: tenant.key,
        body: { event_id: event.id, name: 'Standard', price: 100 },
      }),
      201,
    );
    expect(tier.currency).toBe('EUR');
    const before = expectItem(await get(tenant, `/api/v1/events/${event.id}`));
    const locked = (body: Record<string, unknown>) => async () => {
      const refused = expectError(
        await patch(tenant, event.id, body),
        409,
        'currency cannot change once the event has ticket tiers',
      );
      expect(refused.code).toBe('currency_locked');
    };
    await locked({ currency: 'USD' })();
    // The lock is checked before the other fields and the status.
    await locked({ currency: 'USD', name: 'Renamed' })();
    await locked({ currency: 'USD', ends_at: '2027-04-10T12:00:00Z' })();
    await locked({ currency: 'USD', status: 'completed' })();
    expect(expectItem(await get(tenant, `/api/v1/events/${event.id}`))).toEqual(before);

    // The same currency is no change.
    const renamed = expectItem(await patch(tenant, event.id, { currency: 'EUR', name: 'Renamed' }));
    expect(renamed).toMatchObject({ currency: 'EUR', name: 'Renamed' });

    // A final event says so first.
    expectItem(await patch(tenant, event.id, { status: 'cancelled' }));
    expectError(await patch(tenant, event.id, { currency: 'USD' }), 409, /cancelled/);
  });

  it.each([
    [['published']],
    [['cancelled']],
    [['published', 'completed']],
    [['published', 'cancelled']],
  ])('follows the legal transitions %j', async (steps: string[]) => {
    const tenant = await createTenant();
    let event = await createEvent(tenant);
    for (const status of steps) {
      await tick(2);
      const next = expectItem(await patch(tenant, event.id, { status }));
      expect(next.status).toBe(status);
      expect(Date.parse(next.updated_at)).toBeGreaterThan(Date.parse(event.updated_at));
      event = next;
    }
    const published = steps.includes('published');
    const cancelled = steps.includes('cancelled');
    if (published) expect(event.published_at).toMatch(ISO_UTC);
    else expect(event.published_at).toBeNull();
    if (cancelled) expect(event.cancelled_at).toMatch(ISO_UTC);
    else expect(event.cancelled_at).toBeNull();
    expect(expectItem(await get(tenant, `/api/v1/events/${event.id}`))).toEqual(event);
  });

  it('keeps published_at when a published event is cancelled', async () => {
    const tenant = await createTenant();
    const event = await createEvent(tenant);
    const published = expectItem(await patch(tenant, event.id, { status: 'published' }));
    await tick(2);
    const cancelled = expectItem(await patch(tenant, event.id, { status: 'cancelled' }));
    expect(cancelled.published_at).toBe(published.published_at);
    expect(Date.parse(cancelled.cancelled_at)).toBeGreaterThan(Date.parse(published.published_at));
  });

  it.each([
    [[], 'completed'],
    [['published'], 'draft'],
    [['cancelled'], 'draft'],
    [['cancelled'], 'published'],
    [['cancelled'], 'completed'],
    [['published', 'completed'], 'draft'],
    [['published', 'completed'], 'published'],
    [['published', 'completed'], 'cancelled'],
    [['published', 'cancelled'], 'published'],
  ])('refuses the transition after %j to %s with a 409', async (steps: string[], to: string) => {
    const tenant = await createTenant();
    const { id } = await createEvent(tenant);
    for (const status of steps) expectItem(await patch(tenant, id, { status }));
    const before = expectItem(await get(tenant, `/api/v1/events/${id}`));
    expectError(await patch(tenant, id, { status: to }), 409, new RegExp(`\\b${to}\\b`));
    expect(expectItem(await get(tenant, `/api/v1/events/${id}`))).toEqual(before);
  });

  it.each([[['cancelled']], [['published', 'completed']]])(
    'refuses changes to an event after %j with a 409',
    async (steps: string[]) => {
      const tenant = await createTenant();
      const { id } = await createEvent(tenant);
      for (const status of steps) expectItem(await patch(tenant, id, { status }));
      const before = expectItem(await get(tenant, `/api/v1/events/${id}`));
      const expectFinal = (result: CallResult) =>
        expectError(result, 409, new RegExp(`\\b${before.status}\\b`));
      expectFinal(await patch(tenant, id, { name: 'Renamed' }));
      expectFinal(await patch(tenant, id, { venue: 'Elsewhere', status: before.status }));
      expectFinal(await patch(tenant, id, { ends_at: '2027-04-11T23:00:00Z' }));
      expect(expectItem(await get(tenant, `/api/v1/events/${id}`))).toEqual(before);
    },
  );
});

describe('GET /events', () => {
  async function seed(tenant: TestTenant) {
    const a = await createEvent(tenant, {
      name: 'Jazz Night',
      starts_at: '2027-01-15T19:00:00Z',
      ends_at: '2027-01-15T23:00:00Z',
    });
    const b = await createEvent(tenant, {
      name: 'Summer JAZZ festival',
      starts_at: '2027-06-20T12:00:00Z',
      ends_at: '2027-06-22T23:00:00Z',
      status: 'published',
    });
    const c = await createEvent(tenant, {
      name: 'Rock 50% off',
      starts_at: '2027-09-01T19:00:00Z',
      ends_at: '2027-09-01T23:00:00Z',
    });
    expectItem(await patch(tenant, c.id, { status: 'cancelled' }));
    const d = await createEvent(tenant, {
      name: 'Poetry_slam',
      starts_at: '2027-12-01T19:00:00Z',
      ends_at: '2027-12-01T22:00:00Z',
      status: 'published',
    });
    expectItem(await patch(tenant, d.id, { status: 'completed' }));
    return { a, b, c, d };
  }

  it('lists only the organisation’s events, in creation order', async () => {
    const tenant = await createTenant();
    const other = await createTenant();
    await createEvent(other, { name: 'Jazz Night' });
    const { a, b, c, d } = await seed(tenant);
    const list = expectIds(await get(tenant, '/api/v1/events'), [a.id, b.id, c.id, d.id], {
      total: 4,
      page: 1,
      limit: 20,
    });
    expectResource(list.data[0], EVENT);
    expect(list.data[0]).toEqual(a);
    expectList(await get(tenant, '/api/v1/events?q=jazz'), { total: 2 });
  });

  it.each([
    ['status=draft', ['a']],
    ['status=published', ['b']],
    ['status=draft,cancelled', ['a', 'c']],
    ['status=completed,published,draft', ['a', 'b', 'd']],
    ['status=cancelled&status=completed', ['c', 'd']],
    ['starts_after=2027-06-01T00:00:00Z', ['b', 'c', 'd']],
    ['starts_before=2027-06-01T00:00:00Z', ['a']],
    ['starts_after=2027-03-01T00:00:00Z&starts_before=2027-10-01T00:00:00%2B02:00', ['b', 'c']],
    ['q=jazz', ['a', 'b']],
    ['q=JAZZ%20N', ['a']],
    ['q=fest', ['b']],
    ['q=50%25', ['c']],
    ['q=%25', ['c']],
    ['q=_', ['d']],
    ['q=nothing', []],
    ['q=jazz&status=published', ['b']],
  ])('filters by %s', async (query, expected) => {
    const tenant = await createTenant();
    const events: Record<string, { id: string }> = await seed(tenant);
    expectIds(
      await get(tenant, `/api/v1/events?${query}`),
      expected.map((name) => events[name]!.id),
      { total: expected.length },
    );
  });

  it('filters by updated_since and then orders by updated_at, id', async () => {
    const tenant = await createTenant();
    const first = await createEvent(tenant, { name: 'First' });
    const second = await createEvent(tenant, { name: 'Second' });
    const since = await instantBetweenWrites();
    const third = await createEvent(tenant, { name: 'Third' });
    await tick();
    const touched = expectItem(await patch(tenant, first.id, { venue: 'Moved' }));

    expectIds(await get(tenant, '/api/v1/events'), [first.id, second.id, third.id], {
      total: 3,
    });

    const changed = expectIds(
      await get(tenant, `/api/v1/events?updated_since=${since}`),
      [third.id, first.id],
      { total: 2 },
    );
    expect(changed.data[1]).toEqual(touched);

    expectIds(
      await get(tenant, '/api/v1/events?updated_since=2000-01-01T00:00:00Z'),
      [second.id, third.id, first.id],
      { total: 3 },
    );
  });

  itRefusesQueries(server, '/api/v1/events', [
    ['status=bogus', 'status'],
    ['status=draft,bogus', 'status'],
    ['status=', 'status'],
    ['starts_after=tomorrow', 'starts_after'],
    ['starts_before=2027-13-01T00:00:00Z', 'starts_before'],
    ['updated_since=yesterday', 'updated_since'],
    ['updated_since=1700000000', 'updated_since'],
    ['q=' + 'x'.repeat(201), 'q'],
    ['q=%00', 'q'],
    ['updated_since=0000-01-01T00:00:00Z', 'updated_since'],
    ['starts_before=10000-01-01T00:00:00Z', 'starts_before'],
  ]);
});

describe('GET /events pagination', () => {
  async function createMany(tenant: TestTenant, count: number) {
    const created = [];
    for (let i = 0; i < count; i++) created.push(await createEvent(tenant, { name: `E${i}` }));
    return created;
  }

  it('pages with page 1 and limit 20 by default', async () => {
    const tenant = await createTenant();
    const events = await createMany(tenant, 23);
    const pages: [string, { id: string }[], { total: number; page: number; limit: number }][] = [
      ['', events.slice(0, 20), { total: 23, page: 1, limit: 20 }],
      ['?page=2', events.slice(20), { total: 23, page: 2, limit: 20 }],
      ['?limit=100', events, { total: 23, page: 1, limit: 100 }],
      ['?limit=5&page=3', events.slice(10, 15), { total: 23, page: 3, limit: 5 }],
    ];
    for (const [query, expected, meta] of pages) {
      expectIds(await get(tenant, `/api/v1/events${query}`), idsOf(expected), meta);
    }
    expectIds(await get(tenant, '/api/v1/events?limit=1&page=23'), [events[22]!.id], {
      limit: 1,
    });
  });

  it('answers a page past the end with no data and the true total', async () => {
    const tenant = await createTenant();
    await createMany(tenant, 3);
    for (const query of ['page=2', 'page=4&limit=1', 'page=1000000&limit=100']) {
      const page = expectList(await get(tenant, `/api/v1/events?${query}`), { total: 3 });
      expect(page.data).toEqual([]);
    }
    const filtered = expectList(await get(tenant, '/api/v1/events?status=published&page=2'), {
      total: 0,
      page: 2,
    });
    expect(filtered.data).toEqual([]);
  });

  it.each(['limit=0', 'limit=101', 'limit=abc', 'limit=1.5', 'limit=-5', 'limit=', 'limit=1e2'])(
    'refuses %s',
    async (query) => {
      const tenant = await createTenant();
      expectError(await get(tenant, `/api/v1/events?${query}`), 400, LIMIT_MESSAGE);
    },
  );

  it.each(['page=0', 'page=-1', 'page=abc', 'page=1.5', 'page=', 'page=99999999999999999'])(
    'refuses %s naming page',
    async (query) => {
      const tenant = await createTenant();
      expectError(await get(tenant, `/api/v1/events?${query}`), 400, /^page must be an integer/);
    },
  );

  it('keeps pages stable while events are appended', async () => {
    const tenant = await createTenant();
    await createMany(tenant, 5);
    await expectStablePagesWhileAppending(server, tenant, '/api/v1/events', {
      initial: 5,
      appends: 4,
      append: (index) => createEvent(tenant, { name: `Appended ${index}` }),
    });
  });
});
