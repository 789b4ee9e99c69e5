import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deliver, RESPONSE_EXCERPT_BYTES, type DeliveryOptions } from './delivery';

/** A receiver on loopback whose answer each test picks by path. */
const answers: Record<string, (res: ServerResponse) => void> = {
  '/empty': (res) => res.writeHead(204).end(),
  '/refused': (res) => res.writeHead(500, { 'content-type': 'text/plain' }).end('boom\0!'),
  '/long': (res) => res.writeHead(200).end('x'.repeat(5000)),
  '/endless': (res) => {
    res.writeHead(200);
    const timer = setInterval(() => res.write('y'.repeat(100)), 5);
    res.on('close', () => clearInterval(timer));
  },
  '/silent': () => undefined,
  '/trickle': (res) => {
    res.writeHead(200);
    res.write('a');
  },
  '/moved': (res) => res.writeHead(302, { location: 'https://example.com/elsewhere' }).end(),
};

let server: Server;
let base: string;
const received: { url: string; headers: Record<string, unknown>; body: string }[] = [];
const options: DeliveryOptions = { timeoutMs: 2000, allowHttp: true, allowPrivate: true };

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      received.push({
        url: req.url!,
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      });
      answers[req.url!]!(res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

describe('deliver', () => {
  it('POSTs the body with the given headers, its type and a user agent; a 2xx is a success', async () => {
    const result = await deliver(`${base}/empty`, '{"a":1}', { 'webhook-id': 'msg_1' }, options);
    expect(result).toMatchObject({
      ok: true,
      statusCode: 204,
      error: null,
      responseExcerpt: null,
    });
    expect(result.durationMs).toBeGreaterThanOrEqual(0);
    const last = received.at(-1)!;
    expect(last.body).toBe('{"a":1}');
    expect(last.headers).toMatchObject({
      'webhook-id': 'msg_1',
      'content-type': 'application/json',
      'user-agent': 'Boxoffice-Webhooks/1',
    });
  });

  it('keeps what a failing receiver answered, without NUL characters', async () => {
    const result = await deliver(`${base}/refused`, '{}', {}, options);
    expect(result).toMatchObject({
      ok: false,
      statusCode: 500,
      error: 'HTTP 500',
      responseExcerpt: 'boom!',
    });
  });

  it(`keeps the first ${RESPONSE_EXCERPT_BYTES} bytes of a long answer`, async () => {
    const result = await deliver(`${base}/long`, '{}', {}, options);
    expect(result.ok).toBe(true);
    expect(result.responseExcerpt).toBe('x'.repeat(RESPONSE_EXCERPT_BYTES));
  });

  it('stops reading an answer that does not end once the excerpt is full', async () => {
    const result = await deliver(`${base}/endless`, '{}', {}, options);
    expect(result).toMatchObject({ ok: true, statusCode: 200 });
    expect(result.responseExcerpt).toBe('y'.repeat(RESPONSE_EXCERPT_BYTES));
    expect(result.durationMs).toBeLessThan(options.timeoutMs);
  });

  it('fails a receiver that does not answer, or does not finish its answer, within the timeout', async () => {
    for (const path of ['/silent', '/trickle']) {
      const result = await deliver(`${base}${path}`, '{}', {}, { ...options, timeoutMs: 300 });
      expect(result, path).toMatchObject({
        ok: false,
        statusCode: null,
        error: 'no answer within 300 ms',
        responseExcerpt: null,
      });
      expect(result.durationMs).toBeGreaterThanOrEqual(290);
    }
  });

  it('does not follow a redirect, and names where it pointed', async () => {
    const before = received.length;
    const result = await deliver(`${base}/moved`, '{}', {}, options);
    expect(result).toMatchObject({
      ok: false,
      statusCode: 302,
      error: 'redirect to https://example.com/elsewhere not followed',
    });
    expect(received.length).toBe(before + 1);
  });

  it('reports a connection refused, and a URL the policy refuses, without sending', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const refused = await deliver(`http://127.0.0.1:${port}/hooks`, '{}', {}, options);
    expect(refused).toMatchObject({ ok: false, statusCode: null });
    expect(refused.error).toMatch(/^ECONNREFUSED: /);

    const before = received.length;
    const plain = await deliver(`${base}/empty`, '{}', {}, { ...options, allowHttp: false });
    expect(plain).toMatchObject({ ok: false, statusCode: null });
    expect(plain.error).toMatch(/^url must use https\. .*WEBHOOK_ALLOW_HTTP=true/);
    expect(received.length).toBe(before);
  });
});
