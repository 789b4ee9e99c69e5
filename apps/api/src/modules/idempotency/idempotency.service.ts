import type { EntityManager } from '@mikro-orm/postgresql';

/** How long a stored response is replayed (API.md: 24 hours). */
const TTL = "interval '24 hours'";
/**
 * A claim that has been running this long is taken to belong to a crashed process and may be
 * claimed again; well past any request the server lets run (queries time out after 15 s).
 */
const LOCK = "interval '60 seconds'";

export type IdempotencyClaim =
  | { kind: 'claimed' }
  | { kind: 'replay'; status: number; body: unknown }
  | { kind: 'in_flight' }
  | { kind: 'mismatch' };

interface RecordRow {
  fingerprint: string;
  state: 'running' | 'done';
  response_status: number | null;
  response_body: unknown;
}

/**
 * Claims `key` for this API key, atomically: either this request runs (a new or expired record),
 * or it learns what the first request with that key did.
 */
export async function claimIdempotencyKey(
  em: EntityManager,
  apiKeyId: string,
  key: string,
  fingerprint: string,
): Promise<IdempotencyClaim> {
  const connection = em.getConnection();
  const claimed = await connection.execute<{ key: string }[]>(
    `insert into idempotency_records
       (api_key_id, key, fingerprint, state, locked_until, expires_at, created_at)
     values (?, ?, ?, 'running', now() + ${LOCK}, now() + ${TTL}, now())
     on conflict (api_key_id, key) do update
       set fingerprint = excluded.fingerprint, state = 'running', response_status = null,
           response_body = null, locked_until = excluded.locked_until,
           expires_at = excluded.expires_at, created_at = excluded.created_at
       where idempotency_records.expires_at < now()
          or (idempotency_records.state = 'running' and idempotency_records.locked_until < now())
     returning key`,
    [apiKeyId, key, fingerprint],
  );
  if (claimed.length > 0) return { kind: 'claimed' };

  const rows = await connection.execute<RecordRow[]>(
    `select fingerprint, state, response_status, response_body
       from idempotency_records where api_key_id = ? and key = ?`,
    [apiKeyId, key],
  );
  const row = rows[0];
  // Deleted between the two statements (its first request failed): let this one try to run.
  if (!row) return claimIdempotencyKey(em, apiKeyId, key, fingerprint);
  if (row.fingerprint !== fingerprint) return { kind: 'mismatch' };
  if (row.state === 'running' || row.response_status === null) return { kind: 'in_flight' };
  return { kind: 'replay', status: row.response_status, body: row.response_body };
}

/** Stores the response that later requests with the same key replay. */
export async function completeIdempotencyKey(
  em: EntityManager,
  apiKeyId: string,
  key: string,
  status: number,
  body: unknown,
): Promise<void> {
  await em.getConnection().execute(
    `update idempotency_records
        set state = 'done', response_status = ?, response_body = ?::jsonb
      where api_key_id = ? and key = ?`,
    [status, JSON.stringify(body ?? null), apiKeyId, key],
  );
}

/** Forgets a claim whose request must be retryable (a 409, 429 or 5xx answer). */
export async function releaseIdempotencyKey(
  em: EntityManager,
  apiKeyId: string,
  key: string,
): Promise<void> {
  await em
    .getConnection()
    .execute(
      `delete from idempotency_records where api_key_id = ? and key = ? and state = 'running'`,
      [apiKeyId, key],
    );
}

/** Deletes records past their 24 hours; returns how many. */
export async function purgeExpiredIdempotencyKeys(em: EntityManager): Promise<number> {
  const rows = await em
    .getConnection()
    .execute<{ key: string }[]>(
      `delete from idempotency_records where expires_at < now() returning key`,
    );
  return rows.length;
}
