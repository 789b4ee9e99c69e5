import { describe, expect, it } from 'vitest';
import { buildEvent } from './fixtures';
import { call, createTenant, useTestServer } from './setup';

const server = useTestServer();

describe('smoke', () => {
  it('creates and reads an event', async () => {
    const tenant = await createTenant();
    const created = await call(server, 'POST', '/api/v1/events', {
      key: tenant.key,
      body: {
        name: 'Launch party',
        timezone: 'Europe/Berlin',
        starts_at: '2027-01-01T19:00:00Z',
        ends_at: '2027-01-01T23:00:00+01:00',
        currency: 'EUR',
      },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const list = await call(server, 'GET', '/api/v1/events', { key: tenant.key });
    expect(list.status).toBe(200);
    expect(list.body.total).toBe(1);
  });
});

describe('fixtures', () => {
  it('builds an event with tickets and checks one in', async () => {
    const tenant = await createTenant();
    const { tickets, event } = await buildEvent(tenant.organisationId, { tickets: 2 });
    expect(tickets).toHaveLength(2);
    const scan = await call(server, 'POST', '/api/v1/checkins', {
      key: tenant.key,
      body: { code: tickets[0]!.code, event_id: event.id },
    });
    expect(scan.status, JSON.stringify(scan.body)).toBe(201);
    const again = await call(server, 'POST', '/api/v1/checkins', {
      key: tenant.key,
      body: { code: tickets[0]!.code },
    });
    expect(again.status).toBe(409);
    const attendees = await call(server, 'GET', '/api/v1/attendees?checked_in=true', {
      key: tenant.key,
    });
    expect(attendees.body.total).toBe(1);
  });
});
