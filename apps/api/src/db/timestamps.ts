/** The number written by the ASCII digits of `text[start, end)`, or NaN if any is not a digit. */
function digits(text: string, start: number, end: number): number {
  let value = 0;
  for (let i = start; i < end; i++) {
    const digit = text.charCodeAt(i) - 48;
    if (digit < 0 || digit > 9) return Number.NaN;
    value = value * 10 + digit;
  }
  return value;
}

/**
 * A `timestamptz` as PostgreSQL sends it to a UTC session (`2026-11-23 14:05:09.123456+00`), read
 * as a `Date` from its fixed positions rather than by a general date parser (lists read thousands
 * a second); anything else, such as years before 1 or after 9999, by `fallback`.
 */
export function parseTimestamp(text: string, fallback: (text: string) => unknown): unknown {
  const length = text.length;
  const fraction = length - 3 - 20; // characters after the seconds' `.`, before `+00`
  const shaped =
    (length === 22 || (fraction >= 1 && fraction <= 6 && text.charCodeAt(19) === 46)) &&
    text.endsWith('+00') &&
    text.charCodeAt(4) === 45 &&
    text.charCodeAt(7) === 45 &&
    text.charCodeAt(10) === 32 &&
    text.charCodeAt(13) === 58 &&
    text.charCodeAt(16) === 58;
  if (!shaped) return fallback(text);
  const year = digits(text, 0, 4);
  // Milliseconds: the first three digits of the fraction (`.5` is 500), the rest checked only.
  let ms = 0;
  for (let i = 0; i < 3; i++) ms = ms * 10 + (i < fraction ? digits(text, 20 + i, 21 + i) : 0);
  if (fraction > 3 && Number.isNaN(digits(text, 23, 20 + fraction))) return fallback(text);
  const time = Date.UTC(
    year,
    digits(text, 5, 7) - 1,
    digits(text, 8, 10),
    digits(text, 11, 13),
    digits(text, 14, 16),
    digits(text, 17, 19),
    ms,
  );
  if (Number.isNaN(time)) return fallback(text);
  const date = new Date(time);
  // Date.UTC reads years 0–99 as 1900–1999.
  if (year < 100) date.setUTCFullYear(year);
  return date;
}
