import type { Pool, PoolClient } from 'pg';
import { onConnection } from '../../db/driver';
import type { Attempt } from './attempt';
import type { DirectMessage, EngineLogger } from './engine-types';
import { retryAt, type DeliveryQueue, type NewJob, type RetrySchedule } from './queue';
import { recordHealth } from './webhook-endpoint.repository';
import { endLeases } from './webhook-fanout.repository';
import { recordFirstAttempts, recordQueuedAttempts } from './webhook-message.repository';

/**
 * First attempts are recorded together: when this many wait, or this long after the first. (A
 * crash loses at most these unrecorded: their messages are sent again once their lease passes.)
 */
const RECORD_BATCH = 500;
const RECORD_DELAY_MS = 100;

export interface RecorderOptions extends RetrySchedule {
  logger: EngineLogger;
  disableAfterHours: number;
}

/** A message whose attempt failed with retries left: its next retry is the `attempts`-th. */
export interface Retry {
  messageId: string;
  seq: number;
  /** Attempts made so far, the failed one included. */
  attempts: number;
}

/**
 * Writes what the attempts did: the messages and their attempts, the endpoints' health, the leases
 * ended and the jobs for what is left to retry, each time in one transaction. The endpoints are
 * held first, so that an endpoint's deletion waits for what is written of it, or makes it miss.
 */
export class Recorder {
  readonly #pool: Pool;
  readonly #queue: DeliveryQueue;
  readonly #options: RecorderOptions;
  /** First attempts made and not yet recorded; messages to hand to the queue instead. */
  #attempted: { direct: DirectMessage; attempt: Attempt }[] = [];
  #handOff: DirectMessage[] = [];
  #timer: NodeJS.Timeout | undefined;
  #recording: Promise<void> = Promise.resolve();

  constructor(pool: Pool, queue: DeliveryQueue, options: RecorderOptions) {
    this.#pool = pool;
    this.#queue = queue;
    this.#options = options;
  }

  /** A first attempt made, to be recorded with its message. */
  attempted(direct: DirectMessage, attempt: Attempt): void {
    this.#attempted.push({ direct, attempt });
    this.#schedule();
  }

  /** A message whose first attempt was not made: it is written and handed to the queue. */
  handOff(direct: DirectMessage): void {
    this.#handOff.push(direct);
    this.#schedule();
  }

  /** Records what waits, and stops waiting for more. */
  async stop(): Promise<void> {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    await this.flush();
  }

  #schedule(): void {
    if (this.#attempted.length + this.#handOff.length >= RECORD_BATCH) {
      clearTimeout(this.#timer);
      this.#timer = undefined;
      void this.flush();
    } else {
      this.#timer ??= setTimeout(() => {
        this.#timer = undefined;
        void this.flush();
      }, RECORD_DELAY_MS);
    }
  }

  /**
   * Writes the messages whose first attempt was made since the last call, in their state after it,
   * with the attempts, and those whose attempt was not made; ends the leases whose messages are all
   * written; and hands to the queue the messages whose attempt failed (to be retried after the
   * first delay) or was not made. A message written meanwhile by a round that found its lease over
   * has its job already: it gets the attempt, and no second job.
   */
  flush(): Promise<void> {
    this.#recording = this.#recording.then(async () => {
      const attempted = this.#attempted.splice(0);
      const handOff = this.#handOff.splice(0);
      if (attempted.length === 0 && handOff.length === 0) return;
      const ended: string[] = [];
      for (const { lease } of [...attempted.map((a) => a.direct), ...handOff]) {
        lease.unrecorded -= 1;
        if (lease.unrecorded === 0) ended.push(lease.id);
      }
      const first = [
        ...attempted.map(({ direct, attempt }) => ({ message: direct.message, attempt })),
        ...handOff.map((direct) => ({ message: direct.message, attempt: undefined })),
      ];
      const attempts = attempted.map(({ attempt }) => attempt);
      try {
        await onConnection(this.#pool, async (client, now) => {
          const endpoints = first.map(({ message }) => message.endpoint.id);
          const present = await this.#health(client, endpoints, attempts, now);
          const pending = await recordFirstAttempts(client, first, present);
          await endLeases(client, ended);
          const jobs: NewJob[] = [
            // The first retry, due by the schedule.
            ...attempted
              .filter(({ direct }) => pending.has(direct.message.id))
              .map(({ direct }) => ({
                data: { message_id: direct.message.id, seq: 0, attempts: 1 },
                startAfter: retryAt(1, now, this.#options),
              })),
            ...handOff
              .filter((d) => pending.has(d.message.id))
              .map((d) => ({
                data: { message_id: d.message.id, seq: Number(d.message.position) },
              })),
          ];
          await this.#queue.insert(client, jobs);
        });
      } catch (error) {
        // Not recorded: the leases stay, and a round makes the messages again once they pass.
        this.#options.logger.warn({ err: error }, 'webhook attempts could not be recorded');
      }
    });
    return this.#recording;
  }

  /**
   * Records attempts made from the queue, messages cancelled, and the jobs of the retries that
   * follow, each due by the schedule; throws if it cannot (the jobs are then retried).
   */
  recordQueued(attempts: Attempt[], cancelled: string[], retries: Retry[] = []): Promise<void> {
    if (attempts.length === 0 && cancelled.length === 0) return Promise.resolve();
    return onConnection(this.#pool, async (client, now) => {
      await this.#health(client, [], attempts, now);
      await recordQueuedAttempts(client, attempts, cancelled);
      await this.#queue.insert(
        client,
        retries.map((retry) => ({
          data: { message_id: retry.messageId, seq: retry.seq, attempts: retry.attempts },
          startAfter: retryAt(retry.attempts, now, this.#options),
        })),
      );
    });
  }

  /**
   * The endpoints' health after `attempts` (reached by one: healthy; every one failed: failing),
   * holding `held`; those of `held` still there. Logs the endpoints that failed.
   */
  #health(client: PoolClient, held: string[], attempts: Attempt[], at: Date): Promise<Set<string>> {
    const healthy = new Set(attempts.filter((a) => a.result.ok).map((a) => a.endpointId));
    const failing = new Set(
      attempts.filter((a) => !a.result.ok && !healthy.has(a.endpointId)).map((a) => a.endpointId),
    );
    for (const id of failing) {
      this.#options.logger.debug({ endpointId: id }, 'webhook delivery failed');
    }
    return recordHealth(client, {
      held: [...new Set(held)],
      healthy: [...healthy],
      failing: [...failing],
      disableAfterHours: this.#options.disableAfterHours,
      at,
    });
  }
}
