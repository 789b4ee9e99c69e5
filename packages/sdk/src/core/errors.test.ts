import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  APIConnectionError,
  APIConnectionTimeoutError,
  APIError,
  APIUserAbortError,
  AuthenticationError,
  BadRequestError,
  BoxofficeError,
  ConflictError,
  InternalServerError,
  NotFoundError,
  PermissionDeniedError,
  PlanRequiredError,
  RateLimitError,
  UnprocessableEntityError,
} from './errors';

const headers = (values: Record<string, string> = {}) => new Headers(values);

describe('APIError.generate', () => {
  it.each([
    [400, BadRequestError],
    [401, AuthenticationError],
    [402, PlanRequiredError],
    [403, PermissionDeniedError],
    [404, NotFoundError],
    [409, ConflictError],
    [422, UnprocessableEntityError],
    [429, RateLimitError],
    [500, InternalServerError],
    [502, InternalServerError],
    [503, InternalServerError],
  ] as const)('maps %i to %o', (status, Class) => {
    const error = APIError.generate(status, { error: 'nope' }, headers());
    expect(error).toBeInstanceOf(Class);
    expect(error).toBeInstanceOf(APIError);
    expect(error).toBeInstanceOf(BoxofficeError);
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe(Class.name);
    expect(error.status).toBe(status);
  });

  it('keeps other statuses as a plain APIError', () => {
    for (const status of [405, 408, 413, 418]) {
      const error = APIError.generate(status, { error: 'nope' }, headers());
      expect(error.constructor).toBe(APIError);
      expect(error.status).toBe(status);
    }
  });

  it('carries the message, code, body, headers and request id of the answer', () => {
    const body = {
      error: 'ticket already checked in at 2030-01-01T19:02:11Z',
      code: 'already_checked_in',
    };
    const answer = headers({ 'x-request-id': 'req_8f2c', 'x-ratelimit-remaining': '9' });
    const error = APIError.generate(409, body, answer);
    expect(error).toBeInstanceOf(ConflictError);
    expect(error.message).toBe('409 ticket already checked in at 2030-01-01T19:02:11Z');
    expect(error.error).toBe('ticket already checked in at 2030-01-01T19:02:11Z');
    expect(error.code).toBe('already_checked_in');
    expect(error.requestId).toBe('req_8f2c');
    expect(error.body).toEqual(body);
    expect(error.headers?.get('x-ratelimit-remaining')).toBe('9');
  });

  it('falls back to a request id in the body when the header is missing', () => {
    const error = APIError.generate(
      500,
      { error: 'Internal server error', request_id: 'req_body' },
      headers(),
    );
    expect(error.requestId).toBe('req_body');
    expect(
      APIError.generate(
        500,
        { error: 'x', request_id: 'req_body' },
        headers({ 'x-request-id': 'req_hdr' }),
      ).requestId,
    ).toBe('req_hdr');
  });

  it('copes with a body that is not the error envelope', () => {
    const text = APIError.generate(502, '<html>Bad gateway</html>', headers());
    expect(text).toBeInstanceOf(InternalServerError);
    expect(text.error).toBeUndefined();
    expect(text.code).toBeUndefined();
    expect(text.requestId).toBeUndefined();
    expect(text.message).toBe('502 status code (no error message in the body)');

    const odd = APIError.generate(400, { error: 42, code: ['x'] }, headers());
    expect(odd.error).toBeUndefined();
    expect(odd.code).toBeUndefined();
    expect(APIError.generate(404, undefined, headers()).body).toBeUndefined();
  });
});

describe('RateLimitError', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('exposes Retry-After in seconds', () => {
    const error = APIError.generate(429, { error: 'slow down' }, headers({ 'retry-after': '17' }));
    expect(error).toBeInstanceOf(RateLimitError);
    expect((error as RateLimitError).retryAfter).toBe(17);
  });

  it('reads an HTTP-date Retry-After as seconds from now', () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.UTC(2030, 0, 1, 12, 0, 0));
    const error = new RateLimitError(
      429,
      { error: 'slow down' },
      undefined,
      headers({ 'retry-after': 'Tue, 01 Jan 2030 12:00:45 GMT' }),
    );
    expect(error.retryAfter).toBe(45);
  });

  it('rounds part seconds up, and has no retryAfter without a readable header', () => {
    const part = new RateLimitError(429, {}, undefined, headers({ 'retry-after': '0.2' }));
    expect(part.retryAfter).toBe(1);
    expect(new RateLimitError(429, {}, undefined, headers()).retryAfter).toBeUndefined();
    const bad = new RateLimitError(429, {}, undefined, headers({ 'retry-after': 'later' }));
    expect(bad.retryAfter).toBeUndefined();
    expect(new RateLimitError(429, {}, undefined, undefined).retryAfter).toBeUndefined();
  });
});

describe('errors without a response', () => {
  it('APIConnectionError keeps its cause and has no status', () => {
    const cause = new TypeError('fetch failed');
    const error = new APIConnectionError({ cause });
    expect(error).toBeInstanceOf(APIError);
    expect(error.status).toBeUndefined();
    expect(error.headers).toBeUndefined();
    expect(error.cause).toBe(cause);
    expect(error.message).toBe('Connection error: fetch failed.');
    expect(error.name).toBe('APIConnectionError');
  });

  it('APIConnectionError names the URL and the deepest cause', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9'), {
      code: 'ECONNREFUSED',
    });
    const error = new APIConnectionError({
      cause: new TypeError('fetch failed', { cause: refused }),
      url: 'http://127.0.0.1:9/api/v1/events/evt_1',
    });
    expect(error.message).toBe(
      'Connection error: could not reach http://127.0.0.1:9/api/v1/events/evt_1 (connect ECONNREFUSED 127.0.0.1:9).',
    );
    expect(error.url).toBe('http://127.0.0.1:9/api/v1/events/evt_1');
  });

  it('APIConnectionTimeoutError is a connection error', () => {
    const error = new APIConnectionTimeoutError();
    expect(error).toBeInstanceOf(APIConnectionError);
    expect(error).toBeInstanceOf(APIError);
    expect(error.message).toBe('Request timed out.');
    expect(error.name).toBe('APIConnectionTimeoutError');
  });

  it('APIUserAbortError is not a connection error', () => {
    const error = new APIUserAbortError();
    expect(error).toBeInstanceOf(APIError);
    expect(error).not.toBeInstanceOf(APIConnectionError);
    expect(error.message).toBe('Request was aborted.');
    expect(error.name).toBe('APIUserAbortError');
  });
});
