import { exec, statement, type Runner } from '../../db/driver';

/** How long a stored answer is replayed. */
export const ANSWER_TTL_MS = 24 * 3600 * 1000;

export interface StoredAnswer {
  fingerprint: string;
  response_status: number;
  response_body: unknown;
}

interface KeyOf {
  apiKeyId: string;
  key: string;
}

/** Takes a transaction-long lock on a key: false when another transaction holds it. */
const TRY_LOCK = statement<{ free: boolean }, { lock: string }>(
  'select pg_try_advisory_xact_lock(hashtextextended($1, 0)) as free',
  (v) => [v.lock],
);

const READ = statement<StoredAnswer, KeyOf & { at: Date }>(
  `select fingerprint, response_status, response_body from idempotency_records
    where api_key_id = $1 and key = $2 and state = 'done' and expires_at > $3`,
  (v) => [v.apiKeyId, v.key, v.at],
);

const STORE = statement<
  never,
  KeyOf & { fingerprint: string; status: number; body: string; at: Date }
>(
  `insert into idempotency_records
     (api_key_id, key, fingerprint, state, response_status, response_body, locked_until,
      expires_at, created_at)
   values ($1, $2, $3, 'done', $4, $5::jsonb, $6, $7, $6)
   on conflict (api_key_id, key) do update
     set fingerprint = excluded.fingerprint, state = 'done',
         response_status = excluded.response_status, response_body = excluded.response_body,
         locked_until = excluded.locked_until, expires_at = excluded.expires_at,
         created_at = excluded.created_at`,
  (v) => [
    v.apiKeyId,
    v.key,
    v.fingerprint,
    v.status,
    v.body,
    v.at,
    new Date(v.at.getTime() + ANSWER_TTL_MS),
  ],
);

const PURGE = statement<{ purged: string }, { at: Date }>(
  `with purged as (delete from idempotency_records where expires_at < $1 returning 1)
   select count(*) as purged from purged`,
  (v) => [v.at],
);

/** Locks the key for the rest of the transaction; false when it is held elsewhere. */
export async function tryLockKey(on: Runner, of: KeyOf): Promise<boolean> {
  const [row] = await exec(on, TRY_LOCK, { lock: `idempotency:${of.apiKeyId}:${of.key}` });
  return row?.free === true;
}

/** The answer stored for the key and not expired at `at`, if any. */
export async function readAnswer(on: Runner, of: KeyOf, at: Date): Promise<StoredAnswer | null> {
  const [row] = await exec(on, READ, { ...of, at });
  return row ?? null;
}

export async function storeAnswer(
  on: Runner,
  answer: KeyOf & { fingerprint: string; status: number; body: unknown; at: Date },
): Promise<void> {
  await exec(on, STORE, { ...answer, body: JSON.stringify(answer.body ?? null) });
}

/** Deletes the answers expired at `at`; how many. */
export async function purgeAnswers(on: Runner, at: Date): Promise<number> {
  const [row] = await exec(on, PURGE, { at });
  return Number(row?.purged ?? 0);
}
