import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { request, startApi, stopAll, until, type ApiProcess } from './harness';

const databaseUrl = inject('databaseUrl');

/** The request ids of the `request completed` lines in `output`, in order. */
const loggedIds = (output: string, prefix: string): string[] =>
  output
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as { msg?: string; requestId?: string })
    .filter((line) => line.msg === 'request completed' && line.requestId?.startsWith(prefix))
    .map((line) => line.requestId!);

// The server writes its lines to stdout in batches (src/http/logger.ts): a line must neither wait
// for a batch to fill nor be lost when the server stops.
describe('request log lines of a server process', () => {
  let api: ApiProcess;
  let stdout = '';

  beforeAll(async () => {
    api = await startApi({ DATABASE_URL: databaseUrl, LOG_LEVEL: 'info' });
    api.child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  });
  afterAll(stopAll);

  it('reach stdout within moments when traffic is light', async () => {
    const id = `req_light_${Date.now()}`;
    const response = await request(api.baseUrl, 'GET', '/healthz', {
      headers: { 'x-request-id': id },
    });
    expect(response.status).toBe(200);
    // One line is far short of a batch: the periodic flush writes it out.
    await until('the request’s line on stdout', () => loggedIds(stdout, id).length === 1, {
      timeoutMs: 5_000,
      intervalMs: 20,
    });
  });

  it('are all written out, in order, when the server stops', async () => {
    const ids = Array.from({ length: 150 }, (_, i) => `req_burst_${i}`);
    for (const id of ids) {
      const response = await request(api.baseUrl, 'GET', '/healthz', {
        headers: { 'x-request-id': id },
      });
      expect(response.status).toBe(200);
    }
    const exit = await api.stop('SIGTERM');
    expect(exit).toEqual({ code: 0, signal: null });
    expect(loggedIds(stdout, 'req_burst_')).toEqual(ids);
  });
});
