import { describe, expect, it } from 'vitest';
import { parseTimestamp } from './timestamps';

/** A time as PostgreSQL writes a `timestamptz` to a UTC session: trailing zeros of the fraction dropped. */
function pgText(time: number, micros: number): string {
  const iso = new Date(time).toISOString();
  const fraction = (String(time % 1000).padStart(3, '0') + String(micros).padStart(3, '0')).replace(
    /0+$/,
    '',
  );
  return `${iso.slice(0, 10)} ${iso.slice(11, 19)}${fraction ? `.${fraction}` : ''}+00`;
}

const refuse = (text: string) => ({ fallback: text });

describe('parseTimestamp', () => {
  it('reads what PostgreSQL writes, to the millisecond', () => {
    const samples = [
      Date.UTC(2026, 10, 23, 14, 5, 9, 0),
      Date.UTC(2026, 10, 23, 14, 5, 9, 500),
      Date.UTC(2000, 1, 29, 23, 59, 59, 999),
      Date.UTC(1970, 0, 1),
      Date.UTC(9999, 11, 31, 23, 59, 59, 999),
    ];
    for (let i = 0; i < 5_000; i++) {
      samples.push(Math.floor(Math.random() * Date.UTC(9999, 11, 31)));
    }
    for (const time of samples) {
      for (const micros of [0, 1, 450, 999]) {
        const text = pgText(time, micros);
        const parsed = parseTimestamp(text, refuse);
        expect(parsed, text).toBeInstanceOf(Date);
        expect((parsed as Date).getTime(), text).toBe(time);
      }
    }
  });

  it('keeps years before 100 as they are', () => {
    const parsed = parseTimestamp('0042-03-15 12:00:00.25+00', refuse) as Date;
    expect(parsed.toISOString()).toBe('0042-03-15T12:00:00.250Z');
  });

  it('hands anything else to the fallback', () => {
    for (const text of [
      '2026-11-23 14:05:09+01',
      '2026-11-23T14:05:09Z',
      '2026-11-23 14:05:09.1234567+00',
      '2026-11-23 14:05:09.+00',
      '2026-1a-23 14:05:09+00',
      '2026-11-23 14:05:09.12x+00',
      '2026-11-23 14:05:09.1234x6+00',
      '0044-03-15 12:00:00+00 BC',
      '10000-01-01 00:00:00+00',
      'infinity',
      '',
    ]) {
      expect(parseTimestamp(text, refuse), text).toEqual({ fallback: text });
    }
  });
});
