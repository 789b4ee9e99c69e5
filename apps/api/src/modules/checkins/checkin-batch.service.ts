import { createHash } from 'node:crypto';
import type { CheckinBatchItem, CheckinBatchResult } from '@boxoffice/contract';
import { canonicalJson } from '../../core/canonical-json';
import { AppError } from '../../core/errors';
import { looksLikeId } from '../../core/ids';
import { inTransaction, savepoint } from '../../db/driver';
import {
  claimParts,
  storePartAnswers,
  type PartClaim,
  type PartKeys,
} from '../idempotency/idempotency.service';
import { lockTickets } from '../tickets/ticket.service';
import {
  scanTicket,
  toCheckinResource,
  type Admissions,
  type ScanContext,
} from './checkin.service';

/** A scan's result as stored for its `idempotency_key`: all of it but `replayed`. */
type Answered = Omit<CheckinBatchResult, 'replayed'>;

/** One scan of a batch as it went: its result, and whether the scan itself ran. */
export interface BatchOutcome {
  result: CheckinBatchResult;
  /** False for an answer given for its key (a replay, a key reused or in use elsewhere). */
  ran: boolean;
}

/** The statuses `POST /checkins` refuses a scan with: its ticket, its event, its state. */
const REFUSALS = new Set([404, 409, 422]);

/** A hash of what a scan asks, its key left out: the same key with another scan is refused. */
const fingerprintOf = ({ idempotency_key: _key, ...scan }: CheckinBatchItem): string =>
  createHash('sha256').update(canonicalJson(scan)).digest('hex');

const answer = (result: Answered, replayed: boolean): BatchOutcome => ({
  result: { ...result, replayed },
  ran: false,
});

const keyReused = (): BatchOutcome =>
  answer(
    {
      status: 422,
      data: null,
      error: 'idempotency_key has already been used with a different scan',
      code: 'idempotency_key_reused',
    },
    false,
  );

const keyInFlight = (): BatchOutcome =>
  answer(
    {
      status: 409,
      data: null,
      error: 'A scan with this idempotency_key is still in progress; send it again shortly',
      code: 'idempotency_in_flight',
    },
    false,
  );

/** What a key held before this batch: the scan it was given with, and that scan's result. */
const heldBy = (claim: PartClaim | undefined) =>
  claim?.state === 'answered'
    ? { fingerprint: claim.fingerprint, result: claim.answer.body as Answered }
    : undefined;

/**
 * A batch of door scans (the items of `POST /checkins/batch`), in one transaction: each scan in
 * its order under a savepoint of its own (`scanTicket`, the rules of `POST /checkins`), so a
 * refused scan leaves nothing behind and the others go on; one commit for them all.
 *
 * A scan with an `idempotency_key` runs at most once per key: its answer, a refusal too, is stored
 * in this transaction, and answered again (`replayed`) to a scan sent again with the key (the same
 * scan; another one is a 422 `idempotency_key_reused`), in a later batch or later in this one. A
 * key still held by a transaction running elsewhere (the batch sent twice at once) is a 409
 * `idempotency_in_flight`, stored nowhere.
 *
 * The tickets the scans name are locked first, in the order of their ids: two batches naming the
 * same tickets in different orders would otherwise each hold one and wait for the other.
 */
export function recordCheckinBatch(
  ctx: ScanContext,
  items: readonly CheckinBatchItem[],
): Promise<BatchOutcome[]> {
  return inTransaction(ctx, async (tx) => {
    const keys: PartKeys = { apiKeyId: tx.apiKeyId, namespace: 'checkin' };
    const claims = await claimParts(tx.em, keys, [
      ...new Set(items.flatMap((item) => item.idempotency_key ?? [])),
    ]);
    // The scans that will run: those without a key, and the first with each key found free.
    const seen = new Set<string>();
    const toRun = items.filter(({ idempotency_key: key }) => {
      if (key === undefined) return true;
      if (seen.has(key)) return false;
      seen.add(key);
      return claims.get(key)?.state === 'free';
    });
    await lockTickets(tx, {
      ids: toRun.flatMap((item) =>
        item.ticket_id !== undefined && looksLikeId('ticket', item.ticket_id) ? item.ticket_id : [],
      ),
      codes: toRun.flatMap((item) => item.code ?? []),
    });

    const admissions: Admissions = new Map();
    /** The keys whose scan ran in this batch: what it asked, and its result. */
    const answered = new Map<string, { fingerprint: string; result: Answered }>();
    const outcomes: BatchOutcome[] = [];
    for (const item of items) {
      const key = item.idempotency_key;
      if (key === undefined) {
        outcomes.push(await run(tx, item, admissions));
        continue;
      }
      const fingerprint = fingerprintOf(item);
      const before = answered.get(key) ?? heldBy(claims.get(key));
      if (before) {
        outcomes.push(
          before.fingerprint === fingerprint ? answer(before.result, true) : keyReused(),
        );
      } else if (claims.get(key)?.state === 'in_flight') {
        outcomes.push(keyInFlight());
      } else {
        const outcome = await run(tx, item, admissions);
        const { replayed: _replayed, ...result } = outcome.result;
        answered.set(key, { fingerprint, result });
        outcomes.push(outcome);
      }
    }
    await storePartAnswers(
      tx.em,
      keys,
      [...answered].map(([key, { fingerprint, result }]) => ({
        key,
        fingerprint,
        status: result.status,
        body: result,
      })),
    );
    return outcomes;
  });
}

/** Runs one scan under its savepoint: its result, recorded or refused as `POST /checkins` would. */
async function run(
  tx: ScanContext,
  scan: CheckinBatchItem,
  admissions: Admissions,
): Promise<BatchOutcome> {
  try {
    const checkin = await savepoint(tx.em, () => scanTicket(tx, scan, admissions));
    return {
      result: { status: 201, data: toCheckinResource(checkin, tx.livemode), replayed: false },
      ran: true,
    };
  } catch (error) {
    // Anything else (the database gone, a bug) fails the whole batch: nothing is recorded.
    if (!(error instanceof AppError) || !REFUSALS.has(error.status)) throw error;
    return {
      result: {
        status: error.status as CheckinBatchResult['status'],
        data: null,
        error: error.message,
        code: error.code,
        ...error.more,
        replayed: false,
      },
      ran: true,
    };
  }
}
