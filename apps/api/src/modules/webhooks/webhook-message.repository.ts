import { exec, statement, type Runner } from '../../db/driver';
import type { Attempt } from './attempt';
import type { NewMessage } from './engine-types';

/**
 * Every statement on `webhook_messages` and `webhook_attempts` (an attempt is written only with its
 * message, in one statement). Messages are matched by `id = any(…)` so that they are read by key
 * even while the table's statistics still describe it as nearly empty (after a quiet spell).
 */

export type MessageStatus = 'pending' | 'delivered' | 'failed' | 'cancelled';

/** An attempt as a message's list shows it (`attempted_at` as JSON renders it). */
export interface AttemptRow {
  attempted_at: string;
  outcome: 'succeeded' | 'failed';
  status_code: number | null;
  duration_ms: number;
  error: string | null;
  response_excerpt: string | null;
}

/** A message with its attempts, oldest first. */
export interface MessageRow {
  id: string;
  type: string;
  status: MessageStatus;
  attempt_count: number;
  created_at: Date;
  delivered_at: Date | null;
  attempts: AttemptRow[] | null;
}

const LIST = statement<MessageRow, { endpointId: string; limit: number }>(
  `select m.id, m.type, m.status, m.attempt_count, m.created_at, m.delivered_at,
          (select json_agg(json_build_object(
                    'attempted_at', a.attempted_at, 'outcome', a.outcome,
                    'status_code', a.status_code, 'duration_ms', a.duration_ms,
                    'error', a.error, 'response_excerpt', a.response_excerpt) order by a.id)
             from webhook_attempts a where a.message_id = m.id) as attempts
     from webhook_messages m
    where m.endpoint_id = $1
    order by m.created_at desc, m.id desc
    limit $2`,
  (v) => [v.endpointId, v.limit],
);

const ENDPOINT_OF = statement<{ endpoint_id: string }, { id: string; organisationId: string }>(
  `select endpoint_id from webhook_messages where id = $1 and organisation_id = $2`,
  (v) => [v.id, v.organisationId],
);

const REQUEUE = statement<never, { id: string }>(
  `update webhook_messages set status = 'pending', queued = false where id = $1`,
  (v) => [v.id],
);

type TestMessage = Record<'id' | 'endpointId' | 'organisationId' | 'type' | 'payload', string> & {
  at: Date;
};

/** Left for the next fan-out round to queue (`queued` false), with its whole body stored. */
const INSERT_TEST = statement<never, TestMessage>(
  `insert into webhook_messages (id, endpoint_id, organisation_id, type, payload, queued, created_at)
   values ($1, $2, $3, $4, $5, false, $6)`,
  (v) => [v.id, v.endpointId, v.organisationId, v.type, v.payload, v.at],
);

const DELETE_OF_ENDPOINT = statement<{ id: string }, { endpointId: string }>(
  `delete from webhook_messages where endpoint_id = $1 returning id`,
  (v) => [v.endpointId],
);

const DELETE_OF_ORGANISATION = statement<{ id: string }, { organisationId: string }>(
  `delete from webhook_messages where organisation_id = $1 returning id`,
  (v) => [v.organisationId],
);

const DELETE_ATTEMPTS = statement<never, { messageIds: string[] }>(
  `delete from webhook_attempts where message_id = any($1::text[])`,
  (v) => [v.messageIds],
);

const PURGE = statement<{ purged: string }, { before: string }>(
  `with purged as (
     delete from webhook_messages where id < $1 returning id
   ),
   attempts as (
     delete from webhook_attempts where message_id in (select id from purged)
   )
   select count(*) as purged from purged`,
  (v) => [v.before],
);

const OLDEST_PENDING_AGE = statement<{ age: string | null }>(
  `select extract(epoch from now() - min(created_at)) as age from webhook_messages
    where status = 'pending'`,
  () => [],
);

export const listMessageRows = (on: Runner, endpointId: string, limit: number) =>
  exec(on, LIST, { endpointId, limit });

/** The endpoint of the organisation's message; null if there is no such message. */
export const messageEndpointId = async (on: Runner, by: { id: string; organisationId: string }) =>
  (await exec(on, ENDPOINT_OF, by))[0]?.endpoint_id ?? null;

/** Pending again, for the next fan-out round to hand to the queue. */
export const requeueMessage = (on: Runner, id: string) => exec(on, REQUEUE, { id });

export const insertTestMessage = (on: Runner, message: TestMessage) =>
  exec(on, INSERT_TEST, message);

/**
 * Deletes an endpoint's messages, then their attempts: in a second statement, which sees an
 * attempt recorded by a retry that the first one waited for.
 */
export async function deleteEndpointMessages(on: Runner, endpointId: string): Promise<void> {
  const messages = await exec(on, DELETE_OF_ENDPOINT, { endpointId });
  await exec(on, DELETE_ATTEMPTS, { messageIds: messages.map((message) => message.id) });
}

/** Deletes every message of the organisation's, then their attempts (as above). */
export async function deleteOrganisationMessages(
  on: Runner,
  organisationId: string,
): Promise<void> {
  const messages = await exec(on, DELETE_OF_ORGANISATION, { organisationId });
  await exec(on, DELETE_ATTEMPTS, { messageIds: messages.map((message) => message.id) });
}

/** Deletes the messages whose ids sort before `before` (made before then), and their attempts. */
export const purgeMessages = async (on: Runner, before: string) =>
  Number((await exec(on, PURGE, { before }))[0]?.purged ?? 0);

/** Seconds since the oldest pending message was made; null when none. */
export async function oldestPendingAgeSeconds(on: Runner): Promise<number | null> {
  const [row] = await exec(on, OLDEST_PENDING_AGE, undefined);
  return row?.age ? Number(row.age) : null;
}

// The engine's statements.

/**
 * Attempts (each its message, endpoint, time, outcome, status, duration, error, excerpt, in
 * parameters `$n`…`$n+7`), kept only with their message (one deleted meanwhile, with its endpoint,
 * keeps none): after a `with` clause named `messages` returning the ids of the messages written.
 */
const attemptsAfter = (n: number) => {
  const p = (i: number) => `$${n + i}`;
  return `attempts as (
     insert into webhook_attempts (message_id, endpoint_id, attempted_at, outcome, status_code,
                                   duration_ms, error, response_excerpt)
     select a.* from unnest(${p(0)}::text[], ${p(1)}::text[], ${p(2)}::timestamptz[],
                            ${p(3)}::text[], ${p(4)}::int[], ${p(5)}::int[], ${p(6)}::text[],
                            ${p(7)}::text[])
              as a(message_id, endpoint_id, attempted_at, outcome, status_code, duration_ms,
                   error, response_excerpt)
       join messages m on m.id = a.message_id
   )`;
};

const attemptColumns = (attempts: Attempt[]): unknown[][] => [
  attempts.map((a) => a.messageId),
  attempts.map((a) => a.endpointId),
  attempts.map((a) => a.at),
  attempts.map((a) => (a.result.ok ? 'succeeded' : 'failed')),
  attempts.map((a) => a.result.statusCode),
  attempts.map((a) => a.result.durationMs),
  attempts.map((a) => a.result.error),
  attempts.map((a) => a.result.responseExcerpt),
];

/** A message's columns, one array each: id, endpoint, organisation, type, position, created_at. */
const messageColumns = (messages: NewMessage[]): unknown[][] => [
  messages.map((m) => m.id),
  messages.map((m) => m.endpoint.id),
  messages.map((m) => m.organisationId),
  messages.map((m) => m.type),
  messages.map((m) => m.position),
  messages.map((m) => m.createdAt),
];

/**
 * Messages for the queue from the start. Their body is not stored: the queue makes it again from
 * the change record (payload.ts).
 */
const INSERT_QUEUED = statement<{ id: string }, { messages: NewMessage[] }>(
  `insert into webhook_messages (id, endpoint_id, organisation_id, type, change_position,
                                 queued, created_at)
   select id, endpoint_id, organisation_id, type, position, true, created_at
     from unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::bigint[],
                 $6::timestamptz[])
       as m(id, endpoint_id, organisation_id, type, position, created_at)
   on conflict (id) do nothing
   returning id`,
  (v) => messageColumns(v.messages),
);

/** A message sent at once, with its first attempt, or none (not made: left to the queue). */
export interface FirstAttempt {
  message: NewMessage;
  attempt: Attempt | undefined;
}

/**
 * Messages sent at once, in their state after their first attempt, with it, for endpoints still
 * there (`endpointIds`); one written meanwhile from its lease's batch gets the attempt. The ids of
 * those written as pending (each needs a job).
 */
const RECORD_FIRST = statement<
  { id: string },
  { first: FirstAttempt[]; endpointIds: string[]; attempts: Attempt[] }
>(
  `with messages as (
     insert into webhook_messages as m (id, endpoint_id, organisation_id, type, change_position,
                                        queued, status, attempt_count, created_at, delivered_at)
     select a.id, a.endpoint_id, a.organisation_id, a.type, a.position, true,
            case when a.ok then 'delivered' when a.final then 'failed' else 'pending' end,
            case when a.attempted then 1 else 0 end, a.created_at,
            case when a.ok then a.at end
       from unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::bigint[],
                   $6::timestamptz[], $7::bool[], $8::bool[], $9::bool[], $10::timestamptz[])
         as a(id, endpoint_id, organisation_id, type, position, created_at, attempted, ok,
              final, at)
      where a.endpoint_id = any($11::text[])
     on conflict (id) do update
        set attempt_count = m.attempt_count + 1,
            status = case when excluded.status = 'delivered' then 'delivered' else m.status end,
            delivered_at = coalesce(m.delivered_at, excluded.delivered_at)
      where excluded.attempt_count > 0
     -- xmax is 0 in a row this statement inserted, and set in one it updated.
     returning m.id, m.status, m.xmax = 0 as made
   ),
   ${attemptsAfter(12)}
   select id from messages where made and status = 'pending'`,
  (v) => [
    ...messageColumns(v.first.map(({ message }) => message)),
    v.first.map(({ attempt }) => attempt !== undefined),
    v.first.map(({ attempt }) => attempt?.result.ok ?? false),
    v.first.map(({ attempt }) => attempt?.final ?? false),
    v.first.map(({ attempt }) => attempt?.at ?? null),
    v.endpointIds,
    ...attemptColumns(v.attempts),
  ],
);

/** A message as a delivery from the queue needs it; `data` is its change record's object. */
export interface MessageToSend {
  id: string;
  endpoint_id: string;
  type: string;
  status: MessageStatus;
  created_at: Date;
  /** The whole body, stored for test events only. */
  payload: string | null;
  /** Null when the record was purged (past its retention, as the message nearly is). */
  data: string | null;
  /** The record's object's `livemode` (records made before test mode have none: live). */
  livemode: boolean;
}

const TO_SEND = statement<MessageToSend, { ids: string[] }>(
  `select m.id, m.endpoint_id, m.type, m.status, m.created_at, m.payload, r.data::text as data,
          (r.data -> 'livemode') is distinct from 'false'::jsonb as livemode
     from webhook_messages m left join change_records r on r.position = m.change_position
    where m.id = any($1::text[])`,
  (v) => [v.ids],
);

/** Messages after an attempt from the queue, with it; and messages cancelled. */
const RECORD_QUEUED = statement<never, { attempts: Attempt[]; cancelled: string[] }>(
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
   ${attemptsAfter(6)}
   select count(*) from messages`,
  (v) => [
    v.attempts.map((a) => a.messageId),
    v.attempts.map((a) => a.result.ok),
    v.attempts.map((a) => a.final),
    v.attempts.map((a) => a.at),
    v.cancelled,
    ...attemptColumns(v.attempts),
  ],
);

/**
 * Messages made outside the fan-out (resends, test events), marked queued to be handed to the
 * queue. (The ids are picked first, so the update reads the rows it changes by their key.)
 */
const TAKE_REQUESTED = statement<{ id: string }>(
  `update webhook_messages set queued = true
    where id = any(array(select id from webhook_messages where not queued
                          order by created_at limit 500 for update skip locked))
    returning id`,
  () => [],
);

/** Writes messages for the queue; the ids of those not written before. */
export async function insertQueuedMessages(on: Runner, messages: NewMessage[]) {
  if (messages.length === 0) return new Set<string>();
  return new Set((await exec(on, INSERT_QUEUED, { messages })).map((row) => row.id));
}

export async function recordFirstAttempts(on: Runner, first: FirstAttempt[], held: Set<string>) {
  const attempts = first.flatMap(({ attempt }) => attempt ?? []);
  const rows = await exec(on, RECORD_FIRST, { first, endpointIds: [...held], attempts });
  return new Set(rows.map((row) => row.id));
}

export const messagesToSend = (on: Runner, ids: string[]) => exec(on, TO_SEND, { ids });

export const recordQueuedAttempts = (on: Runner, attempts: Attempt[], cancelled: string[]) =>
  exec(on, RECORD_QUEUED, { attempts, cancelled });

export const takeRequestedMessages = async (on: Runner) =>
  (await exec(on, TAKE_REQUESTED, undefined)).map((row) => row.id);

/** Delivery attempts of one UTC day (`2026-12-08`), by outcome. */
export interface AttemptDayRow {
  day: string;
  succeeded: number;
  failed: number;
}

/**
 * A message is attempted within 72 hours of its making (then given up), so its attempts since
 * `since` are those of messages made at most this long before: the bound lets the statement read
 * an organisation's messages by the endpoints' index. Resends of older messages are left out.
 */
const ATTEMPT_MARGIN = "interval '4 days'";

const ATTEMPTS_PER_DAY = statement<AttemptDayRow, { organisationId: string; since: Date }>(
  `select to_char(a.attempted_at at time zone 'UTC', 'YYYY-MM-DD') as day,
          (count(*) filter (where a.outcome = 'succeeded'))::int as succeeded,
          (count(*) filter (where a.outcome = 'failed'))::int as failed
     from webhook_endpoints e
     join webhook_messages m
       on m.endpoint_id = e.id and m.created_at >= $2::timestamptz - ${ATTEMPT_MARGIN}
     join webhook_attempts a on a.message_id = m.id
    where e.organisation_id = $1 and a.attempted_at >= $2
    group by 1
    order by 1`,
  (v) => [v.organisationId, v.since],
);

/** The organisation's delivery attempts since `since`, per UTC day, oldest first. */
export const attemptsPerDay = (
  on: Runner,
  organisationId: string,
  since: Date,
): Promise<AttemptDayRow[]> => exec(on, ATTEMPTS_PER_DAY, { organisationId, since });
