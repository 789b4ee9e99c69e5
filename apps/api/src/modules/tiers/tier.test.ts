import { describe, expect, it } from 'vitest';
import {
  byId,
  expectBadRequest,
  expectError,
  expectItem,
  expectList,
  expectResource,
  idsOf,
  instantBetweenWrites,
  tick,
} from '../../../test/assertions';
import { buildEvent, cancelFixtureOrder } from '../../../test/fixtures';
import { expectFiltered, expectIds, itRefusesQueries } from '../../../test/lists';
import { call, createTenant, useTestServer, type TestTenant } from '../../../test/setup';

const TIER = {
  prefix: 'tier',
  fields: [
    'id',
    'event_id',
    'name',
    'description',
    'price',
    'currency',
    'quantity_total',
    'quantity_sold',
    'quantity_available',
    'max_per_order',
    'sales_start_at',
    'sales_end_at',
    'sort_order',
    'status',
    'livemode',
    'created_at',
    'updated_at',
  ],
  timestamps: ['sales_start_at', 'sales_end_at', 'created_at', 'updated_at'],
  money: ['price'],
} as const;

const server = useTestServer();
const { get } = server;
const post = (tenant: TestTenant, body: unknown) =>
  call(server, 'POST', '/api/v1/tiers', { key: tenant.key, body });
const patch = (tenant: TestTenant, id: string, body: unknown) =>
  call(server, 'PATCH', `/api/v1/tiers/${id}`, { key: tenant.key, body });

async function createEvent(tenant: TestTenant, body: Record<string, unknown> = {}) {
  const result = await call(server, 'POST', '/api/v1/events', {
    key: tenant.key,
    body: {
      name: 'Tiered event',
      timezone: 'America/New_York',
      starts_at: '2027-07-04T22:00:00Z',
      ends_at: '2027-07-05T03:00:00Z',
      currency: 'USD',
      ...body,
    },
  });
  return expectItem(result, 201);
}

async function setEventStatus(tenant: TestTenant, eventId: string, steps: string[]) {
  for (const status of steps) {
    expectItem(
      await call(server, 'PATCH', `/api/v1/events/${eventId}`, {
        key: tenant.key,
        body: { status },
      }),
    );
  }
}

async function createTier(tenant: TestTenant, eventId: string, body: Record<string, unknown> = {}) {
  return expectItem(
    await post(tenant, { event_id: eventId, name: 'Standard', price: 4900, ...body }),
    201,
  );
}

describe('POST /tiers', () => {
  it('creates an unlimited tier on sale in the event’s currency', async () => {
    const tenant = await createTenant();
    const event = await createEvent(tenant);
    const tier = await createTier(tenant, event.id);
    expectResource(tier, TIER);
    expect(tier).toMatchObject({
      event_id: event.id,
      name: 'Standard',
      description: null,
      price: 4900,
      currency: 'USD',
      quantity_total: null,
      quantity_sold: 0,
      quantity_available: null,
      max_per_order: null,
      sales_start_at: null,
      sales_end_at: null,
      sort_order: 0,
      status: 'on_sale',
    });
    expect(tier.updated_at).toBe(tier.created_at);
    expect(expectItem(await get(tenant, `/api/v1/tiers/${tier.id}`))).toEqual(tier);
  });

  it('takes every optional field', async () => {
    const tenant = await createTenant();
    const event = await createEvent(tenant, { status: 'published' });
    const tier = await createTier(tenant, event.id, {
      name: 'VIP',
      description: 'Front rows',
      price: 0,
      quantity_total: 40,
      max_per_order: 4,
      sales_start_at: '2027-01-01T09:00:00-05:00',
      sales_end_at: '2027-07-04T12:00:00Z',
      sort_order: -3,
      status: 'hidden',
    });
    expect(tier).toMatchObject({
      name: 'VIP',
      description: 'Front rows',
      price: 0,
      quantity_total: 40,
      quantity_sold: 0,
      quantity_available: 40,
      max_per_order: 4,
      sales_start_at: '2027-01-01T14:00:00.000Z',
      sales_end_at: '2027-07-04T12:00:00.000Z',
      sort_order: -3,
      status: 'hidden',
    });
  });

  it('takes prices up to the largest the database stores, as exact integers', async () => {
    const tenant = await createTenant();
    const event = await createEvent(tenant);
    const tier = await createTier(tenant, event.id, { price: 2_147_483_647 });
    expect(tier.price).toBe(2_147_483_647);
    expect(expectItem(await get(tenant, `/api/v1/tiers/${tier.id}`)).price).toBe(2_147_483_647);
  });

  it('is sold out from the start when quantity_total is 0', async () => {
    const tenant = await createTenant();
    const event = await createEvent(tenant);
    const tier = await createTier(tenant, event.id, { quantity_total: 0 });
    expect(tier).toMatchObject({ status: 'sold_out', quantity_available: 0 });
  });

  it.each(['event_id', 'name', 'price'])('requires %s', async (field) => {
    const tenant = await createTenant();
    const event = await createEvent(tenant);
    const body: Record<string, unknown> = { event_id: event.id, name: 'Standard', price: 100 };
    delete body[field];
    expectBadRequest(await post(tenant, body), field);
  });

  it.each([
    ['price', -1],
    ['price', 12.5],
    ['price', '4900'],
    ['price', 2_147_483_648],
    ['name', 'VIP\u0000'],
    ['description', '\u0000'],
    ['sales_end_at', '0000-12-31T23:00:00Z'],
    ['name', ''],
    ['name', 'x'.repeat(201)],
    ['quantity_total', -1],
    ['quantity_total', 2.5],
    ['max_per_order', 0],
    ['sort_order', 'first'],
    ['sales_start_at', 'soon'],
    ['status', 'sold_out'],
    ['status', 'bogus'],
    ['currency', 'EUR'],
    ['quantity_sold', 3],
    ['colour', 'gold'],
  ])('refuses %s = %j', async (field, value) => {
    const tenant = await createTenant();
    const event = await createEvent(tenant);
    expectBadRequest(
      await post(tenant, { event_id: event.id, name: 'Standard', price: 100, [field]: value }),
      field,
    );
    expectList(await get(tenant, `/api/v1/tiers?event_id=${event.id}`), { total: 0 });
  });

  it('answers 422 for an event_id that refers to no event of the organisation', async () => {
    const tenant = await createTenant();
    const other = await createTenant();
    const foreign = await createEvent(other);
    const own = await createEvent(tenant);
    const ownTier = await createTier(tenant, own.id);
    for (const eventId of ['evt_0000000000000000000000', foreign.id, ownTier.id, 'nope']) {
      expectError(
        await post(tenant, { event_id: eventId, name: 'Standard', price: 100 }),
        422,
        /event_id/,
      );
    }
    expectList(await get(other, `/api/v1/tiers?event_id=${foreign.id}`), { total: 0 });
  });

  it.each([[['cancelled']], [['published', 'cancelled']], [['published', 'completed']]])(
    'refuses a tier for an event after %j with a 409',
    async (steps: string[]) => {
      const tenant = await createTenant();
      const event = await createEvent(tenant);
      await setEventStatus(tenant, event.id, steps);
      expectError(
        await post(tenant, { event_id: event.id, name: 'Late', price: 100 }),
        409,
        /cancelled|completed/,
      );
      expectList(await get(tenant, `/api/v1/tiers?event_id=${event.id}`), { total: 0 });
    },
  );
});

describe('a tier created while its event changes', () => {
  it('takes the event’s currency as it is when the tier commits; the other write waits or is refused', async () => {
    const tenant = await createTenant();
    for (let round = 0; round < 8; round++) {
      const event = await createEvent(tenant);
      const [tier, currency] = await Promise.all([
        post(tenant, { event_id: event.id, name: 'Raced', price: 1000 }),
        call(server, 'PATCH', `/api/v1/events/${event.id}`, {
          key: tenant.key,
          body: { currency: 'EUR' },
        }),
      ]);
      expect(tier.status, JSON.stringify(tier.body)).toBe(201);
      // Either the currency changed first (the tier takes it), or the tier did (the change is
      // refused: the event now has a tier priced in its old currency).
      if (currency.status === 200) expect(tier.body.data.currency).toBe('EUR');
      else {
        expect(currency.status, JSON.stringify(currency.body)).toBe(409);
        expect(currency.body.code).toBe('currency_locked');
        expect(tier.body.data.currency).toBe('USD');
      }
    }
  });
});

describe('GET /tiers/{id}', () => {
  it('is a 404 for unknown ids, other kinds and other organisations', async () => {
    const tenant = await createTenant();
    const other = await createTenant();
    const event = await createEvent(tenant);
    const tier = await createTier(tenant, event.id);
    for (const id of ['tier_0000000000000000000000', event.id, `tier_${event.id.slice(4)}`]) {
      expectError(await get(tenant, `/api/v1/tiers/${id}`), 404, 'ticket tier not found');
    }
    expectError(await get(other, `/api/v1/tiers/${tier.id}`), 404, 'ticket tier not found');
    expectError(await patch(other, tier.id, { price: 1 }), 404, 'ticket tier not found');
    expectError(await patch(other, tier.id, { status: 'paused' }), 404, 'ticket tier not found');
    expect(expectItem(await get(tenant, `/api/v1/tiers/${tier.id}`))).toEqual(tier);
  });
});

describe('PATCH /tiers/{id}', () => {
  it('changes only the fields sent', async () => {
    const tenant = await createTenant();
    const event = await createEvent(tenant);
    const tier = await createTier(tenant, event.id, { description: 'Seated', quantity_total: 100 });
    await tick();
    const updated = expectItem(await patch(tenant, tier.id, { price: 5900, status: 'paused' }));
    expect(updated).toEqual({
      ...tier,
      price: 5900,
      status: 'paused',
      updated_at: updated.updated_at,
    });
    expect(Date.parse(updated.updated_at)).toBeGreaterThan(Date.parse(tier.updated_at));
    const unlimited = expectItem(
      await patch(tenant, tier.id, { quantity_total: null, description: null, status: 'on_sale' }),
    );
    expect(unlimited).toMatchObject({
      quantity_total: null,
      quantity_available: null,
      description: null,
      status: 'on_sale',
      price: 5900,
    });
    expect(expectItem(await patch(tenant, tier.id, {}))).toEqual(unlimited);
  });

  it.each([
    ['status', 'sold_out'],
    ['price', -5],
    ['price', 9.99],
    ['event_id', 'evt_0000000000000000000000'],
    ['currency', 'GBP'],
    ['quantity_sold', 0],
    ['quantity_available', 10],
    ['name', null],
    ['price', 1e12],
    ['description', 'a\u0000b'],
  ])('refuses %s = %j', async (field, value) => {
    const tenant = await createTenant();
    const event = await createEvent(tenant);
    const tier = await createTier(tenant, event.id);
    expectBadRequest(await patch(tenant, tier.id, { [field]: value }), field);
    expect(expectItem(await get(tenant, `/api/v1/tiers/${tier.id}`))).toEqual(tier);
  });

  it('refuses to lower quantity_total below the tickets sold, and marks it sold out at equality', async () => {
    const tenant = await createTenant();
    const { tier, order } = await buildEvent(tenant.organisationId, { tickets: 3 });
    const before = expectItem(await get(tenant, `/api/v1/tiers/${tier.id}`));
    expect(before).toMatchObject({
      quantity_total: 500,
      quantity_sold: 3,
      quantity_available: 497,
      status: 'on_sale',
    });

    expectError(await patch(tenant, tier.id, { quantity_total: 2 }), 409, /quantity_total/);
    expectError(await patch(tenant, tier.id, { quantity_total: 0, name: 'Cheap' }), 409, /sold/);
    expect(expectItem(await get(tenant, `/api/v1/tiers/${tier.id}`))).toEqual(before);

    const soldOut = expectItem(await patch(tenant, tier.id, { quantity_total: 3 }));
    expect(soldOut).toMatchObject({ quantity_total: 3, quantity_available: 0, status: 'sold_out' });
    const renamed = expectItem(await patch(tenant, tier.id, { name: 'Early bird' }));
    expect(renamed).toMatchObject({ name: 'Early bird', status: 'sold_out' });
    const listed = expectList(await get(tenant, '/api/v1/tiers?status=sold_out'), { total: 1 });
    expect(listed.data[0].id).toBe(tier.id);

    const raised = expectItem(await patch(tenant, tier.id, { quantity_total: 10 }));
    expect(raised).toMatchObject({ quantity_total: 10, quantity_available: 7, status: 'on_sale' });
    expect(expectItem(await patch(tenant, tier.id, { quantity_total: 3 })).status).toBe('sold_out');

    // A cancelled order gives its seats back.
    await cancelFixtureOrder(tenant.organisationId, order.id);
    expect(expectItem(await get(tenant, `/api/v1/tiers/${tier.id}`))).toMatchObject({
      quantity_total: 3,
      quantity_sold: 0,
      quantity_available: 3,
      status: 'on_sale',
    });
    expect(expectItem(await patch(tenant, tier.id, { quantity_total: 0 })).status).toBe('sold_out');
  });

  it.each([[['cancelled']], [['published', 'completed']]])(
    'refuses to change a tier of an event after %j with a 409',
    async (steps: string[]) => {
      const tenant = await createTenant();
      const event = await createEvent(tenant);
      const tier = await createTier(tenant, event.id);
      await setEventStatus(tenant, event.id, steps);
      expectError(await patch(tenant, tier.id, { price: 1 }), 409, /cancelled|completed/);
      expectError(await patch(tenant, tier.id, { status: 'paused' }), 409, /cancelled|completed/);
      expect(expectItem(await get(tenant, `/api/v1/tiers/${tier.id}`))).toEqual(tier);
    },
  );
});

describe('GET /tiers', () => {
  it('orders by sort_order, then id, and shows only the organisation’s tiers', async () => {
    const tenant = await createTenant();
    const other = await createTenant();
    const event = await createEvent(tenant);
    const foreignEvent = await createEvent(other);
    await createTier(other, foreignEvent.id, { sort_order: -100 });
    const late = await createTier(tenant, event.id, { name: 'Late', sort_order: 2 });
    const tieA = await createTier(tenant, event.id, { name: 'Tie A', sort_order: 1 });
    const tieB = await createTier(tenant, event.id, { name: 'Tie B', sort_order: 1 });
    const first = await createTier(tenant, event.id, { name: 'First', sort_order: -1 });
    const ties = [tieA, tieB].sort(byId);
    const list = expectIds(
      await get(tenant, '/api/v1/tiers'),
      [first.id, ...idsOf(ties), late.id],
      { total: 4, page: 1, limit: 20 },
    );
    expectResource(list.data[0], TIER);

    // Reordering moves a tier in the list.
    expectItem(await patch(tenant, late.id, { sort_order: -5 }));
    expectIds(await get(tenant, '/api/v1/tiers?limit=2&page=1'), [late.id, first.id], {
      total: 4,
      limit: 2,
    });
    expectIds(await get(tenant, '/api/v1/tiers?limit=2&page=2'), idsOf(ties), { total: 4 });
  });

  it('filters by event_id and status', async () => {
    const tenant = await createTenant();
    const one = await createEvent(tenant);
    const two = await createEvent(tenant);
    const a = await createTier(tenant, one.id, { sort_order: 1 });
    const b = await createTier(tenant, one.id, { sort_order: 2, status: 'paused' });
    const c = await createTier(tenant, two.id, { sort_order: 3, status: 'hidden' });
    const d = await createTier(tenant, two.id, { sort_order: 4, quantity_total: 0 });
    await expectFiltered(server, tenant, '/api/v1/tiers', [
      [`event_id=${one.id}`, [a.id, b.id]],
      [`event_id=${two.id}`, [c.id, d.id]],
      ['event_id=evt_0000000000000000000000', []],
      ['status=on_sale', [a.id]],
      ['status=paused,hidden', [b.id, c.id]],
      ['status=sold_out', [d.id]],
      [`status=on_sale,sold_out&event_id=${two.id}`, [d.id]],
    ]);
  });

  it('filters by updated_since, ordered by updated_at then id', async () => {
    const tenant = await createTenant();
    const event = await createEvent(tenant);
    const a = await createTier(tenant, event.id, { sort_order: 1 });
    const b = await createTier(tenant, event.id, { sort_order: 2 });
    const since = await instantBetweenWrites();
    const c = await createTier(tenant, event.id, { sort_order: 3 });
    await tick();
    expectItem(await patch(tenant, a.id, { price: 1 }));
    expectIds(await get(tenant, `/api/v1/tiers?updated_since=${since}`), [c.id, a.id], {
      total: 2,
    });
    expectIds(
      await get(tenant, `/api/v1/tiers?updated_since=2000-01-01T00:00:00.000Z&limit=100`),
      [b.id, c.id, a.id],
      { total: 3 },
    );
  });

  itRefusesQueries(server, '/api/v1/tiers', [
    ['status=bogus', 'status'],
    ['status=on_sale,closed', 'status'],
    ['updated_since=yesterday', 'updated_since'],
    ['event_id=' + 'x'.repeat(81), 'event_id'],
    ['event_id=%00', 'event_id'],
    ['limit=0', 'limit'],
    ['page=0', 'page'],
  ]);
});
