import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError, unprocessable } from '../../core/errors';
import { isSealed, SecretBoxError } from '../../core/secret-box';
import { clock, transaction } from '../../db/driver';
import { keptKeyIds, secretBox, type ResealScope } from '../../db/secret-keys';
import {
  answersToReseal,
  deleteAnswersOf,
  purgeAnswers,
  readAnswer,
  readAnswers,
  resealAnswers,
  storeAnswers,
  tryLockKey,
  tryLockKeys,
  type AnswerNamespace,
  type StoredAnswer,
} from './idempotency.repository';

export type { AnswerNamespace } from './idempotency.repository';

/** A request carrying `Idempotency-Key`: whose key it is, and what exactly it asked. */
export interface IdempotentRequest {
  apiKeyId: string;
  key: string;
  /** A hash of the method, path and body: the same key with another request is refused. */
  fingerprint: string;
  /**
   * Its answers hold a secret (a webhook endpoint's signing secret): they are stored sealed
   * (core/secret-box.ts). Other answers are stored as they are, which costs the hot writes nothing.
   */
  sealed?: boolean;
}

/** An answer as the API sends it. */
export interface Answer {
  status: number;
  body: unknown;
}

/**
 * Answers of the operation itself are stored and replayed: successes, and the 404 and 422 of what
 * the request referred to. A request the server could not accept as sent (400, 413) gets the same
 * answer again whenever it is repeated; 409, 429 and 5xx leave the key free for a retry.
 */
const STORED_ERRORS = new Set([404, 422]);
const isStored = (status: number): boolean =>
  (status >= 200 && status < 300) || STORED_ERRORS.has(status);

const inFlight = () =>
  new AppError(
    409,
    'idempotency_in_flight',
    'A request with this Idempotency-Key is still in progress; retry shortly',
    { 'Retry-After': '1' },
  );

/**
 * Takes the key's lock for the rest of the transaction (a request with the same key elsewhere is
 * told it is in flight) and reads what an earlier request with it answered, if anything.
 */
async function claim(tx: EntityManager, request: IdempotentRequest): Promise<Answer | null> {
  const key = { ...request, namespace: 'request' as const };
  if (!(await tryLockKey(tx, key))) throw inFlight();
  // A statement of its own, after the lock: its snapshot includes whatever the lock's previous
  // holder committed.
  const stored = await readAnswer(tx, key, clock(tx));
  if (!stored) return null;
  if (stored.fingerprint !== request.fingerprint) {
    throw unprocessable(
      'Idempotency-Key has already been used with a different request',
      'idempotency_key_reused',
    );
  }
  return opened(tx, stored);
}

/** A stored answer as it was given. */
function opened(tx: EntityManager, stored: StoredAnswer): Answer {
  // An API answer is a JSON object (or null): a string is a sealed one.
  const body = stored.response_body;
  if (typeof body === 'string' && isSealed(body)) {
    return {
      status: stored.response_status,
      body: JSON.parse(secretBox(tx).open(body)) as unknown,
    };
  }
  return { status: stored.response_status, body };
}

const store = (tx: EntityManager, request: IdempotentRequest, answer: Answer) =>
  storeAnswers(
    tx,
    { apiKeyId: request.apiKeyId, namespace: 'request' },
    [
      {
        key: request.key,
        fingerprint: request.fingerprint,
        status: answer.status,
        body: request.sealed
          ? secretBox(tx).seal(JSON.stringify(answer.body ?? null))
          : answer.body,
      },
    ],
    clock(tx),
  );

/**
 * Runs `operation` at most once per API key and Idempotency-Key. The operation's effect and the
 * answer that later requests with the key replay are written in one transaction: both commit, or
 * neither does, so a crash between them cannot make a retry run the effect twice. While a request
 * with the key is running, another one gets a 409; once it has committed, the stored answer.
 * A 404 or 422 from the operation changes nothing, so it is stored after its rollback.
 */
export async function runOnce<A extends Answer>(
  em: EntityManager,
  request: IdempotentRequest,
  operation: (tx: EntityManager) => Promise<A>,
): Promise<{ answer: A | Answer; replayed: boolean }> {
  // Only the operation's own refusals are stored, not the claim's (in flight, key reused). (An
  // object: TypeScript does not see the callback assign a local, and would take `false` below.)
  const progress = { operationRan: false };
  try {
    return await transaction(em, async (tx) => {
      const stored = await claim(tx, request);
      if (stored) return { answer: stored, replayed: true };
      progress.operationRan = true;
      const answer = await operation(tx);
      if (isStored(answer.status)) await store(tx, request, answer);
      return { answer, replayed: false };
    });
  } catch (error) {
    if (progress.operationRan && error instanceof AppError && STORED_ERRORS.has(error.status)) {
      await transaction(em, async (tx) => {
        if ((await claim(tx, request)) === null) {
          await store(tx, request, {
            status: error.status,
            body: { error: error.message, code: error.code, ...error.more },
          });
        }
      })
        // The answer is sent anyway; without the record, a retry runs (and refuses) again.
        .catch(() => undefined);
    }
    throw error;
  }
}

/** Whose keys the parts of a request have: an API key's, in a namespace of their own. */
export interface PartKeys {
  apiKeyId: string;
  namespace: Exclude<AnswerNamespace, 'request'>;
}

/**
 * What a part's key holds: nothing yet (run the part); a lock of another transaction still running
 * (a request with that part, sent again before its answer); or the answer a part with it had, and
 * a hash of what that part asked (`fingerprint`).
 */
export type PartClaim =
  | { state: 'free' }
  | { state: 'in_flight' }
  | { state: 'answered'; fingerprint: string; answer: Answer };

/**
 * Idempotency for the parts of one request, each with a key of its own (the scans of a check-in
 * batch): the answer of each part is stored in the transaction of its effect and replayed for its
 * key, as `runOnce` does for whole requests. This claims the parts' keys (distinct) for the rest of
 * the transaction `tx` and reads what they hold, in two statements for them all. The caller runs
 * the free ones and stores their answers (`storePartAnswers`) before the transaction commits.
 */
export async function claimParts(
  tx: EntityManager,
  of: PartKeys,
  keys: string[],
): Promise<Map<string, PartClaim>> {
  const busy = await tryLockKeys(tx, of, keys);
  // After the locks, as `claim`: this snapshot holds what their previous holders committed.
  const stored = await readAnswers(
    tx,
    of,
    keys.filter((key) => !busy.has(key)),
    clock(tx),
  );
  return new Map(
    keys.map((key): [string, PartClaim] => {
      if (busy.has(key)) return [key, { state: 'in_flight' }];
      const answer = stored.get(key);
      if (!answer) return [key, { state: 'free' }];
      return [
        key,
        { state: 'answered', fingerprint: answer.fingerprint, answer: opened(tx, answer) },
      ];
    }),
  );
}

/** Stores the answers of parts whose keys `claimParts` found free, in the transaction `tx`. */
export const storePartAnswers = (
  tx: EntityManager,
  of: PartKeys,
  answers: { key: string; fingerprint: string; status: number; body: unknown }[],
): Promise<void> => storeAnswers(tx, of, answers, clock(tx));

/** Deletes records past their 24 hours; returns how many. */
export const purgeExpiredIdempotencyKeys = (em: EntityManager): Promise<number> =>
  purgeAnswers(em, new Date());

/** Forgets every answer stored for these API keys, expired or not (a test environment's reset). */
export const forgetAnswers = (em: EntityManager, apiKeyIds: string[]): Promise<void> =>
  deleteAnswersOf(em, apiKeyIds);

/** Answers re-encrypted per transaction. */
const RESEAL_BATCH = 200;

/**
 * Seals again under the current key the stored answers of `scope` (db/secret-keys.ts), and seals
 * the plain ones whose JSON holds `plain` (answers stored before encryption). How many it sealed,
 * and how many it could not open (sealed under a key no longer configured).
 */
export async function resealStoredAnswers(
  em: EntityManager,
  scope: ResealScope,
  plain: string | null,
): Promise<{ resealed: number; unreadable: number }> {
  const box = secretBox(em);
  const keep = keptKeyIds(box, scope);
  const done = { resealed: 0, unreadable: 0 };
  let after = { apiKeyId: '', namespace: '', key: '' };
  for (;;) {
    const batch = await transaction(em, async (tx) => {
      const rows = await answersToReseal(tx, { keep, plain, after, limit: RESEAL_BATCH });
      const sealed: { apiKeyId: string; namespace: AnswerNamespace; key: string; body: string }[] =
        [];
      for (const row of rows) {
        try {
          const text = row.sealed ? box.open(row.body) : row.body;
          sealed.push({
            apiKeyId: row.api_key_id,
            namespace: row.namespace,
            key: row.key,
            body: box.seal(text),
          });
        } catch (error) {
          if (!(error instanceof SecretBoxError)) throw error;
          done.unreadable++;
        }
      }
      await resealAnswers(tx, sealed);
      done.resealed += sealed.length;
      return rows;
    });
    const last = batch.at(-1);
    if (!last || batch.length < RESEAL_BATCH) return done;
    after = { apiKeyId: last.api_key_id, namespace: last.namespace, key: last.key };
  }
}
