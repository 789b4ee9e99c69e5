/**
 * `Date#toISOString()`, about ten times quicker for the dates a list renders by the thousand:
 * the calendar day's `YYYY-MM-DDT` is worked out once per day and kept, the time of day is
 * arithmetic. Dates outside 1970–9999 take `toISOString()` itself.
 */
const DAY_MS = 86_400_000;
const LATEST_MS = Date.UTC(10_000, 0, 1);
const KEPT_DAYS = 4096;

const dayPrefixes = new Map<number, string>();
const twoDigits = Array.from({ length: 100 }, (_, n) => String(n).padStart(2, '0'));
const threeDigits = Array.from({ length: 1000 }, (_, n) => String(n).padStart(3, '0'));

function dayPrefix(day: number): string {
  let prefix = dayPrefixes.get(day);
  if (prefix === undefined) {
    prefix = new Date(day * DAY_MS).toISOString().slice(0, 11);
    if (dayPrefixes.size >= KEPT_DAYS) dayPrefixes.clear();
    dayPrefixes.set(day, prefix);
  }
  return prefix;
}

export function isoTime(date: Date): string {
  const time = date.getTime();
  if (!(time >= 0 && time < LATEST_MS)) return date.toISOString();
  const day = Math.floor(time / DAY_MS);
  let rest = time - day * DAY_MS;
  const ms = rest % 1000;
  rest = (rest - ms) / 1000;
  const seconds = rest % 60;
  rest = (rest - seconds) / 60;
  const minutes = rest % 60;
  const hours = (rest - minutes) / 60;
  return `${dayPrefix(day)}${twoDigits[hours]}:${twoDigits[minutes]}:${twoDigits[seconds]}.${threeDigits[ms]}Z`;
}

/** A stamp as the API renders it (ISO-8601, UTC, milliseconds). */
export const iso: (date: Date) => string = isoTime;
export const isoOrNull = (date: Date | null | undefined): string | null =>
  date ? isoTime(date) : null;
