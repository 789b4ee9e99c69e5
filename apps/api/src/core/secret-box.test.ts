import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { isSealed, SecretBox, SecretBoxError, sealedKeyId } from './secret-box';

const key = (id: string) => ({ id, key: randomBytes(32) });

describe('SecretBox', () => {
  const [k1, k2] = [key('k1'), key('k2')];

  it('seals under its first key, as v1:<key id>:<iv>:<ciphertext> without the plain text', () => {
    const sealed = new SecretBox([k2, k1]).seal('whsec_plain');
    expect(sealed).toMatch(/^v1:k2:[A-Za-z0-9_-]{16}:[A-Za-z0-9_-]+$/);
    expect(sealed).not.toContain('whsec_');
    expect(isSealed(sealed)).toBe(true);
    expect(sealedKeyId(sealed)).toBe('k2');
    // A fresh IV each time.
    expect(new SecretBox([k2]).seal('whsec_plain')).not.toBe(sealed);
  });

  it('opens what any of its keys sealed', () => {
    const old = new SecretBox([k1]).seal('whsec_old');
    const both = new SecretBox([k2, k1]);
    expect(both.open(old)).toBe('whsec_old');
    expect(both.open(both.seal('whsec_new'))).toBe('whsec_new');
  });

  it('refuses, naming the key, a value sealed under a key it does not have', () => {
    const sealed = new SecretBox([k1]).seal('whsec_x');
    expect(() => new SecretBox([k2]).open(sealed)).toThrow(
      new SecretBoxError(
        "the stored secret is sealed under key 'k1', which SECRETS_ENCRYPTION_KEYS does not list",
      ),
    );
  });

  it('refuses a value under a known id but another key, or altered, or not sealed', () => {
    const sealed = new SecretBox([k1]).seal('whsec_x');
    const impostor = new SecretBox([{ id: 'k1', key: randomBytes(32) }]);
    expect(() => impostor.open(sealed)).toThrow(/does not open with key 'k1'/);
    const [version, , iv, body] = sealed.split(':');
    // The header is authenticated: the same ciphertext named under another key id fails too.
    const renamed = `${version}:k2:${iv}:${body}`;
    expect(() => new SecretBox([k2, k1]).open(renamed)).toThrow(SecretBoxError);
    const flipped = Buffer.from(body!, 'base64url');
    flipped[0]! ^= 1;
    expect(() => new SecretBox([k1]).open(`v1:k1:${iv}:${flipped.toString('base64url')}`)).toThrow(
      /does not open/,
    );
    expect(() => new SecretBox([k1]).open('whsec_plain')).toThrow(/not a sealed value/);
    expect(() => new SecretBox([k1]).open(`v1:k1:${iv}`)).toThrow(/not a sealed value/);
  });

  it('takes only 32-byte keys with valid ids', () => {
    expect(() => new SecretBox([])).toThrow();
    expect(() => new SecretBox([{ id: 'k', key: randomBytes(16) }])).toThrow(/32 bytes/);
    expect(() => new SecretBox([{ id: 'a:b', key: randomBytes(32) }])).toThrow(/not valid/);
  });
});
