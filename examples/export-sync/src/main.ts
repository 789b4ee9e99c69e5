import { APIError, Boxoffice, ExportError, type TicketExportFilters } from '@boxoffice/sdk';
import { runCommand, UsageError } from '@boxoffice/example-shared';
import { parseExportSyncArgs, USAGE, type ExportSyncOptions } from './args';
import { TicketStore, type SyncState, type Upserted } from './store';

const PAGE_SIZE = 100;

const say = (line: string) => process.stdout.write(`${line}\n`);
const note = (line: string) => process.stderr.write(`${line}\n`);

const plural = (count: number, word: string) => `${count} ${word}${count === 1 ? '' : 's'}`;

/**
 * The first run: one export of the whole list, its rows streamed into the database, and its
 * `sync_checkpoint` kept: the next run's `updated_since`, so that the changes committed after the
 * export's snapshot come then, and none is lost between the two.
 */
async function copyByExport(
  client: Boxoffice,
  store: TicketStore,
  scope: string,
  filters: TicketExportFilters,
  options: ExportSyncOptions,
): Promise<void> {
  const created = await client.exports.create({ resource: 'tickets', filters });
  say(`Export ${created.id} of ${scopeName(scope)}: ${created.status}, waiting for its file.`);
  const ready = await client.exports.waitUntilReady(created, { timeoutMs: options.waitMs });
  if (ready.sync_checkpoint === null) throw new Error(`The export ${ready.id} has no checkpoint.`);
  const checkpoint = ready.sync_checkpoint;
  const copied = await store.transaction(async () => {
    let count = 0;
    // Typed by the export's resource: each row is a Ticket, parsed as the file arrives.
    for await (const ticket of client.exports.rows(ready)) {
      store.upsert(ticket);
      count += 1;
    }
    store.saveState({ scope, checkpoint, exportId: ready.id });
    return count;
  });
  say(
    `Copied ${plural(copied, 'ticket')} from export ${ready.id} (${ready.row_count ?? 0} rows, ${ready.size_bytes ?? 0} bytes) into ${options.db}.`,
  );
  say(`Sync checkpoint: ${checkpoint}`);
}

/**
 * Every later run: the tickets changed since the checkpoint, from the list (ordered by
 * `updated_at`, following cursors), upserted; and the walk's own checkpoint kept for the next run.
 * Tickets changed in the minute before the checkpoint come again: the upsert keeps one copy.
 */
async function syncChanges(
  client: Boxoffice,
  store: TicketStore,
  state: SyncState,
  filters: TicketExportFilters,
  options: ExportSyncOptions,
): Promise<void> {
  const counts: Record<Upserted, number> = { new: 0, changed: 0, unchanged: 0 };
  const checkpoint = await store.transaction(async () => {
    let next: string | undefined;
    const list = client.tickets.list({
      ...filters,
      updated_since: state.checkpoint,
      limit: PAGE_SIZE,
    });
    for await (const page of list.iterPages()) {
      // The walk's checkpoint is its first page's: when the walk began, less a minute.
      next ??= page.syncCheckpoint;
      for (const ticket of page.data) counts[store.upsert(ticket)] += 1;
    }
    if (next === undefined) throw new Error('The list gave no sync checkpoint.');
    store.saveState({ ...state, checkpoint: next });
    return next;
  });
  say(
    `Synced ${scopeName(state.scope)} changed since ${state.checkpoint}: ${counts.new} new, ${counts.changed} changed, ${counts.unchanged} unchanged; ${plural(store.count(), 'ticket')} in ${options.db}.`,
  );
  say(`Sync checkpoint: ${checkpoint}`);
}

const scopeName = (scope: string) =>
  scope === '*' ? 'the tickets of every event' : `the tickets of ${scope}`;

async function main(options: ExportSyncOptions): Promise<number> {
  // The key and the server come from BOXOFFICE_API_KEY and BOXOFFICE_BASE_URL, which the SDK reads.
  const client = new Boxoffice();
  const store = new TicketStore(options.db);
  try {
    const scope = options.eventId ?? '*';
    const filters: TicketExportFilters = options.eventId ? { event_id: options.eventId } : {};
    const state = store.state();
    if (state && state.scope !== scope) {
      throw new UsageError(
        `${options.db} holds ${scopeName(state.scope)}, not ${scopeName(scope)}: use another --db`,
      );
    }
    if (state) await syncChanges(client, store, state, filters, options);
    else await copyByExport(client, store, scope, filters, options);
    return 0;
  } catch (error) {
    if (error instanceof UsageError) {
      note(error.message);
      return 2;
    }
    if (!(error instanceof APIError || error instanceof ExportError)) throw error;
    const request =
      error instanceof APIError && error.requestId ? ` (request ${error.requestId})` : '';
    note(`Sync failed, ${options.db} left as it was: ${error.message}${request}`);
    return 1;
  } finally {
    store.close();
  }
}

runCommand({ usage: USAGE, parse: parseExportSyncArgs, run: main });
