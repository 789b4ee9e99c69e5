import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError, unprocessable } from '../../core/errors';
import { clock, transaction } from '../../db/driver';
import { purgeAnswers, readAnswer, storeAnswer, tryLockKey } from './idempotency.repository';

/** A request carrying `Idempotency-Key`: whose key it is, and what exactly it asked. */
export interface IdempotentRequest {
  apiKeyId: string;
  key: string;
  /** A hash of the method, path and body: the same key with another request is refused. */
  fingerprint: string;
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
  if (!(await tryLockKey(tx, request))) throw inFlight();
  // A statement of its own, after the lock: its snapshot includes whatever the lock's previous
  // holder committed.
  const stored = await readAnswer(tx, request, clock(tx));
  if (!stored) return null;
  if (stored.fingerprint !== request.fingerprint) {
    throw unprocessable(
      'Idempotency-Key has already been used with a different request',
      'idempotency_key_reused',
    );
  }
  return { status: stored.response_status, body: stored.response_body };
}

const store = (tx: EntityManager, request: IdempotentRequest, answer: Answer) =>
  storeAnswer(tx, { ...request, ...answer, at: clock(tx) });

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
            body: { error: error.message, code: error.code },
          });
        }
      })
        // The answer is sent anyway; without the record, a retry runs (and refuses) again.
        .catch(() => undefined);
    }
    throw error;
  }
}

/** Deletes records past their 24 hours; returns how many. */
export const purgeExpiredIdempotencyKeys = (em: EntityManager): Promise<number> =>
  purgeAnswers(em, new Date());
