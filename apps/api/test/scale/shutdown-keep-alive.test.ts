import { randomUUID } from 'node:crypto';
import http from 'node:http';
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { getTestOrm } from '../setup';
import {
  countBy,
  createTenantIn,
  issueTickets,
  sleep,
  startApi,
  stopAll,
  type ApiProcess,
  type Tenant,
  UNLIMITED_RATES,
} from './harness';

const WORKERS = 48;
const GRACE_MS = 10_000;

interface Outcome {
  status?: number;
  connection?: string | undefined;
  error?: string;
}

/** One request on `agent`; resolves with the answer or the connection error's code. */
function send(
  agent: http.Agent,
  url: string,
  options: { method: string; headers: Record<string, string>; body?: string },
): Promise<Outcome> {
  return new Promise((resolve) => {
    const req = http.request(url, { agent, method: options.method, headers: options.headers });
    req.once('response', (res) => {
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
    req.end(options.body);
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

/** What each worker sends, request after request, on its one keep-alive connection. */
interface Traffic {
  name: string;
  /** The status every answer must have. */
  status: number;
  /** The `n`th request of worker `worker`. */
  request(worker: number, n: number): { method: string; path: string; body?: unknown };
}

describe('SIGTERM under keep-alive traffic (the built server)', () => {
  let tenant: Tenant;
  let ticketIds: string[];

  beforeAll(async () => {
    const orm = await getTestOrm();
    tenant = await createTenantIn(orm, ['read', 'checkins:write']);
    ({ ticketIds } = await issueTickets(orm, tenant.organisationId, WORKERS));
  });
  afterAll(() => stopAll());

  const traffic: Traffic[] = [
    { name: 'GET /healthz', status: 200, request: () => ({ method: 'GET', path: '/healthz' }) },
    {
      // Writes, which a load balancer does not retry: each door scans its own ticket in and out.
      name: 'POST /api/v1/checkins',
      status: 201,
      request: (worker, n) => ({
        method: 'POST',
        path: '/api/v1/checkins',
        body: { ticket_id: ticketIds[worker], direction: n % 2 === 0 ? 'entry' : 'exit' },
      }),
    },
  ];

  describe.each(traffic)('$name', (case_) => {
    let api: ApiProcess;
    /** Requests the server logged as abandoned by their client (status 499). */
    let aborted = 0;

    beforeAll(async () => {
      api = await startApi(
        {
          DATABASE_URL: inject('databaseUrl'),
          DB_POOL_MAX: '8',
          LOG_LEVEL: 'info',
          ...UNLIMITED_RATES,
          SHUTDOWN_GRACE_MS: String(GRACE_MS),
        },
        { built: true },
      );
      let partial = '';
      api.child.stdout?.on('data', (chunk: Buffer) => {
        const lines = (partial + chunk.toString('utf8')).split('\n');
        partial = lines.pop() ?? '';
        for (const line of lines) if (line.includes('"status":499')) aborted++;
      });
    });

    it('answers every request it received, closes each connection after its answer and exits 0', async () => {
      // Every worker keeps one keep-alive connection busy until the server refuses new ones.
      const workers = Array.from({ length: WORKERS }, async (_, worker) => {
        const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
        const outcomes: Outcome[] = [];
        try {
          for (let n = 0; ; n++) {
            const { method, path, body } = case_.request(worker, n);
            const headers: Record<string, string> = { authorization: `Bearer ${tenant.key}` };
            if (body !== undefined) {
              headers['content-type'] = 'application/json';
              headers['idempotency-key'] = randomUUID();
            }
            const outcome = await send(agent, `${api.baseUrl}${path}`, {
              method,
              headers,
              body: body === undefined ? undefined : JSON.stringify(body),
            });
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

      expect(exit, api.output()).toEqual({ code: 0, signal: null });
      expect(stoppedAfterMs).toBeLessThan(GRACE_MS / 2);

      const errors = outcomes.filter((outcome) => outcome.error);
      // The only failure allowed is the refused connection of the request after the last answer:
      // nothing the server had received is lost.
      expect(countBy(errors, (outcome) => outcome.error ?? '')).toEqual({ ECONNREFUSED: WORKERS });
      expect(aborted).toBe(0);
      const answered = outcomes.filter((outcome) => outcome.status !== undefined);
      expect(answered.length).toBeGreaterThan(WORKERS);
      expect(countBy(answered, (outcome) => outcome.status ?? '')).toEqual({
        [case_.status]: answered.length,
      });
      // Each worker's last answer told it to close its connection: the server closed them all.
      for (const outcomes of perWorker) {
        expect(outcomes.at(-2)?.connection).toBe('close');
      }

      for (const answer of await Promise.all(lateAnswers)) {
        expect(answer).toMatch(/^HTTP\/1\.1 200 OK/);
        expect(answer).toMatch(/\r\nConnection: close\r\n/i);
      }
    }, 60_000);
  });
});
