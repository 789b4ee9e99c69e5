import type { EntityManager } from '@mikro-orm/postgresql';
import type { Db as IDatabase, Job, JobResult, PgBoss } from 'pg-boss';
import { derivedId } from '../../core/ids';
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

/**
 * Endpoint `e` takes change record `c`: an enabled endpoint of its organisation, subscribed to its
 * type, and registered before the change was made.
 */
const ENDPOINT_TAKES = `e.organisation_id = c.organisation_id and e.status = 'enabled'
  and (e.events @> array['*'] or e.events @> array[c.type]) and e.created_at <= c.created_at`;

/** What a message to endpoint `e` needs of it (`Endpoint`, with its id as `endpoint_id`). */
const ENDPOINT_COLUMNS = `e.id as endpoint_id, e.url, e.secret, e.previous_secret,
  e.previous_secret_expires_at, e.failing_since`;

const FANOUT_BATCH = 500;
const DELIVERY_BATCH = 25;

/**
 * The messages a round of the fan-out sends itself must have their first attempts recorded within
 * this long (its lease); past it (the replica stopped or crashed) a later round makes again those
 * it did not record and hands them to the queue.
 */
export const DEFAULT_LEASE_SECONDS = 60;
/**
 * Room left at the end of the lease, past the time an answer may take: an attempt not started by
 * then is handed to the queue. A quarter of the lease, at most this long.
 */
const LEASE_MARGIN_MS = 15_000;
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

/**
 * A round's lease on the first attempts of the messages it sends itself (a row of
 * `webhook_fanout_leases`), and how many of them are still to be recorded.
 */
interface Lease {
  id: string;
  unrecorded: number;
}

/** A message waiting in this process for its first attempt: it has no row yet. */
interface DirectMessage {
  message: NewMessage;
  lease: Lease;
  /** The time (this process's clock) after which its first attempt is left to the queue. */
  sendBy: number;
}

/** A first attempt made, to be recorded with its message (not written yet). */
interface DirectAttempt {
  direct: DirectMessage;
  attempt: Attempt;
}

/** One endpoint's messages to send at once, one after another in the order they were made. */
interface DirectLine {
  waiting: DirectMessage[];
  sending: Promise<void> | undefined;
}

/**
 * Webhook delivery in one process: the fan-out, which turns committed change records into
 * messages, one per matching endpoint; and their sending. A message to a healthy endpoint is sent
 * at once by the replica that made it, after the fan-out's transaction commits, and written once,
 * in its state after that attempt, with the attempt; only when that attempt fails is it handed to
 * the job queue (pg-boss: every replica takes its own share, each job held by one replica at a
 * time), which retries it with backoff. Messages to endpoints that are failing, resends and test
 * events are written and go to the queue from the start.
 *
 * A message's id is derived from its change record and endpoint, so whoever makes it gives it the
 * same id. The round that sends messages itself holds a lease on its batch of records
 * (`webhook_fanout_leases`) until their first attempts are recorded; should that replica stop or
 * crash first, a later round, once the lease has passed, makes the batch's messages again, writes
 * those not written yet, and hands them to the queue.
 */
export class WebhookEngine {
  readonly #options: WebhookEngineOptions;
  readonly #leaseSeconds: number;
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
  #attempted: DirectAttempt[] = [];
  #handOff: DirectMessage[] = [];
  #recordTimer: NodeJS.Timeout | undefined;
  #recording: Promise<void> = Promise.resolve();

  constructor(options: WebhookEngineOptions) {
    this.#options = options;
    this.#leaseSeconds = options.leaseSeconds ?? DEFAULT_LEASE_SECONDS;
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
           select c.transaction_id, c.position, c.organisation_id, c.type, c.created_at,
                  ${ENDPOINT_COLUMNS}
             from batch c join webhook_endpoints e on ${ENDPOINT_TAKES}
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
      const queuedIds = await this.#makeMessages(tx.db, queued);
      let lease: Lease | undefined;
      if (direct.length > 0) {
        const { rows: made } = await tx.db.executeSql(
          `insert into webhook_fanout_leases (after_transaction_id, after_position,
                                              through_transaction_id, through_position,
                                              first_change_at, expires_at)
           values ($1::xid8, $2::bigint, $3::xid8, $4::bigint, $5::timestamptz,
                   now() + make_interval(secs => $6))
           returning id::text`,
          [
            place.tx,
            place.pos,
            batch[0]!.last_tx,
            batch[0]!.last_pos,
            new Date(Math.min(...direct.map((m) => m.createdAt.getTime()))),
            this.#leaseSeconds,
          ],
        );
        lease = { id: (made[0] as { id: string }).id, unrecorded: direct.length };
      }
      const recovered = await this.#recoverLeases(tx.db);
      const requested = await this.#requestedMessages(tx.db);
      const jobs = [
        ...queued
          .filter((m) => queuedIds.has(m.id))
          .map((m) => ({ message_id: m.id, seq: Number(m.position) })),
        ...recovered.map((m) => ({ message_id: m.id, seq: Number(m.position) })),
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
      if (lease) this.#sendAtOnce(direct, lease);
      return read;
    } catch (error) {
      await tx.rollback();
      throw error;
    }
  }

  /**
   * One message per record of the batch and endpoint that takes it (`BatchRow`s with a match). Its
   * id is derived from the two: a batch read again (`#recoverLeases`) gives the same messages.
   */
  #messagesFor(batch: (BatchRow | MatchedRecord)[]): NewMessage[] {
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
      const id = derivedId('webhookMessage', row.created_at, `${row.pos}:${row.endpoint_id}`);
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
   * Writes messages that go to the queue from the start (to failing endpoints, or past this
   * process's room for sending at once); returns the ids of those not written before (by a round
   * that made them from the same records, its lease over: those have their job already).
   */
  async #makeMessages(db: IDatabase, messages: NewMessage[]): Promise<Set<string>> {
    if (messages.length === 0) return new Set();
    // The payload is the change record's object with the message's head: composed again from the
    // record when the queue sends it (MESSAGE_PAYLOAD), not stored twice.
    const { rows } = await db.executeSql(
      `insert into webhook_messages (id, endpoint_id, organisation_id, type, change_position,
                                     queued, created_at)
       select id, endpoint_id, organisation_id, type, position, true, created_at
         from unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::bigint[],
                     $6::timestamptz[])
           as m(id, endpoint_id, organisation_id, type, position, created_at)
       on conflict (id) do nothing
       returning id`,
      messageColumns(messages),
    );
    return new Set((rows as { id: string }[]).map((row) => row.id));
  }

  /**
   * Leases past their time (the replica that took them stopped or crashed before recording every
   * first attempt): their batches' messages are made again (the same ids), those never written are
   * written and returned, to be queued, and the leases end. A message sent but not recorded is
   * thus sent again (at least once).
   */
  async #recoverLeases(db: IDatabase): Promise<NewMessage[]> {
    const { rows: leases } = await db.executeSql(
      `delete from webhook_fanout_leases
        where id = any(array(select id from webhook_fanout_leases where expires_at < now()
                              order by id limit 20 for update skip locked))
        returning after_transaction_id::text as after_tx, after_position::text as after_pos,
                  through_transaction_id::text as through_tx, through_position::text as through_pos`,
    );
    const recovered: NewMessage[] = [];
    for (const lease of leases as {
      after_tx: string;
      after_pos: string;
      through_tx: string;
      through_pos: string;
    }[]) {
      const { rows } = await db.executeSql(
        `select c.position::text as pos, c.organisation_id, c.type, c.created_at,
                ${ENDPOINT_COLUMNS}, c.data::text as data
           from change_records c join webhook_endpoints e on ${ENDPOINT_TAKES}
          where (c.transaction_id, c.position) > ($1::xid8, $2::bigint)
            and (c.transaction_id, c.position) <= ($3::xid8, $4::bigint)
          order by c.transaction_id, c.position, e.id
          for key share of e`,
        [lease.after_tx, lease.after_pos, lease.through_tx, lease.through_pos],
      );
      const messages = this.#messagesFor(rows as MatchedRecord[]);
      const made = await this.#makeMessages(db, messages);
      recovered.push(...messages.filter((m) => made.has(m.id)));
    }
    return recovered;
  }

  /**
   * Messages made outside the fan-out (resends, test events), handed to the queue now. (The ids are
   * picked first, so the update reads the rows it changes by their key whatever the planner
   * believes of the table's size.)
   */
  async #requestedMessages(db: IDatabase): Promise<string[]> {
    const { rows } = await db.executeSql(
      `update webhook_messages set queued = true
        where id = any(array(select id from webhook_messages where not queued
                              order by created_at limit 500 for update skip locked))
        returning id`,
    );
    return (rows as { id: string }[]).map((row) => row.id);
  }

  /** Queues the first attempts of messages made by this round's fan-out, one line per endpoint. */
  #sendAtOnce(messages: NewMessage[], lease: Lease): void {
    const now = Date.now();
    const leaseMs = this.#leaseSeconds * 1000;
    const margin = Math.min(LEASE_MARGIN_MS, leaseMs / 4);
    const sendBy = Math.max(now + leaseMs - margin - this.#options.timeoutMs, now);
    for (const message of messages) {
      const endpointId = message.endpoint.id;
      let line = this.#direct.get(endpointId);
      if (!line) {
        line = { waiting: [], sending: undefined };
        this.#direct.set(endpointId, line);
      }
      line.waiting.push({ message, lease, sendBy });
      line.sending ??= this.#sendLine(endpointId, line);
    }
  }

  /** Sends one endpoint's waiting messages one after another, in the order they were made. */
  async #sendLine(endpointId: string, line: DirectLine): Promise<void> {
    for (let direct = line.waiting.shift(); direct; direct = line.waiting.shift()) {
      // Stopping, or too late for the lease: the queue sends it.
      if (this.#stopping || Date.now() > direct.sendBy) {
        this.#handOff.push(direct);
      } else {
        const { message } = direct;
        try {
          const { at, result } = await this.#attempt(message.id, message.endpoint, message.payload);
          this.#attempted.push({
            direct,
            attempt: {
              messageId: message.id,
              endpointId,
              at,
              result,
              final: !result.ok && this.#options.retryLimit === 0,
            },
          });
        } catch (error) {
          this.#options.logger.warn({ err: error, messageId: message.id }, 'webhook not sent');
          this.#handOff.push(direct);
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
   * Writes the messages whose first attempt was made since the last call, in their state after it,
   * with the attempts, and those whose attempt was not made; ends the leases whose messages are all
   * written; and hands to the queue the messages whose attempt failed (to be retried after the
   * first delay) or was not made, all in one transaction. A message written meanwhile by a round
   * that found its lease over has its job already: it gets the attempt, and no second job.
   */
  #flush(): Promise<void> {
    this.#recording = this.#recording.then(async () => {
      const attempts = this.#attempted.splice(0);
      const handOff = this.#handOff.splice(0);
      if (attempts.length === 0 && handOff.length === 0) return;
      const ended: string[] = [];
      for (const { lease } of [...attempts.map((a) => a.direct), ...handOff]) {
        lease.unrecorded -= 1;
        if (lease.unrecorded === 0) ended.push(lease.id);
      }
      const toQueue =
        handOff.length > 0 || attempts.some(({ attempt }) => !attempt.result.ok && !attempt.final);
      let tx: Awaited<ReturnType<NonNullable<IDatabase['beginTransaction']>>> | undefined;
      try {
        // The usual case, every attempt a success: one statement, no transaction around it.
        if (!toQueue) {
          await this.#recordFirst(this.#boss.getDb(), attempts, [], ended);
          return;
        }
        tx = await this.#boss.getDb().beginTransaction!();
        const pending = await this.#recordFirst(tx.db, attempts, handOff, ended);
        const { retryDelaySeconds, retryLimit } = this.#options;
        const jobs = [
          // The queue's first try comes after the first retry delay (its own retries then double
          // from twice that), so the attempts follow the schedule of a message queued from the
          // start; the attempt made here counts against the limit.
          ...attempts
            .filter((a) => pending.has(a.direct.message.id))
            .map((a) => ({
              data: { message_id: a.direct.message.id, seq: 0, after_direct: true },
              startAfter: new Date(Date.now() + retryDelaySeconds * 1000 * (1 + Math.random())),
              retryLimit: retryLimit - 1,
              retryDelay: retryDelaySeconds * 2,
            })),
          ...handOff
            .filter((d) => pending.has(d.message.id))
            .map((d) => ({ data: { message_id: d.message.id, seq: Number(d.message.position) } })),
        ];
        if (jobs.length > 0) await this.#boss.insert(DELIVERY_QUEUE, jobs, { db: tx.db });
        await tx.commit();
      } catch (error) {
        await tx?.rollback().catch(() => undefined);
        // Not recorded: the leases stay, and a round makes the messages again once they pass.
        this.#options.logger.warn({ err: error }, 'webhook attempts could not be recorded');
      }
    });
    return this.#recording;
  }

  /**
   * Writes direct messages, attempted (`attempts`) or not (`unsent`), with their attempts, and ends
   * the `ended` leases, in one statement; returns the ids of the messages it wrote as pending (each
   * needs a job). A message whose endpoint was deleted meanwhile is not written (the endpoint is
   * held, so its deletion waits for this statement or makes it miss); one written meanwhile from
   * its lease's batch gets the attempt.
   */
  async #recordFirst(
    db: IDatabase,
    attempts: DirectAttempt[],
    unsent: DirectMessage[],
    ended: string[],
  ): Promise<Set<string>> {
    const messages = [
      ...attempts.map(({ direct, attempt }) => ({ message: direct.message, attempt })),
      ...unsent.map((d) => ({ message: d.message, attempt: undefined })),
    ];
    const { rows } = await db.executeSql(
      `with endpoints as (
         select id from webhook_endpoints where id = any($1::text[]) for key share
       ),
       messages as (
         insert into webhook_messages as m (id, endpoint_id, organisation_id, type, change_position,
                                            queued, status, attempt_count, created_at, delivered_at)
         select a.id, a.endpoint_id, a.organisation_id, a.type, a.position, true,
                case when a.ok then 'delivered' when a.final then 'failed' else 'pending' end,
                case when a.attempted then 1 else 0 end, a.created_at,
                case when a.ok then a.at end
           from unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::bigint[],
                       $7::timestamptz[], $8::bool[], $9::bool[], $10::bool[], $11::timestamptz[])
             as a(id, endpoint_id, organisation_id, type, position, created_at, attempted, ok,
                  final, at)
          where a.endpoint_id in (select id from endpoints)
         on conflict (id) do update
            set attempt_count = m.attempt_count + 1,
                status = case when excluded.status = 'delivered' then 'delivered' else m.status end,
                delivered_at = coalesce(m.delivered_at, excluded.delivered_at)
          where excluded.attempt_count > 0
         -- xmax is 0 in a row this statement inserted, and set in one it updated.
         returning m.id, m.status, m.xmax = 0 as made
       ),
       leases as (
         delete from webhook_fanout_leases where id = any($12::bigint[])
       ),
       ${attemptsAndHealth(13)}
       select id from messages where made and status = 'pending'`,
      [
        [...new Set(messages.map(({ message }) => message.endpoint.id))],
        ...messageColumns(messages.map(({ message }) => message)),
        messages.map(({ attempt }) => attempt !== undefined),
        messages.map(({ attempt }) => attempt?.result.ok ?? false),
        messages.map(({ attempt }) => attempt?.final ?? false),
        messages.map(({ attempt }) => attempt?.at ?? null),
        ended,
        ...this.#attemptsAndHealthParams(attempts.map(({ attempt }) => attempt)),
      ],
    );
    return new Set((rows as { id: string }[]).map((row) => row.id));
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
    await db.executeSql(
      `with messages as (
         update webhook_messages m
            set attempt_count = m.attempt_count + 1,
                status = case when a.ok then 'delivered' when a.final then 'failed' else 'pending' end,
                delivered_at = case when a.ok then a.at else m.delivered_at end
           from unnest($1::text[], $2::bool[], $3::bool[], $4::timestamptz[]) as a(id, ok, final, at)
          where m.id = a.id and m.id = any($1::text[])
          returning m.id
       ),
       cancelled as (
         update webhook_messages set status = 'cancelled' where id = any($5::text[])
       ),
       ${attemptsAndHealth(6)}
       select count(*) from messages`,
      [
        attempts.map((a) => a.messageId),
        attempts.map((a) => a.result.ok),
        attempts.map((a) => a.final),
        attempts.map((a) => a.at),
        cancelled,
        ...this.#attemptsAndHealthParams(attempts),
      ],
    );
  }

  /**
   * The values of attemptsAndHealth's parameters for these attempts; logs the endpoints that
   * failed.
   */
  #attemptsAndHealthParams(attempts: Attempt[]): unknown[] {
    const healthy = [...new Set(attempts.filter((a) => a.result.ok).map((a) => a.endpointId))];
    const failing = [
      ...new Set(attempts.filter((a) => !a.result.ok).map((a) => a.endpointId)),
    ].filter((id) => !healthy.includes(id));
    for (const id of failing) {
      this.#options.logger.debug({ endpointId: id }, 'webhook delivery failed');
    }
    return [
      attempts.map((a) => a.messageId),
      attempts.map((a) => a.endpointId),
      attempts.map((a) => a.at),
      attempts.map((a) => (a.result.ok ? 'succeeded' : 'failed')),
      attempts.map((a) => a.result.statusCode),
      attempts.map((a) => a.result.durationMs),
      attempts.map((a) => a.result.error),
      attempts.map((a) => a.result.responseExcerpt),
      healthy,
      failing,
      this.#options.disableAfterHours,
    ];
  }
}

/**
 * A message's columns as the statements that write messages take them, one array each: id,
 * endpoint, organisation, type, change record position, created_at.
 */
function messageColumns(messages: NewMessage[]): unknown[][] {
  return [
    messages.map((m) => m.id),
    messages.map((m) => m.endpoint.id),
    messages.map((m) => m.organisationId),
    messages.map((m) => m.type),
    messages.map((m) => m.position),
    messages.map((m) => m.createdAt),
  ];
}

/**
 * Statements (as `with` clauses, after one named `messages` that returns the ids of the messages
 * written) recording attempts and the endpoints' health, from parameter `$n` on, whose values
 * `#attemptsAndHealthParams` gives: each attempt (its message, endpoint, time, outcome, status,
 * duration, error, excerpt), kept only with its message; the endpoints an attempt reached, no
 * longer failing; those every attempt failed, failing since now if they were not, disabled once
 * that has lasted the given hours.
 */
function attemptsAndHealth(n: number): string {
  const p = (i: number) => `$${n + i}`;
  const expired = `failing_since < now() - make_interval(hours => ${p(10)})`;
  return `attempts as (
         insert into webhook_attempts (message_id, endpoint_id, attempted_at, outcome, status_code,
                                       duration_ms, error, response_excerpt)
         select a.* from unnest(${p(0)}::text[], ${p(1)}::text[], ${p(2)}::timestamptz[],
                                ${p(3)}::text[], ${p(4)}::int[], ${p(5)}::int[], ${p(6)}::text[],
                                ${p(7)}::text[])
                  as a(message_id, endpoint_id, attempted_at, outcome, status_code, duration_ms,
                       error, response_excerpt)
           -- Only with its message: one deleted meanwhile (with its endpoint, whose deletion
           -- waits for this statement or makes it miss) keeps no attempt.
           join messages m on m.id = a.message_id
       ),
       healthy as (
         update webhook_endpoints set failing_since = null
          where id = any(${p(8)}::text[]) and failing_since is not null
       ),
       failing as (
         update webhook_endpoints
            set failing_since = coalesce(failing_since, now()),
                status = case when ${expired} then 'disabled' else status end,
                disabled_reason = case when ${expired}
                  then 'every delivery failed for ' || ${p(10)} || ' hours' else disabled_reason end,
                updated_at = case when ${expired} then now() else updated_at end
          where id = any(${p(9)}::text[]) and status = 'enabled'
       )`;
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
