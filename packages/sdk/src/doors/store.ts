import type { CheckinBatchResult, CheckinDirection } from '../resources/types';

/**
 * One scan the door accepted: the check-in it sends, and the `idempotency_key` that makes sending
 * it again harmless. Made by `scan()`, kept in the store's journal until the server has answered.
 */
export interface DoorScan {
  /** Unique per scan (`<deviceId>:<random id>`); the server answers a repeat with its first answer. */
  idempotency_key: string;
  /** The code scanned. */
  code: string;
  /** The ticket it names (`tkt_…`), as the door knew it. */
  ticket_id: string;
  /** The door's event (`evt_…`). */
  event_id: string;
  /** `entry` or `exit`. */
  direction: CheckinDirection;
  /** The door's gate. */
  gate: string;
  /** The door's device. */
  device_id: string;
  /** When the door scanned it (ISO-8601, UTC), by the client's clock. */
  scanned_at: string;
}

/**
 * A line of the journal: a scan the door accepted, or the server's answer to one (both under the
 * scan's `key`, its `idempotency_key`).
 */
export type DoorJournalEntry =
  | {
      /** The scan's `idempotency_key`. */
      key: string;
      scan: DoorScan;
    }
  | {
      /** The `idempotency_key` of the scan answered. */
      key: string;
      /** What the server made of it. */
      result: CheckinBatchResult;
    };

/**
 * Where a door keeps what it must not lose: the event's tickets as last downloaded (one JSON value
 * under a key) and the journal of its scans. Implement it over whatever the device has (a
 * directory, IndexedDB, SQLite, …); `memoryStore()` keeps everything in memory.
 *
 * Why two shapes: the snapshot is large and changes in bulk (after a download or a refresh), so it
 * is replaced whole, now and then; a scan is small and must be durable before the door answers, so
 * it is appended, one at a time. An append-only file, an IndexedDB object store with an
 * auto-increment key or a SQLite table each do that cheaply. The server's answers are appended to
 * the same journal rather than rewriting the snapshot after every batch; once a snapshot that holds
 * their effect is saved, the door drops the answered scans with `drop`.
 *
 * What the door needs of an implementation:
 * - Values are plain JSON (objects, arrays, strings, numbers, booleans, `null`): store them as
 *   `JSON.stringify` writes them. `get` gives back what the last completed `set` stored, and a
 *   `set` interrupted by a crash leaves the old value or the new one, never a mix (write a
 *   temporary file and rename it over the old one; one transaction).
 * - `append` resolves only once its entries would survive the process being killed, and keeps
 *   them in the order given. A scan waits for it, so make it quick: written to the file is enough
 *   for a killed process; flush to the medium soon after, for many appends at once (a flush per
 *   scan costs milliseconds on ordinary disks), so that a power cut loses only the last moments.
 * - `journal` lists the entries in the order they were appended, without those dropped.
 * - Calls may overlap (a scan appends while a snapshot is saved): serialise them if the medium
 *   needs it.
 *
 * The snapshot holds the tickets' codes, which admit people: keep the store where the device keeps
 * secrets.
 */
export interface DoorStore {
  /** The value last `set` under `key`, or `undefined` if there is none. */
  get(key: string): Promise<unknown>;
  /** Replaces the value under `key` with `value` (plain JSON), all or nothing. */
  set(key: string, value: unknown): Promise<void>;
  /** Adds `entries` at the end of the journal, in order; resolves once a killed process would keep them. */
  append(entries: readonly DoorJournalEntry[]): Promise<void>;
  /** Every entry of the journal, in the order appended, except those dropped. */
  journal(): Promise<DoorJournalEntry[]>;
  /** Removes every entry of the journal whose `key` is one of `keys` (the scans and their answers). */
  drop(keys: readonly string[]): Promise<void>;
}

/**
 * A `DoorStore` in memory: the default, for a door that may lose its scans when its process ends.
 * Values and entries are kept as JSON text, as a real store would keep them, so nothing the door
 * changes afterwards alters what was stored. Give the same store to a second `openDoor` to see
 * what a restart would restore.
 *
 * @example
 * ```ts
 * const store = memoryStore();
 * const door = openDoor(client, { eventId: 'evt_…', gate: 'North', deviceId: 'north-1', store });
 * ```
 */
export function memoryStore(): DoorStore {
  const values = new Map<string, string>();
  let lines: { key: string; json: string }[] = [];
  return {
    get(key) {
      const json = values.get(key);
      return Promise.resolve(json === undefined ? undefined : (JSON.parse(json) as unknown));
    },
    set(key, value) {
      values.set(key, JSON.stringify(value));
      return Promise.resolve();
    },
    append(entries) {
      for (const entry of entries) lines.push({ key: entry.key, json: JSON.stringify(entry) });
      return Promise.resolve();
    },
    journal() {
      return Promise.resolve(lines.map((line) => JSON.parse(line.json) as DoorJournalEntry));
    },
    drop(keys) {
      const gone = new Set(keys);
      lines = lines.filter((line) => !gone.has(line.key));
      return Promise.resolve();
    },
  };
}
