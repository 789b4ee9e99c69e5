import { BoxofficeError } from '../core/errors';

/** A bad option: thrown by the constructor, `withOptions` or the call that was given it. */
const invalid = (name: string, value: unknown, expected: string) =>
  new BoxofficeError(`Invalid option ${name}: ${describe(value)}; expected ${expected}.`);

const describe = (value: unknown): string =>
  typeof value === 'string' ? JSON.stringify(value) : String(value);

/** The longest delay a timer takes (about 24.8 days). */
const MAX_MS = 2_147_483_647;

/** Milliseconds: a finite number from `min` up (a timer cannot wait longer than MAX_MS). */
export function checkMs(name: string, value: unknown, min: number): void {
  if (value === undefined) return;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < min || value > MAX_MS) {
    const from = min === 0 ? 'from 0' : `greater than 0`;
    throw invalid(name, value, `a number of milliseconds ${from} up to ${MAX_MS}`);
  }
}

/** A count: an integer from 0 up. */
export function checkCount(name: string, value: unknown): void {
  if (value === undefined) return;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
    throw invalid(name, value, 'a whole number from 0 up');
  }
}

/** The options a client and each call share. */
export interface TimingOptions {
  timeout?: number | undefined;
  maxRetries?: number | undefined;
  maxRetryAfter?: number | undefined;
  totalTimeout?: number | undefined;
}

/** Checks the timing options, whether a client's or a call's. */
export function checkRequestOptions(options: TimingOptions): void {
  checkMs('timeout', options.timeout, 1);
  checkCount('maxRetries', options.maxRetries);
  checkMs('maxRetryAfter', options.maxRetryAfter, 0);
  checkMs('totalTimeout', options.totalTimeout, 0);
}

/** An absolute http(s) URL, without a trailing slash. */
export function checkBaseURL(value: unknown): string {
  if (typeof value !== 'string') throw invalid('baseURL', value, 'a URL string');
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw invalid('baseURL', value, 'an absolute URL such as https://boxoffice.example.com/api/v1');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw invalid('baseURL', value, 'an http: or https: URL');
  }
  return value.replace(/\/+$/, '');
}
