import { describe, expect, it } from 'vitest';
import { isoTime } from './iso-time';

describe('isoTime', () => {
  it('writes what toISOString writes', () => {
    const samples = [
      0,
      1,
      999,
      86_399_999,
      86_400_000,
      Date.UTC(2000, 1, 29, 23, 59, 59, 999),
      Date.UTC(2026, 10, 23, 14, 5, 9, 7),
      Date.UTC(9999, 11, 31, 23, 59, 59, 999),
      Date.UTC(10_000, 0, 1),
      -1,
      Date.UTC(1, 0, 1),
      Date.UTC(-50, 5, 5),
      8.64e15,
    ];
    for (let i = 0; i < 20_000; i++)
      samples.push(Math.floor(Math.random() * Date.UTC(9999, 11, 31)));
    for (const time of samples) {
      const date = new Date(time);
      expect(isoTime(date), String(time)).toBe(date.toISOString());
    }
  });

  it('renders a time again the same after others came between', () => {
    const times = [5, 5, Date.UTC(2026, 10, 23), 5, -1, 5, 8.64e15, 8.64e15, 5];
    for (const time of times) expect(isoTime(new Date(time))).toBe(new Date(time).toISOString());
  });

  it('throws for an invalid date, as toISOString does', () => {
    expect(() => isoTime(new Date(Number.NaN))).toThrow(RangeError);
  });
});
