import type { Scope } from '@boxoffice/contract';
import { exec, execOne, statement, type Runner } from '../../db/driver';
import type { Plan } from '../organisations/organisation.entity';

/** `last_used_at` is refreshed at most this often, so authentication is not a write per request. */
const LAST_USED_RESOLUTION_S = 60;

/** A key found by its hash, with its mode and the plan of its live organisation. */
export interface KeyRow {
  id: string;
  organisation_id: string;
  key_hash: string;
  scopes: Scope[];
  revoked_at: Date | null;
  /** `last_used_at` is older than the resolution (or unset). */
  stale: boolean;
  /** False for a key of a test environment. */
  livemode: boolean;
  /** The live organisation's plan: a test environment has its live organisation's. */
  plan: Plan;
}

const BY_HASH = statement<KeyRow, { keyHash: string }>(
  `select k.id, k.organisation_id, k.key_hash, k.scopes, coalesce(live.plan, o.plan) as plan,
          k.revoked_at, o.live_organisation_id is null as livemode,
          (k.last_used_at is null
           or k.last_used_at < now() - interval '${LAST_USED_RESOLUTION_S} seconds') as stale
     from api_keys k join organisations o on o.id = k.organisation_id
     left join organisations live on live.id = o.live_organisation_id
    where k.key_hash = $1`,
  (v) => [v.keyHash],
);

const TOUCH = statement<never, { id: string; at: Date }>(
  `update api_keys set last_used_at = $2
    where id = $1
      and (last_used_at is null
           or last_used_at < $2::timestamptz - interval '${LAST_USED_RESOLUTION_S} seconds')`,
  (v) => [v.id, v.at],
);

/** The key with this hash (revoked or not), in one indexed read; null if there is none. */
export async function findKeyByHash(on: Runner, keyHash: string): Promise<KeyRow | null> {
  return execOne(on, BY_HASH, { keyHash });
}

/** Marks the key used at `at`, unless it was within the resolution. */
export async function touchKey(on: Runner, id: string, at: Date): Promise<void> {
  await exec(on, TOUCH, { id, at });
}
