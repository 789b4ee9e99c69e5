import { exec, execOne, statement, type Runner } from '../../db/driver';
import type { RecordPlace } from './webhook-endpoint.repository';

/**
 * Every statement on `webhook_fanout_state` (the one row of the place the fan-out has read the
 * change records up to) and `webhook_fanout_leases` (a round's hold on the first attempts of the
 * messages it sends itself, over its batch of records).
 */

const LOCK_PLACE = statement<RecordPlace>(
  `select transaction_id::text as tx, position::text as pos from webhook_fanout_state
    where id = 1 for update skip locked`,
  () => [],
);

const ADVANCE = statement<never, { to: RecordPlace; at: Date }>(
  `update webhook_fanout_state set transaction_id = $1::xid8, position = $2::bigint,
     updated_at = $3 where id = 1`,
  (v) => [v.to.tx, v.to.pos, v.at],
);

export interface NewLease {
  after: RecordPlace;
  through: RecordPlace;
  /** The time of the batch's first change a message is sent for. */
  firstChangeAt: Date;
  expiresAt: Date;
}

const INSERT_LEASE = statement<{ id: string }, NewLease>(
  `insert into webhook_fanout_leases (after_transaction_id, after_position, through_transaction_id,
                                      through_position, first_change_at, expires_at)
   values ($1::xid8, $2::bigint, $3::xid8, $4::bigint, $5, $6)
   returning id::text`,
  (v) => [v.after.tx, v.after.pos, v.through.tx, v.through.pos, v.firstChangeAt, v.expiresAt],
);

/** A lease's batch: the records after `after`, through `through`. */
export interface LeasedBatch {
  after: RecordPlace;
  through: RecordPlace;
}

/** Up to 20 leases past their time, taken by one round (`skip locked`) and ended. */
const TAKE_EXPIRED = statement<
  { after_tx: string; after_pos: string; through_tx: string; through_pos: string },
  { now: Date }
>(
  `delete from webhook_fanout_leases
    where id = any(array(select id from webhook_fanout_leases where expires_at < $1
                          order by id limit 20 for update skip locked))
    returning after_transaction_id::text as after_tx, after_position::text as after_pos,
              through_transaction_id::text as through_tx, through_position::text as through_pos`,
  (v) => [v.now],
);

const END = statement<never, { ids: string[] }>(
  `delete from webhook_fanout_leases where id = any($1::bigint[])`,
  (v) => [v.ids],
);

const OLDEST_AGE = statement<{ age: string | null }>(
  `select extract(epoch from now() - min(first_change_at)) as age from webhook_fanout_leases`,
  () => [],
);

/**
 * The place the fan-out has read up to, its row locked until the transaction ends; null while
 * another replica's round holds it.
 */
export async function lockPlace(on: Runner): Promise<RecordPlace | null> {
  return execOne(on, LOCK_PLACE, undefined);
}

export async function advancePlace(on: Runner, to: RecordPlace, at: Date): Promise<void> {
  await exec(on, ADVANCE, { to, at });
}

/** A new lease; its id. */
export async function insertLease(on: Runner, lease: NewLease): Promise<string> {
  const [row] = await exec(on, INSERT_LEASE, lease);
  if (!row) throw new Error('webhook fan-out lease not written');
  return row.id;
}

/** Ends leases past their time at `now`; their batches. */
export async function takeExpiredLeases(on: Runner, now: Date): Promise<LeasedBatch[]> {
  return (await exec(on, TAKE_EXPIRED, { now })).map((row) => ({
    after: { tx: row.after_tx, pos: row.after_pos },
    through: { tx: row.through_tx, pos: row.through_pos },
  }));
}

export async function endLeases(on: Runner, ids: string[]): Promise<void> {
  if (ids.length > 0) await exec(on, END, { ids });
}

/**
 * Seconds since the first change of the oldest lease's batch was made; null when none. A message
 * sent at once is written after its first attempt: until then its lease stands for it.
 */
export async function oldestLeaseAgeSeconds(on: Runner): Promise<number | null> {
  const [row] = await exec(on, OLDEST_AGE, undefined);
  return row?.age ? Number(row.age) : null;
}
