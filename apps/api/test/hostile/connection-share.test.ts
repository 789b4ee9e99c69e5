import { connect, type Socket } from 'node:net';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { sleep, startApi, stopAll, until, within, type ApiProcess } from '../scale/harness';

const MAX_CONNECTIONS = 40;
const PER_ADDRESS = 5;
const HOG = '127.0.0.4';

interface Client {
  socket: Socket;
  /** Everything the server sent, once the connection has closed. */
  closed: Promise<string>;
}

/** A connection from `localAddress` (loopback takes any 127.x.y.z as a source). */
function open(port: number, localAddress: string): Promise<Client> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port, localAddress });
    let text = '';
    socket.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
    socket.on('error', () => undefined);
    const closed = new Promise<string>((done) => socket.once('close', () => done(text)));
    socket.once('connect', () => resolve({ socket, closed }));
    socket.once('error', reject);
  });
}

/** Whether the server has closed the connection within `ms`. */
const closedWithin = (client: Client, ms: number) =>
  Promise.race([client.closed.then(() => true), sleep(ms).then(() => false)]);

/** `GET /healthz` on a fresh connection from `localAddress`: the raw answer. */
async function healthz(port: number, localAddress: string): Promise<string> {
  const client = await open(port, localAddress);
  client.socket.write('GET /healthz HTTP/1.1\r\nHost: share\r\nConnection: close\r\n\r\n');
  return within('the answer', client.closed, 5_000);
}

/** Opens `count` connections from `localAddress`; returns those the server kept open. */
async function hold(port: number, localAddress: string, count: number): Promise<Client[]> {
  const clients = await Promise.all(Array.from({ length: count }, () => open(port, localAddress)));
  const closed = await Promise.all(clients.map((client) => closedWithin(client, 500)));
  return clients.filter((_, i) => !closed[i]);
}

describe("one address's share of the connections", () => {
  afterAll(() => stopAll());

  const start = (env: Record<string, string>): Promise<ApiProcess> =>
    startApi(
      {
        DATABASE_URL: inject('databaseUrl'),
        MAX_CONNECTIONS: String(MAX_CONNECTIONS),
        // Long enough that the held connections are not closed for sending nothing.
        HEADERS_TIMEOUT_MS: '20000',
        REQUEST_TIMEOUT_MS: '20000',
        ...env,
      },
      { built: true },
    );

  it('closes an address’s connections past its share, while other addresses connect and get answers', async () => {
    const api = await start({ MAX_CONNECTIONS_PER_ADDRESS: String(PER_ADDRESS) });
    // One address tries to take every connection the server has. (Not 127.0.0.1: the harness's
    // own keep-alive connection from there counts against that address's share.)
    const held = await hold(api.port, HOG, MAX_CONNECTIONS);
    expect(held).toHaveLength(PER_ADDRESS);
    // Its next connection is closed at once, unanswered.
    const extra = await open(api.port, HOG);
    extra.socket.write('GET /healthz HTTP/1.1\r\nHost: share\r\n\r\n');
    expect(await within('the extra connection to be closed', extra.closed, 2_000)).toBe('');

    // Other addresses still connect, up to their own share, and are answered.
    for (const address of ['127.0.0.2', '127.0.0.3']) {
      expect(await healthz(api.port, address)).toMatch(/^HTTP\/1\.1 200 OK/);
      const theirs = await hold(api.port, address, PER_ADDRESS);
      expect(theirs).toHaveLength(PER_ADDRESS);
      for (const client of theirs) client.socket.destroy();
    }

    // A closed connection gives its place back.
    held[0]?.socket.destroy();
    await until('a new connection from the first address to be answered', async () =>
      /^HTTP\/1\.1 200 OK/.test(await healthz(api.port, HOG)),
    );
    for (const client of held) client.socket.destroy();
    await api.stop();
  });

  it('defaults the share to a tenth of MAX_CONNECTIONS, and exempts the proxies TRUST_PROXY trusts', async () => {
    const api = await start({ TRUST_PROXY: '127.0.0.2' });
    expect(await hold(api.port, HOG, MAX_CONNECTIONS / 5)).toHaveLength(MAX_CONNECTIONS / 10);
    // The trusted proxy carries many clients' requests: only the server's cap applies to it.
    const proxied = await hold(api.port, '127.0.0.2', MAX_CONNECTIONS / 2);
    expect(proxied).toHaveLength(MAX_CONNECTIONS / 2);
    await api.stop();
  });
});
