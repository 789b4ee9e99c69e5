import type { Boxoffice } from '../client';
import type { Clock } from '../core/clock';
import type { PagePromise } from '../core/pagination';
import type { Engine } from '../internal/engine';
import type { LeveledLogger } from '../internal/log';
import type { CheckinBatchItem } from '../resources/checkins';
import type { CheckinBatchResult, CheckinDirection } from '../resources/types';
import { Emitter, type Listener } from './emitter';
import { DoorState, type DoorAdmission, type DoorAttendee, type DoorTicket } from './state';
import { memoryStore, type DoorScan, type DoorStore } from './store';

/** The most scans one `POST /checkins/batch` carries. */
export const MAX_DOOR_BATCH = 100;

/** Where the door keeps its snapshot in the store. */
const SNAPSHOT_KEY = 'snapshot';
/** Answers kept in the journal before the snapshot is saved early, so that they can be dropped. */
const COMPACT_AFTER = 1_000;
/** Items per page of the download and refresh walks: the API's most. */
const PAGE_LIMIT = 100;
/** The longest delay a timer takes (about 24.8 days). */
const MAX_TIMER_MS = 2_147_483_647;
const CLOSED = 'This door is closed: open another with openDoor().';

/** The options of `openDoor`. */
export interface DoorOptions {
  /** The event at this door (`evt_…`): the tickets downloaded, and the `event_id` of each scan. */
  eventId: string;
  /** The gate, 1–100 characters (trimmed), recorded on each check-in. */
  gate: string;
  /**
   * This scanner, 1–100 characters (trimmed), recorded on each check-in and the start of each
   * scan's idempotency key: give each device its own.
   */
  deviceId: string;
  /** Where the snapshot and the scans are kept; `memoryStore()` when not given. */
  store?: DoorStore | undefined;
  /**
   * The least time between two batches sent in the background, in ms. Default 6 000: a key's 10
   * writes a minute. A full batch (100 scans) goes sooner if the key's write window has room.
   */
  flushIntervalMs?: number | undefined;
  /** How often to fetch what changed (other doors' admissions, tickets sold or voided), in ms; `0`: only on `refresh()`. Default 30 000. */
  refreshIntervalMs?: number | undefined;
  /** The longest wait between two attempts after failures, in ms. Default 60 000. */
  maxBackoffMs?: number | undefined;
}

/** What a scan came to, for the person at the door. */
export type ScanResult =
  /** Entry of a valid ticket: let them in (the check-in is queued). */
  | 'admitted'
  /** Exit of a ticket inside: recorded as leaving (queued). */
  | 'exited'
  /** Entry of a ticket inside already: see `admission` for when and where. */
  | 'already_in'
  /** Exit of a ticket that is not inside. */
  | 'not_inside'
  /** The ticket is void (its order was cancelled or refunded). */
  | 'void'
  /** A ticket the server said is for another event. */
  | 'wrong_event'
  /** No ticket of this event has this code, as far as the door knows. */
  | 'unknown';

/** The answer of `scan()`. */
export interface ScanOutcome {
  result: ScanResult;
  /** The code scanned. */
  code: string;
  direction: CheckinDirection;
  /** The ticket as the door now sees it, when it knows it. */
  ticket?: DoorTicket | undefined;
  /** Its attendee, when known. */
  attendee?: DoorAttendee | undefined;
  /** With `already_in`: the admission, as far as the door knows it (when, gate, device). */
  admission?: DoorAdmission | undefined;
  /** With `admitted` and `exited`: the check-in queued for the server. */
  scan?: DoorScan | undefined;
}

/** The options of `scan()`. */
export interface ScanOptions {
  /** `entry` (the default) or `exit`. */
  direction?: CheckinDirection | undefined;
}

/** The server refused a scan the door had accepted; the door's state is corrected already. */
export interface DoorConflict {
  /** The scan, as queued. */
  scan: DoorScan;
  /**
   * The server's answer: `409` with `code` `already_checked_in` (and the `admission` that got there
   * first: another door, while this one was offline), `ticket_void` or `not_checked_in`; `404` (no
   * such ticket); `422` `wrong_event`.
   */
  result: CheckinBatchResult;
  /** The ticket as the door now sees it (undefined once the server said there is no such ticket). */
  ticket: DoorTicket | undefined;
  attendee: DoorAttendee | undefined;
}

/** What a batch, or a `flush()`, sent. */
export interface DoorFlush {
  /** Scans the server answered (recorded, replayed or refused). */
  acknowledged: number;
  /** Of those, the ones it refused (each also a `conflict` event). */
  conflicts: number;
  /** Scans still queued. */
  pending: number;
}

/** What a refresh brought: items changed since the last one (some may come twice). */
export interface DoorRefresh {
  tickets: number;
  attendees: number;
  checkins: number;
}

/** What `load()` did. */
export interface DoorLoad {
  /** `true`: every ticket was downloaded; `false`: the state came from the store. */
  downloaded: boolean;
  /** Whether the state is now as fresh as the server's (false: restored, but the server was out of reach). */
  refreshed: boolean;
  /** Tickets the door knows. */
  tickets: number;
  /** Scans queued now (not yet answered by the server). */
  pending: number;
  /**
   * Scans of an earlier session that the store held unanswered (after a restart): they are sent
   * again, with their own idempotency keys.
   */
  resending: number;
}

/** A failure the door met in the background (or in the call that returned it too). */
export interface DoorErrorEvent {
  error: unknown;
  /** What failed: sending scans, fetching changes, or saving to the store. */
  during: 'flush' | 'refresh' | 'store';
  /**
   * `true`: a failure no retry mends (401 bad key, 402 plan, 403 scope, a refused batch): that
   * activity stops, its scans stay queued, until `flush()` (or `refresh()`) is called again.
   * `false`: the door tries again after a pause.
   */
  fatal: boolean;
}

/** The door lost the server: requests fail without an answer. */
export interface DoorOfflineEvent {
  error: unknown;
}

/** The events of a door and what each listener receives. */
export interface DoorEvents {
  /** The server refused a scan the door had accepted. */
  conflict: DoorConflict;
  /** A batch was answered. */
  flushed: DoorFlush;
  /** A refresh finished. */
  refreshed: DoorRefresh;
  /** Something failed: see `fatal`. */
  error: DoorErrorEvent;
  /** The server answered again (or for the first time). */
  online: undefined;
  /** A request got no answer: the door goes on from its own state and retries. */
  offline: DoorOfflineEvent;
}

/** How a failed request is handled. */
type Failure = 'offline' | 'rate_limited' | 'unavailable' | 'fatal';

/**
 * What kind of failure `error` is. The SDK's errors carry `status` (undefined without an answer:
 * a connection error, a timeout, or a page that is not the API's, as a captive portal's); anything
 * else is a failure no retry mends.
 */
function failureOf(error: unknown): Failure {
  if (typeof error !== 'object' || error === null || !('status' in error)) return 'fatal';
  const { status, code } = error as { status: unknown; code?: unknown };
  if (status === undefined) return 'offline';
  if (status === 429) return 'rate_limited';
  if (typeof status === 'number' && (status === 408 || status >= 500)) return 'unavailable';
  if (status === 409 && code === 'idempotency_in_flight') return 'unavailable';
  return 'fatal';
}

/** A random id: `crypto.randomUUID` where the page may use it (secure contexts), else 128 random bits. */
function randomId(): string {
  const crypto = globalThis.crypto;
  if (typeof crypto.randomUUID === 'function') return crypto.randomUUID();
  return Array.from(crypto.getRandomValues(new Uint8Array(16)), (byte) =>
    byte.toString(16).padStart(2, '0'),
  ).join('');
}

/** The API's rule for `gate` and `device_id`, checked when the door opens rather than at each batch. */
function label(name: string, value: unknown): string {
  const trimmed = typeof value === 'string' ? value.trim() : '';
  if (trimmed.length < 1 || trimmed.length > 100) {
    throw new TypeError(
      `Invalid door option ${name}: ${JSON.stringify(value)}; expected 1 to 100 characters.`,
    );
  }
  return trimmed;
}

function duration(name: string, value: number | undefined, fallback: number, zero: boolean) {
  if (value === undefined) return fallback;
  if (!Number.isFinite(value) || value < 0 || (value === 0 && !zero)) {
    throw new TypeError(
      `Invalid door option ${name}: ${String(value)}; expected a ${zero ? 'non-negative' : 'positive'} number of milliseconds.`,
    );
  }
  return value;
}

const toItem = (scan: DoorScan): CheckinBatchItem => ({
  ticket_id: scan.ticket_id,
  event_id: scan.event_id,
  direction: scan.direction,
  gate: scan.gate,
  device_id: scan.device_id,
  scanned_at: scan.scanned_at,
  idempotency_key: scan.idempotency_key,
});

/** An answered scan: the result the server gave it. */
interface Answer {
  scan: DoorScan;
  result: CheckinBatchResult;
}

/**
 * A door session for one event: answers scans from the tickets it downloaded, whatever the network
 * does, and sends the accepted ones to the server in batches, in the background. Made by
 * `openDoor`.
 */
export class Door {
  /** The event at this door. */
  readonly eventId: string;
  /** The gate recorded on each check-in. */
  readonly gate: string;
  /** The device recorded on each check-in. */
  readonly deviceId: string;

  private readonly client: Boxoffice;
  private readonly clock: Clock;
  private readonly random: () => number;
  private readonly logger: LeveledLogger;
  private readonly store: DoorStore;
  private readonly flushIntervalMs: number;
  private readonly refreshIntervalMs: number;
  private readonly maxBackoffMs: number;
  private readonly state: DoorState;
  private readonly events: Emitter<DoorEvents>;

  /** Accepted scans the server has not answered, oldest first. */
  private queue: DoorScan[] = [];
  /** Keys of answered scans still in the journal, to drop once a snapshot holds their effect. */
  private answered: string[] = [];
  private resuming: Promise<boolean> | undefined;
  /** How many scans the store held unanswered when the door resumed. */
  private resumedQueue = 0;
  private loaded = false;
  private isOnline: boolean | undefined;

  private sending: Promise<DoorFlush> | undefined;
  private lastSentAt = -Infinity;
  private retryAt = 0;
  private failures = 0;
  private flushHalted: unknown;

  private syncs: Promise<unknown> = Promise.resolve();
  private refreshing: Promise<DoorRefresh> | undefined;
  private refreshHalted: unknown;
  /** Answers that arrive while a full download runs, to apply again over the downloaded state. */
  private answersDuringDownload: Answer[] | undefined;

  private saving: Promise<void> = Promise.resolve();
  private flushLoop: Promise<void> | undefined;
  private refreshLoop: Promise<void> | undefined;
  private flushWake = new AbortController();
  private readonly stop = new AbortController();
  /** `close()` was called: no more scans. */
  private closeRequested = false;
  /** The background work stops. */
  private closing = false;
  private closed: Promise<void> | undefined;

  constructor(client: Boxoffice, options: DoorOptions) {
    if (typeof options.eventId !== 'string' || options.eventId.trim() === '') {
      throw new TypeError('Invalid door option eventId: expected the event id (evt_…).');
    }
    this.eventId = options.eventId;
    this.gate = label('gate', options.gate);
    this.deviceId = label('deviceId', options.deviceId);
    this.flushIntervalMs = duration('flushIntervalMs', options.flushIntervalMs, 6_000, false);
    this.refreshIntervalMs = duration('refreshIntervalMs', options.refreshIntervalMs, 30_000, true);
    this.maxBackoffMs = duration('maxBackoffMs', options.maxBackoffMs, 60_000, false);
    this.store = options.store ?? memoryStore();
    this.client = client;
    // The door keeps the client's time, jitter and logger: a test's fake clock drives both.
    const engine: Engine = client['engine'];
    const { config } = engine;
    this.clock = config.clock;
    this.random = config.random;
    this.logger = config.logger;
    this.state = new DoorState(this.eventId);
    this.events = new Emitter<DoorEvents>((error, name) => {
      this.logger.error(`boxoffice door: a "${String(name)}" listener threw`, error);
    });
  }

  /** Scans accepted and not yet answered by the server (sent or not). */
  get pending(): number {
    return this.queue.length;
  }

  /** Whether the server answered the last request; `undefined` before the first. */
  get online(): boolean | undefined {
    return this.isOnline;
  }

  /** How many tickets of the event the door knows. */
  get tickets(): number {
    return this.state.size;
  }

  /**
   * Calls `listener` with every `name` event; returns the function that stops it.
   *
   * @example
   * ```ts
   * door.on('conflict', ({ scan, result }) => console.log(scan.code, result.code));
   * ```
   */
  on<Name extends keyof DoorEvents>(name: Name, listener: Listener<DoorEvents[Name]>): () => void {
    return this.events.on(name, listener);
  }

  /** Stops calling `listener` for `name`. */
  off<Name extends keyof DoorEvents>(name: Name, listener: Listener<DoorEvents[Name]>): void {
    this.events.off(name, listener);
  }

  /**
   * Restores what the store holds, without the network: the snapshot of this event (if there is
   * one) and the scans not yet answered, which the door then sends again (with their idempotency
   * keys: the server replays the answers of those it already had). Resolves `true` if a snapshot
   * was restored: the door then scans at once, from it. Called by `load()`; call it yourself to
   * start scanning before the network is there. Runs once; later calls give the same answer.
   */
  resume(): Promise<boolean> {
    this.resuming ??= this.restore();
    return this.resuming;
  }

  private async restore(): Promise<boolean> {
    const [snapshot, journal] = await Promise.all([
      this.store.get(SNAPSHOT_KEY),
      this.store.journal(),
    ]);
    const restored = this.state.restore(snapshot);
    const applied = new Set(restored ? snapshot.applied : []);
    const results = new Map<string, CheckinBatchResult>();
    for (const entry of journal) if ('result' in entry) results.set(entry.key, entry.result);
    for (const entry of journal) {
      if (!('scan' in entry)) continue;
      const result = results.get(entry.key);
      if (result === undefined) {
        this.state.addPending(entry.scan);
        this.queue.push(entry.scan);
      } else if (!applied.has(entry.key)) {
        this.state.applyResult(entry.scan, result);
      }
    }
    this.answered = [...results.keys()];
    this.resumedQueue = this.queue.length;
    if (restored) this.loaded = true;
    this.start();
    return restored;
  }

  /**
   * Makes the door ready to scan. With a snapshot of this event in the store (after a restart), it
   * restores it and fetches only what changed since; if the server cannot be reached then, the
   * door still scans from what it restored (`refreshed: false`). Otherwise (or with `full: true`)
   * it downloads the event's tickets, their attendees' names and the admissions so far, by cursor
   * walks of 100 items a page, and keeps the walks' sync checkpoints for `refresh()`. Rejects if
   * that download fails, or with a failure no retry mends (a 401, 402 or 403).
   *
   * @example
   * ```ts
   * const { tickets, pending } = await door.load();
   * ```
   */
  async load(options: { full?: boolean | undefined } = {}): Promise<DoorLoad> {
    this.assertOpen();
    await this.resume();
    if (this.loaded && !options.full) {
      let refreshed = true;
      try {
        await this.refresh();
      } catch (error) {
        if (failureOf(error) === 'fatal') throw error;
        refreshed = false;
      }
      return this.loadResult(false, refreshed);
    }
    await this.exclusive(() => this.download());
    return this.loadResult(true, true);
  }

  private loadResult(downloaded: boolean, refreshed: boolean): DoorLoad {
    const { size: tickets } = this.state;
    return { downloaded, refreshed, tickets, pending: this.pending, resending: this.resumedQueue };
  }

  /** Runs syncs (downloads, refreshes) one at a time. */
  private exclusive<T>(run: () => Promise<T>): Promise<T> {
    const next = this.syncs.then(run);
    this.syncs = next.catch(() => undefined);
    return next;
  }

  private async download(): Promise<void> {
    const next = new DoorState(this.eventId);
    const signal = this.stop.signal;
    const event_id = this.eventId;
    this.answersDuringDownload = [];
    try {
      const tickets = await walk(
        this.client.tickets.list({ event_id, limit: PAGE_LIMIT }, { signal }),
        (ticket) => next.mergeTicket(ticket),
      );
      const attendees = await walk(
        this.client.attendees.list({ event_id, limit: PAGE_LIMIT }, { signal }),
        (attendee) => next.mergeAttendee(attendee),
      );
      const checkins = await walk(
        this.client.checkins.list({ event_id, direction: 'entry', limit: PAGE_LIMIT }, { signal }),
        (checkin) => next.mergeCheckin(checkin),
      );
      next.checkpoints = {
        tickets: tickets.checkpoint,
        attendees: attendees.checkpoint,
        checkins: checkins.checkpoint,
      };
      this.state.replaceWith(next);
      // The walks may have read a ticket before one of this door's scans changed it.
      for (const { scan, result } of this.answersDuringDownload) {
        this.state.applyResult(scan, result);
      }
    } catch (error) {
      this.readFailed(error);
      throw error;
    } finally {
      this.answersDuringDownload = undefined;
    }
    this.readSucceeded();
    this.loaded = true;
    this.start();
    await this.saveSnapshot();
  }

  /**
   * Fetches what changed since the last download or refresh: tickets sold, voided or refunded,
   * attendees renamed, and other doors' admissions (with their gate and device), each walk from
   * its sync checkpoint. Runs every `refreshIntervalMs` in the background too; a call while one
   * runs shares it. Rejects with the failure (also reported as an event).
   *
   * @example
   * ```ts
   * const { checkins } = await door.refresh();
   * ```
   */
  async refresh(): Promise<DoorRefresh> {
    this.assertLoaded();
    this.refreshing ??= this.exclusive(() => this.pull()).finally(() => {
      this.refreshing = undefined;
    });
    return this.refreshing;
  }

  private async pull(): Promise<DoorRefresh> {
    const signal = this.stop.signal;
    const event_id = this.eventId;
    const { state } = this;
    let counts: DoorRefresh;
    try {
      const tickets = await walk(
        this.client.tickets.list(
          { event_id, limit: PAGE_LIMIT, updated_since: state.checkpoints.tickets },
          { signal },
        ),
        (ticket) => state.mergeTicket(ticket),
      );
      state.checkpoints.tickets = tickets.checkpoint ?? state.checkpoints.tickets;
      const attendees = await walk(
        this.client.attendees.list(
          { event_id, limit: PAGE_LIMIT, updated_since: state.checkpoints.attendees },
          { signal },
        ),
        (attendee) => state.mergeAttendee(attendee),
      );
      state.checkpoints.attendees = attendees.checkpoint ?? state.checkpoints.attendees;
      const checkins = await walk(
        this.client.checkins.list(
          {
            event_id,
            direction: 'entry',
            limit: PAGE_LIMIT,
            since: state.checkpoints.checkins,
          },
          { signal },
        ),
        (checkin) => state.mergeCheckin(checkin),
      );
      state.checkpoints.checkins = checkins.checkpoint ?? state.checkpoints.checkins;
      counts = { tickets: tickets.count, attendees: attendees.count, checkins: checkins.count };
    } catch (error) {
      this.readFailed(error);
      throw error;
    }
    this.refreshHalted = undefined;
    this.readSucceeded();
    await this.saveSnapshot();
    this.events.emit('refreshed', counts);
    return counts;
  }

  /**
   * Answers a scan from the door's own state, without the network: `admitted` (or `exited`) when
   * the ticket may pass, else why not. An accepted scan changes the door's state at once (a second
   * scan of the ticket is `already_in`), is written to the store before this resolves, and is
   * queued for the server with its own idempotency key. Refused scans are not sent. Rejects only if
   * the store cannot keep the scan (and then nothing changed), or before `load()`/`resume()`.
   *
   * @example
   * ```ts
   * const outcome = await door.scan(code);
   * if (outcome.result === 'admitted') console.log('Welcome', outcome.attendee?.first_name);
   * ```
   */
  async scan(code: string, options: ScanOptions = {}): Promise<ScanOutcome> {
    this.assertLoaded();
    // Checked here too: a caller without types may pass anything.
    const direction = (options.direction ?? 'entry') as string;
    if (direction !== 'entry' && direction !== 'exit') {
      throw new TypeError(`Invalid scan direction: ${JSON.stringify(direction)}.`);
    }
    const found = this.state.lookup(code);
    if (found.kind !== 'ticket') {
      return { result: found.kind === 'foreign' ? 'wrong_event' : 'unknown', code, direction };
    }
    const { ticket, attendee } = found;
    const result = decide(direction, ticket);
    if (result !== 'admitted' && result !== 'exited') {
      const admission = result === 'already_in' ? (ticket.admission ?? undefined) : undefined;
      return { result, code, direction, ticket, attendee, admission };
    }
    const scan: DoorScan = {
      idempotency_key: `${this.deviceId}:${randomId()}`,
      code,
      ticket_id: ticket.id,
      event_id: this.eventId,
      direction,
      gate: this.gate,
      device_id: this.deviceId,
      scanned_at: new Date(this.clock.now()).toISOString(),
    };
    // The door's state moves before the write, so that a second scan meanwhile sees it.
    const previous = this.state.addPending(scan);
    try {
      await this.store.append([{ key: scan.idempotency_key, scan }]);
    } catch (error) {
      this.state.settle(scan, previous);
      throw error;
    }
    // Only a scan the store holds is sent: one the server recorded is never one the door lost.
    this.queue.push(scan);
    this.wake();
    return { result, code, direction, ticket: this.state.ticket(ticket.id), attendee, scan };
  }

  /**
   * Sends every scan queued now, in batches of up to 100, without waiting for the interval (the
   * client still keeps to the key's rate limit). Resolves with what was answered; rejects with
   * the failure of a batch (its scans stay queued, and the background flush goes on). Also resumes
   * flushing stopped by a fatal error.
   *
   * @example
   * ```ts
   * const { acknowledged, pending } = await door.flush();
   * ```
   */
  async flush(): Promise<DoorFlush> {
    if (this.closing) throw new Error(CLOSED);
    const last = this.queue.at(-1);
    let acknowledged = 0;
    let conflicts = 0;
    if (last) {
      this.flushHalted = undefined;
      while (this.queue.includes(last)) {
        const batch = await this.sendNext();
        acknowledged += batch.acknowledged;
        conflicts += batch.conflicts;
      }
    }
    return { acknowledged, conflicts, pending: this.pending };
  }

  /**
   * Stops the background work. Unless `flush: false`, first tries once to send what is queued
   * (a failure is reported as an event, not thrown: the scans stay in the store for the next
   * `openDoor`). Waits for requests under way, then saves the snapshot. Scans are refused after.
   */
  close(options: { flush?: boolean | undefined } = {}): Promise<void> {
    this.closeRequested = true;
    this.closed ??= this.shutdown(options.flush ?? true);
    return this.closed;
  }

  private async shutdown(flush: boolean): Promise<void> {
    if (flush && this.queue.length > 0 && this.flushHalted === undefined) {
      await this.flush().catch(() => undefined);
    }
    this.closing = true;
    this.stop.abort();
    this.wake();
    await Promise.allSettled([this.sending, this.refreshing, this.flushLoop, this.refreshLoop]);
    if (this.loaded) await this.saveSnapshot();
  }

  private assertOpen(): void {
    if (this.closeRequested) throw new Error(CLOSED);
  }

  private assertLoaded(): void {
    this.assertOpen();
    if (!this.loaded) {
      throw new Error('The door has no tickets yet: call load() (or resume()) first.');
    }
  }

  /** Starts the background flush and, once the door has tickets, the refresh. */
  private start(): void {
    if (this.closing) return;
    this.flushLoop ??= this.runFlushes();
    if (this.loaded && this.refreshIntervalMs > 0) this.refreshLoop ??= this.runRefreshes();
  }

  /** Whether the background work is to stop (a method: it changes while a loop waits). */
  private stopping(): boolean {
    return this.closing;
  }

  private async runFlushes(): Promise<void> {
    while (!this.stopping()) {
      await this.nap(this.flushDelay(), this.flushWake.signal);
      if (!this.stopping() && this.flushDelay() === 0) await this.sendNext().catch(() => undefined);
    }
  }

  private async runRefreshes(): Promise<void> {
    while (!this.stopping()) {
      await this.nap(this.refreshIntervalMs, this.stop.signal);
      if (!this.stopping() && this.refreshHalted === undefined) {
        await this.refresh().catch(() => undefined);
      }
    }
  }

  /** Waits `ms` (or until woken; `undefined`: only until woken). */
  private nap(ms: number | undefined, signal: AbortSignal): Promise<void> {
    if (signal.aborted || (ms !== undefined && ms <= 0)) return Promise.resolve();
    if (ms === undefined) {
      return new Promise((resolve) => {
        signal.addEventListener('abort', () => resolve(), { once: true });
      });
    }
    return this.clock.sleep(Math.min(ms, MAX_TIMER_MS), signal).catch(() => undefined);
  }

  /** Makes the flush loop look again at the queue. */
  private wake(): void {
    const woken = this.flushWake;
    this.flushWake = new AbortController();
    woken.abort();
  }

  /**
   * How long until the next background batch: at most one every `flushIntervalMs`, later after
   * failures (backoff); at once when a full batch waits and the key's write window has room.
   * `undefined`: nothing to send (or flushing stopped), until woken.
   */
  private flushDelay(): number | undefined {
    if (this.closing || this.sending || this.queue.length === 0) return undefined;
    if (this.flushHalted !== undefined) return undefined;
    const now = this.clock.now();
    const due = Math.max(this.lastSentAt + this.flushIntervalMs, this.retryAt);
    if (this.queue.length >= MAX_DOOR_BATCH && this.failures === 0 && this.writesLeft(now)) {
      return 0;
    }
    return Math.max(0, due - now);
  }

  /** Whether the key's current write window has room, as far as the client knows. */
  private writesLeft(now: number): boolean {
    const { remaining, resetAt, pausedUntil } = this.client.rateLimit('write');
    if (pausedUntil > now) return false;
    return remaining === undefined || remaining > 0 || (resetAt !== undefined && resetAt <= now);
  }

  /** The batch under way, or a new one: one request at a time. */
  private sendNext(): Promise<DoorFlush> {
    this.sending ??= this.sendBatch().finally(() => {
      this.sending = undefined;
      this.wake();
    });
    return this.sending;
  }

  private async sendBatch(): Promise<DoorFlush> {
    const batch = this.queue.slice(0, MAX_DOOR_BATCH);
    if (batch.length === 0) return { acknowledged: 0, conflicts: 0, pending: 0 };
    this.lastSentAt = this.clock.now();
    let results: CheckinBatchResult[];
    try {
      // The door retries on its own schedule; the client still waits for the rate-limit window.
      results = await this.client.checkins.createBatch(batch.map(toItem), { maxRetries: 0 });
      if (results.length !== batch.length) {
        throw new Error(
          `The server answered ${results.length} results for a batch of ${batch.length} scans.`,
        );
      }
    } catch (error) {
      this.sendFailed(error, batch.length);
      throw error;
    }
    this.failures = 0;
    this.retryAt = 0;
    this.setOnline(true);
    const answers = batch.map((scan, i) => ({ scan, result: results[i] as CheckinBatchResult }));
    try {
      await this.store.append(
        answers.map(({ scan, result }) => ({ key: scan.idempotency_key, result })),
      );
    } catch (error) {
      // Not kept, so not acknowledged: sent again later, the server replays these answers.
      this.backOff();
      this.report(error, 'store', false);
      throw error;
    }
    const conflicts: DoorConflict[] = [];
    for (const { scan, result } of answers) {
      this.state.applyResult(scan, result);
      this.state.settle(scan);
      this.answersDuringDownload?.push({ scan, result });
      this.answered.push(scan.idempotency_key);
      if (result.status !== 201) {
        conflicts.push({
          scan,
          result,
          ticket: this.state.ticket(scan.ticket_id),
          attendee: this.state.attendee(scan.ticket_id),
        });
      }
    }
    this.queue.splice(0, batch.length);
    if (this.answered.length >= COMPACT_AFTER) void this.saveSnapshot();
    const outcome = {
      acknowledged: batch.length,
      conflicts: conflicts.length,
      pending: this.queue.length,
    };
    for (const conflict of conflicts) this.events.emit('conflict', conflict);
    this.events.emit('flushed', outcome);
    return outcome;
  }

  /** After a failed batch: back off (or wait what a 429 asked), or stop on a fatal failure. */
  private sendFailed(error: unknown, size: number): void {
    const failure = failureOf(error);
    if (failure === 'fatal') {
      this.flushHalted = error;
      this.report(error, 'flush', true);
      return;
    }
    const asked = failure === 'rate_limited' ? retryAfterMs(error) : undefined;
    const delay = this.backOff(asked);
    if (failure === 'offline') this.setOnline(false, error);
    if (failure === 'unavailable') this.report(error, 'flush', false);
    this.logger.info(
      `boxoffice door: sending ${size} scans failed (${reason(error)}); next try in ${Math.round(delay)} ms`,
    );
  }

  /**
   * Delays the next batch: by `asked` (a 429's Retry-After) if given, else exponentially from the
   * flush interval, doubling with each failure up to `maxBackoffMs`, shortened by up to a quarter
   * at random so that doors that failed together do not retry together. Returns the delay.
   */
  private backOff(asked?: number): number {
    this.failures += 1;
    const exponential = Math.min(
      this.maxBackoffMs,
      this.flushIntervalMs * 2 ** (this.failures - 1),
    );
    const delay = asked ?? exponential * (1 - 0.25 * this.random());
    this.retryAt = this.clock.now() + delay;
    return delay;
  }

  private readFailed(error: unknown): void {
    if (this.closing) return;
    const failure = failureOf(error);
    if (failure === 'offline') this.setOnline(false, error);
    else if (failure === 'fatal') {
      this.refreshHalted = error;
      this.report(error, 'refresh', true);
    } else this.report(error, 'refresh', false);
  }

  private readSucceeded(): void {
    this.setOnline(true);
  }

  private setOnline(online: boolean, error?: unknown): void {
    if (this.isOnline === online) return;
    this.isOnline = online;
    if (!online) {
      this.logger.info(`boxoffice door: offline (${reason(error)}); scanning goes on`);
      this.events.emit('offline', { error });
      return;
    }
    this.events.emit('online', undefined);
    // The server is back: what waited on the network goes now, not at the end of its backoff.
    if (this.failures > 0 && this.flushHalted === undefined) {
      this.failures = 0;
      this.retryAt = 0;
      this.wake();
    }
  }

  private report(error: unknown, during: DoorErrorEvent['during'], fatal: boolean): void {
    this.logger.warn(
      `boxoffice door: ${during} failed${fatal ? ', stopped until called again' : ''}: ${reason(error)}`,
    );
    this.events.emit('error', { error, during, fatal });
  }

  /**
   * Saves the snapshot, then drops from the journal the answers it holds (in that order: a crash
   * between the two leaves answers that the snapshot lists as applied). One save at a time.
   */
  private saveSnapshot(): Promise<void> {
    const run = this.saving.then(async () => {
      const keys = [...this.answered];
      const snapshot = this.state.snapshot(new Date(this.clock.now()).toISOString(), keys);
      await this.store.set(SNAPSHOT_KEY, snapshot);
      if (keys.length === 0) return;
      await this.store.drop(keys);
      const dropped = new Set(keys);
      this.answered = this.answered.filter((key) => !dropped.has(key));
    });
    this.saving = run.catch((error: unknown) => {
      if (!this.closing) this.report(error, 'store', false);
    });
    return this.saving;
  }
}

/** What a scan of `ticket` in `direction` comes to. */
function decide(direction: CheckinDirection, ticket: DoorTicket): ScanResult {
  if (ticket.status === 'void') return 'void';
  if (direction === 'entry') return ticket.status === 'checked_in' ? 'already_in' : 'admitted';
  return ticket.status === 'checked_in' ? 'exited' : 'not_inside';
}

/** Every item of a list walk, and the walk's sync checkpoint. */
async function walk<Item>(
  list: PagePromise<Item>,
  merge: (item: Item) => void,
): Promise<{ count: number; checkpoint: string | undefined }> {
  let count = 0;
  let checkpoint: string | undefined;
  for await (const page of list.iterPages()) {
    for (const item of page.data) merge(item);
    count += page.data.length;
    checkpoint = page.syncCheckpoint;
  }
  return { count, checkpoint };
}

/** The wait a 429 asked for, in ms (`RateLimitError#retryAfter`, in seconds). */
function retryAfterMs(error: unknown): number | undefined {
  const seconds = (error as { retryAfter?: unknown }).retryAfter;
  return typeof seconds === 'number' ? seconds * 1000 : undefined;
}

const reason = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/**
 * Opens a door session for one event: `load()` it, then `scan()` codes. Scans are answered from the
 * door's own copy of the event's tickets (no network on the way), kept in `store`, and sent in
 * batches in the background; other doors' admissions come in every `refreshIntervalMs`.
 *
 * @example
 * ```ts
 * const door = openDoor(client, { eventId: 'evt_…', gate: 'North', deviceId: 'north-1' });
 * await door.load();
 * const outcome = await door.scan(code);
 * ```
 */
export function openDoor(client: Boxoffice, options: DoorOptions): Door {
  return new Door(client, options);
}
