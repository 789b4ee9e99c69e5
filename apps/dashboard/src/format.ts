const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
const dateTimeSeconds = new Intl.DateTimeFormat(undefined, {
  dateStyle: 'medium',
  timeStyle: 'medium',
});
// The usage's days are UTC days: shown as such, whatever the browser's time zone.
const utcDay = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeZone: 'UTC' });
const count = new Intl.NumberFormat(undefined);

export function formatDateTime(iso: string, { seconds = false } = {}): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return (seconds ? dateTimeSeconds : dateTime).format(date);
}

/** The UTC day `iso` falls on: `8 Dec 2026`. */
export const formatDay = (iso: string): string => utcDay.format(new Date(iso));

export const formatCount = (value: number): string => count.format(value);

const bytes = new Intl.NumberFormat(undefined, { maximumFractionDigits: 1 });
/** A file's size as people read it: `812 B`, `14.2 kB`, `3.1 MB` (powers of 1,000). */
export function formatBytes(size: number): string {
  const units = ['B', 'kB', 'MB', 'GB'] as const;
  let value = size;
  let unit = 0;
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1000;
    unit++;
  }
  return `${bytes.format(value)} ${units[unit]}`;
}

/** A duration in milliseconds as people read it: `0.84 ms`, `12.3 ms`, `1,204 ms`. */
export function formatDuration(ms: number): string {
  const digits = ms < 1 ? 2 : ms < 100 ? 1 : 0;
  return `${ms.toLocaleString(undefined, { maximumFractionDigits: digits })} ms`;
}

export const planName = (plan: 'free' | 'pro'): string => (plan === 'pro' ? 'Pro' : 'Free');
