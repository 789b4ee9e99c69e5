import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/**
 * Encryption of secrets at rest (webhook signing secrets, stored answers that hold one):
 * AES-256-GCM, under one of several keys, each with an id. A sealed value reads
 * `v1:<key id>:<iv>:<ciphertext and tag>` (base64url), so a reader knows which key opens it and a
 * key can be retired once nothing is sealed under it any more.
 */

/** A 32-byte key and the id that sealed values name it by. */
export interface SecretKey {
  id: string;
  key: Uint8Array;
}

const VERSION = 'v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;
const KEY_BYTES = 32;

/** Key ids: what `SECRETS_ENCRYPTION_KEYS` accepts, and what a sealed value may name. */
export const SECRET_KEY_ID = /^[A-Za-z0-9_-]{1,32}$/;

/** A value that cannot be opened: sealed under a key not configured, altered, or not sealed. */
export class SecretBoxError extends Error {
  override name = 'SecretBoxError';
}

/** Whether a stored value is sealed (`v1:…`), as opposed to a value written before encryption. */
export const isSealed = (value: string): boolean => value.startsWith(`${VERSION}:`);

/** The key id a sealed value names, or null if it is not sealed. */
export function sealedKeyId(value: string): string | null {
  if (!isSealed(value)) return null;
  return value.split(':', 3)[1] ?? null;
}

/**
 * Seals with its first key (the current one) and opens values sealed under any of its keys. The
 * header (`v1:<key id>`) is authenticated with the ciphertext.
 */
export class SecretBox {
  readonly #keys: ReadonlyMap<string, Uint8Array>;
  readonly #current: SecretKey;

  constructor(keys: readonly SecretKey[]) {
    const [current] = keys;
    if (!current) throw new Error('a SecretBox needs at least one key');
    for (const { id, key } of keys) {
      if (!SECRET_KEY_ID.test(id)) throw new Error(`secret key id '${id}' is not valid`);
      if (key.length !== KEY_BYTES) throw new Error(`secret key '${id}' is not 32 bytes`);
    }
    this.#current = current;
    this.#keys = new Map(keys.map(({ id, key }) => [id, key]));
  }

  /** The id of the key new values are sealed under. */
  get currentKeyId(): string {
    return this.#current.id;
  }

  /** The ids of every key it opens with, the current one first. */
  get keyIds(): string[] {
    return [...this.#keys.keys()];
  }

  seal(plain: string): string {
    const header = `${VERSION}:${this.#current.id}`;
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.#current.key, iv);
    cipher.setAAD(Buffer.from(header));
    const sealed = Buffer.concat([
      cipher.update(plain, 'utf8'),
      cipher.final(),
      cipher.getAuthTag(),
    ]);
    return `${header}:${iv.toString('base64url')}:${sealed.toString('base64url')}`;
  }

  /** The plain text of a sealed value; a SecretBoxError saying why when it cannot be opened. */
  open(value: string): string {
    const parts = value.split(':');
    const [version, id, iv, sealed] = parts;
    if (parts.length !== 4 || version !== VERSION || !id || !iv || !sealed) {
      throw new SecretBoxError('the stored secret is not a sealed value (v1:<key id>:…)');
    }
    const key = this.#keys.get(id);
    if (!key) {
      throw new SecretBoxError(
        `the stored secret is sealed under key '${id}', which SECRETS_ENCRYPTION_KEYS does not list`,
      );
    }
    const bytes = Buffer.from(sealed, 'base64url');
    const ivBytes = Buffer.from(iv, 'base64url');
    if (ivBytes.length !== IV_BYTES || bytes.length < TAG_BYTES) {
      throw new SecretBoxError(`the stored secret sealed under key '${id}' is damaged`);
    }
    try {
      const decipher = createDecipheriv('aes-256-gcm', key, ivBytes);
      decipher.setAAD(Buffer.from(`${VERSION}:${id}`));
      decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
      const body = bytes.subarray(0, bytes.length - TAG_BYTES);
      return Buffer.concat([decipher.update(body), decipher.final()]).toString('utf8');
    } catch {
      throw new SecretBoxError(
        `the stored secret does not open with key '${id}': the key is not the one it was sealed with, or the value was altered`,
      );
    }
  }
}
