import type { EntityManager } from '@mikro-orm/postgresql';
import pg from 'pg';
import type { SecretKey } from '../../core/secret-box';
import { secretBoxFor } from '../../db/secret-keys';
import { sender, type Send } from './attempt';
import { DirectSender } from './direct-sender';
import type { EngineLogger } from './engine-types';
import { FANOUT_BATCH, fanOutRound } from './fan-out';
import { DeliveryQueue, type RetrySchedule } from './queue';
import { deliverQueued } from './queued-delivery';
import { Recorder } from './recorder';
import type { UrlPolicy } from './url-guard';

export type { EngineLogger } from './engine-types';

/** With the schedule of retries (`retryDelaySeconds`, `maxRetryDelaySeconds`, `retryLimit`). */
export interface WebhookEngineOptions extends UrlPolicy, RetrySchedule {
  databaseUrl: string;
  logger: EngineLogger;
  /** A delivery's answer must arrive within this long. */
  timeoutMs: number;
  /** The keys endpoints' secrets are sealed with (SECRETS_ENCRYPTION_KEYS); the development key without. */
  secretKeys?: readonly SecretKey[] | undefined;
  /** An endpoint failing without a success for this long is disabled. */
  disableAfterHours: number;
  /**
   * How long a round has to send and record the messages it sends at once (its lease); past it,
   * a later round hands those not recorded to the queue. DEFAULT_LEASE_SECONDS by default.
   */
  leaseSeconds?: number;
  /** The pace of the fan-out's rounds while changes keep coming. */
  pollIntervalMs: number;
  /**
   * How often the fan-out looks for change records after a round that found none. By default
   * `pollIntervalMs`, or FOLLOWING_IDLE_POLL_MS (at least `pollIntervalMs`) once the engine
   * follows its process's commits (`followsCommits`, a worker inside the API server): those start
   * a round at once, and the rounds in between find what other processes committed (the operator
   * CLI, another replica whose worker is off).
   */
  idlePollIntervalMs?: number;
  /**
   * The process's commits call `changesCommitted` (`followCommits` here, or the delivery thread's
   * host, webhook-thread.ts).
   */
  followsCommits?: boolean;
  /** Each attempt's outcome, for the metrics. */
  onAttempt?: (outcome: 'succeeded' | 'failed') => void;
  /** A round of the fan-out starts: it will read every change committed until now. */
  onRound?: () => void;
}

/**
 * The retry schedule (queue.ts, `RetrySchedule`): 28 retries; retry n waits between half and all
 * of 10 s × 2^(n−1), at most 4 hours: 5–10 s, 10–20 s, … In all, 37 to 74 hours.
 */
export const DEFAULT_RETRY = {
  retryDelaySeconds: 10,
  maxRetryDelaySeconds: 4 * 3600,
  retryLimit: 28,
};

/**
 * The messages a round of the fan-out sends itself must have their first attempts recorded within
 * this long (its lease); past it (the replica stopped or crashed) a later round makes again those
 * it did not record and hands them to the queue.
 */
export const DEFAULT_LEASE_SECONDS = 60;
/** How often an engine that follows its process's commits looks for others' changes. */
const FOLLOWING_IDLE_POLL_MS = 2000;

/**
 * The engine's own connections. Timestamps come as the driver reads them fastest
 * (db/timestamps.ts). Every statement is planned for its values: the engine's statements read
 * ranges of tables that grow from empty (change records, messages), and a generic plan made while
 * one was small (a sequential scan) would stay in use as it grows, until the next ANALYZE.
 */
export const enginePoolConfig = (databaseUrl: string): pg.PoolConfig => ({
  connectionString: databaseUrl,
  max: 4,
  application_name: 'boxoffice-webhook-engine',
  options: '-c TimeZone=UTC -c plan_cache_mode=force_custom_plan',
  idle_in_transaction_session_timeout: 30_000,
});

/**
 * Webhook delivery in one process: the fan-out (fan-out.ts), which turns committed change records
 * into messages, one per matching endpoint; and their sending. A message to a healthy endpoint is
 * sent at once by the replica that made it, after the fan-out's transaction commits
 * (direct-sender.ts), and written once, in its state after that attempt, with the attempt
 * (recorder.ts); only when that attempt fails is it handed to the job queue (queue.ts,
 * queued-delivery.ts), which retries it on the schedule. Messages to endpoints that are failing,
 * resends and test events are written and go to the queue from the start.
 *
 * This class puts them together and paces the fan-out's rounds. Its statements run on a pool of
 * its own (the engine's thread has no ORM); pg-boss keeps another for its own work.
 */
export class WebhookEngine {
  readonly #options: WebhookEngineOptions;
  readonly #leaseSeconds: number;
  readonly #pool: pg.Pool;
  readonly #send: Send;
  readonly #queue: DeliveryQueue;
  readonly #recorder: Recorder;
  readonly #direct: DirectSender;
  #timer: NodeJS.Timeout | undefined;
  /** When `#timer` fires (this process's clock), while it is set. */
  #due: number | undefined;
  #fanningOut: Promise<void> | undefined;
  /** A round is under way; when the last one started, and how many records it read. */
  #inRound = false;
  #lastRoundAt = 0;
  #lastRead = 0;
  /** The last round failed: the next one waits for its retry, whatever commits meanwhile. */
  #failed = false;
  /** Changes were committed in this process since the current round (or the next) started. */
  #woken = false;
  /** The queue has started and the first round is scheduled. */
  #started = false;
  /** Commits of this process call `changesCommitted` (`followsCommits`, `followCommits`). */
  #followingCommits: boolean;
  #stopping = false;

  constructor(options: WebhookEngineOptions) {
    this.#options = options;
    this.#leaseSeconds = options.leaseSeconds ?? DEFAULT_LEASE_SECONDS;
    this.#followingCommits = options.followsCommits ?? false;
    // Connects on the first round.
    this.#pool = new pg.Pool(enginePoolConfig(options.databaseUrl));
    this.#pool.on('error', (error) =>
      options.logger.warn({ err: error }, 'webhook engine connection lost'),
    );
    this.#send = sender({ ...options, secrets: secretBoxFor(options.secretKeys) });
    this.#queue = new DeliveryQueue(options);
    this.#recorder = new Recorder(this.#pool, this.#queue, options);
    this.#direct = new DirectSender(
      { ...options, leaseSeconds: this.#leaseSeconds },
      this.#send,
      this.#recorder,
    );
  }

  async start(): Promise<void> {
    await this.#queue.start((jobs) =>
      deliverQueued(jobs, {
        pool: this.#pool,
        send: this.#send,
        recorder: this.#recorder,
        retryLimit: this.#options.retryLimit,
      }),
    );
    this.#started = true;
    this.#schedule(0);
  }

  /** Stops taking work, lets the deliveries in flight finish (within `timeoutMs` in all), and closes. */
  async stop(timeoutMs = 10_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    this.#stopping = true;
    this.#direct.stopping();
    clearTimeout(this.#timer);
    await this.#fanningOut;
    // Attempts under way finish (the rest of each line is handed to the queue), up to timeoutMs;
    // whatever is still unsent after that is handed over when its lease passes.
    await this.#direct.settled(deadline);
    await this.#recorder.stop();
    await this.#queue.stop(deadline - Date.now());
    if (!this.#pool.ended) await this.#pool.end();
  }

  /** Calls `changesCommitted` whenever a transaction of this entity manager's ORM commits. */
  followCommits(em: EntityManager): void {
    this.#followingCommits = true;
    em.getEventManager().registerSubscriber({
      afterTransactionCommit: () => this.changesCommitted(),
    });
  }

  /**
   * A transaction of this process committed changes: a round of the fan-out starts at once, or,
   * while rounds keep finding records (changes keep coming), `pollIntervalMs` after the last one
   * started.
   */
  changesCommitted(): void {
    if (this.#stopping || !this.#started) return;
    this.#woken = true;
    // The round under way schedules the next one when it ends; a failed one its retry.
    if (this.#inRound || this.#failed) return;
    const now = Date.now();
    const at =
      this.#lastRead > 0 ? Math.max(now, this.#lastRoundAt + this.#options.pollIntervalMs) : now;
    if (this.#due !== undefined && this.#due <= at) return;
    this.#schedule(at - now);
  }

  /**
   * One round of the fan-out (fan-out.ts); how many change records it read (a full batch: there
   * may be more). The messages it leaves this process are sent once its transaction has committed.
   */
  async fanOut(): Promise<number> {
    const round = await fanOutRound({
      pool: this.#pool,
      queue: this.#queue,
      leaseSeconds: this.#leaseSeconds,
      split: (messages) => this.#direct.split(messages),
    });
    if (round.lease) this.#direct.send(round.direct, round.lease);
    return round.read;
  }

  /**
   * The next round in `delayMs`. After a round: at once when its batch was full; at
   * `pollIntervalMs` when it found records, was started by a commit or heard of one meanwhile (a
   * record may be held back behind a transaction still running: the next round finds it); at
   * `idlePollIntervalMs` otherwise.
   */
  #schedule(delayMs: number): void {
    if (this.#stopping) return;
    clearTimeout(this.#timer);
    this.#due = Date.now() + delayMs;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#due = undefined;
      const woken = this.#woken;
      this.#woken = false;
      this.#inRound = true;
      this.#lastRoundAt = Date.now();
      this.#options.onRound?.();
      const { pollIntervalMs } = this.#options;
      const idlePollIntervalMs =
        this.#options.idlePollIntervalMs ??
        (this.#followingCommits
          ? Math.max(FOLLOWING_IDLE_POLL_MS, pollIntervalMs)
          : pollIntervalMs);
      this.#fanningOut = this.fanOut()
        .then((read) => {
          this.#inRound = false;
          this.#failed = false;
          this.#lastRead = read;
          if (read === FANOUT_BATCH) this.#schedule(0);
          else if (read > 0 || woken || this.#woken) this.#schedule(pollIntervalMs);
          else this.#schedule(idlePollIntervalMs);
        })
        .catch((error: unknown) => {
          this.#inRound = false;
          this.#failed = true;
          this.#options.logger.warn({ err: error }, 'webhook fan-out failed; retrying');
          this.#schedule(Math.max(1000, pollIntervalMs));
        });
    }, delayMs);
  }
}
