import http from 'node:http';
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { getTestOrm } from '../setup';
import {
  countBy,
  createTenantIn,
  sleep,
  startApi,
  stopAll,
  type ApiProcess,
  type Tenant,
} from './harness';

const WORKERS = 48;
const GRACE_MS = 10_000;

interface Outcome {
  status?: number;
  connection?: string | undefined;
  error?: string;
}

/** One GET on `agent`; resolves with the answer or the connection error's code. */
function get(agent: http.Agent, url: string, key: string): Promise<Outcome> {
  return new Promise((resolve) => {
    const req = http.get(url, { agent, headers: { authorization: `Bearer ${key}` } }, (res) => {
      res.resume();
      res.once('end', () =>
        resolve({ status: res.statusCode, connection: res.headers.connection }),
      );
      res.once('error', (error: NodeJS.ErrnoException) =>
        resolve({ error: error.code ?? error.message }),
      );
    });
    req.once('error', (error: NodeJS.ErrnoException) =>
      resolve({ error: error.code ?? error.message }),
    );
  });
}

/** A raw connection; `answer` is everything the server sent once it closes, or the error. */
function openRaw(port: number): Promise<{ socket: Socket; answer: Promise<string> }> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port });
    let text = '';
    const answer = new Promise<string>((done) => {
      socket.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
      socket.on('error', (error: NodeJS.ErrnoException) => (text += `error ${error.code}`));
      socket.on('close', () => done(text));
    });
    socket.once('connect', () => resolve({ socket, answer }));
    socket.once('error', reject);
  });
}

describe('SIGTERM under keep-alive traffic', () => {
  let api: ApiProcess;
  let tenant: Tenant;

  beforeAll(async () => {
    const databaseUrl = inject('databaseUrl');
    tenant = await createTenantIn(await getTestOrm(), ['read']);
    api = await startApi({
      DATABASE_URL: databaseUrl,
      DB_POOL_MAX: '8',
      RATE_LIMIT_READS_PER_MINUTE: '1000000',
      SHUTDOWN_GRACE_MS: String(GRACE_MS),
    });
  });
  afterAll(() => stopAll());

  it('closes each connection after its answer, cuts no request and exits 0 well inside the grace', async () => {
    const url = `${api.baseUrl}/api/v1/events?limit=5`;
    // Every worker keeps one keep-alive connection busy until the server refuses new ones.
    const workers = Array.from({ length: WORKERS }, async () => {
      const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
      const outcomes: Outcome[] = [];
      try {
        for (;;) {
          const outcome = await get(agent, url, tenant.key);
          outcomes.push(outcome);
          if (outcome.error) return outcomes;
        }
      } finally {
        agent.destroy();
      }
    });

    await sleep(1_500);
    // Connections accepted before the signal whose request is sent after it.
    const late = await Promise.all(Array.from({ length: 4 }, () => openRaw(api.port)));
    await sleep(200);
    const signalledAt = performance.now();
    api.child.kill('SIGTERM');
    await sleep(50);
    for (const { socket } of late) socket.write('GET /healthz HTTP/1.1\r\nHost: late\r\n\r\n');
    const lateAnswers = late.map(({ answer }) => answer);

    const exit = await api.exited;
    const stoppedAfterMs = performance.now() - signalledAt;
    const perWorker = await Promise.all(workers);
    const outcomes = perWorker.flat();

    expect(exit).toEqual({ code: 0, signal: null });
    expect(stoppedAfterMs).toBeLessThan(GRACE_MS / 2);

    const errors = outcomes.filter((outcome) => outcome.error);
    // The only failure allowed is the refused connection of the request after the last answer:
    // nothing the server had received is lost.
    expect(countBy(errors, (outcome) => outcome.error!)).toEqual({ ECONNREFUSED: WORKERS });
    const answered = outcomes.filter((outcome) => outcome.status !== undefined);
    expect(countBy(answered, (outcome) => outcome.status!)).toEqual({ 200: answered.length });
    // Whether a worker's next request leaves before or after the server hears the signal is down
    // to timing; the late connections below are the certain case of a request sent after it.
    // Each worker's last answer told it to close its connection: the server closed them all.
    for (const outcomes of perWorker) {
      expect(outcomes.at(-2)?.connection).toBe('close');
    }

    for (const answer of await Promise.all(lateAnswers)) {
      expect(answer).toMatch(/^HTTP\/1\.1 200 OK/);
      expect(answer).toMatch(/\r\nConnection: close\r\n/i);
    }
  });
});
