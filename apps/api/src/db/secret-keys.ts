import { createHash } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { SecretBox, type SecretKey } from '../core/secret-box';

/**
 * The key of a server started without `SECRETS_ENCRYPTION_KEYS` (development and tests only: the
 * configuration requires keys in production). Derived from a constant, so every process and
 * thread on a database agrees on it; it protects nothing, as a key kept in the database itself
 * would not either.
 */
export const DEVELOPMENT_KEY: SecretKey = {
  id: 'development',
  key: createHash('sha256').update('boxoffice development secrets key').digest(),
};

/**
 * A box for the configured keys (current first), or the development key alone. With keys
 * configured, the development key still opens (never seals) what was sealed under it, so a
 * database started without keys can be re-encrypted under them (`resealStoredSecrets`).
 */
export function secretBoxFor(configured: readonly SecretKey[] | undefined): SecretBox {
  return new SecretBox(
    configured && configured.length > 0 ? [...configured, DEVELOPMENT_KEY] : [DEVELOPMENT_KEY],
  );
}

const boxes = new WeakMap<object, SecretBox>();
const developmentBox = secretBoxFor(undefined);

/** Gives the ORM of `em` its keys (`createOrm` does, from its options). */
export function useSecretKeys(em: EntityManager, keys: readonly SecretKey[] | undefined): void {
  boxes.set(em.getDriver(), secretBoxFor(keys));
}

/** The box of the ORM `em` belongs to (its forks and transactions included). */
export function secretBox(em: EntityManager): SecretBox {
  return boxes.get(em.getDriver()) ?? developmentBox;
}

/**
 * What a re-encryption moves to the current key: `legacy`, the values written before encryption
 * and those under the development key once keys are configured (done at every start); `all`,
 * everything not under the current key (the operator's `secrets reencrypt`, after adding a key).
 */
export type ResealScope = 'legacy' | 'all';

/** The key ids whose sealed values a re-encryption of `scope` leaves as they are. */
export function keptKeyIds(box: SecretBox, scope: ResealScope): string[] {
  if (scope === 'all') return [box.currentKeyId];
  return box.keyIds.filter((id) => id !== DEVELOPMENT_KEY.id || box.currentKeyId === id);
}
