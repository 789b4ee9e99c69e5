// Every operation of the served document, called through a client generated from it alone
// (openapi-typescript + openapi-fetch): this program must type-check.
import createClient from 'openapi-fetch';
import type { components, paths } from './schema.generated';

const client = createClient<paths>({
  baseUrl: 'http://127.0.0.1:3000/api/v1',
  headers: { Authorization: 'Bearer bxo_live_example' },
});
const id = { params: { path: { id: 'evt_0VbgAUa3kT9mQ2xLr8Zp1WcE' } } };
const idempotent = { 'Idempotency-Key': '5f0c7a52-9d6e-4e7b-8a43-1f2b3c4d5e6f' };

export async function everyOperation(): Promise<void> {
  const events = await client.GET('/events', {
    params: {
      query: { status: ['draft', 'published'], limit: 50, updated_since: '2026-01-01T00:00:00Z' },
    },
  });
  const event: components['schemas']['Event'] | undefined = events.data?.data[0];
  const cursor: string | null | undefined = events.data?.next_cursor;
  if (events.error) console.log(events.error.code);
  await client.GET('/events', { params: { query: { cursor: cursor ?? undefined, limit: 50 } } });
  await client.GET('/events/{id}', id);
  await client.POST('/events', {
    params: { header: idempotent },
    body: {
      name: 'Harbour Lights',
      timezone: 'Europe/London',
      starts_at: '2027-06-01T19:00:00+01:00',
      ends_at: '2027-06-01T23:00:00+01:00',
      currency: 'GBP',
      capacity: 800,
    },
  });
  await client.PATCH('/events/{id}', { ...id, body: { status: 'published', venue: null } });
  await client.GET('/tiers', { params: { query: { event_id: event?.id, status: ['on_sale'] } } });
  await client.GET('/tiers/{id}', id);
  await client.POST('/tiers', {
    body: {
      event_id: 'evt_0VbgAUa3kT9mQ2xLr8Zp1WcE',
      name: 'Standing',
      price: 2500,
      quantity_total: 500,
    },
  });
  await client.PATCH('/tiers/{id}', { ...id, body: { status: 'paused' } });
  await client.GET('/orders', { params: { query: { status: ['completed'] } } });
  await client.GET('/orders/{id}', id);
  await client.GET('/tickets', { params: { query: { event_id: 'evt_0VbgAUa3kT9mQ2xLr8Zp1WcE' } } });
  await client.GET('/tickets/{id}', id);
  await client.GET('/attendees', { params: { query: { checked_in: true } } });
  await client.GET('/attendees/{id}', id);
  await client.GET('/checkins', {
    params: { query: { direction: ['entry'], since: '2027-06-01T18:00:00Z' } },
  });
  await client.GET('/checkins/{id}', id);
  const byTicket = await client.POST('/checkins', {
    params: { header: idempotent },
    body: { ticket_id: 'tkt_0VbgAUa3kT9mQ2xLr8Zp1WcE', gate: 'North' },
  });
  if (byTicket.error?.code === 'already_checked_in') console.log('inside already');
  await client.POST('/checkins', { body: { code: 'QR-7F3K-92XD', direction: 'exit' } });
  const scans = await client.POST('/checkins/batch', {
    params: { header: idempotent },
    body: {
      checkins: [
        { code: 'QR-7F3K-92XD', gate: 'North', idempotency_key: 'north-1:1' },
        { ticket_id: 'tkt_0VbgAUa3kT9mQ2xLr8Zp1WcE', direction: 'exit' },
      ],
    },
  });
  for (const result of scans.data?.data ?? []) {
    if (result.code === 'already_checked_in') console.log(result.admission?.gate);
  }
  await client.GET('/payouts', { params: { query: { status: ['paid'] } } });
  await client.GET('/payouts/{id}', id);
  await client.GET('/webhook_endpoints', { params: { query: { limit: 20 } } });
  await client.GET('/webhook_endpoints/{id}', id);
  const endpoint = await client.POST('/webhook_endpoints', {
    body: { url: 'https://example.com/hooks', events: ['checkin.created'] },
  });
  const secret: string | undefined = endpoint.data?.data.secret;
  console.log(secret);
  await client.PATCH('/webhook_endpoints/{id}', { ...id, body: { status: 'disabled' } });
  await client.DELETE('/webhook_endpoints/{id}', id);
  const order = await client.POST('/test_helpers/orders', {
    body: {
      event_id: 'evt_0VbgAUa3kT9mQ2xLr8Zp1WcE',
      tier_id: 'tier_0VbgAUa3kT9mQ2xLr8Zp1WcE',
      quantity: 2,
    },
  });
  const codes: string[] | undefined = order.data?.data.tickets.map((ticket) => ticket.code);
  console.log(codes);
  if (order.error?.code === 'test_mode_only') console.log('a live key');
  await client.POST('/test_helpers/orders/{id}/refund', id);
  await client.POST('/test_helpers/payouts/{id}/advance', id);
  await client.POST('/test_helpers/payouts/{id}/advance', { ...id, body: { fail: true } });
  const reset = await client.POST('/test_helpers/reset', {});
  console.log(reset.data?.data.events);
  const made = await client.POST('/exports', {
    body: { resource: 'tickets', filters: { status: ['valid'] }, format: 'csv' },
    params: { header: idempotent },
  });
  const status: string | undefined = made.data?.data.status;
  console.log(status);
  await client.GET('/exports', { params: { query: { status: ['ready'] } } });
  await client.GET('/exports/{id}', id);
  await client.GET('/exports/{id}/file', { ...id, parseAs: 'text' });
}
