import type { PoolClient } from 'pg';
import {
  JobQueue,
  type JobOutcome,
  type NewJob as QueueJob,
  type QueuedJob as QueueJobOf,
} from '../../db/job-queue';
import type { EngineLogger } from './engine-types';

/**
 * The delivery queue, which holds the messages to send later: every replica takes its own share,
 * each job held by one replica at a time (the job queue, db/job-queue.ts).
 *
 * A failed delivery is retried by a new job of its own, added with the failed attempt's record
 * and due at the next delay of the schedule (`retryAt`): pg-boss's backoff, which would multiply
 * the delay again, is never used. pg-boss retries a job itself only when its batch could not be
 * recorded or ran past its expiry, after a fixed `retryDelaySeconds`.
 */
export const DELIVERY_QUEUE = 'webhook-delivery';

/** Jobs a worker takes at once. */
export const DELIVERY_BATCH = 25;

export interface JobData {
  message_id: string;
  /** The change record's position (or 0): the order of delivery within a batch. */
  seq: number;
  /** Attempts of the message made before this job (absent: none). */
  attempts?: number;
  /** Queued after a failed first attempt sent at once (jobs added by earlier versions). */
  after_direct?: boolean;
}

/** A job to add: its message, and for a retry, when it falls due. */
export type NewJob = QueueJob<JobData>;

/** A job as the worker receives it: `retryCount` is how many times pg-boss tried it before. */
export type QueuedJob = QueueJobOf<JobData>;

/** What became of a job: done (sent and recorded, or nothing to send), or failed (tried again). */
export type { JobOutcome };

/**
 * The retry schedule: `retryLimit` retries; retry n waits a delay drawn between half and all of
 * `retryDelaySeconds` × 2^(n−1), at most `maxRetryDelaySeconds` (the spread keeps receivers that
 * come back from being hit by every sender at once).
 */
export interface RetrySchedule {
  retryDelaySeconds: number;
  maxRetryDelaySeconds: number;
  retryLimit: number;
}

/** The longest delay before retry `retry` (1 for the first), in milliseconds. */
export function retryDelayCeilingMs(retry: number, schedule: RetrySchedule): number {
  const seconds = Math.min(
    schedule.retryDelaySeconds * 2 ** Math.min(retry - 1, 40),
    schedule.maxRetryDelaySeconds,
  );
  return seconds * 1000;
}

/** When retry `retry` (1 for the first) of a message whose last attempt failed at `failedAt` falls due. */
export function retryAt(
  retry: number,
  failedAt: Date,
  schedule: RetrySchedule,
  random: () => number = Math.random,
): Date {
  const ceiling = retryDelayCeilingMs(retry, schedule);
  return new Date(failedAt.getTime() + Math.round(ceiling * (1 - random() / 2)));
}

export interface QueueOptions extends RetrySchedule {
  databaseUrl: string;
  logger: EngineLogger;
  timeoutMs: number;
}

export class DeliveryQueue {
  readonly #options: QueueOptions;
  readonly #queue: JobQueue;

  constructor(options: QueueOptions) {
    this.#options = options;
    this.#queue = new JobQueue({
      databaseUrl: options.databaseUrl,
      logger: options.logger,
      applicationName: 'boxoffice-webhooks',
      poolSize: 4,
    });
  }

  /** Starts the queue (with its own pool), creates it if need be, and works it with `work`. */
  async start(work: (jobs: QueuedJob[]) => Promise<JobOutcome[]>): Promise<void> {
    const options = this.#options;
    await this.#queue.start();
    await this.#queue.createQueue(DELIVERY_QUEUE, {
      ...this.#recovery,
      // Longer than a batch can take (DELIVERY_BATCH timeouts): past it the job is retried.
      expireInSeconds: Math.max(60, Math.ceil((DELIVERY_BATCH * options.timeoutMs) / 1000) + 60),
      // Attempts are kept in webhook_attempts; the queue's own rows need not stay long.
      deleteAfterSeconds: 24 * 3600,
      retentionSeconds: 14 * 24 * 3600,
    });
    await this.#queue.work<JobData>(
      DELIVERY_QUEUE,
      { batchSize: DELIVERY_BATCH, pollingIntervalSeconds: 0.5, burstWhenBatchFull: true },
      work,
    );
  }

  /**
   * Adds jobs in the transaction `client` is in (one of ours, not pg-boss's), so they commit, or
   * not, with the messages they are for.
   */
  async insert(client: PoolClient, jobs: NewJob[]): Promise<void> {
    // Set on each job: a queue made by an earlier version has pg-boss's backoff as its default.
    await this.#queue.insert(client, DELIVERY_QUEUE, jobs, this.#recovery);
  }

  /**
   * pg-boss's own retries, for a job whose batch was not recorded (or expired): after a fixed
   * delay, never more than the schedule's number (the attempts they make count against it).
   */
  get #recovery() {
    return {
      retryLimit: this.#options.retryLimit,
      retryDelay: this.#options.retryDelaySeconds,
      retryBackoff: false,
    };
  }

  /** Lets the batches in hand finish (within `timeoutMs`), and closes pg-boss's pool. */
  async stop(timeoutMs: number): Promise<void> {
    await this.#queue.stop(timeoutMs);
  }
}
