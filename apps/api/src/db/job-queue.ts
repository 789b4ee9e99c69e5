import type { Db, Job, JobResult, PgBoss } from 'pg-boss';
import type { PoolClient } from 'pg';
import { serviceUnavailable } from '../core/errors';

/**
 * The PostgreSQL job queue (pg-boss): the one file that knows it. Every replica takes its share of
 * a queue's jobs, each job held by one replica at a time; a job whose replica dies is taken again
 * (its `expireInSeconds`, or the missing `heartbeatSeconds` of a long job). pg-boss keeps its
 * tables in a schema of its own, which nothing else reads or writes. The webhook deliveries
 * (modules/webhooks/queue.ts) and the exports (modules/exports/export-jobs.ts) each run one.
 */
export const QUEUE_SCHEMA = 'pgboss';

/** What the queue's users log through (pino's shape). */
export interface QueueLogger {
  warn(details: object, message: string): void;
}

/** How a queue keeps and retries its jobs: pg-boss's queue options, the ones this API uses. */
export interface QueuePolicy {
  /** Retries after the first try. */
  retryLimit: number;
  /** Seconds before a retry. */
  retryDelay: number;
  /** pg-boss's own backoff: off unless asked for. */
  retryBackoff?: boolean;
  /** A job still held after this long is given up by its worker and retried. */
  expireInSeconds: number;
  /**
   * A job's worker proves it is alive this often (pg-boss does it while the handler runs); a job
   * without news for this long (its replica died) is retried. At least 10.
   */
  heartbeatSeconds?: number;
  /** How long finished jobs are kept. */
  deleteAfterSeconds: number;
  /** How long unfinished jobs are kept. */
  retentionSeconds: number;
}

/** A job as a worker receives it: `retryCount` is how many times it was tried before. */
export type QueuedJob<T> = Pick<Job<T>, 'id' | 'data' | 'retryCount'>;

/** What became of a job: done, or failed (retried while the queue's policy allows). */
export interface JobOutcome {
  id: string;
  ok: boolean;
  error?: string | null;
}

/** A job to add: its data, and when it falls due (now when absent). */
export interface NewJob<T> {
  data: T;
  startAfter?: Date;
}

export interface JobQueueOptions {
  databaseUrl: string;
  logger: QueueLogger;
  /** The `application_name` of its connections, as PostgreSQL's activity lists them. */
  applicationName: string;
  /** Its pool's size. */
  poolSize: number;
  /** Seconds between pg-boss's checks for jobs past their expiry or heartbeat (60 by default). */
  checkIntervalSeconds?: number;
}

export interface WorkOptions {
  /** Jobs a worker takes at once. */
  batchSize: number;
  /** Workers of this process on the queue. */
  localConcurrency?: number;
  /** Seconds between polls for jobs (besides the NOTIFY of new ones). */
  pollingIntervalSeconds: number;
  /** Another batch at once when a batch was full. */
  burstWhenBatchFull?: boolean;
}

/** One pg-boss instance, with its own pool, and the queues it creates, fills and works. */
export class JobQueue {
  readonly #options: JobQueueOptions;
  #boss: PgBoss | undefined;

  constructor(options: JobQueueOptions) {
    this.#options = options;
  }

  get #started(): PgBoss {
    if (!this.#boss)
      throw new Error(`the job queue (${this.#options.applicationName}) is not started`);
    return this.#boss;
  }

  /** Starts pg-boss (creating or migrating its schema, if need be). */
  async start(): Promise<void> {
    const options = this.#options;
    // Loaded here, when a queue starts: its code costs nothing before.
    const { PgBoss } = await import('pg-boss');
    const boss = new PgBoss({
      connectionString: options.databaseUrl,
      schema: QUEUE_SCHEMA,
      max: options.poolSize,
      application_name: options.applicationName,
      useListenNotify: true,
      schedule: false,
      ...(options.checkIntervalSeconds === undefined
        ? {}
        : {
            superviseIntervalSeconds: options.checkIntervalSeconds,
            monitorIntervalSeconds: options.checkIntervalSeconds,
          }),
    });
    this.#boss = boss;
    boss.on('error', (error: unknown) =>
      options.logger.warn({ err: error }, `job queue error (${options.applicationName})`),
    );
    await boss.start();
  }

  /** Creates queue `name` with `policy`, unless it exists (made by another replica, or earlier). */
  async createQueue(name: string, policy: QueuePolicy): Promise<void> {
    const boss = this.#started;
    if (await boss.getQueue(name)) return;
    await boss.createQueue(name, { ...policy, notify: true }).catch(async (error: unknown) => {
      // Another replica created it at the same moment.
      if (!(await boss.getQueue(name))) throw error;
    });
  }

  /** Works queue `name` with `handle`, which says what became of each job of a batch. */
  async work<T>(
    name: string,
    options: WorkOptions,
    handle: (jobs: QueuedJob<T>[]) => Promise<JobOutcome[]>,
  ): Promise<void> {
    await this.#started.work<
      T,
      unknown,
      {
        batchSize: number;
        perJobResults: true;
        pollingIntervalSeconds: number;
        notifyPollingIntervalSeconds: number;
        burstWhenBatchFull: boolean;
        localConcurrency: number;
      }
    >(
      name,
      {
        batchSize: options.batchSize,
        perJobResults: true,
        pollingIntervalSeconds: options.pollingIntervalSeconds,
        // New jobs wake the worker at once (NOTIFY); retries falling due are found by this poll.
        notifyPollingIntervalSeconds: Math.max(1, options.pollingIntervalSeconds),
        burstWhenBatchFull: options.burstWhenBatchFull ?? false,
        localConcurrency: options.localConcurrency ?? 1,
      },
      async (jobs): Promise<JobResult[]> =>
        (await handle(jobs)).map(({ id, ok, error }) =>
          ok ? { id, status: 'completed' } : { id, status: 'failed', output: { error } },
        ),
    );
  }

  /**
   * Adds jobs to queue `name` in the transaction `client` is in (one of ours, not pg-boss's), so
   * they commit, or not, with the rows they are for. `policy` is set on each job (a queue made by
   * an earlier version may have other defaults).
   */
  async insert<T extends object>(
    client: PoolClient,
    name: string,
    jobs: NewJob<T>[],
    policy: Pick<QueuePolicy, 'retryLimit' | 'retryDelay' | 'retryBackoff'>,
  ): Promise<void> {
    if (jobs.length === 0) return;
    // Not started yet (or failed to): the request that adds the job may be tried again.
    if (!this.#boss) throw serviceUnavailable();
    const db: Db = { executeSql: (text, values) => client.query(text, values) };
    await this.#started.insert(
      name,
      jobs.map((job) => ({ ...job, ...policy })),
      { db },
    );
  }

  /** Lets the jobs in hand finish (within `timeoutMs`), and closes pg-boss's pool. */
  async stop(timeoutMs: number): Promise<void> {
    await this.#boss?.stop({ graceful: true, timeout: Math.max(1000, timeoutMs), close: true });
  }
}
