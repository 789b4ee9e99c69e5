import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { getTestOrm } from '../setup';
import {
  createTenantIn,
  request,
  sleep,
  startApi,
  stopAll,
  until,
  within,
  type ApiProcess,
} from '../scale/harness';

const HEADERS_TIMEOUT_MS = 1_000;
const REQUEST_TIMEOUT_MS = 2_000;
const MAX_CONNECTIONS = 8;

interface Client {
  socket: Socket;
  /** Everything the server sent, and when the connection closed (ms after it opened). */
  result: Promise<{ text: string; closedAfterMs: number }>;
}

function open(port: number): Promise<Client> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const socket = connect({ host: '127.0.0.1', port });
    let text = '';
    socket.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
    socket.on('error', () => undefined);
    const result = new Promise<{ text: string; closedAfterMs: number }>((done) =>
      socket.once('close', () => done({ text, closedAfterMs: performance.now() - started })),
    );
    socket.once('connect', () => resolve({ socket, result }));
    socket.once('error', reject);
  });
}

/** The status lines of the answers in `text`, one per answer. */
const statusLines = (text: string) => text.match(/HTTP\/1\.1 \d{3} /g) ?? [];

/** Writes `text` one character at a time, `intervalMs` apart, while the socket is open. */
async function trickle(socket: Socket, text: string, intervalMs: number): Promise<void> {
  for (const character of text) {
    if (socket.destroyed || !socket.writable) return;
    socket.write(character);
    await sleep(intervalMs);
  }
}

/**
 * Opens a connection and POSTs `body` as JSON to `target`: the head at once (with `headers`, each
 * line ending in CRLF), the body one character every 50 ms.
 */
async function postSlowly(
  port: number,
  target: string,
  body: string,
  headers = '',
): Promise<Client> {
  const client = await open(port);
  client.socket.write(
    `POST ${target} HTTP/1.1\r\nHost: slow\r\n${headers}Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n`,
  );
  void trickle(client.socket, body, 50);
  return client;
}

describe('slow clients and the connection cap', () => {
  let api: ApiProcess;

  beforeAll(async () => {
    api = await startApi(
      {
        DATABASE_URL: inject('databaseUrl'),
        HEADERS_TIMEOUT_MS: String(HEADERS_TIMEOUT_MS),
        REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS),
        MAX_CONNECTIONS: String(MAX_CONNECTIONS),
        MAX_CONNECTIONS_PER_ADDRESS: String(MAX_CONNECTIONS),
      },
      { built: true },
    );
  });
  afterAll(() => stopAll());

  it('answers 408 to headers that take longer than HEADERS_TIMEOUT_MS, and closes', async () => {
    const client = await open(api.port);
    void trickle(
      client.socket,
      'GET /healthz HTTP/1.1\r\nHost: slow\r\nX-Padding: ' + 'a'.repeat(200),
      100,
    );
    const { text, closedAfterMs } = await within(
      'the slow client to be cut off',
      client.result,
      10_000,
    );
    expect(text).toMatch(/^HTTP\/1\.1 408 /);
    expect(text).toContain('"code":"request_timeout"');
    // Within the timeout plus the server's one-second check interval (and some scheduling slack).
    expect(closedAfterMs).toBeLessThan(HEADERS_TIMEOUT_MS + 2_500);
  });

  it('answers 408 to a body that takes longer than REQUEST_TIMEOUT_MS, before authentication', async () => {
    const client = await postSlowly(
      api.port,
      '/dashboard/api/login',
      JSON.stringify({ email: 'slow@example.com', password: 'x'.repeat(300) }),
    );
    const { text, closedAfterMs } = await within(
      'the slow body to be cut off',
      client.result,
      10_000,
    );
    expect(text).toMatch(/^HTTP\/1\.1 408 /);
    expect(closedAfterMs).toBeLessThan(REQUEST_TIMEOUT_MS + 2_500);
  });

  it('answers a request refused before its body arrived once, and closes its connection', async () => {
    // No key: refused before the body is read, while the body is still arriving.
    const client = await postSlowly(
      api.port,
      '/api/v1/checkins',
      JSON.stringify({ code: 'x'.repeat(200) }),
    );
    const { text, closedAfterMs } = await within(
      'the connection to be closed',
      client.result,
      10_000,
    );
    expect(statusLines(text)).toEqual(['HTTP/1.1 401 ']);
    // Closed after the answer, not by the request timeout.
    expect(closedAfterMs).toBeLessThan(REQUEST_TIMEOUT_MS);
  });

  it('closes a connection that never sends anything', async () => {
    const client = await open(api.port);
    const { closedAfterMs } = await within(
      'the idle connection to be closed',
      client.result,
      10_000,
    );
    expect(closedAfterMs).toBeLessThan(HEADERS_TIMEOUT_MS + 2_500);
  });

  it('closes connections past MAX_CONNECTIONS at once, and accepts again once there is room', async () => {
    const held = await Promise.all(Array.from({ length: MAX_CONNECTIONS }, () => open(api.port)));
    // Keep them busy but legal: a header every 200 ms, the request never finished.
    for (const client of held)
      void trickle(client.socket, 'GET /healthz HTTP/1.1\r\nHost: x\r\n', 200);
    await sleep(100);

    const extra = await open(api.port);
    const { text, closedAfterMs } = await within(
      'the extra connection to be closed',
      extra.result,
      5_000,
    );
    expect(text).toBe('');
    expect(closedAfterMs).toBeLessThan(1_000);

    // The held ones are cut off by the header timeout; then the server has room again.
    await Promise.all(held.map((client) => client.result));
    const healthy = await until('a request to succeed again', async () => {
      const answer = await request(api.baseUrl, 'GET', '/healthz').catch(() => null);
      return answer?.status === 200;
    });
    expect(healthy).toBe(true);
  });
});

describe('a body still arriving at the request deadline', () => {
  const DEADLINE_MS = 1_000;
  const REQUEST_TIMEOUT_MS = 4_000;
  let api: ApiProcess;
  let key: string;

  beforeAll(async () => {
    key = (await createTenantIn(await getTestOrm(), ['checkins:write'])).key;
    api = await startApi(
      {
        DATABASE_URL: inject('databaseUrl'),
        // The request deadline is their sum.
        DB_CONNECT_TIMEOUT_MS: String(DEADLINE_MS / 2),
        DB_QUERY_TIMEOUT_MS: String(DEADLINE_MS / 2),
        HEADERS_TIMEOUT_MS: '1000',
        REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS),
      },
      { built: true },
    );
  });
  afterAll(() => stopAll());

  it('gets one answer, the 503 of whichever deadline comes first, and its connection closes', async () => {
    // About 10 s of body: past both deadlines.
    const client = await postSlowly(
      api.port,
      '/api/v1/checkins',
      JSON.stringify({ code: 'x'.repeat(200) }),
      `Authorization: Bearer ${key}\r\n`,
    );
    const { text, closedAfterMs } = await within(
      'the connection to be closed',
      client.result,
      15_000,
    );
    expect(statusLines(text)).toEqual(['HTTP/1.1 503 ']);
    expect(text).toContain('"code":"service_unavailable"');
    expect(closedAfterMs).toBeLessThan(REQUEST_TIMEOUT_MS);
  });
});
