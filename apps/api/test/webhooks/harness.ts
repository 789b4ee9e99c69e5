import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { request, until } from '../scale/harness';
import { afterAll, beforeAll, expect, inject } from 'vitest';
import type { WebhookEngine } from '../../src/modules/webhooks/webhook-engine';
import { getTestOrm, localWebhookEngine } from '../setup';

const receiverScript = fileURLToPath(new URL('./receiver.mjs', import.meta.url));

/**
 * An API instance (scale/harness.ts `startApi`) on `databaseUrl` that delivers webhooks itself,
 * to loopback receivers over plain HTTP, looking for changes every 50 ms and retrying after a
 * second, with rate limits no test reaches.
 */
export const deliveringApiEnv = (databaseUrl: string) => ({
  DATABASE_URL: databaseUrl,
  WEBHOOK_WORKER: 'in-process',
  WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
  WEBHOOK_ALLOW_HTTP: 'true',
  WEBHOOK_RETRY_DELAY_SECONDS: '1',
  WEBHOOK_POLL_INTERVAL_MS: '50',
  RATE_LIMIT_WRITES_PER_MINUTE: '100000',
  RATE_LIMIT_READS_PER_MINUTE: '100000',
});

/** How many webhook endpoints the organisation has, in the run's test database. */
export async function endpointCount(organisationId: string): Promise<number> {
  const orm = await getTestOrm();
  const [row] = await orm.em
    .fork()
    .execute<{ n: string }[]>(
      `select count(*) as n from webhook_endpoints where organisation_id = ?`,
      [organisationId],
    );
  return Number(row?.n);
}

/** A delivery as the receiver process kept it. */
export interface Delivery {
  headers: Record<string, string>;
  body: string;
  at: number;
}

/** The webhook receiver (receiver.mjs) as a process of its own on loopback. */
export class Receiver {
  child!: ChildProcess;
  port = 0;

  async start(port = 0): Promise<void> {
    this.child = spawn(process.execPath, [receiverScript, String(port)], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    this.port = await new Promise<number>((resolve, reject) => {
      this.child.once('error', reject);
      this.child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
        const match = /listening (\d+)/.exec(chunk);
        if (match) resolve(Number(match[1]));
      });
    });
  }

  async stop(): Promise<void> {
    if (this.child.exitCode !== null) return;
    const exited = new Promise((resolve) => this.child.once('exit', resolve));
    this.child.kill('SIGKILL');
    await exited;
  }

  url(name: string): string {
    return `http://127.0.0.1:${this.port}/hooks/${name}`;
  }

  /**
   * A webhook endpoint for `url(name)` (of `events`, or all), made with `key` through the API at
   * `baseUrl`: its id and its secret.
   */
  async subscribe(
    baseUrl: string,
    key: string,
    name: string,
    events?: string[],
  ): Promise<{ id: string; secret: string }> {
    const created = await request(baseUrl, 'POST', '/api/v1/webhook_endpoints', {
      key,
      body: { url: this.url(name), ...(events ? { events } : {}) },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const { id, secret } = created.body.data as { id: string; secret: string };
    return { id, secret };
  }

  async plan(
    name: string,
    statuses: (number | { status: number; delayMs: number })[],
  ): Promise<void> {
    await fetch(`http://127.0.0.1:${this.port}/plans/${name}`, {
      method: 'PUT',
      body: JSON.stringify(statuses),
    });
  }

  async received(name: string): Promise<Delivery[]> {
    const response = await fetch(`http://127.0.0.1:${this.port}/received/${name}`);
    return (await response.json()) as Delivery[];
  }

  /** What `name` has received, once it is at least `count` deliveries (polled). */
  receivedAtLeast(name: string, count: number, timeoutMs?: number): Promise<Delivery[]> {
    return until(
      `${count} deliveries to ${name}`,
      async () => {
        const got = await this.received(name);
        return got.length >= count && got;
      },
      { timeoutMs },
    );
  }
}

/**
 * For the tests of a `describe` block: a receiver, and the webhook engine in this process on the
 * run's database, started before the first test and stopped after the last.
 */
export function useReceiverAndEngine(): { receiver: Receiver } {
  const receiver = new Receiver();
  let engine: WebhookEngine | undefined;
  beforeAll(async () => {
    await receiver.start();
    engine = localWebhookEngine(inject('databaseUrl'));
    await engine.start();
  });
  afterAll(async () => {
    await engine?.stop(2000);
    await receiver.stop();
  });
  return { receiver };
}
