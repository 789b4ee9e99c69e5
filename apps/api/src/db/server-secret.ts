import { createSecretKey, type KeyObject } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { exec, statement } from './driver';

/** The secrets a migration created (`server_secrets`), by name, read once per process. */
export type ServerSecretName = 'list_cursor';

const BY_NAME = statement<{ value: string }, { name: ServerSecretName }>(
  'select value from server_secrets where name = $1',
  (v) => [v.name],
);

const loaded = new WeakMap<object, Map<ServerSecretName, Promise<KeyObject>>>();

/**
 * A secret every instance shares, as a key ready for `createHmac` (importing raw bytes on every
 * signature would cost more than the signature). Read from the database on first use and kept; a
 * failed read is not kept, so the next request tries again.
 */
export function serverSecret(em: EntityManager, name: ServerSecretName): Promise<KeyObject> {
  const driver = em.getDriver();
  let secrets = loaded.get(driver);
  if (!secrets) loaded.set(driver, (secrets = new Map<ServerSecretName, Promise<KeyObject>>()));
  let secret = secrets.get(name);
  if (!secret) {
    secret = exec(em, BY_NAME, { name }).then(([row]) => {
      if (!row) throw new Error(`server secret ${name} is missing: run the migrations`);
      return createSecretKey(Buffer.from(row.value, 'utf8'));
    });
    secret.catch(() => secrets.delete(name));
    secrets.set(name, secret);
  }
  return secret;
}
