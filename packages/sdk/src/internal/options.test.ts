import { describe, expect, it } from 'vitest';
import { Boxoffice, type ClientOptions } from '../client';
import { BoxofficeError } from '../core/errors';
import { DEFAULT_RETRY } from '../core/retry';
import { harness, TEST_KEY } from '../../test/harness';
import { item, networkError } from '../../test/scripted-fetch';

const event = { id: 'evt_0123456789abcdef', name: 'Gig' };

describe('defaults', () => {
  it('cannot be changed for later clients', () => {
    expect(Object.isFrozen(DEFAULT_RETRY)).toBe(true);
    expect(() => {
      (DEFAULT_RETRY as { maxRetries: number }).maxRetries = 100;
    }).toThrow(TypeError);
    const { client, script } = harness({ fallback: networkError() });
    return expect(client.events.get(event.id))
      .rejects.toThrow()
      .then(() => expect(script.requests).toHaveLength(3));
  });
});

describe('options', () => {
  it.each<[ClientOptions, string]>([
    [{ maxRetries: NaN }, 'Invalid option maxRetries: NaN; expected a whole number from 0 up.'],
    [{ maxRetries: -1 }, 'Invalid option maxRetries: -1; expected a whole number from 0 up.'],
    [{ maxRetries: 1.5 }, 'Invalid option maxRetries: 1.5; expected a whole number from 0 up.'],
    [
      { timeout: 0 },
      'Invalid option timeout: 0; expected a number of milliseconds greater than 0 up to 2147483647.',
    ],
    [
      { timeout: Infinity },
      'Invalid option timeout: Infinity; expected a number of milliseconds greater than 0 up to 2147483647.',
    ],
    [
      { totalTimeout: -5 },
      'Invalid option totalTimeout: -5; expected a number of milliseconds from 0 up to 2147483647.',
    ],
    [
      { maxRetryAfter: '10' as unknown as number },
      'Invalid option maxRetryAfter: "10"; expected a number of milliseconds from 0 up to 2147483647.',
    ],
    [
      { baseURL: 'localhost:3000/api/v1' },
      'Invalid option baseURL: "localhost:3000/api/v1"; expected an http: or https: URL.',
    ],
    [
      { baseURL: '/api/v1' },
      'Invalid option baseURL: "/api/v1"; expected an absolute URL such as https://boxoffice.example.com/api/v1.',
    ],
    [
      { logLevel: 'verbose' as 'debug' },
      'Invalid option logLevel: "verbose"; expected one of off, error, warn, info, debug.',
    ],
  ])('refuses %o with a clear error', (options, message) => {
    const make = () => new Boxoffice({ apiKey: TEST_KEY, ...options });
    expect(make).toThrow(BoxofficeError);
    expect(make).toThrow(message);
  });

  it('refuses bad options of a call before sending it', async () => {
    const { client, script } = harness({}, item(event));
    await expect(client.events.get(event.id, { maxRetries: NaN })).rejects.toThrow(
      'Invalid option maxRetries: NaN',
    );
    await expect(client.events.get(event.id, { timeout: 0 })).rejects.toThrow(
      'Invalid option timeout: 0',
    );
    expect(script.requests).toHaveLength(0);
  });

  it('takes 0 for no retries and for no total limit', () => {
    expect(() => new Boxoffice({ apiKey: TEST_KEY, maxRetries: 0, totalTimeout: 0 })).not.toThrow();
  });
});
