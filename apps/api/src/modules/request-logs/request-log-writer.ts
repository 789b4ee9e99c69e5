import { TextBuffer } from '../../core/text-buffer';
import { requestLogLine, type RequestLogRow } from './request-log.repository';

/** What became of records: written, or dropped (the buffer was full, or their batch failed). */
export type RecordOutcome = 'written' | 'dropped_buffer_full' | 'dropped_write_failed';

export interface RequestLogWriterOptions {
  /** Writes one batch (one statement): its records' lines (`requestLogLine`), as UTF-8. */
  write: (lines: Buffer) => Promise<void>;
  /** Records waiting at most; past it new ones are dropped (counted). */
  maxBuffered?: number;
  /** Records per statement; a buffer this full is written at once, without waiting for the timer. */
  batchSize?: number;
  /** How often what is waiting is written. */
  flushIntervalMs?: number;
  /** Hears how many records met each outcome (the metrics count them). */
  onOutcome?: (outcome: RecordOutcome, count: number) => void;
  /** Hears why a batch could not be written. */
  onError?: (error: unknown) => void;
}

export const DEFAULT_MAX_BUFFERED = 10_000;
const DEFAULT_BATCH_SIZE = 500;
const DEFAULT_FLUSH_INTERVAL_MS = 1000;
/** Bytes a batch starts with; it doubles when a record may not fit. */
const BATCH_START_BYTES = 64 * 1024;

/**
 * Records waiting to be written, as the lines of one statement, kept outside V8's heap (as
 * objects, or even as one string each, they would outlive the young generation and be copied and
 * marked again and again).
 */
class Batch {
  readonly #text = new TextBuffer(BATCH_START_BYTES);
  count = 0;

  add(line: string): void {
    this.#text.write(line);
    this.count += 1;
  }

  /** The lines, for the statement. */
  get lines(): Buffer {
    return this.#text.bytes;
  }
}

/**
 * The request log's way to the database, off the requests' path: a record is put in a buffer in
 * memory (nothing else happens while the request is answered), and the buffer is written in
 * batches, one COPY each, every `flushIntervalMs` or as soon as a batch is full. One
 * batch is written at a time. The log gives way before the requests do: a full buffer drops new
 * records, and a batch the database refuses (or that times out) is dropped, each counted; neither
 * is retried, so a database that is away costs the requests nothing and the memory stays bounded.
 */
export class RequestLogWriter {
  readonly #write: RequestLogWriterOptions['write'];
  readonly #maxBuffered: number;
  readonly #batchSize: number;
  readonly #intervalMs: number;
  readonly #onOutcome: NonNullable<RequestLogWriterOptions['onOutcome']>;
  readonly #onError: NonNullable<RequestLogWriterOptions['onError']>;
  /** Full batches first, the one being filled last. */
  #batches: Batch[] = [];
  #buffered = 0;
  #flushing: Promise<void> | undefined;
  #timer: NodeJS.Timeout | undefined;
  #soon: NodeJS.Immediate | undefined;
  #stopped = false;

  constructor(options: RequestLogWriterOptions) {
    this.#write = options.write;
    this.#maxBuffered = options.maxBuffered ?? DEFAULT_MAX_BUFFERED;
    this.#batchSize = options.batchSize ?? DEFAULT_BATCH_SIZE;
    this.#intervalMs = options.flushIntervalMs ?? DEFAULT_FLUSH_INTERVAL_MS;
    this.#onOutcome = options.onOutcome ?? (() => undefined);
    this.#onError = options.onError ?? (() => undefined);
  }

  /** Records waiting to be written. */
  get buffered(): number {
    return this.#buffered;
  }

  /** Takes a record; never waits and never throws. */
  record(row: RequestLogRow): void {
    if (this.#stopped || this.#buffered >= this.#maxBuffered) {
      this.#onOutcome('dropped_buffer_full', 1);
      return;
    }
    let batch = this.#batches.at(-1);
    if (!batch || batch.count >= this.#batchSize) {
      batch = new Batch();
      this.#batches.push(batch);
    }
    batch.add(requestLogLine(row));
    this.#buffered += 1;
    if (batch.count >= this.#batchSize && !this.#flushing && !this.#soon) {
      // Not in the caller's turn: the statement is built after the answer's own work.
      this.#soon = setImmediate(() => {
        this.#soon = undefined;
        void this.flush();
      });
    }
  }

  /** Writes the records every `flushIntervalMs` until `stop`. */
  start(): this {
    this.#timer ??= setInterval(() => void this.flush(), this.#intervalMs);
    this.#timer.unref();
    return this;
  }

  /**
   * Writes everything buffered now (and what comes meanwhile), batch after batch; resolves once
   * the buffer is empty. While a flush runs, a call joins it.
   */
  flush(): Promise<void> {
    this.#flushing ??= this.#drain().finally(() => {
      this.#flushing = undefined;
    });
    return this.#flushing;
  }

  /**
   * Takes no more records and writes out those waiting, for at most `timeoutMs` (a database that
   * does not answer must not hold a shutdown up); resolves true when all were written or dropped.
   */
  async stop(timeoutMs = 5000): Promise<boolean> {
    this.#stopped = true;
    clearInterval(this.#timer);
    if (this.#soon) clearImmediate(this.#soon);
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), timeoutMs);
    });
    try {
      return await Promise.race([this.flush().then(() => true), timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  async #drain(): Promise<void> {
    for (let batch = this.#batches.shift(); batch; batch = this.#batches.shift()) {
      this.#buffered -= batch.count;
      try {
        await this.#write(batch.lines);
        this.#onOutcome('written', batch.count);
      } catch (error) {
        this.#onOutcome('dropped_write_failed', batch.count);
        this.#onError(error);
      }
    }
  }
}
