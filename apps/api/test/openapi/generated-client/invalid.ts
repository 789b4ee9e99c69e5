// Calls the server refuses, through the same generated client: each must fail to type-check
// (`@ts-expect-error` is itself an error when the line below it compiles). One call per line, so
// each directive stands for exactly one call: prettier leaves this file alone. (A check-in with both
// `ticket_id` and `code` is not here: the document's variants refuse it by `additionalProperties:
// false`, which a TypeScript union cannot say; the server's 400 for it is tested with check-ins.)
import createClient from 'openapi-fetch';
import type { paths } from './schema.generated';

const client = createClient<paths>({ baseUrl: 'http://127.0.0.1:3000/api/v1' });
const id = { params: { path: { id: 'evt_0VbgAUa3kT9mQ2xLr8Zp1WcE' } } };
const times = { timezone: 'UTC', starts_at: '2027-01-01T00:00:00Z', ends_at: '2027-01-01T01:00:00Z' } as const;

export async function refusedCalls(): Promise<void> {
  // @ts-expect-error no body
  await client.POST('/events', {});
  // @ts-expect-error a required field missing (currency)
  await client.POST('/events', { body: { name: 'x', ...times } });
  // @ts-expect-error a status a new event cannot have
  await client.POST('/events', { body: { name: 'x', ...times, currency: 'GBP', status: 'completed' } });
  // @ts-expect-error a capacity as text
  await client.PATCH('/events/{id}', { ...id, body: { capacity: 'lots' } });
  // @ts-expect-error a status an event cannot have
  await client.PATCH('/events/{id}', { ...id, body: { status: 'archived' } });
  // @ts-expect-error a status filter value that does not exist
  await client.GET('/events', { params: { query: { status: ['archived'] } } });
  // @ts-expect-error a direction filter value that does not exist
  await client.GET('/checkins', { params: { query: { direction: ['sideways'] } } });
  // @ts-expect-error neither ticket_id nor code
  await client.POST('/checkins', { body: { gate: 'North' } });
  // @ts-expect-error a direction that does not exist
  await client.POST('/checkins', { body: { ticket_id: 'tkt_0VbgAUa3kT9mQ2xLr8Zp1WcE', direction: 'in' } });
  // @ts-expect-error a batch scan without ticket_id or code
  await client.POST('/checkins/batch', { body: { checkins: [{ gate: 'North', idempotency_key: 'north-1:1' }] } });
  // @ts-expect-error a batch of check-ins sent as a bare array
  await client.POST('/checkins/batch', { body: [{ code: 'QR-7F3K-92XD' }] });
  // @ts-expect-error a price as text
  await client.PATCH('/tiers/{id}', { ...id, body: { price: '25.00' } });
  // @ts-expect-error an id path without the id
  await client.GET('/events/{id}', {});
  // @ts-expect-error an operation that does not exist
  await client.DELETE('/events/{id}', id);
  // @ts-expect-error a webhook subscription to an event type that does not exist
  await client.POST('/webhook_endpoints', { body: { url: 'https://example.com/h', events: ['event.deleted'] } });
  // @ts-expect-error limit as a word
  await client.GET('/tickets', { params: { query: { limit: 'fifty' } } });
  // @ts-expect-error a test order without its quantity
  await client.POST('/test_helpers/orders', { body: { event_id: 'evt_0VbgAUa3kT9mQ2xLr8Zp1WcE', tier_id: 'tier_0VbgAUa3kT9mQ2xLr8Zp1WcE' } });
  // @ts-expect-error fail as a word
  await client.POST('/test_helpers/payouts/{id}/advance', { ...id, body: { fail: 'yes' } });
}
