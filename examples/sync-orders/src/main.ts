import { APIError, Boxoffice, type Order } from '@boxoffice/sdk';
import { runCommand } from '@boxoffice/example-shared';
import { parseSyncArgs, USAGE, type SyncOptions } from './args';
import { csvRow, type CsvValue } from './csv';
import { toMajorUnits } from './money';
import { openFileSink, stdoutSink, type Sink } from './output';
import { Progress } from './progress';

const PAGE_SIZE = 100;

const note = (line: string) => process.stderr.write(`${line}\n`);

const COLUMNS = [
  'order_id',
  'reference',
  'event_id',
  'event_name',
  'status',
  'buyer_name',
  'buyer_email',
  'ticket_count',
  'currency',
  'subtotal',
  'fees',
  'total',
  'refunded_amount',
  'subtotal_minor',
  'fees_minor',
  'total_minor',
  'refunded_amount_minor',
  'placed_at',
  'paid_at',
  'cancelled_at',
  'created_at',
  'updated_at',
] as const;

function orderRow(order: Order, eventNames: ReadonlyMap<string, string>): CsvValue[] {
  const money = (minor: number) => toMajorUnits(minor, order.currency);
  return [
    order.id,
    order.reference,
    order.event_id,
    eventNames.get(order.event_id) ?? '',
    order.status,
    order.buyer_name,
    order.buyer_email,
    order.ticket_count,
    order.currency,
    money(order.subtotal),
    money(order.fees),
    money(order.total),
    money(order.refunded_amount),
    order.subtotal,
    order.fees,
    order.total,
    order.refunded_amount,
    order.placed_at,
    order.paid_at,
    order.cancelled_at,
    order.created_at,
    order.updated_at,
  ];
}

/** Event names for the `event_name` column: one read for one event, one per 100 for all. */
async function loadEventNames(client: Boxoffice, eventId: string | undefined) {
  const names = new Map<string, string>();
  if (eventId) {
    const event = await client.events.get(eventId);
    names.set(event.id, event.name);
  } else {
    for await (const event of client.events.list({ limit: PAGE_SIZE })) {
      names.set(event.id, event.name);
    }
  }
  return names;
}

async function sync(client: Boxoffice, options: SyncOptions, sink: Sink): Promise<void> {
  const eventNames = await loadEventNames(client, options.eventId);
  const orders = client.orders.list({
    ...(options.eventId && { event_id: options.eventId }),
    ...(options.since && { updated_since: options.since }),
    limit: PAGE_SIZE,
  });
  // Awaiting the list gives its first page, whose `total` sizes the progress bar; the loop below
  // starts from that same page and fetches the others as it reaches them.
  const first = await orders;
  const progress = new Progress(process.stderr, first.total, {
    label: 'orders',
    step: PAGE_SIZE,
    enabled: options.progress,
  });

  await sink.write(csvRow(COLUMNS));
  const seen = new Set<string>();
  for await (const order of orders) {
    // The list follows cursors, so no order is skipped when others change meanwhile; one changed
    // during the run comes again later in it (its newer version), and is written once.
    if (seen.has(order.id)) continue;
    seen.add(order.id);
    await sink.write(csvRow(orderRow(order, eventNames)));
    progress.tick();
  }
  progress.finish();
  await sink.commit();

  note(
    `Exported ${seen.size} ${seen.size === 1 ? 'order' : 'orders'} to ${options.out ?? 'stdout'}.`,
  );
  // The walk's checkpoint: a minute before it began, so that an order whose change committed
  // late still comes next time. Orders of that minute come again: import by order_id (upsert).
  note(`Next incremental sync: --since ${first.syncCheckpoint}`);
}

async function main(options: SyncOptions): Promise<number> {
  // The key and the server come from BOXOFFICE_API_KEY and BOXOFFICE_BASE_URL, which the SDK reads.
  const client = new Boxoffice();
  const sink = options.out ? await openFileSink(options.out) : stdoutSink();
  try {
    await sync(client, options, sink);
    return 0;
  } catch (error) {
    await sink.abort();
    if (!(error instanceof APIError)) throw error;
    const request = error.requestId ? ` (request ${error.requestId})` : '';
    const result = options.out
      ? `${options.out} left unchanged`
      : 'the CSV on stdout is incomplete';
    note(`\nSync failed (${result}): ${error.message}${request}`);
    return 1;
  }
}

// A reader that stops early (`| head`) is not an error.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(0);
  throw error;
});

runCommand({ usage: USAGE, parse: parseSyncArgs, run: main });
