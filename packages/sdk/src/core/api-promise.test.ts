import { describe, expect, it } from 'vitest';
import { APIPromise } from './api-promise';

const answer = <T>(data: T) =>
  Promise.resolve({
    data,
    response: new Response(null, { headers: { 'x-request-id': 'req_1' } }),
    text: JSON.stringify({ data }),
  });

describe('APIPromise', () => {
  it('awaits to the data and gives the response with withResponse', async () => {
    const promise = new APIPromise(answer({ id: 'evt_1' }));
    expect(await promise).toEqual({ id: 'evt_1' });
    const { data, response, requestId } = await promise.withResponse();
    expect(data).toEqual({ id: 'evt_1' });
    expect(response.headers.get('x-request-id')).toBe('req_1');
    expect(requestId).toBe('req_1');
  });

  it('gives the raw response, its body readable, with asResponse', async () => {
    const response = await new APIPromise(answer({ id: 'evt_1' })).asResponse();
    expect(response.headers.get('x-request-id')).toBe('req_1');
    expect(await response.json()).toEqual({ data: { id: 'evt_1' } });
  });

  it('chains like a promise', async () => {
    const promise = new APIPromise(answer(2));
    await expect(promise.then((n) => n * 21)).resolves.toBe(42);
    let settled = false;
    await expect(
      promise.finally(() => {
        settled = true;
      }),
    ).resolves.toBe(2);
    expect(settled).toBe(true);
    expect(Object.prototype.toString.call(promise)).toBe('[object APIPromise]');
  });

  it('passes failures to catch, then and withResponse alike', async () => {
    const failing = () => new APIPromise<number>(Promise.reject(new Error('boom')));
    await expect(failing().catch((e) => (e as Error).message)).resolves.toBe('boom');
    await expect(failing().then(undefined, (e) => (e as Error).message)).resolves.toBe('boom');
    await expect(failing().withResponse()).rejects.toThrow('boom');
    await expect(failing()).rejects.toThrow('boom');
  });
});
