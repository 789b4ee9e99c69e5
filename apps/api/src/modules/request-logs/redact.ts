/**
 * What the request log keeps of a request's text (its path and query, its User-Agent, its JSON
 * body and the error answered) without the secrets a caller may have put anywhere in it: API keys
 * (`bxo_…`), webhook signing secrets (`whsec_…`), bearer credentials, and the values of
 * `authorization` fields and of query parameters named like credentials. The patterns also match
 * the percent-encoded forms (`bxo%5Flive%5F…`) a path or query may carry.
 */

export const REDACTED = '[redacted]';

/** The most of a body the log keeps, in bytes (UTF-8). */
export const MAX_BODY_BYTES = 4096;

/** `_` as sent, or percent-encoded. */
const US = '(?:_|%5[fF])';

const PATTERNS: [RegExp, string][] = [
  // A webhook signing secret (base64 after `whsec_`). Before keys: a key's alphabet takes the
  // letters of `whsec_`, so a key written just before a secret would otherwise take its prefix.
  [new RegExp(`whsec${US}[A-Za-z0-9+/=_%-]{4,}`, 'gi'), REDACTED],
  // An API key, whole or in part: `bxo_` and at least eight characters of the key's alphabet. The
  // dashboard's hints (`bxo_live_…a1B2`) are not keys and stay readable.
  [new RegExp(`bxo${US}[A-Za-z0-9_%]{8,}`, 'gi'), REDACTED],
  // `Bearer <credentials>`, as an Authorization header's value quoted anywhere.
  [/(bearer(?:\s|%20|\+)+)[^\s"'&,;]+/gi, `$1${REDACTED}`],
  // A JSON member named authorization, password, secret or token (and their longer forms).
  [
    /("[\w-]*(?:authorization|password|secret|token|api_?key)[\w-]*"\s*:\s*)"(?:[^"\\]|\\.)*"/gi,
    `$1"${REDACTED}"`,
  ],
  // A query parameter named like a credential.
  [
    /([?&;][\w.%-]*(?:authorization|password|secret|token|api_?key)[\w.%-]*=)[^&#;]*/gi,
    `$1${REDACTED}`,
  ],
];

/**
 * A word every pattern above needs: text without one has nothing to redact, which one scan tells
 * (most paths and user agents), instead of one scan per pattern.
 */
const CANDIDATE = /bxo|whsec|bearer|authorization|password|secret|token|api_?key/i;

/** `text` with every secret the patterns find replaced by `[redacted]`. */
export function redact(text: string): string {
  if (!CANDIDATE.test(text)) return text;
  let out = text;
  for (const [pattern, replacement] of PATTERNS) out = out.replace(pattern, replacement);
  return out;
}

/**
 * `text` cut to at most `maxBytes` of UTF-8 (never inside a character), and whether it was cut.
 */
export function truncate(
  text: string,
  maxBytes: number = MAX_BODY_BYTES,
): { text: string; truncated: boolean } {
  // Each UTF-16 unit is at most 3 bytes: a text this short cannot be over.
  if (text.length * 3 <= maxBytes) return { text, truncated: false };
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length <= maxBytes) return { text, truncated: false };
  let end = maxBytes;
  // Back to the start of a character: continuation bytes are 10xxxxxx.
  while (end > 0 && ((bytes[end] ?? 0) & 0xc0) === 0x80) end -= 1;
  return { text: bytes.subarray(0, end).toString('utf8'), truncated: true };
}

/**
 * A value as the log stores it: JSON text, secrets redacted, cut at 4 kB. Redaction runs on the
 * whole text before the cut, so no part of a secret survives at the cut either.
 */
export function storedJson(value: unknown): { text: string; truncated: boolean } | undefined {
  const json = JSON.stringify(value) as string | undefined;
  if (json === undefined) return undefined;
  return truncate(redact(json));
}

/** A short text (path, User-Agent) as stored: redacted, and cut at `maxChars` characters. */
export function storedText(text: string, maxChars: number): string {
  const redacted = redact(text).replaceAll('\0', '');
  // Cut, then made well-formed: a cut between the halves of a surrogate pair leaves one half.
  return (redacted.length > maxChars ? redacted.slice(0, maxChars) : redacted).replace(
    LONE_SURROGATE,
    '\uFFFD',
  );
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
