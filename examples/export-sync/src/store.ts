import { DatabaseSync, type StatementSync } from 'node:sqlite';
import type { Ticket } from '@boxoffice/sdk';

/** What the last run left for the next: which tickets are copied, and where their sync goes on. */
export interface SyncState {
  /** The event whose tickets are copied, or `*` for every event's. */
  scope: string;
  /** The `updated_since` of the next run: the last export's or walk's `sync_checkpoint`. */
  checkpoint: string;
  /** The export the copy began with. */
  exportId: string;
}

/** How one ticket's upsert went: new here, a newer version of one here, or the same again. */
export type Upserted = 'new' | 'changed' | 'unchanged';

const SCHEMA = `
  create table if not exists tickets (
    id text primary key,
    event_id text not null,
    order_id text not null,
    tier_id text not null,
    attendee_id text not null,
    code text not null,
    status text not null,
    price integer not null,
    currency text not null,
    checked_in_at text,
    voided_at text,
    created_at text not null,
    updated_at text not null,
    livemode integer not null
  );
  create table if not exists sync_state (
    id integer primary key check (id = 1),
    scope text not null,
    checkpoint text not null,
    export_id text not null
  );
`;

const COLUMNS = [
  'id',
  'event_id',
  'order_id',
  'tier_id',
  'attendee_id',
  'code',
  'status',
  'price',
  'currency',
  'checked_in_at',
  'voided_at',
  'created_at',
  'updated_at',
  'livemode',
] as const;

/** The local copy: one row per ticket, and the state of the sync, in one SQLite file. */
export class TicketStore {
  private readonly db: DatabaseSync;
  private readonly findUpdatedAt: StatementSync;
  private readonly write: StatementSync;

  constructor(file: string) {
    this.db = new DatabaseSync(file);
    this.db.exec(SCHEMA);
    this.findUpdatedAt = this.db.prepare('select updated_at from tickets where id = ?');
    // A version older than the one here (a page read before a later one) never replaces it.
    this.write = this.db.prepare(
      `insert into tickets (${COLUMNS.join(', ')}) values (${COLUMNS.map((c) => `:${c}`).join(', ')})
       on conflict (id) do update set ${COLUMNS.filter((c) => c !== 'id')
         .map((c) => `${c} = excluded.${c}`)
         .join(', ')}
       where excluded.updated_at >= tickets.updated_at`,
    );
  }

  state(): SyncState | undefined {
    const row = this.db
      .prepare('select scope, checkpoint, export_id as exportId from sync_state')
      .get() as SyncState | undefined;
    return row && { scope: row.scope, checkpoint: row.checkpoint, exportId: row.exportId };
  }

  /**
   * Runs `work` in one transaction: its tickets and its new state are kept together, or neither
   * (a run that fails leaves the copy as the run before left it, and the next run does it again).
   */
  async transaction<T>(work: () => Promise<T>): Promise<T> {
    this.db.exec('begin');
    try {
      const result = await work();
      this.db.exec('commit');
      return result;
    } catch (error) {
      this.db.exec('rollback');
      throw error;
    }
  }

  upsert(ticket: Ticket): Upserted {
    const here = this.findUpdatedAt.get(ticket.id) as { updated_at: string } | undefined;
    this.write.run({
      ...Object.fromEntries(COLUMNS.map((column) => [column, ticket[column]])),
      livemode: ticket.livemode ? 1 : 0,
    });
    if (here === undefined) return 'new';
    return ticket.updated_at > here.updated_at ? 'changed' : 'unchanged';
  }

  saveState(state: SyncState): void {
    this.db
      .prepare(
        `insert into sync_state (id, scope, checkpoint, export_id) values (1, ?, ?, ?)
         on conflict (id) do update set scope = excluded.scope, checkpoint = excluded.checkpoint,
           export_id = excluded.export_id`,
      )
      .run(state.scope, state.checkpoint, state.exportId);
  }

  count(): number {
    return (this.db.prepare('select count(*) as n from tickets').get() as { n: number }).n;
  }

  close(): void {
    this.db.close();
  }
}
