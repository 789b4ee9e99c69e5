import { describe, expect, it } from 'vitest';
import { randomBase62 } from '../../core/ids';
import { KEY_PREFIX } from '../api-keys/api-key.service';
import { MAX_BODY_BYTES, redact, storedJson, storedText, truncate } from './redact';

// A key of the generated shape, made here: no key literal in the sources.
const KEY = `${KEY_PREFIX}${randomBase62(40)}`;
const WHSEC = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';

describe('redact', () => {
  it('replaces keys, signing secrets and bearer credentials wherever they are', () => {
    expect(redact(`key ${KEY}, test bxo_test_abcdefgh123 and ${WHSEC}.`)).toBe(
      'key [redacted], test [redacted] and [redacted].',
    );
    expect(redact('Authorization: Bearer abc.def-ghi')).toBe('Authorization: Bearer [redacted]');
    expect(redact(`/events/${KEY.replaceAll('_', '%5F')}?s=${encodeURIComponent(WHSEC)}`)).toBe(
      '/events/[redacted]?s=[redacted]',
    );
    expect(redact('/events?api_key=abc&limit=5&access_token=xyz')).toBe(
      '/events?api_key=[redacted]&limit=5&access_token=[redacted]',
    );
    expect(redact('{"Authorization":"Basic dXNlcjpwYXNz","password":"hunter2","n":1}')).toBe(
      '{"Authorization":"[redacted]","password":"[redacted]","n":1}',
    );
  });

  it('redacts a secret written just after a key, whatever characters of base64 begin it', () => {
    for (const secret of ['whsec_++BTKOTG2UN2YPvgcrVXe0ki', 'whsec_/x=9', WHSEC]) {
      expect(redact(`${KEY}${secret}`), secret).toBe('[redacted][redacted]');
      expect(redact(`${secret}${KEY}`), secret).toBe('[redacted]');
    }
  });

  it('leaves hints and ordinary text alone', () => {
    const text = 'key bxo_live_…a1B2 made by bxo_ on /events?limit=5 {"name":"Gala"}';
    expect(redact(text)).toBe(text);
  });
});

describe('storing', () => {
  it('cuts at 4 kB of UTF-8, never inside a character, and says so', () => {
    expect(truncate('short')).toEqual({ text: 'short', truncated: false });
    const cut = truncate('é'.repeat(3000));
    expect(cut.truncated).toBe(true);
    expect(Buffer.byteLength(cut.text)).toBe(MAX_BODY_BYTES);
    const odd = truncate(`x${'€'.repeat(2000)}`);
    expect(Buffer.byteLength(odd.text)).toBeLessThanOrEqual(MAX_BODY_BYTES);
    expect(odd.text).not.toContain('\uFFFD');
  });

  it('redacts before it cuts, so no part of a secret is left at the cut', () => {
    const body = { pad: 'p'.repeat(MAX_BODY_BYTES - 20), key: KEY };
    const stored = storedJson(body)!;
    expect(stored.truncated).toBe(true);
    expect(stored.text).not.toContain(KEY.slice(0, 12));
  });

  it('keeps short texts well-formed and without NUL', () => {
    expect(storedText('a\0b', 10)).toBe('ab');
    expect(storedText('x😀', 2)).toBe('x\uFFFD');
  });
});
