import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { DEFAULT_MAX_PIPELINED_REQUESTS } from '../../src/http/server';
import { request, sleep, startApi, stopAll, within, type ApiProcess } from '../scale/harness';

const CONNECTIONS = 20;
const PIPELINED = 1000;

interface Attacker {
  socket: Socket;
  closed: Promise<void>;
  /** What the server sent, read only once the attack is over. */
  received(): string;
}

/** A client that writes `PIPELINED` requests at once on one connection and reads nothing. */
function pipelineWithoutReading(port: number, path: string): Promise<Attacker> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port });
    let text = '';
    const closed = new Promise<void>((done) => socket.once('close', () => done()));
    socket.on('error', () => undefined);
    socket.once('connect', () => {
      socket.pause();
      socket.on('data', (chunk: Buffer) => {
        text += chunk.toString('latin1');
      });
      socket.write(`GET ${path} HTTP/1.1\r\nHost: attacker\r\n\r\n`.repeat(PIPELINED));
      resolve({ socket, closed, received: () => text });
    });
    socket.once('error', reject);
  });
}

describe('pipelined requests from a client that never reads', () => {
  let api: ApiProcess;

  beforeAll(async () => {
    api = await startApi({ DATABASE_URL: inject('databaseUrl') });
  });
  afterAll(() => stopAll());

  it('closes the connection after a bounded number of queued answers, and stays responsive', async () => {
    const health: number[] = [];
    const attack = { going: true };
    const probing = (async () => {
      while (attack.going) {
        const started = performance.now();
        const answer = await request(api.baseUrl, 'GET', '/healthz', { timeoutMs: 5_000 });
        expect(answer.status).toBe(200);
        health.push(performance.now() - started);
        await sleep(100);
      }
    })();

    const attackers = await Promise.all(
      Array.from({ length: CONNECTIONS }, () => pipelineWithoutReading(api.port, '/openapi.json')),
    );
    // The server works through what it was sent while nobody reads; then the clients read what
    // it sent. A paused socket notices the server's close only when it reads.
    await sleep(3_000);
    for (const attacker of attackers) attacker.socket.resume();
    await within(
      'the server to have closed every attacking connection',
      Promise.all(attackers.map((attacker) => attacker.closed)),
      15_000,
    );
    attack.going = false;
    await probing;

    for (const attacker of attackers) {
      const answers = attacker.received().match(/HTTP\/1\.1 \d{3} /g)?.length ?? 0;
      expect(answers).toBeLessThanOrEqual(DEFAULT_MAX_PIPELINED_REQUESTS);
    }
    expect(health.length).toBeGreaterThan(0);
    // Liveness, not speed: the probe never waited on the attack (the bound is generous).
    expect(Math.max(...health)).toBeLessThan(2_000);
    expect(api.hasExited()).toBe(false);
  });

  it('answers a few pipelined requests in order on one connection', async () => {
    const socket = connect({ host: '127.0.0.1', port: api.port });
    let text = '';
    socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')));
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    socket.write(
      'GET /healthz HTTP/1.1\r\nHost: a\r\n\r\n'.repeat(4) +
        'GET /healthz HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n',
    );
    await new Promise<void>((resolve) => socket.once('close', () => resolve()));
    expect(text.match(/HTTP\/1\.1 200 OK/g)).toHaveLength(5);
  });

  it('serves /openapi.json from one buffer, with an ETag for revalidation', async () => {
    const first = await fetch(`${api.baseUrl}/openapi.json`);
    const body = await first.text();
    const etag = first.headers.get('etag');
    expect(first.status).toBe(200);
    expect(first.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(etag).toMatch(/^"[\w-]+"$/);
    expect(JSON.parse(body)).toMatchObject({ openapi: '3.1.0' });

    const again = await fetch(`${api.baseUrl}/openapi.json`, {
      headers: { 'if-none-match': etag! },
    });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe('');
    const changed = await fetch(`${api.baseUrl}/openapi.json`, {
      headers: { 'if-none-match': '"something-else"' },
    });
    expect(changed.status).toBe(200);
    expect(await changed.text()).toBe(body);
  });
});
