import { exec, execOne, statement, type Runner } from '../../db/driver';

/** How long a stored answer is replayed. */
export const ANSWER_TTL_MS = 24 * 3600 * 1000;

export interface StoredAnswer {
  fingerprint: string;
  response_status: number;
  response_body: unknown;
}

/**
 * Whose answers: `request`, whole requests' (the `Idempotency-Key` header); `checkin`, the scans'
 * of check-in batches (each scan's `idempotency_key`). The same key may be stored in each.
 */
export type AnswerNamespace = 'request' | 'checkin';

/** The keys of one API key in one namespace. */
interface KeysOf {
  apiKeyId: string;
  namespace: AnswerNamespace;
}

interface KeyOf extends KeysOf {
  key: string;
}

/**
 * The name of a key's lock. A request's is the key's own name from before namespaces; a scan's
 * names its namespace where a request's has its API key's id (`key_…`), so the two never meet.
 */
const lockPrefix = (of: KeysOf): string =>
  of.namespace === 'request'
    ? `idempotency:${of.apiKeyId}:`
    : `idempotency:${of.namespace}:${of.apiKeyId}:`;

/** Takes a transaction-long lock on a key: false when another transaction holds it. */
const TRY_LOCK = statement<{ free: boolean }, { lock: string }>(
  'select pg_try_advisory_xact_lock(hashtextextended($1, 0)) as free',
  (v) => [v.lock],
);

/** `TRY_LOCK` for several keys: the keys another transaction holds. */
const TRY_LOCK_MANY = statement<{ key: string }, { prefix: string; keys: string[] }>(
  `select key from unnest($2::text[]) as k(key)
    where not pg_try_advisory_xact_lock(hashtextextended($1 || key, 0))`,
  (v) => [v.prefix, v.keys],
);

const READ = statement<StoredAnswer, KeyOf & { at: Date }>(
  `select fingerprint, response_status, response_body from idempotency_records
    where api_key_id = $1 and namespace = $2 and key = $3 and state = 'done' and expires_at > $4`,
  (v) => [v.apiKeyId, v.namespace, v.key, v.at],
);

const READ_MANY = statement<StoredAnswer & { key: string }, KeysOf & { keys: string[]; at: Date }>(
  `select key, fingerprint, response_status, response_body from idempotency_records
    where api_key_id = $1 and namespace = $2 and key = any($3::text[]) and state = 'done'
      and expires_at > $4`,
  (v) => [v.apiKeyId, v.namespace, v.keys, v.at],
);

/** An answer to store: its key, what was asked, and the answer's status and body. */
interface NewAnswer {
  key: string;
  fingerprint: string;
  status: number;
  body: unknown;
}

/**
 * Stores answers, replacing an expired one of the same key not yet purged. The answers go as one
 * JSON parameter (PostgreSQL reads it back as rows), each key at most once.
 */
const STORE = statement<never, KeysOf & { answers: NewAnswer[]; at: Date }>(
  `insert into idempotency_records
     (api_key_id, namespace, key, fingerprint, state, response_status, response_body,
      locked_until, expires_at, created_at)
   select $1, $2, a.key, a.fingerprint, 'done', a.status, a.body, $4, $5, $4
     from json_to_recordset($3::json) as a(key text, fingerprint text, status int, body jsonb)
   on conflict (api_key_id, namespace, key) do update
     set fingerprint = excluded.fingerprint, state = 'done',
         response_status = excluded.response_status, response_body = excluded.response_body,
         locked_until = excluded.locked_until, expires_at = excluded.expires_at,
         created_at = excluded.created_at`,
  (v) => [
    v.apiKeyId,
    v.namespace,
    JSON.stringify(v.answers),
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
  const [row] = await exec(on, TRY_LOCK, { lock: `${lockPrefix(of)}${of.key}` });
  return row?.free === true;
}

/** Locks the keys (distinct) for the rest of the transaction; those held elsewhere. */
export async function tryLockKeys(on: Runner, of: KeysOf, keys: string[]): Promise<Set<string>> {
  if (keys.length === 0) return new Set();
  const rows = await exec(on, TRY_LOCK_MANY, { prefix: lockPrefix(of), keys });
  return new Set(rows.map((row) => row.key));
}

/** The answer stored for the key and not expired at `at`, if any. */
export async function readAnswer(on: Runner, of: KeyOf, at: Date): Promise<StoredAnswer | null> {
  return execOne(on, READ, { ...of, at });
}

/** The answers stored for these keys and not expired at `at`, by key. */
export async function readAnswers(
  on: Runner,
  of: KeysOf,
  keys: string[],
  at: Date,
): Promise<Map<string, StoredAnswer>> {
  if (keys.length === 0) return new Map();
  const rows = await exec(on, READ_MANY, { ...of, keys, at });
  return new Map(rows.map(({ key, ...answer }) => [key, answer]));
}

/** Stores answers (each key at most once), stamped `at`. */
export async function storeAnswers(
  on: Runner,
  of: KeysOf,
  answers: NewAnswer[],
  at: Date,
): Promise<void> {
  if (answers.length === 0) return;
  await exec(on, STORE, {
    ...of,
    at,
    answers: answers.map((answer) => ({ ...answer, body: answer.body ?? null })),
  });
}

/** Deletes the answers expired at `at`; how many. */
export async function purgeAnswers(on: Runner, at: Date): Promise<number> {
  const [row] = await exec(on, PURGE, { at });
  return Number(row?.purged ?? 0);
}

/** A stored answer's key and its body as stored, for re-encryption. */
export interface StoredBody {
  api_key_id: string;
  namespace: AnswerNamespace;
  key: string;
  /** A sealed body (the JSON text of a string), or a plain one as JSON text. */
  body: string;
  sealed: boolean;
}

/** A place in the order of stored answers: API key, namespace, key (all empty: before the first). */
interface After {
  apiKeyId: string;
  namespace: string;
  key: string;
}

/**
 * The next answers after `after` (in key order), locked until the transaction ends: those sealed
 * under a key other than the `keep` ones, and the plain ones whose JSON text holds `plain` (none
 * when it is null).
 */
const TO_RESEAL = statement<
  StoredBody,
  { keep: string[]; plain: string | null; after: After; limit: number }
>(
  `select api_key_id, namespace, key, sealed,
          case when sealed then response_body #>> '{}' else response_body::text end as body
     from (select api_key_id, namespace, key, response_body,
                  jsonb_typeof(response_body) = 'string'
                    and split_part(response_body #>> '{}', ':', 1) = 'v1' as sealed
             from idempotency_records
            where (api_key_id, namespace, key) > ($3, $4, $5) and response_body is not null) r
    where case when sealed
               then not (split_part(response_body #>> '{}', ':', 2) = any($1::text[]))
               else $2::text is not null and strpos(response_body::text, $2::text) > 0 end
    order by api_key_id, namespace, key limit $6
    for update`,
  (v) => [v.keep, v.plain, v.after.apiKeyId, v.after.namespace, v.after.key, v.limit],
);

/** An answer's key and its body sealed anew. */
type Resealed = KeyOf & { body: string };

const RESEAL = statement<never, { rows: Resealed[] }>(
  `update idempotency_records r set response_body = to_jsonb(v.body)
     from unnest($1::text[], $2::text[], $3::text[], $4::text[])
          as v(api_key_id, namespace, key, body)
    where r.api_key_id = v.api_key_id and r.namespace = v.namespace and r.key = v.key`,
  (v) => [
    v.rows.map((r) => r.apiKeyId),
    v.rows.map((r) => r.namespace),
    v.rows.map((r) => r.key),
    v.rows.map((r) => r.body),
  ],
);

export const answersToReseal = (
  on: Runner,
  select: { keep: string[]; plain: string | null; after: After; limit: number },
): Promise<StoredBody[]> => exec(on, TO_RESEAL, select);

/** Writes answers' bodies sealed anew (their rows locked by the caller). */
export async function resealAnswers(on: Runner, rows: Resealed[]): Promise<void> {
  if (rows.length > 0) await exec(on, RESEAL, { rows });
}

/** Deletes every answer stored for these API keys. */
export async function deleteAnswersOf(on: Runner, apiKeyIds: string[]): Promise<void> {
  await exec(on, DELETE_OF_KEYS, { apiKeyIds });
}
