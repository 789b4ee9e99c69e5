import type { EntityManager } from '@mikro-orm/postgresql';
import type { Db as IDatabase, Job, JobResult, PgBoss } from 'pg-boss';
import { newId } from '../../core/ids';
import { deliver, type DeliveryResult } from './delivery';
import { signedHeaders } from './signing';
import { signingSecrets } from './webhook-endpoint.service';
import type { UrlPolicy } from './url-guard';

export const DELIVERY_QUEUE = 'webhook-delivery';
/** pg-boss keeps its tables in a schema of its own. */
export const QUEUE_SCHEMA = 'pgboss';

/** What the engine logs with: pino's logger, or one that hands the lines to another thread's. */
export interface EngineLogger {
  warn(fields: object, message: string): void;
  debug(fields: object, message: string): void;
}

export interface WebhookEngineOptions extends UrlPolicy {
  databaseUrl: string;
  logger: EngineLogger;
  /** A delivery's answer must arrive within this long. */
  timeoutMs: number;
  /** The first retry's delay; each later one doubles (with jitter), up to `maxRetryDelaySeconds`. */
  retryDelaySeconds: number;
  maxRetryDelaySeconds: number;
  /** Retries after the first attempt (together about `disableAfterHours`). */
  retryLimit: number;
  /** An endpoint failing without a success for this long is disabled. */
  disableAfterHours: number;
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
 * The retry schedule: `retryLimit` retries whose delays double from `retryDelaySeconds` (each
 * drawn between half and all of its value, so receivers coming back are not hit all at once) and
 * stop growing at `maxRetryDelaySeconds`. The defaults add up to about three days.
 */
export const DEFAULT_RETRY = {
  retryDelaySeconds: 10,
  maxRetryDelaySeconds: 4 * 3600,
  retryLimit: 28,
};

interface JobData {
  message_id: string;
  /** The change record's position (or 0): the order of delivery within a batch. */
  seq: number;
  /** Queued after a failed first attempt sent at once (that attempt counts against the limit). */
  after_direct?: boolean;
}

interface MessageToSend {
  id: string;
  endpoint_id: string;
  payload: string | null;
  status: 'pending' | 'delivered' | 'failed' | 'cancelled';
  url: string;
  endpoint_status: 'enabled' | 'disabled';
  secret: string;
  previous_secret: string | null;
  previous_secret_expires_at: Date | null;
}

interface Attempt {
  messageId: string;
  endpointId: string;
  at: Date;
  result: DeliveryResult;
  final: boolean;
}

/**
 * A message's body: its head (`id`, `type`, `created_at`) and the change record's object, as the
 * API rendered it. Made here for the first attempt, and by MESSAGE_PAYLOAD in SQL, to the byte, for
 * the queue's.
 */
function messagePayload(id: string, type: string, createdAt: Date, object: string): string {
  const head = JSON.stringify({ id, type, created_at: createdAt.toISOString() });
  return `${head.slice(0, -1)},"data":{"object":${object}}}`;
}

/** The body of message `m` with its change record `r` (stored as it is for test events). */
const MESSAGE_PAYLOAD = `coalesce(m.payload,
  '{"id":' || to_json(m.id)::text || ',"type":' || to_json(m.type)::text
  || ',"created_at":' || to_json(to_char(m.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))::text
  || ',"data":{"object":' || r.data::text || '}}')`;

const FANOUT_BATCH = 500;
const DELIVERY_BATCH = 25;

/**
 * A message the fan-out's replica sends itself must have its first attempt within this long of
 * being made; past it (the replica stopped or crashed) a later round hands it to the queue.
 */
const DIRECT_LEASE_SECONDS = 60;
/** Room left at the end of the lease: an attempt not started by then is handed to the queue. */
const DIRECT_LEASE_MARGIN_MS = 15_000;
/** How often an engine that follows its process's commits looks for others' changes. */
const FOLLOWING_IDLE_POLL_MS = 2000;
/** Messages waiting in this process for their first attempt, in all and per endpoint. */
const DIRECT_BACKLOG = 5000;
const DIRECT_BACKLOG_PER_ENDPOINT = 500;
/**
 * First attempts are recorded together: when this many wait, or this long after the first. (A
 * crash loses at most these unrecorded: their messages are sent again once their lease passes.)
 */
const RECORD_BATCH = 500;
const RECORD_DELAY_MS = 100;

/** The endpoint a message goes to, as the fan-out read it. */
interface Endpoint {
  id: string;
  url: string;
  secret: string;
  previous_secret: string | null;
  previous_secret_expires_at: Date | null;
  failing_since: Date | null;
}

/** A message waiting in this process for its first attempt. */
interface DirectMessage {
  id: string;
  endpoint: Endpoint;
  payload: string;
  /** The time (this process's clock) after which its first attempt is left to the queue. */
  sendBy: number;
}

/** One endpoint's messages to send at once, one after another in the order they were made. */
interface DirectLine {
  waiting: DirectMessage[];
  sending: Promise<void> | undefined;
}

/**
 * Webhook delivery in one process: the fan-out, which turns committed change records into
 * messages, one per matching endpoint; and their sending. A message to a healthy endpoint is sent
 * at once by the replica that made it, after the fan-out's transaction commits, and recorded;
 * only when that attempt fails is it handed to the job queue (pg-boss: every replica takes its
 * own share, each job held by one replica at a time), which retries it with backoff. Messages to
 * endpoints that are failing, resends and test events go to the queue from the start. A message
 * whose first attempt never happened (its replica crashed) is handed to the queue once its lease
 * (`direct_until`) has passed.
 */
export class WebhookEngine {
  readonly #options: WebhookEngineOptions;
  #queue: PgBoss | undefined;
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
  /** First attempts to make at once, per endpoint. */
  readonly #direct = new Map<string, DirectLine>();
  /** First attempts made and not yet recorded; messages to hand to the queue instead. */
  #attempted: Attempt[] = [];
  #handOff: string[] = [];
  #recordTimer: NodeJS.Timeout | undefined;
  #recording: Promise<void> = Promise.resolve();

  constructor(options: WebhookEngineOptions) {
    this.#options = options;
    this.#followingCommits = options.followsCommits ?? false;
  }

  get #boss(): PgBoss {
    if (!this.#queue) throw new Error('the webhook engine is not started');
    return this.#queue;
  }

  async start(): Promise<void> {
    // Loaded here, after the server listens: the queue's code costs nothing at start-up.
    const { PgBoss } = await import('pg-boss');
    this.#queue = new PgBoss({
      connectionString: this.#options.databaseUrl,
      schema: QUEUE_SCHEMA,
      max: 4,
      application_name: 'boxoffice-webhooks',
      useListenNotify: true,
      schedule: false,
    });
    this.#queue.on('error', (error: unknown) =>
      this.#options.logger.warn({ err: error }, 'webhook queue error'),
    );
    await this.#boss.start();
    const existing = await this.#boss.getQueue(DELIVERY_QUEUE);
    if (!existing) {
      await this.#boss
        .createQueue(DELIVERY_QUEUE, {
          retryLimit: this.#options.retryLimit,
          retryDelay: this.#options.retryDelaySeconds,
          retryBackoff: true,
          retryDelayMax: this.#options.maxRetryDelaySeconds,
          // Longer than a batch can take (DELIVERY_BATCH timeouts): past it the job is retried.
          expireInSeconds: Math.max(
            60,
            Math.ceil((DELIVERY_BATCH * this.#options.timeoutMs) / 1000) + 60,
          ),
          // Attempts are kept in webhook_attempts; the queue's own rows need not stay long.
          deleteAfterSeconds: 24 * 3600,
          retentionSeconds: 14 * 24 * 3600,
          notify: true,
        })
        .catch(async (error: unknown) => {
          // Another replica created it at the same moment.
          if (!(await this.#boss.getQueue(DELIVERY_QUEUE))) throw error;
        });
    }
    await this.#boss.work<
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
      (jobs) => this.#deliverBatch(jobs),
    );
    this.#started = true;
    this.#schedule(0);
  }

  /** Stops taking work, lets the deliveries in flight finish (within `timeoutMs` in all), and closes. */
  async stop(timeoutMs = 10_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    this.#stopping = true;
    clearTimeout(this.#timer);
    await this.#fanningOut;
    // Attempts under way finish (the rest of each line is handed to the queue), up to timeoutMs;
    // whatever is still unsent after that is handed over when its lease passes.
    const lines = [...this.#direct.values()].flatMap((line) => line.sending ?? []);
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.all(lines),
      new Promise((resolve) => (timer = setTimeout(resolve, deadline - Date.now()))),
    ]);
    clearTimeout(timer);
    clearTimeout(this.#recordTimer);
    await this.#flush();
    await this.#queue?.stop({
      graceful: true,
      timeout: Math.max(1000, deadline - Date.now()),
      close: true,
    });
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

  /**
   * One round of the fan-out; how many change records it read (a full batch: there may be more).
   * One replica at a time holds the fan-out's row (`for update skip locked`: the others skip the
   * round).
   *
   * Change records are read in the order of (transaction id, position), and only those of
   * transactions older than the oldest still running: no record can later appear before the
   * stored place, so none is passed over, however late its transaction commits.
   */
  async fanOut(): Promise<number> {
    const db = this.#boss.getDb();
    const tx = await db.beginTransaction!();
    try {
      const { rows: state } = await tx.db.executeSql(
        `select transaction_id::text as tx, position::text as pos from webhook_fanout_state
          where id = 1 for update skip locked`,
      );
      const place = state[0] as { tx: string; pos: string } | undefined;
      if (!place) {
        await tx.rollback();
        return 0;
      }
      // The batch's size and last place, and its records that an endpoint takes, with their
      // objects (read for those alone). A round among changes no endpoint subscribes to reads the
      // batch in PostgreSQL and sends one row.
      const { rows } = await tx.db.executeSql(
        `with batch as (
           select position, transaction_id, organisation_id, type, created_at from change_records
            where (transaction_id, position) > ($1::xid8, $2::bigint)
              and transaction_id < pg_snapshot_xmin(pg_current_snapshot())
            order by transaction_id, position
            limit $3
         ),
         summary as (
           select count(*)::int as read,
                  (array_agg(transaction_id::text order by transaction_id desc, position desc))[1] as tx,
                  (array_agg(position::text order by transaction_id desc, position desc))[1] as pos
             from batch
         ),
         matched as (
           select b.transaction_id, b.position, b.organisation_id, b.type, b.created_at,
                  e.id as endpoint_id, e.url, e.secret, e.previous_secret,
                  e.previous_secret_expires_at, e.failing_since
             from batch b
             -- An endpoint receives the changes made since it was registered.
             join webhook_endpoints e
               on e.organisation_id = b.organisation_id and e.status = 'enabled'
              and (e.events @> array['*'] or e.events @> array[b.type])
              and e.created_at <= b.created_at
           -- Held until the messages are made: deleting the endpoint waits, then deletes them.
           for key share of e
         )
         select r.read, r.tx as last_tx, r.pos as last_pos, m.position::text as pos,
                m.organisation_id, m.type, m.created_at, m.endpoint_id, m.url, m.secret,
                m.previous_secret, m.previous_secret_expires_at, m.failing_since,
                c.data::text as data
           from summary r left join matched m on true
           left join change_records c on c.position = m.position
          order by m.transaction_id, m.position, m.endpoint_id`,
        [place.tx, place.pos, FANOUT_BATCH],
      );
      const batch = rows as BatchRow[];
      const read = batch[0]?.read ?? 0;
      const messages = this.#messagesFor(batch);
      // Sent at once by this replica: messages to endpoints not failing, while it has room.
      const direct: NewMessage[] = [];
      const queued: NewMessage[] = [];
      const added = new Map<string, number>();
      let backlog = 0;
      for (const line of this.#direct.values()) backlog += line.waiting.length;
      for (const message of messages) {
        const endpointId = message.endpoint.id;
        const waiting =
          (this.#direct.get(endpointId)?.waiting.length ?? 0) + (added.get(endpointId) ?? 0);
        const room =
          !this.#stopping &&
          message.endpoint.failing_since === null &&
          backlog + direct.length < DIRECT_BACKLOG &&
          waiting < DIRECT_BACKLOG_PER_ENDPOINT;
        if (room) {
          direct.push(message);
          added.set(endpointId, (added.get(endpointId) ?? 0) + 1);
        } else {
          queued.push(message);
        }
      }
      const isDirect = new Set(direct);
      if (messages.length > 0) {
        await tx.db.executeSql(
          // The payload is the change record's object with the message's head: composed again
          // from the record when the queue sends it (MESSAGE_PAYLOAD), not stored twice.
          `insert into webhook_messages (id, endpoint_id, organisation_id, type, change_position,
                                         queued, direct_until, created_at)
           select id, endpoint_id, organisation_id, type, position, true,
                  case when direct then now() + make_interval(secs => $8) end, created_at
             from unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::bigint[],
                         $6::timestamptz[], $7::bool[])
               as m(id, endpoint_id, organisation_id, type, position, created_at, direct)`,
          [
            messages.map((m) => m.id),
            messages.map((m) => m.endpoint.id),
            messages.map((m) => m.organisationId),
            messages.map((m) => m.type),
            messages.map((m) => m.position),
            messages.map((m) => m.createdAt),
            messages.map((m) => isDirect.has(m)),
            DIRECT_LEASE_SECONDS,
          ],
        );
      }
      const requested = await this.#requestedMessages(tx.db);
      const jobs = [
        ...queued.map((m) => ({ message_id: m.id, seq: Number(m.position) })),
        ...requested.map((id) => ({ message_id: id, seq: 0 })),
      ];
      if (jobs.length > 0) {
        await this.#boss.insert(
          DELIVERY_QUEUE,
          jobs.map((data) => ({ data })),
          { db: tx.db },
        );
      }
      if (read > 0) {
        await tx.db.executeSql(
          `update webhook_fanout_state set transaction_id = $1::xid8, position = $2::bigint,
             updated_at = now() where id = 1`,
          [batch[0]!.last_tx, batch[0]!.last_pos],
        );
      }
      await tx.commit();
      this.#sendAtOnce(direct);
      return read;
    } catch (error) {
      await tx.rollback();
      throw error;
    }
  }

  /** One message per record of the batch and endpoint that takes it (`BatchRow`s with a match). */
  #messagesFor(batch: BatchRow[]): NewMessage[] {
    const endpoints = new Map<string, Endpoint>();
    const messages: NewMessage[] = [];
    for (const row of batch) {
      // No match in the batch; or the record purged meanwhile (past its retention): nothing to send.
      if (row.pos === null || row.data === null) continue;
      let endpoint = endpoints.get(row.endpoint_id);
      if (!endpoint) {
        endpoint = {
          id: row.endpoint_id,
          url: row.url,
          secret: row.secret,
          previous_secret: row.previous_secret,
          previous_secret_expires_at: row.previous_secret_expires_at,
          failing_since: row.failing_since,
        };
        endpoints.set(row.endpoint_id, endpoint);
      }
      const id = newId('webhookMessage');
      messages.push({
        id,
        endpoint,
        organisationId: row.organisation_id,
        type: row.type,
        payload: messagePayload(id, row.type, row.created_at, row.data),
        position: row.pos,
        createdAt: row.created_at,
      });
    }
    return messages;
  }

  /**
   * Messages made outside the fan-out (resends, test events), and those whose first attempt a
   * replica took on and never made (its lease is over), handed to the queue now. (The ids are
   * picked first, so each update reads the rows it changes by their key whatever the planner
   * believes of the table's size.)
   */
  async #requestedMessages(db: IDatabase): Promise<string[]> {
    const { rows } = await db.executeSql(
      `with requested as (
         update webhook_messages set queued = true
          where id = any(array(select id from webhook_messages where not queued
                                order by created_at limit 500 for update skip locked))
          returning id
       ),
       orphaned as (
         update webhook_messages set direct_until = null
          where id = any(array(select id from webhook_messages where direct_until < now()
                                order by direct_until limit 500 for update skip locked))
            and status = 'pending'
          returning id
       )
       select id from requested union all select id from orphaned`,
    );
    return (rows as { id: string }[]).map((row) => row.id);
  }

  /** Queues the first attempts of messages made by this round's fan-out, one line per endpoint. */
  #sendAtOnce(messages: NewMessage[]): void {
    if (messages.length === 0) return;
    const now = Date.now();
    const sendBy = Math.max(
      now + DIRECT_LEASE_SECONDS * 1000 - DIRECT_LEASE_MARGIN_MS - this.#options.timeoutMs,
      now,
    );
    for (const message of messages) {
      const endpointId = message.endpoint.id;
      let line = this.#direct.get(endpointId);
      if (!line) {
        line = { waiting: [], sending: undefined };
        this.#direct.set(endpointId, line);
      }
      line.waiting.push({
        id: message.id,
        endpoint: message.endpoint,
        payload: message.payload,
        sendBy,
      });
      line.sending ??= this.#sendLine(endpointId, line);
    }
  }

  /** Sends one endpoint's waiting messages one after another, in the order they were made. */
  async #sendLine(endpointId: string, line: DirectLine): Promise<void> {
    for (let message = line.waiting.shift(); message; message = line.waiting.shift()) {
      // Stopping, or too late for the lease: the queue sends it.
      if (this.#stopping || Date.now() > message.sendBy) {
        this.#handOff.push(message.id);
      } else {
        try {
          const { at, result } = await this.#attempt(message.id, message.endpoint, message.payload);
          this.#attempted.push({
            messageId: message.id,
            endpointId,
            at,
            result,
            final: !result.ok && this.#options.retryLimit === 0,
          });
        } catch (error) {
          this.#options.logger.warn({ err: error, messageId: message.id }, 'webhook not sent');
          this.#handOff.push(message.id);
        }
      }
      this.#scheduleRecord();
    }
    this.#direct.delete(endpointId);
  }

  /** Signs `body` as message `id` with the endpoint's secrets of the moment, and sends it. */
  async #attempt(
    id: string,
    endpoint: Pick<Endpoint, 'url' | 'secret' | 'previous_secret' | 'previous_secret_expires_at'>,
    body: string,
  ): Promise<{ at: Date; result: DeliveryResult }> {
    const at = new Date();
    const headers = signedHeaders(id, body, signingSecrets(endpoint, at), at);
    const result = await deliver(endpoint.url, body, headers, {
      timeoutMs: this.#options.timeoutMs,
      allowHttp: this.#options.allowHttp,
      allowPrivate: this.#options.allowPrivate,
    });
    this.#options.onAttempt?.(result.ok ? 'succeeded' : 'failed');
    return { at, result };
  }

  #scheduleRecord(): void {
    if (this.#attempted.length + this.#handOff.length >= RECORD_BATCH) {
      clearTimeout(this.#recordTimer);
      this.#recordTimer = undefined;
      void this.#flush();
    } else {
      this.#recordTimer ??= setTimeout(() => {
        this.#recordTimer = undefined;
        void this.#flush();
      }, RECORD_DELAY_MS);
    }
  }

  /**
   * Records the first attempts made since the last call, and hands to the queue the messages whose
   * attempt failed (to be retried after the first delay) or was not made, in one transaction. A
   * message the queue already took (its lease passed meanwhile) is not queued twice.
   */
  #flush(): Promise<void> {
    this.#recording = this.#recording.then(async () => {
      const attempts = this.#attempted.splice(0);
      const handOff = this.#handOff.splice(0);
      if (attempts.length === 0 && handOff.length === 0) return;
      const failed = attempts.filter((a) => !a.result.ok && !a.final).map((a) => a.messageId);
      let tx: Awaited<ReturnType<NonNullable<IDatabase['beginTransaction']>>> | undefined;
      try {
        // The usual case, every attempt a success: one statement, no transaction around it.
        if (failed.length === 0 && handOff.length === 0) {
          await this.#record(this.#boss.getDb(), attempts, []);
          return;
        }
        tx = await this.#boss.getDb().beginTransaction!();
        const { rows } = await tx.db.executeSql(
          `update webhook_messages set direct_until = null
            where id = any($1::text[]) and direct_until is not null and status = 'pending'
            returning id`,
          [[...failed, ...handOff]],
        );
        const toQueue = new Set((rows as { id: string }[]).map((row) => row.id));
        await this.#record(tx.db, attempts, []);
        const { retryDelaySeconds, retryLimit } = this.#options;
        const jobs = [
          // The queue's first try comes after the first retry delay (its own retries then double
          // from twice that), so the attempts follow the schedule of a message queued from the
          // start; the attempt made here counts against the limit.
          ...failed
            .filter((id) => toQueue.has(id))
            .map((id) => ({
              data: { message_id: id, seq: 0, after_direct: true },
              startAfter: new Date(Date.now() + retryDelaySeconds * 1000 * (1 + Math.random())),
              retryLimit: retryLimit - 1,
              retryDelay: retryDelaySeconds * 2,
            })),
          ...handOff
            .filter((id) => toQueue.has(id))
            .map((id) => ({ data: { message_id: id, seq: 0 } })),
        ];
        if (jobs.length > 0) await this.#boss.insert(DELIVERY_QUEUE, jobs, { db: tx.db });
        await tx.commit();
      } catch (error) {
        await tx?.rollback().catch(() => undefined);
        // Not recorded: the messages stay leased, and the queue sends them again once it passes.
        this.#options.logger.warn({ err: error }, 'webhook attempts could not be recorded');
      }
    });
    return this.#recording;
  }

  async #deliverBatch(jobs: Job<JobData>[]): Promise<JobResult[]> {
    const db = this.#boss.getDb();
    const ordered = [...jobs].sort(
      (a, b) => a.data.seq - b.data.seq || (a.data.message_id < b.data.message_id ? -1 : 1),
    );
    const { rows } = await db.executeSql(
      `select m.id, m.endpoint_id, ${MESSAGE_PAYLOAD} as payload, m.status, e.url,
              e.status as endpoint_status, e.secret, e.previous_secret, e.previous_secret_expires_at
         from webhook_messages m join webhook_endpoints e on e.id = m.endpoint_id
         left join change_records r on r.position = m.change_position
        where m.id = any($1::text[])`,
      [ordered.map((job) => job.data.message_id)],
    );
    const messages = new Map((rows as MessageToSend[]).map((row) => [row.id, row]));
    const byEndpoint = new Map<
      string,
      { job: Job<JobData>; message: MessageToSend; body: string }[]
    >();
    const results: JobResult[] = [];
    const cancelled: string[] = [];
    for (const job of ordered) {
      const message = messages.get(job.data.message_id);
      // Deleted with its endpoint, or already delivered at once: nothing to send.
      if (!message || message.status === 'delivered') {
        results.push({ id: job.id, status: 'completed' });
        continue;
      }
      // Its endpoint disabled, or its change record purged (past its retention, as the message
      // nearly is): cancelled.
      if (message.endpoint_status !== 'enabled' || message.payload === null) {
        cancelled.push(message.id);
        results.push({ id: job.id, status: 'completed' });
        continue;
      }
      const queue = byEndpoint.get(message.endpoint_id) ?? [];
      queue.push({ job, message, body: message.payload });
      byEndpoint.set(message.endpoint_id, queue);
    }

    // Endpoints side by side; each endpoint's messages one after another, in change order.
    const attempts: Attempt[] = [];
    await Promise.all(
      [...byEndpoint.values()].map(async (queue) => {
        for (const { job, message, body } of queue) {
          const { at, result } = await this.#attempt(message.id, message, body);
          const attemptsBefore = job.retryCount + (job.data.after_direct ? 1 : 0);
          const final = !result.ok && attemptsBefore >= this.#options.retryLimit;
          attempts.push({
            messageId: message.id,
            endpointId: message.endpoint_id,
            at,
            result,
            final,
          });
          results.push({
            id: job.id,
            status: result.ok ? 'completed' : 'failed',
            ...(result.ok ? {} : { output: { error: result.error } }),
          });
        }
      }),
    );
    await this.#record(db, attempts, cancelled);
    return results;
  }

  /**
   * The messages' state, the attempts and the endpoints' health, in one statement. (The messages
   * are also matched by `id = any(…)`, so they are read by key even while the table's statistics
   * still describe it as nearly empty, as after a quiet spell.)
   */
  async #record(db: IDatabase, attempts: Attempt[], cancelled: string[]): Promise<void> {
    if (attempts.length === 0 && cancelled.length === 0) return;
    const healthy = [...new Set(attempts.filter((a) => a.result.ok).map((a) => a.endpointId))];
    const failing = [
      ...new Set(attempts.filter((a) => !a.result.ok).map((a) => a.endpointId)),
    ].filter((id) => !healthy.includes(id));
    await db.executeSql(
      `with messages as (
         update webhook_messages m
            set attempt_count = m.attempt_count + 1,
                direct_until = null,
                status = case when a.ok then 'delivered' when a.final then 'failed' else 'pending' end,
                delivered_at = case when a.ok then a.at else m.delivered_at end
           from unnest($1::text[], $9::bool[], $10::bool[], $3::timestamptz[]) as a(id, ok, final, at)
          where m.id = a.id and m.id = any($1::text[])
          returning m.id
       ),
       attempts as (
         insert into webhook_attempts (message_id, endpoint_id, attempted_at, outcome, status_code,
                                       duration_ms, error, response_excerpt)
         select a.* from unnest($1::text[], $2::text[], $3::timestamptz[], $4::text[], $5::int[],
                                $6::int[], $7::text[], $8::text[])
                  as a(message_id, endpoint_id, attempted_at, outcome, status_code, duration_ms,
                       error, response_excerpt)
           -- Only with the update of its message: one deleted meanwhile (with its endpoint, whose
           -- deletion waits for this update or makes it miss) keeps no attempt.
           join messages m on m.id = a.message_id
       ),
       cancelled as (
         update webhook_messages set status = 'cancelled' where id = any($11::text[])
       ),
       healthy as (
         update webhook_endpoints set failing_since = null
          where id = any($12::text[]) and failing_since is not null
       )
       update webhook_endpoints
          set failing_since = coalesce(failing_since, now()),
              status = case when failing_since < now() - make_interval(hours => $14) then 'disabled' else status end,
              disabled_reason = case when failing_since < now() - make_interval(hours => $14)
                then 'every delivery failed for ' || $14 || ' hours' else disabled_reason end,
              updated_at = case when failing_since < now() - make_interval(hours => $14) then now() else updated_at end
        where id = any($13::text[]) and status = 'enabled'`,
      [
        attempts.map((a) => a.messageId),
        attempts.map((a) => a.endpointId),
        attempts.map((a) => a.at),
        attempts.map((a) => (a.result.ok ? 'succeeded' : 'failed')),
        attempts.map((a) => a.result.statusCode),
        attempts.map((a) => a.result.durationMs),
        attempts.map((a) => a.result.error),
        attempts.map((a) => a.result.responseExcerpt),
        attempts.map((a) => a.result.ok),
        attempts.map((a) => a.final),
        cancelled,
        healthy,
        failing,
        this.#options.disableAfterHours,
      ],
    );
    for (const id of failing) {
      this.#options.logger.debug({ endpointId: id }, 'webhook delivery failed');
    }
  }
}

/**
 * A row of the fan-out's read: the batch's size and last place, and, unless the batch matched no
 * endpoint, one record (its head) with one endpoint that takes it.
 */
type BatchRow = {
  read: number;
  last_tx: string | null;
  last_pos: string | null;
} & ({ pos: null } | MatchedRecord);

/**
 * A record (`pos`: its position; `data`: its object, null if purged meanwhile) and an endpoint
 * that takes it: what its delivery needs.
 */
interface MatchedRecord {
  pos: string;
  data: string | null;
  organisation_id: string;
  type: string;
  created_at: Date;
  endpoint_id: string;
  url: string;
  secret: string;
  previous_secret: string | null;
  previous_secret_expires_at: Date | null;
  failing_since: Date | null;
}

interface NewMessage {
  id: string;
  endpoint: Endpoint;
  organisationId: string;
  type: string;
  payload: string;
  position: string;
  createdAt: Date;
}
