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

const DELETE_OF_KEYS = statement<never, { apiKeyIds: string[] }>(
  `delete from idempotency_records where api_key_id = any($1::text[])`,
  (v) => [v.apiKeyIds],
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

/** A stored answer's key and its body as stored, for re-encryption. */
export interface StoredBody {
  api_key_id: string;
  key: string;
  /** A sealed body (the JSON text of a string), or a plain one as JSON text. */
  body: string;
  sealed: boolean;
}

/**
 * The next answers after `after` (in key order), locked until the transaction ends: those sealed
 * under a key other than the `keep` ones, and the plain ones whose JSON text holds `plain` (none
 * when it is null).
 */
const TO_RESEAL = statement<
  StoredBody,
  { keep: string[]; plain: string | null; after: KeyOf; limit: number }
>(
  `select api_key_id, key, sealed, case when sealed then response_body #>> '{}'
                                        else response_body::text end as body
     from (select api_key_id, key, response_body,
                  jsonb_typeof(response_body) = 'string'
                    and split_part(response_body #>> '{}', ':', 1) = 'v1' as sealed
             from idempotency_records
            where (api_key_id, key) > ($3, $4) and response_body is not null) r
    where case when sealed
               then not (split_part(response_body #>> '{}', ':', 2) = any($1::text[]))
               else $2::text is not null and strpos(response_body::text, $2::text) > 0 end
    order by api_key_id, key limit $5
    for update`,
  (v) => [v.keep, v.plain, v.after.apiKeyId, v.after.key, v.limit],
);

const RESEAL = statement<never, { rows: { apiKeyId: string; key: string; body: string }[] }>(
  `update idempotency_records r set response_body = to_jsonb(v.body)
     from unnest($1::text[], $2::text[], $3::text[]) as v(api_key_id, key, body)
    where r.api_key_id = v.api_key_id and r.key = v.key`,
  (v) => [v.rows.map((r) => r.apiKeyId), v.rows.map((r) => r.key), v.rows.map((r) => r.body)],
);

export const answersToReseal = (
  on: Runner,
  select: { keep: string[]; plain: string | null; after: KeyOf; limit: number },
): Promise<StoredBody[]> => exec(on, TO_RESEAL, select);

/** Writes answers' bodies sealed anew (their rows locked by the caller). */
export async function resealAnswers(
  on: Runner,
  rows: { apiKeyId: string; key: string; body: string }[],
): Promise<void> {
  if (rows.length > 0) await exec(on, RESEAL, { rows });
}

/** Deletes every answer stored for these API keys. */
export async function deleteAnswersOf(on: Runner, apiKeyIds: string[]): Promise<void> {
  await exec(on, DELETE_OF_KEYS, { apiKeyIds });
}
