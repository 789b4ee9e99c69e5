// A small program on the SDK, as a user writes one: `check-type-weight.mjs` measures what
// type-checking it costs.
import { Boxoffice, NotFoundError } from '@boxoffice/sdk';

const client = new Boxoffice({ apiKey: 'bxo_live_example' });

export async function main(): Promise<void> {
  const event = await client.events.get('evt_1');
  console.log(event.name, event.starts_at);
  const page = await client.events.list({ status: 'published', limit: 10 });
  for await (const order of client.orders.list({ event_id: event.id })) console.log(order.total);
  await client.checkins.create({ ticket_id: 'tkt_1' });
  await client.tiers.create({ event_id: event.id, name: 'GA', price: 100, quantity_total: 10 });
  const { data, requestId } = await client.tickets.get('tkt_1').withResponse();
  console.log(page.total, data.status, requestId, NotFoundError);
}
