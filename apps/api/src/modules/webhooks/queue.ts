import type { Db, Job, JobResult, PgBoss } from 'pg-boss';
import type { PoolClient } from 'pg';
import type { EngineLogger } from './engine-types';

/**
 * The job queue (pg-boss), which holds the messages to send later: every replica takes its own
 * share, each job held by one replica at a time. The one file that knows pg-boss; it keeps its
 * tables in a schema of its own, which nothing else reads or writes.
 *
 * A failed delivery is retried by a new job of its own, added with the failed attempt's record
 * and due at the next delay of the schedule (`retryAt`): pg-boss's backoff, which would multiply
 * the delay again, is never used. pg-boss retries a job itself only when its batch could not be
 * recorded or ran past its expiry, after a fixed `retryDelaySeconds`.
 */
export const DELIVERY_QUEUE = 'webhook-delivery';
export const QUEUE_SCHEMA = 'pgboss';

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
export interface NewJob {
  data: JobData;
  startAfter?: Date;
}

/** A job as the worker receives it: `retryCount` is how many times pg-boss tried it before. */
export type QueuedJob = Pick<Job<JobData>, 'id' | 'data' | 'retryCount'>;

/** What became of a job: done (sent and recorded, or nothing to send), or failed (tried again). */
export interface JobOutcome {
  id: string;
  ok: boolean;
  error?: string | null;
}

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
  #boss: PgBoss | undefined;

  constructor(options: QueueOptions) {
    this.#options = options;
  }

  get #started(): PgBoss {
    if (!this.#boss) throw new Error('the webhook queue is not started');
    return this.#boss;
  }

  /** Starts pg-boss (with its own pool), creates the queue if need be, and works it with `work`. */
  async start(work: (jobs: QueuedJob[]) => Promise<JobOutcome[]>): Promise<void> {
    const options = this.#options;
    // Loaded here, when the engine starts: the queue's code costs nothing before.
    const { PgBoss } = await import('pg-boss');
    const boss = new PgBoss({
      connectionString: options.databaseUrl,
      schema: QUEUE_SCHEMA,
      max: 4,
      application_name: 'boxoffice-webhooks',
      useListenNotify: true,
      schedule: false,
    });
    this.#boss = boss;
    boss.on('error', (error: unknown) =>
      options.logger.warn({ err: error }, 'webhook queue error'),
    );
    await boss.start();
    if (!(await boss.getQueue(DELIVERY_QUEUE))) {
      await boss
        .createQueue(DELIVERY_QUEUE, {
          ...this.#recovery,
          // Longer than a batch can take (DELIVERY_BATCH timeouts): past it the job is retried.
          expireInSeconds: Math.max(
            60,
            Math.ceil((DELIVERY_BATCH * options.timeoutMs) / 1000) + 60,
          ),
          // Attempts are kept in webhook_attempts; the queue's own rows need not stay long.
          deleteAfterSeconds: 24 * 3600,
          retentionSeconds: 14 * 24 * 3600,
          notify: true,
        })
        .catch(async (error: unknown) => {
          // Another replica created it at the same moment.
          if (!(await boss.getQueue(DELIVERY_QUEUE))) throw error;
        });
    }
    await boss.work<
      JobData,
      unknown,
      {
        batchSize: number;
        perJobResults: true;
        pollingIntervalSeconds: number;
        notifyPollingIntervalSeconds: number;
        burstWhenBatchFull: true;
      }
    >(
      DELIVERY_QUEUE,
      {
        batchSize: DELIVERY_BATCH,
        perJobResults: true,
        pollingIntervalSeconds: 0.5,
        // New jobs wake the worker at once (NOTIFY); retries falling due are found by this poll.
        notifyPollingIntervalSeconds: 1,
        burstWhenBatchFull: true,
      },
      async (jobs): Promise<JobResult[]> =>
        (await work(jobs)).map(({ id, ok, error }) =>
          ok ? { id, status: 'completed' } : { id, status: 'failed', output: { error } },
        ),
    );
  }

  /**
   * Adds jobs in the transaction `client` is in (one of ours, not pg-boss's), so they commit, or
   * not, with the messages they are for.
   */
  async insert(client: PoolClient, jobs: NewJob[]): Promise<void> {
    if (jobs.length === 0) return;
    const db: Db = { executeSql: (text, values) => client.query(text, values) };
    // Set on each job: a queue made by an earlier version has pg-boss's backoff as its default.
    const recovery = this.#recovery;
    await this.#started.insert(
      DELIVERY_QUEUE,
      jobs.map((job) => ({ ...job, ...recovery })),
      { db },
    );
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
    await this.#boss?.stop({ graceful: true, timeout: Math.max(1000, timeoutMs), close: true });
  }
}
