import { beforeAll, describe, expect, it } from 'vitest';
import { expectError, expectList } from './assertions';
import { buildEvent, insertEvents, LISTS } from './fixtures';
import { call, createTenant, getTestOrm, useTestServer, type TestTenant } from './setup';

const server = useTestServer();

const get = (tenant: TestTenant, path: string) => call(server, 'GET', path, { key: tenant.key });

type ListBody = ReturnType<typeof expectList>;

/** Every page of a list from `path`, following `next_cursor` (with the same filters). */
async function walk(tenant: TestTenant, path: string): Promise<ListBody[]> {
  const pages = [expectList(await get(tenant, path))];
  const separator = path.includes('?') ? '&' : '?';
  while (pages.at(-1)!.next_cursor !== null) {
    const cursor = encodeURIComponent(pages.at(-1)!.next_cursor!);
    pages.push(expectList(await get(tenant, `${path}${separator}cursor=${cursor}`)));
  }
  return pages;
}

const ids = (pages: ListBody[]) => pages.flatMap((page) => page.data.map((item) => item.id));

const createEvent = async (tenant: TestTenant, name: string) =>
  (
    await call(server, 'POST', '/api/v1/events', {
      key: tenant.key,
      body: {
        name,
        timezone: 'UTC',
        starts_at: '2027-05-01T18:00:00Z',
        ends_at: '2027-05-01T22:00:00Z',
        currency: 'EUR',
      },
    })
  ).body.data;

describe('cursor pagination', () => {
  it('walks a list in created_at, id order: every item once, the total of the first page throughout', async () => {
    const tenant = await createTenant();
    // Ties on created_at (to the microsecond) are ordered by id; microseconds are kept.
    const stamps = [
      ...Array<string>(5).fill('2026-03-01T10:00:00.123456Z'),
      '2026-03-01T10:00:00.123457Z',
      '2026-03-01T10:00:00.123455Z',
      ...Array<string>(4).fill('2026-03-02T00:00:00Z'),
    ];
    await insertEvents(tenant.organisationId, stamps);
    const byPage = expectList(await get(tenant, '/api/v1/events?limit=100'));
    expect(byPage.next_cursor).toBeNull();

    const pages = await walk(tenant, '/api/v1/events?limit=3');
    expect(ids(pages)).toEqual(byPage.data.map((event) => event.id));
    expect(pages.map((page) => page.page)).toEqual([1, 2, 3, 4]);
    expect(pages.map((page) => page.total)).toEqual([11, 11, 11, 11]);
    expect(pages.map((page) => page.data.length)).toEqual([3, 3, 3, 2]);
  });

  it('needs no request past the end: the last full page has no next_cursor', async () => {
    const tenant = await createTenant();
    await insertEvents(tenant.organisationId, Array<string>(4).fill('2026-03-01T00:00:00Z'));
    const pages = await walk(tenant, '/api/v1/events?limit=2');
    expect(pages).toHaveLength(2);
    expect(pages[1]!.next_cursor).toBeNull();
    expect(expectList(await get(tenant, '/api/v1/events?limit=5')).next_cursor).toBeNull();
  });

  it('names the next page in a Link header, with the filters and without page', async () => {
    const tenant = await createTenant();
    await insertEvents(tenant.organisationId, Array<string>(5).fill('2026-03-01T00:00:00Z'));
    const path = '/api/v1/events?limit=2&status=draft&page=1';
    const seen: string[] = [];
    let next: string | null = path;
    let pages = 0;
    while (next !== null) {
      const response = await get(tenant, next);
      const body = expectList(response);
      seen.push(...body.data.map((event) => event.id));
      pages++;
      const link = response.headers.get('link');
      if (body.next_cursor === null) {
        expect(link).toBeNull();
        next = null;
      } else {
        const match = /^<([^>]+)>; rel="next"$/.exec(link ?? '');
        expect(match, String(link)).not.toBeNull();
        const url = new URL(match![1]!, server.baseUrl);
        expect(url.pathname).toBe('/api/v1/events');
        expect(Object.fromEntries(url.searchParams)).toEqual({
          limit: '2',
          status: 'draft',
          cursor: body.next_cursor,
        });
        next = `${url.pathname}${url.search}`;
      }
    }
    expect(pages).toBe(3);
    expect(seen).toEqual(ids(await walk(tenant, '/api/v1/events?limit=100')));
  });

  it('continues from a numbered page, and lets the limit change on the way', async () => {
    const tenant = await createTenant();
    await insertEvents(
      tenant.organisationId,
      Array.from({ length: 10 }, (_, i) => `2026-03-01T00:00:0${i}Z`),
    );
    const all = ids([expectList(await get(tenant, '/api/v1/events?limit=100'))]);
    const second = expectList(await get(tenant, '/api/v1/events?page=2&limit=3'));
    expect(second.data.map((event) => event.id)).toEqual(all.slice(3, 6));
    const next = expectList(
      await get(tenant, `/api/v1/events?limit=4&cursor=${second.next_cursor}`),
    );
    expect(next).toMatchObject({ page: 3, total: 10, limit: 4 });
    expect(next.data.map((event) => event.id)).toEqual(all.slice(6, 10));
    expect(next.next_cursor).toBeNull();
  });

  it('follows each list in its own order: tiers by sort_order, check-ins by receipt', async () => {
    const tenant = await createTenant();
    const { event, tier, tickets } = await buildEvent(tenant.organisationId, { tickets: 5 });
    for (const sortOrder of [5, -2, 5, 0]) {
      await call(server, 'POST', '/api/v1/tiers', {
        key: tenant.key,
        body: { event_id: event.id, name: `Tier ${sortOrder}`, price: 100, sort_order: sortOrder },
      });
    }
    const tiers = ids(await walk(tenant, '/api/v1/tiers?limit=2'));
    expect(tiers).toEqual(ids([expectList(await get(tenant, '/api/v1/tiers?limit=100'))]));
    expect(tiers).toHaveLength(5);
    expect(tiers).toContain(tier.id);

    for (const ticket of tickets) {
      await call(server, 'POST', '/api/v1/checkins', {
        key: tenant.key,
        body: { ticket_id: ticket.id },
      });
    }
    const checkins = await walk(tenant, `/api/v1/checkins?event_id=${event.id}&limit=2`);
    expect(ids(checkins)).toEqual(
      ids([expectList(await get(tenant, `/api/v1/checkins?event_id=${event.id}`))]),
    );
    expect(ids(checkins)).toHaveLength(5);
  });

  it('walks every list of the API', async () => {
    const tenant = await createTenant();
    await buildEvent(tenant.organisationId, { tickets: 3 });
    for (const list of LISTS) {
      const pages = await walk(tenant, `/api/v1/${list}?limit=1`);
      const all = expectList(await get(tenant, `/api/v1/${list}?limit=100`));
      expect(ids(pages), list).toEqual(all.data.map((item) => item.id));
    }
  });

  it('sees an item updated during an updated_since walk again later, and skips none', async () => {
    const tenant = await createTenant();
    const since = new Date(Date.now() - 1000).toISOString();
    const created = [];
    for (let i = 0; i < 22; i++) created.push(await createEvent(tenant, `Sync ${i}`));
    const path = `/api/v1/events?updated_since=${since}&limit=10`;

    const first = expectList(await get(tenant, path));
    // Someone else updates an item the walk has already passed: with page numbers, every later
    // item would shift one place back and one of them would never be served.
    const moved = first.data[0].id as string;
    await call(server, 'PATCH', `/api/v1/events/${moved}`, {
      key: tenant.key,
      body: { name: 'Renamed during the sync' },
    });
    const pages = [first];
    while (pages.at(-1)!.next_cursor !== null) {
      const cursor = encodeURIComponent(pages.at(-1)!.next_cursor!);
      pages.push(expectList(await get(tenant, `${path}&cursor=${cursor}`)));
    }
    const seen = ids(pages);
    expect(new Set(seen)).toEqual(new Set(created.map((event) => event.id)));
    expect(seen.filter((id) => id === moved)).toHaveLength(2);
    expect(pages.at(-1)!.data.at(-1).name).toBe('Renamed during the sync');
  });

  it('gives the walk one sync checkpoint: when its first page was served, less 60 s', async () => {
    const tenant = await createTenant();
    await insertEvents(tenant.organisationId, Array<string>(3).fill('2026-03-01T00:00:00Z'));
    const before = Date.now();
    const first = expectList(await get(tenant, '/api/v1/events?limit=1'));
    const after = Date.now();
    const checkpoint = Date.parse(first.sync_checkpoint);
    expect(checkpoint).toBeGreaterThanOrEqual(before - 60_000);
    expect(checkpoint).toBeLessThanOrEqual(after - 60_000);
    await new Promise((resolve) => setTimeout(resolve, 20));
    const pages = await walk(tenant, '/api/v1/events?limit=1');
    expect(new Set(pages.slice(1).map((page) => page.sync_checkpoint)).size).toBe(1);
  });
});

describe('cursors that do not fit', () => {
  let tenant: TestTenant;
  let cursor: string;
  beforeAll(async () => {
    tenant = await createTenant();
    await insertEvents(tenant.organisationId, Array<string>(5).fill('2026-03-01T00:00:00Z'));
    const first = expectList(await get(tenant, '/api/v1/events?limit=2&status=draft,published'));
    cursor = first.next_cursor!;
    expect(cursor).toEqual(expect.any(String));
  });

  it('are accepted with the same filters, in any order', async () => {
    const page = expectList(
      await get(tenant, `/api/v1/events?status=published,draft&limit=2&cursor=${cursor}`),
    );
    expect(page.page).toBe(2);
  });

  it.each([
    [
      'together with page',
      ['status=draft,published&page=2'],
      'invalid_cursor',
      'cursor and page cannot be combined: the cursor already says where the next page starts',
    ],
    [
      'with other filters, or with none',
      ['status=draft', '', 'status=draft,published&q=x'],
      'cursor_filters_mismatch',
      'cursor was issued for other filters: send the same filters as the request that returned it',
    ],
  ])('are refused %s', async (_, queries, code, message) => {
    for (const query of queries) {
      const result = await get(tenant, `/api/v1/events?${query}&cursor=${cursor}`);
      expect(expectError(result, 400, message).code, query).toBe(code);
    }
  });

  it('are refused when altered, or when they belong to another list or organisation', async () => {
    const [payload, signature] = cursor.split('.') as [string, string];
    const state = JSON.parse(Buffer.from(payload, 'base64url').toString()) as { t: number };
    const forged = Buffer.from(JSON.stringify({ ...state, t: 999 })).toString('base64url');
    const other = await createTenant();
    const attempts: [TestTenant, string][] = [
      [tenant, `/api/v1/events?status=draft,published&cursor=${forged}.${signature}`],
      [tenant, `/api/v1/events?status=draft,published&cursor=${payload}.${'A'.repeat(22)}`],
      [tenant, `/api/v1/events?status=draft,published&cursor=${payload}`],
      [tenant, `/api/v1/tiers?cursor=${cursor}`],
      [other, `/api/v1/events?status=draft,published&cursor=${cursor}`],
    ];
    for (const [who, path] of attempts) {
      const result = await get(who, path);
      expect(result.status, path).toBe(400);
      expect(result.body.code, path).toBe('invalid_cursor');
    }
  });

  it('are refused when they are not a cursor at all', async () => {
    for (const bad of ['%20', 'a%2Fb', 'x'.repeat(2001)]) {
      const result = await get(tenant, `/api/v1/events?cursor=${bad}`);
      expectError(result, 400, 'cursor must be the next_cursor of an earlier page of this list');
    }
    const repeated = await get(tenant, `/api/v1/events?cursor=${cursor}&cursor=${cursor}`);
    expectError(repeated, 400, 'cursor must be the next_cursor of an earlier page of this list');
  });
});

describe('list rows', () => {
  it('are what the ORM itself maps, for every list', async () => {
    const tenant = await createTenant();
    await buildEvent(tenant.organisationId, { tickets: 2 });
    const em = (await getTestOrm()).em.fork();
    // Times the general parser and the quick one must read alike: microseconds, early years.
    await em.execute(
      `update events set starts_at = '0050-03-01 10:00:00.123456+00', ends_at = '9999-12-31 23:59:59.999999+00'
        where organisation_id = ?`,
      [tenant.organisationId],
    );
    const { entities } = await import('../src/modules/entities');
    const { findPage } = await import('../src/db/pages');
    const listed = ['Event', 'Tier', 'Order', 'Ticket', 'Attendee', 'Checkin', 'Payout'];
    expect(listed).toHaveLength(LISTS.length);
    const lists = entities.filter((e) => listed.includes(e.name));
    expect(lists).toHaveLength(listed.length);
    for (const entity of lists) {
      const where = { organisationId: tenant.organisationId };
      const page = await findPage(
        em as never,
        entity as never,
        where as never,
        { limit: 100, page: 1, count: false },
        ['createdAt', 'id'],
      );
      const mapped = await em
        .createQueryBuilder(entity as never)
        .select('*')
        .where(where as never)
        .orderBy({ createdAt: 'asc', id: 'asc' } as never)
        .execute<Record<string, unknown>[]>('all', true);
      const rows = page.data.map((row) => {
        const { page_sort_key: _key, ...rest } = row as Record<string, unknown>;
        return rest;
      });
      expect(rows, entity.name).toEqual(mapped);
    }
  });
});
