import type { Pool, PoolClient } from 'pg';
import { derivedId } from '../../core/ids';
import { onConnection } from '../../db/driver';
import type { Endpoint, Lease, NewMessage } from './engine-types';
import { messagePayload } from './payload';
import type { DeliveryQueue, NewJob } from './queue';
import {
  matchBatch,
  matchRange,
  type BatchRow,
  type MatchedRecord,
} from './webhook-endpoint.repository';
import {
  advancePlace,
  insertLease,
  lockPlace,
  takeExpiredLeases,
} from './webhook-fanout.repository';
import { insertQueuedMessages, takeRequestedMessages } from './webhook-message.repository';

/** Change records a round reads at most. */
export const FANOUT_BATCH = 500;

/** What a round did: how many records it read, and the messages it leaves this process to send. */
export interface Round {
  read: number;
  direct: NewMessage[];
  lease: Lease | undefined;
}

export interface FanOutOptions {
  pool: Pool;
  queue: DeliveryQueue;
  leaseSeconds: number;
  /** Which messages this process sends at once (the rest go to the queue from the start). */
  split: (messages: NewMessage[]) => { direct: NewMessage[]; queued: NewMessage[] };
}

/**
 * One round of the fan-out, in one transaction: it turns committed change records into messages,
 * one per endpoint that takes a record, and hands to the queue those not sent at once. One replica
 * at a time holds the fan-out's place (`skip locked`: the others skip the round).
 *
 * Change records are read in the order of (transaction id, position), and only those of
 * transactions older than the oldest still running: no record can later appear before the stored
 * place, so none is passed over, however late its transaction commits.
 *
 * The messages sent at once are not written: the round takes a lease on its batch until their
 * first attempts are recorded. A later round recovers leases past their time (their replica
 * stopped or crashed): it makes their batches' messages again, with the same ids, writes those
 * never written and queues them. A message sent but not recorded is thus sent again (at least
 * once). It also queues messages made elsewhere (resends, test events).
 */
export function fanOutRound(options: FanOutOptions): Promise<Round> {
  return onConnection(options.pool, async (client, now) => {
    const place = await lockPlace(client);
    if (!place) return { read: 0, direct: [], lease: undefined };
    const batch = await matchBatch(client, place, FANOUT_BATCH);
    const [summary] = batch;
    const read = summary?.read ?? 0;
    // The batch's last place, when it read any record.
    const last =
      summary?.last_tx && summary.last_pos
        ? { tx: summary.last_tx, pos: summary.last_pos }
        : undefined;
    const { direct, queued } = options.split(messagesFor(batch));
    const queuedIds = await insertQueuedMessages(client, queued);
    let lease: Lease | undefined;
    if (direct.length > 0 && last) {
      const id = await insertLease(client, {
        after: place,
        through: last,
        firstChangeAt: new Date(Math.min(...direct.map((m) => m.createdAt.getTime()))),
        expiresAt: new Date(now.getTime() + options.leaseSeconds * 1000),
      });
      lease = { id, unrecorded: direct.length };
    }
    const recovered = await recoverLeases(client, now);
    const requested = await takeRequestedMessages(client);
    const jobs: NewJob[] = [
      ...queued.filter((m) => queuedIds.has(m.id)).map(jobOf),
      ...recovered.map(jobOf),
      ...requested.map((id) => ({ data: { message_id: id, seq: 0 } })),
    ];
    await options.queue.insert(client, jobs);
    if (last) await advancePlace(client, last, now);
    return { read, direct: lease ? direct : [], lease };
  });
}

const jobOf = (message: NewMessage): NewJob => ({
  data: { message_id: message.id, seq: Number(message.position) },
});

/**
 * One message per record and endpoint that takes it (rows with a match). Its id is derived from
 * the two: a batch read again (`recoverLeases`) gives the same messages, with the same bodies.
 */
function messagesFor(rows: (BatchRow | MatchedRecord)[]): NewMessage[] {
  const endpoints = new Map<string, Endpoint>();
  const messages: NewMessage[] = [];
  for (const row of rows) {
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
      payload: messagePayload(id, row.type, row.created_at, row.livemode, row.data),
      position: row.pos,
      createdAt: row.created_at,
    });
  }
  return messages;
}

/**
 * Ends the leases past their time at `now`, makes their batches' messages again and writes those
 * never written; returns these, to be queued.
 */
async function recoverLeases(client: PoolClient, now: Date): Promise<NewMessage[]> {
  const recovered: NewMessage[] = [];
  for (const lease of await takeExpiredLeases(client, now)) {
    const messages = messagesFor(await matchRange(client, lease.after, lease.through));
    const made = await insertQueuedMessages(client, messages);
    recovered.push(...messages.filter((m) => made.has(m.id)));
  }
  return recovered;
}
