import { describe, expect, it } from 'vitest';
import {
  addOrder,
  buildEvent,
  buildPayout,
  cancelFixtureOrder,
  changesOf,
  eventInput,
  failCheckinInsertsAt,
  lastPosition,
} from '../../../test/fixtures';
import { call, createTenant, getTestOrm, useTestServer } from '../../../test/setup';
import { CHANGE_RETENTION_DAYS, purgeChanges, recordChanges } from './change.service';

const server = useTestServer();

const eventBody = eventInput('Recorded launch');

describe('change records', () => {
  it('record each API write with the object exactly as the API renders it', async () => {
    const tenant = await createTenant();
    const created = await call(server, 'POST', '/api/v1/events', {
      key: tenant.key,
      body: eventBody,
    });
    expect(created.status).toBe(201);
    const eventId = created.body.data.id as string;
    const updated = await call(server, 'PATCH', `/api/v1/events/${eventId}`, {
      key: tenant.key,
      body: { status: 'published' },
    });
    const tier = await call(server, 'POST', '/api/v1/tiers', {
      key: tenant.key,
      body: { event_id: eventId, name: 'Standing', price: 1500 },
    });
    const tierUpdate = await call(server, 'PATCH', `/api/v1/tiers/${tier.body.data.id}`, {
      key: tenant.key,
      body: { price: 1800 },
    });

    const changes = await changesOf(tenant.organisationId);
    expect(changes.map((c) => [c.type, c.object_id])).toEqual([
      ['event.created', eventId],
      ['event.updated', eventId],
      ['tier.created', tier.body.data.id],
      ['tier.updated', tier.body.data.id],
    ]);
    expect(changes.map((c) => c.data)).toEqual([
      created.body.data,
      updated.body.data,
      tier.body.data,
      tierUpdate.body.data,
    ]);
  });

  it('record a check-in with its ticket and attendee as they are after it', async () => {
    const tenant = await createTenant();
    const { tickets } = await buildEvent(tenant.organisationId, { tickets: 1 });
    const ticketId = tickets[0]!.id;
    const before = await lastPosition(tenant.organisationId);

    const scan = await call(server, 'POST', '/api/v1/checkins', {
      key: tenant.key,
      body: { ticket_id: ticketId, gate: 'North' },
    });
    expect(scan.status).toBe(201);
    const ticket = await call(server, 'GET', `/api/v1/tickets/${ticketId}`, { key: tenant.key });
    const attendee = await call(
      server,
      'GET',
      `/api/v1/attendees/${ticket.body.data.attendee_id}`,
      {
        key: tenant.key,
      },
    );

    const changes = await changesOf(tenant.organisationId, before);
    expect(changes.map((c) => c.type)).toEqual([
      'ticket.updated',
      'attendee.updated',
      'checkin.created',
    ]);
    expect(changes[0]!.data).toEqual(ticket.body.data);
    expect(changes[1]!.data).toEqual(attendee.body.data);
    expect(changes[2]!.data).toEqual(scan.body.data);

    // The exit changes the ticket and the attendee again, and records them again.
    const exit = await call(server, 'POST', '/api/v1/checkins', {
      key: tenant.key,
      body: { ticket_id: ticketId, direction: 'exit' },
    });
    expect(exit.status).toBe(201);
    const afterExit = await changesOf(tenant.organisationId, changes.at(-1)!.position);
    expect(afterExit.map((c) => c.type)).toEqual([
      'ticket.updated',
      'attendee.updated',
      'checkin.created',
    ]);
    expect(afterExit[0]!.data).toMatchObject({ status: 'valid', checked_in_at: null });
    expect(afterExit[1]!.data).toMatchObject({ checked_in: false });
  });

  it('record nothing for a write that fails: the change and its record commit together', async () => {
    const tenant = await createTenant();
    const { tickets } = await buildEvent(tenant.organisationId, { tickets: 1 });
    const before = await lastPosition(tenant.organisationId);
    const release = await failCheckinInsertsAt('Broken gate');
    try {
      const scan = await call(server, 'POST', '/api/v1/checkins', {
        key: tenant.key,
        body: { ticket_id: tickets[0]!.id, gate: 'Broken gate' },
      });
      expect(scan.status).toBe(500);
    } finally {
      await release();
    }
    expect(await changesOf(tenant.organisationId, before)).toEqual([]);
    const refused = await call(server, 'POST', '/api/v1/checkins', {
      key: tenant.key,
      body: { ticket_id: 'tkt_0000000000000000000000' },
    });
    expect(refused.status).toBe(404);
    expect(await changesOf(tenant.organisationId, before)).toEqual([]);
  });

  it('record orders placed and cancelled with their tickets, attendees and tiers', async () => {
    const tenant = await createTenant();
    const { tier } = await buildEvent(tenant.organisationId, { tickets: 1 });
    const before = await lastPosition(tenant.organisationId);
    const { order, tickets } = await addOrder(tenant.organisationId, tier, { tickets: 2 });

    const placed = await changesOf(tenant.organisationId, before);
    expect(placed.map((c) => c.type)).toEqual([
      'order.created',
      'ticket.created',
      'attendee.created',
      'ticket.created',
      'attendee.created',
      'tier.updated',
    ]);
    expect(placed[0]!.data).toMatchObject({ id: order.id, status: 'completed', ticket_count: 2 });
    // The tier is recorded once, with both seats counted.
    expect(placed.at(-1)!.data).toMatchObject({ id: tier.id, quantity_sold: 3 });

    await cancelFixtureOrder(tenant.organisationId, order.id, true);
    const cancelled = await changesOf(tenant.organisationId, placed.at(-1)!.position);
    expect(cancelled.map((c) => c.type)).toEqual([
      'order.updated',
      'ticket.updated',
      'ticket.updated',
      'tier.updated',
    ]);
    expect(cancelled[0]!.data).toMatchObject({ status: 'refunded' });
    expect(
      cancelled
        .slice(1, 3)
        .map((c) => c.object_id)
        .sort(),
    ).toEqual(tickets.map((t) => t.id).sort());
    expect(cancelled[1]!.data).toMatchObject({ status: 'void' });
    expect(cancelled[3]!.data).toMatchObject({ quantity_sold: 1 });
  });

  it('record payouts', async () => {
    const tenant = await createTenant();
    const payout = await buildPayout(tenant.organisationId);
    const changes = await changesOf(tenant.organisationId);
    expect(changes.map((c) => [c.type, c.object_id])).toEqual([['payout.created', payout.id]]);
    const api = await call(server, 'GET', `/api/v1/payouts/${payout.id}`, { key: tenant.key });
    expect(changes[0]!.data).toEqual(api.body.data);
  });

  it('are purged once past their retention', async () => {
    const tenant = await createTenant();
    await buildPayout(tenant.organisationId);
    await buildPayout(tenant.organisationId);
    const orm = await getTestOrm();
    const [old] = await changesOf(tenant.organisationId);
    await orm.em
      .fork()
      .execute(
        `update change_records set created_at = now() - make_interval(days => ?) where position = ?`,
        [CHANGE_RETENTION_DAYS + 1, old!.position],
      );
    expect(await purgeChanges(orm.em.fork())).toBeGreaterThanOrEqual(1);
    const left = await changesOf(tenant.organisationId);
    expect(left.map((c) => c.position)).not.toContain(old!.position);
    expect(left).toHaveLength(1);
  });

  it('are refused outside a transaction', async () => {
    const orm = await getTestOrm();
    await expect(
      recordChanges({ em: orm.em.fork(), organisationId: 'org_x', livemode: true }, [
        { type: 'event.updated', object: { id: 'evt_x' } },
      ]),
    ).rejects.toThrow('in the transaction of their change');
  });
});
