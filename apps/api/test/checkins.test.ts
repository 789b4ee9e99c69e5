import { beforeAll, describe, expect, it } from 'vitest';
import { expectError } from './assertions';
import { buildEvent, cancelFixtureOrder, failCheckinInsertsAt } from './fixtures';
import { call, createKey, createTenant, getTestOrm, useTestServer, type TestTenant } from './setup';

const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

const server = useTestServer();

const scan = (tenant: Pick<TestTenant, 'key'>, body: unknown, headers?: Record<string, string>) =>
  call(server, 'POST', '/api/v1/checkins', { key: tenant.key, body, headers });

const getTicket = async (tenant: TestTenant, id: string) => {
  const result = await call(server, 'GET', `/api/v1/tickets/${id}`, { key: tenant.key });
  expect(result.status).toBe(200);
  return result.body.data;
};

const getAttendee = async (tenant: TestTenant, id: string) => {
  const result = await call(server, 'GET', `/api/v1/attendees/${id}`, { key: tenant.key });
  expect(result.status).toBe(200);
  return result.body.data;
};

async function checkinRows(ticketId: string): Promise<number> {
  const orm = await getTestOrm();
  const [row] = await orm.em
    .fork()
    .execute<{ count: string }[]>('select count(*) as count from checkins where ticket_id = ?', [
      ticketId,
    ]);
  return Number(row!.count);
}

describe('POST /checkins', () => {
  it('admits a valid ticket by ticket_id and by code', async () => {
    const tenant = await createTenant();
    const { event, tickets } = await buildEvent(tenant.organisationId, { tickets: 2 });
    const byId = tickets[0]!;
    const byCode = tickets[1]!;

    const first = await scan(tenant, { ticket_id: byId.id, event_id: event.id, gate: 'North' });
    expect(first.status, JSON.stringify(first.body)).toBe(201);
    expect(first.body.data).toMatchObject({
      ticket_id: byId.id,
      attendee_id: byId.attendeeId,
      event_id: event.id,
      direction: 'entry',
      gate: 'North',
      device_id: null,
      api_key_id: tenant.apiKeyId,
    });
    expect(first.body.data.id).toMatch(/^chk_[0-9A-Za-z]{16,}$/);
    expect(first.body.data.created_at).toMatch(ISO_UTC);

    const second = await scan(tenant, { code: byCode.code, device_id: 'scanner-7' });
    expect(second.status, JSON.stringify(second.body)).toBe(201);
    expect(second.body.data).toMatchObject({
      ticket_id: byCode.id,
      direction: 'entry',
      device_id: 'scanner-7',
      gate: null,
    });

    for (const ticket of [byId, byCode]) {
      const after = await getTicket(tenant, ticket.id);
      expect(after.status).toBe('checked_in');
      expect(after.checked_in_at).toMatch(ISO_UTC);
      expect((await getAttendee(tenant, ticket.attendeeId)).checked_in).toBe(true);
    }
    const fetched = await call(server, 'GET', `/api/v1/checkins/${first.body.data.id}`, {
      key: tenant.key,
    });
    expect(fetched.status).toBe(200);
    expect(fetched.body.data).toEqual(first.body.data);
  });

  it('lets a checked-in ticket out and in again', async () => {
    const tenant = await createTenant();
    const { tickets } = await buildEvent(tenant.organisationId, { tickets: 1 });
    const ticket = tickets[0]!;

    expect((await scan(tenant, { ticket_id: ticket.id })).status).toBe(201);
    const exit = await scan(tenant, { code: ticket.code, direction: 'exit' });
    expect(exit.status, JSON.stringify(exit.body)).toBe(201);
    expect(exit.body.data.direction).toBe('exit');
    const outside = await getTicket(tenant, ticket.id);
    expect(outside.status).toBe('valid');
    expect(outside.checked_in_at).toBeNull();
    expect((await getAttendee(tenant, ticket.attendeeId)).checked_in).toBe(false);

    const reentry = await scan(tenant, { ticket_id: ticket.id, direction: 'entry' });
    expect(reentry.status).toBe(201);
    expect((await getTicket(tenant, ticket.id)).status).toBe('checked_in');
    expect((await getAttendee(tenant, ticket.attendeeId)).checked_in).toBe(true);
    expect(await checkinRows(ticket.id)).toBe(3);
  });

  it('refuses a second entry with 409 naming the time of the first', async () => {
    const tenant = await createTenant();
    const { tickets } = await buildEvent(tenant.organisationId, { tickets: 1 });
    const ticket = tickets[0]!;
    expect((await scan(tenant, { ticket_id: ticket.id })).status).toBe(201);
    const { checked_in_at: checkedInAt } = await getTicket(tenant, ticket.id);
    expect(checkedInAt).toMatch(ISO_UTC);

    const again = await scan(tenant, { code: ticket.code });
    expectError(again, 409, `ticket already checked in at ${checkedInAt}`);
    expect(await checkinRows(ticket.id)).toBe(1);
  });

  it('refuses the exit of a ticket that is not inside with 409', async () => {
    const tenant = await createTenant();
    const { tickets } = await buildEvent(tenant.organisationId, { tickets: 1 });
    const ticket = tickets[0]!;
    const exit = await scan(tenant, { ticket_id: ticket.id, direction: 'exit' });
    expect(exit.status, JSON.stringify(exit.body)).toBe(409);
    expect(typeof exit.body.error).toBe('string');
    expect((await getTicket(tenant, ticket.id)).status).toBe('valid');
    expect(await checkinRows(ticket.id)).toBe(0);
  });

  it('refuses a void ticket with 409, in both directions, by id and by code', async () => {
    const tenant = await createTenant();
    const { order, tickets } = await buildEvent(tenant.organisationId, { tickets: 2 });
    const ticket = tickets[0]!;
    const inside = tickets[1]!;
    expect((await scan(tenant, { ticket_id: inside.id })).status).toBe(201);
    await cancelFixtureOrder(tenant.organisationId, order.id);

    expectError(await scan(tenant, { ticket_id: ticket.id }), 409, 'ticket is void');
    expectError(await scan(tenant, { code: ticket.code }), 409, 'ticket is void');
    expectError(
      await scan(tenant, { code: inside.code, direction: 'exit' }),
      409,
      'ticket is void',
    );
    expect((await getTicket(tenant, ticket.id)).status).toBe('void');
    expect(await checkinRows(ticket.id)).toBe(0);
    expect(await checkinRows(inside.id)).toBe(1);
  });

  it('answers 404 for an unknown ticket, an unknown code and another organisation’s ticket', async () => {
    const tenant = await createTenant();
    const stranger = await createTenant();
    const { tickets } = await buildEvent(stranger.organisationId, { tickets: 1 });
    const theirs = tickets[0]!;

    expectError(
      await scan(tenant, { ticket_id: 'tkt_0000000000000000000000' }),
      404,
      'ticket not found',
    );
    expectError(
      await scan(tenant, { ticket_id: 'evt_0000000000000000000000' }),
      404,
      'ticket not found',
    );
    expectError(
      await scan(tenant, { code: 'NOT-A-REAL-CODE-0000000000' }),
      404,
      'ticket not found',
    );
    expectError(await scan(tenant, { ticket_id: theirs.id }), 404, 'ticket not found');
    expectError(await scan(tenant, { code: theirs.code }), 404, 'ticket not found');
    expect((await getTicket(stranger, theirs.id)).status).toBe('valid');
    expect(await checkinRows(theirs.id)).toBe(0);
  });

  it('refuses a ticket of another event than event_id with 422, changing nothing', async () => {
    const tenant = await createTenant();
    const door = await buildEvent(tenant.organisationId, { tickets: 1 });
    const other = await buildEvent(tenant.organisationId, { tickets: 1 });
    const ticket = other.tickets[0]!;

    expectError(
      await scan(tenant, { ticket_id: ticket.id, event_id: door.event.id }),
      422,
      'ticket is for a different event',
    );
    expectError(
      await scan(tenant, { code: ticket.code, event_id: door.event.id }),
      422,
      'ticket is for a different event',
    );
    expect((await getTicket(tenant, ticket.id)).status).toBe('valid');
    expect((await getAttendee(tenant, ticket.attendeeId)).checked_in).toBe(false);
    expect(await checkinRows(ticket.id)).toBe(0);
    expect((await scan(tenant, { ticket_id: ticket.id, event_id: other.event.id })).status).toBe(
      201,
    );
  });

  it.each([
    ['neither ticket_id nor code', {}],
    ['both ticket_id and code', { ticket_id: 'tkt_0000000000000000000000', code: 'abc' }],
    ['an unknown direction', { code: 'abc', direction: 'sideways' }],
    ['a scanned_at that is not a timestamp', { code: 'abc', scanned_at: 'yesterday' }],
    ['an unknown field', { code: 'abc', door: 3 }],
  ])('answers 400 for %s', async (_name, body) => {
    const tenant = await createTenant();
    const result = await scan(tenant, body);
    expect(result.status, JSON.stringify(result.body)).toBe(400);
    expect(typeof result.body.error).toBe('string');
  });

  it('names the fields in its 400 answers', async () => {
    const tenant = await createTenant();
    expect((await scan(tenant, {})).body.error).toBe(
      'exactly one of ticket_id or code is required',
    );
    expect((await scan(tenant, { code: 'abc', direction: 'sideways' })).body.error).toBe(
      'direction must be one of: entry, exit',
    );
  });

  it('defaults scanned_at to the time of receipt and keeps an explicit one', async () => {
    const tenant = await createTenant();
    const { tickets } = await buildEvent(tenant.organisationId, { tickets: 3 });
    const before = Date.now();
    const now = await scan(tenant, { ticket_id: tickets[0]!.id });
    const after = Date.now();
    expect(now.status).toBe(201);
    const scannedAt = Date.parse(now.body.data.scanned_at);
    expect(now.body.data.scanned_at).toMatch(ISO_UTC);
    expect(scannedAt).toBeGreaterThanOrEqual(before - 1000);
    expect(scannedAt).toBeLessThanOrEqual(after + 1000);
    expect(now.body.data.scanned_at).toBe(now.body.data.created_at);

    const offline = await scan(tenant, {
      ticket_id: tickets[1]!.id,
      scanned_at: '2027-03-01T18:45:12Z',
    });
    expect(offline.status).toBe(201);
    expect(offline.body.data.scanned_at).toBe('2027-03-01T18:45:12.000Z');
    expect(Date.parse(offline.body.data.created_at)).toBeGreaterThanOrEqual(before - 1000);

    const withOffset = await scan(tenant, {
      ticket_id: tickets[2]!.id,
      scanned_at: '2027-03-01T20:45:12.250+01:00',
    });
    expect(withOffset.status).toBe(201);
    expect(withOffset.body.data.scanned_at).toBe('2027-03-01T19:45:12.250Z');
  });

  it('records the API key that scanned', async () => {
    const tenant = await createTenant();
    const door = await createKey(tenant.organisationId, ['checkins:write']);
    const { tickets } = await buildEvent(tenant.organisationId, { tickets: 1 });
    const result = await scan(door, { ticket_id: tickets[0]!.id });
    expect(result.status).toBe(201);
    expect(result.body.data.api_key_id).toBe(door.apiKeyId);
    const orm = await getTestOrm();
    const rows = await orm.em
      .fork()
      .execute<{ api_key_id: string }[]>('select api_key_id from checkins where ticket_id = ?', [
        tickets[0]!.id,
      ]);
    expect(rows).toEqual([{ api_key_id: door.apiKeyId }]);
  });

  it('writes nothing when the check-in row cannot be stored', async () => {
    const tenant = await createTenant();
    const { tickets } = await buildEvent(tenant.organisationId, { tickets: 1 });
    const ticket = tickets[0]!;
    const gate = `refused-${ticket.id}`;
    const release = await failCheckinInsertsAt(gate);
    try {
      const failed = await scan(tenant, { ticket_id: ticket.id, gate });
      expect(failed.status).toBe(500);
      expect(failed.body.error).toBe('Internal server error');
    } finally {
      await release();
    }
    // The ticket and attendee changes of the failed scan were rolled back with it.
    const untouched = await getTicket(tenant, ticket.id);
    expect(untouched.status).toBe('valid');
    expect(untouched.checked_in_at).toBeNull();
    expect((await getAttendee(tenant, ticket.attendeeId)).checked_in).toBe(false);
    expect(await checkinRows(ticket.id)).toBe(0);
    expect((await scan(tenant, { ticket_id: ticket.id, gate })).status).toBe(201);
  });
});

describe('concurrent scans', () => {
  it('admits one of 50 simultaneous entry scans of one ticket', async () => {
    const tenant = await createTenant();
    const { tickets } = await buildEvent(tenant.organisationId, { tickets: 1 });
    const ticket = tickets[0]!;
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        scan(
          tenant,
          i % 2 === 0 ? { ticket_id: ticket.id, gate: `Gate ${i}` } : { code: ticket.code },
          // Half the doors send their own Idempotency-Key, half none: each is a distinct scan.
          i % 4 === 0 ? { 'idempotency-key': `door-${i}-${ticket.id}` } : undefined,
        ),
      ),
    );
    const admitted = results.filter((result) => result.status === 201);
    const refused = results.filter((result) => result.status === 409);
    expect(admitted).toHaveLength(1);
    expect(refused).toHaveLength(49);
    for (const result of refused) {
      expect(result.body.error).toMatch(/^ticket already checked in at \d{4}-\d{2}-\d{2}T/);
    }
    expect(await checkinRows(ticket.id)).toBe(1);
    const after = await getTicket(tenant, ticket.id);
    expect(after.status).toBe('checked_in');
    expect(refused[0]!.body.error).toBe(`ticket already checked in at ${after.checked_in_at}`);
    const list = await call(server, 'GET', `/api/v1/checkins?ticket_id=${ticket.id}`, {
      key: tenant.key,
    });
    expect(list.body.total).toBe(1);
    expect(list.body.data[0].id).toBe(admitted[0]!.body.data.id);
  });

  it('admits every one of many different tickets scanned at once', async () => {
    const tenant = await createTenant();
    const { event, tickets } = await buildEvent(tenant.organisationId, { tickets: 40 });
    const results = await Promise.all(
      tickets.map((ticket, i) =>
        scan(
          tenant,
          i % 2 === 0 ? { ticket_id: ticket.id } : { code: ticket.code, event_id: event.id },
        ),
      ),
    );
    expect(results.map((result) => result.status)).toEqual(tickets.map(() => 201));
    const list = await call(
      server,
      'GET',
      `/api/v1/tickets?event_id=${event.id}&status=checked_in&limit=100`,
      {
        key: tenant.key,
      },
    );
    expect(list.body.total).toBe(40);
    const attendees = await call(
      server,
      'GET',
      `/api/v1/attendees?event_id=${event.id}&checked_in=true`,
      {
        key: tenant.key,
      },
    );
    expect(attendees.body.total).toBe(40);
  });
});

describe('GET /checkins', () => {
  let tenant: TestTenant;
  const ids: Record<string, string> = {};
  let eventA: string;
  let eventB: string;
  let ticketA1: string;
  let sinceSecond: string;

  beforeAll(async () => {
    tenant = await createTenant();
    const a = await buildEvent(tenant.organisationId, { tickets: 2 });
    const b = await buildEvent(tenant.organisationId, { tickets: 1 });
    eventA = a.event.id;
    eventB = b.event.id;
    ticketA1 = a.tickets[0]!.id;
    const steps: [string, Record<string, unknown>][] = [
      ['a1-in', { ticket_id: a.tickets[0]!.id, gate: 'North' }],
      ['a2-in', { ticket_id: a.tickets[1]!.id, gate: 'South' }],
      ['a1-out', { ticket_id: a.tickets[0]!.id, gate: 'North', direction: 'exit' }],
      ['b1-in', { ticket_id: b.tickets[0]!.id, gate: 'North' }],
    ];
    for (const [name, body] of steps) {
      const result = await scan(tenant, body);
      expect(result.status, JSON.stringify(result.body)).toBe(201);
      ids[name] = result.body.data.id;
      if (name === 'a2-in') sinceSecond = result.body.data.created_at;
    }
    // Another organisation's scans never show up.
    const stranger = await createTenant();
    const theirs = await buildEvent(stranger.organisationId, { tickets: 1 });
    expect((await scan(stranger, { ticket_id: theirs.tickets[0]!.id, gate: 'North' })).status).toBe(
      201,
    );
  });

  const list = async (query: string) => {
    const result = await call(server, 'GET', `/api/v1/checkins${query}`, { key: tenant.key });
    expect(result.status, JSON.stringify(result.body)).toBe(200);
    return (result.body.data as { id: string }[]).map((checkin) => checkin.id);
  };

  it('lists the organisation’s check-ins in creation order', async () => {
    expect(await list('')).toEqual([ids['a1-in'], ids['a2-in'], ids['a1-out'], ids['b1-in']]);
  });

  it('filters by event_id, ticket_id, direction and gate', async () => {
    expect(await list(`?event_id=${eventA}`)).toEqual([ids['a1-in'], ids['a2-in'], ids['a1-out']]);
    expect(await list(`?event_id=${eventB}`)).toEqual([ids['b1-in']]);
    expect(await list(`?ticket_id=${ticketA1}`)).toEqual([ids['a1-in'], ids['a1-out']]);
    expect(await list('?direction=exit')).toEqual([ids['a1-out']]);
    expect(await list('?direction=entry')).toEqual([ids['a1-in'], ids['a2-in'], ids['b1-in']]);
    expect(await list('?gate=South')).toEqual([ids['a2-in']]);
    expect(await list(`?gate=North&event_id=${eventA}`)).toEqual([ids['a1-in'], ids['a1-out']]);
  });

  it('filters by since, the server receipt time, inclusively', async () => {
    expect(await list(`?since=${encodeURIComponent(sinceSecond)}`)).toEqual([
      ids['a2-in'],
      ids['a1-out'],
      ids['b1-in'],
    ]);
    expect(await list(`?since=${encodeURIComponent('2099-01-01T00:00:00Z')}`)).toEqual([]);
  });

  it('refuses unknown filter values with 400', async () => {
    const result = await call(server, 'GET', '/api/v1/checkins?direction=sideways', {
      key: tenant.key,
    });
    expect(result.status).toBe(400);
    expect(result.body.error).toMatch(/direction/);
    const since = await call(server, 'GET', '/api/v1/checkins?since=yesterday', {
      key: tenant.key,
    });
    expect(since.status).toBe(400);
    expect(since.body.error).toMatch(/since/);
  });

  it('answers 404 for another organisation’s or an unknown check-in', async () => {
    const stranger = await createTenant();
    const theirs = await call(server, 'GET', `/api/v1/checkins/${ids['a1-in']}`, {
      key: stranger.key,
    });
    expectError(theirs, 404, 'check-in not found');
    const unknown = await call(server, 'GET', '/api/v1/checkins/chk_0000000000000000000000', {
      key: tenant.key,
    });
    expectError(unknown, 404, 'check-in not found');
  });
});
