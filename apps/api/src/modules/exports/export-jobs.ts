import type { EntityManager } from '@mikro-orm/postgresql';
import type { PoolClient } from 'pg';
import { JobQueue, type JobOutcome, type QueuedJob, type QueueLogger } from '../../db/job-queue';
import { runExport } from './export-runner';
import { failExport } from './export.repository';
import type { ExportQueue } from './export.service';

export const EXPORT_QUEUE = 'export';

interface ExportJob {
  export_id: string;
}

/**
 * A job that fails (its run threw) is retried twice, 10 s apart; one whose process died stops
 * sending heartbeats and is retried after HEARTBEAT_SECONDS. Each try makes the file from scratch.
 */
const RETRY = { retryLimit: 2, retryDelay: 10, retryBackoff: false };
const HEARTBEAT_SECONDS = 10;
/** A run still going after this long is given up and retried: far past any list's size. */
const EXPIRE_SECONDS = 60 * 60;

/**
 * How long an export may stay not done before the sweep marks it failed: past every try of its
 * job (each bounded by EXPIRE_SECONDS) with their delays.
 */
export const STALLED_AFTER_MS = (RETRY.retryLimit + 1) * (EXPIRE_SECONDS + RETRY.retryDelay) * 1000;

export interface ExportJobsOptions {
  databaseUrl: string;
  logger: QueueLogger;
  /** The ORM's entity manager (its pool) the runs read and write with. */
  em: EntityManager;
  /** How long a file is kept once made. */
  retentionMs: number;
  /** Exports this process makes at once (0: it makes none, only adds jobs). */
  concurrency: number;

  /** Text per chunk of a file (CHUNK_BYTES by default; smaller in tests, for many chunks). */
  chunkBytes?: number;
}

/**
 * The export queue: every replica adds jobs to it, and each one that makes exports (`concurrency`
 * above 0) takes its share. An export is made in this process, on the event loop between awaits:
 * the rows come from the database in batches, and compressing them (the heavy part) runs on
 * libuv's thread pool (zlib), so a request waits at most for the rendering of one batch.
 */
export class ExportJobs implements ExportQueue {
  readonly #options: ExportJobsOptions;
  readonly #queue: JobQueue;
  #started: Promise<void> | undefined;

  constructor(options: ExportJobsOptions) {
    this.#options = options;
    this.#queue = new JobQueue({
      databaseUrl: options.databaseUrl,
      logger: options.logger,
      applicationName: 'boxoffice-exports',
      poolSize: 2,
      // A job whose process died is found within this long after its heartbeat stopped.
      checkIntervalSeconds: HEARTBEAT_SECONDS,
    });
  }

  /**
   * Starts the queue (once: later calls share the first), loading pg-boss then; a start that
   * failed is tried again by the next call.
   */
  start(): Promise<void> {
    this.#started ??= this.#start().catch((error: unknown) => {
      this.#started = undefined;
      throw error;
    });
    return this.#started;
  }

  async #start(): Promise<void> {
    await this.#queue.start();
    await this.#queue.createQueue(EXPORT_QUEUE, {
      ...RETRY,
      expireInSeconds: EXPIRE_SECONDS,
      heartbeatSeconds: HEARTBEAT_SECONDS,
      deleteAfterSeconds: 24 * 3600,
      retentionSeconds: 7 * 24 * 3600,
    });
    if (this.#options.concurrency > 0) {
      await this.#queue.work<ExportJob>(
        EXPORT_QUEUE,
        { batchSize: 1, localConcurrency: this.#options.concurrency, pollingIntervalSeconds: 1 },
        (jobs) => Promise.all(jobs.map((job) => this.#run(job))),
      );
    }
  }

  /** Adds the job of export `id` in the transaction of `client`, starting the queue if need be. */
  async enqueue(client: PoolClient, id: string): Promise<void> {
    // A queue that cannot start makes the insert a 503, which the request may try again.
    await this.start().catch(() => undefined);
    return this.#queue.insert<ExportJob>(
      client,
      EXPORT_QUEUE,
      [{ data: { export_id: id } }],
      RETRY,
    );
  }

  async #run(job: QueuedJob<ExportJob>): Promise<JobOutcome> {
    const { em, logger, retentionMs, chunkBytes } = this.#options;
    const id = job.data.export_id;
    try {
      await runExport(em, id, { retentionMs, chunkBytes });
      return { id: job.id, ok: true };
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      logger.warn({ err: error, exportId: id, retry: job.retryCount }, 'export run failed');
      if (job.retryCount >= RETRY.retryLimit) {
        // The last try: the export says so, and the job is done.
        await failExport(em, id, 'the export could not be made; make a new export', new Date());
        return { id: job.id, ok: true };
      }
      return { id: job.id, ok: false, error: message };
    }
  }

  /** Lets the runs in hand finish (within `timeoutMs`); a run cut off is made again elsewhere. */
  async stop(timeoutMs: number): Promise<void> {
    // A start under way ends first, so that nothing is left running after the stop.
    await this.#started?.catch(() => undefined);
    await this.#queue.stop(timeoutMs);
  }
}
