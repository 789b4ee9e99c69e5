import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Orm } from '../../src/db/orm';
import { createEvent } from '../../src/modules/events/event.service';
import { createOrganisation } from '../../src/modules/organisations/organisation.service';
import { retryDelayCeilingMs, type RetrySchedule } from '../../src/modules/webhooks/queue';
import type { WebhookEngine } from '../../src/modules/webhooks/webhook-engine';
import { createEndpoint } from '../../src/modules/webhooks/webhook-endpoint.service';
import { sendTestEvent } from '../../src/modules/webhooks/webhook-message.service';
import { eventInput } from '../fixtures';
import { sleep, until } from '../scale/harness';
import { createMigratedDatabase, localWebhookEngine, type MigratedDatabase } from '../setup';
import { Receiver } from './harness';

/**
 * The retry schedule as a receiver that keeps failing sees it: the schedule of docs/api.md, scaled
 * down (seconds where the default has tens of seconds and hours). A database of its own, so that
 * no other engine (with another schedule) takes these messages' jobs.
 */
const schedule: RetrySchedule = { retryDelaySeconds: 2, maxRetryDelaySeconds: 8, retryLimit: 4 };

/**
 * How late a retry may come past its delay: the failed attempt is recorded (up to 0.1 s after it
 * is made), and pg-boss looks for jobs falling due every second.
 */
const LATENESS_MS = 1500;

describe('webhook retries', () => {
  let database: MigratedDatabase | undefined;
  let orm: Orm | undefined;
  let engine: WebhookEngine | undefined;
  const receiver = new Receiver();

  beforeAll(async () => {
    database = await createMigratedDatabase('boxoffice_webhook_retries');
    orm = database.orm;
    await receiver.start();
    engine = localWebhookEngine(database.url, schedule);
    await engine.start();
  });

  afterAll(async () => {
    await engine?.stop(2000);
    await receiver.stop();
    await database?.drop();
  });

  /** An organisation with an endpoint at the receiver's `name`, every answer of which is a 500. */
  async function failingEndpoint(name: string) {
    const organisation = await createOrganisation(orm!.em.fork(), { name, plan: 'pro' });
    const ctx = { em: orm!.em.fork(), organisationId: organisation.id, livemode: true };
    await receiver.plan(
      name,
      Array.from({ length: 20 }, () => 500),
    );
    const endpoint = await createEndpoint(
      ctx,
      { url: receiver.url(name), events: ['event.created'] },
      { allowHttp: true, allowPrivate: true },
    );
    return { ctx, endpoint };
  }

  async function message(id: string) {
    const [row] = await orm!.em
      .fork()
      .execute<{ status: string; attempt_count: number }[]>(
        `select status, attempt_count from webhook_messages where id = ?`,
        [id],
      );
    return row;
  }

  it('retries a failing receiver at the documented delays, then gives the message up', async () => {
    const { ctx } = await failingEndpoint('failing');
    await createEvent(ctx, eventInput('Retried on schedule'));
    const attempts = 1 + schedule.retryLimit;
    const received = await until(
      `${attempts} attempts`,
      async () => {
        const got = await receiver.received('failing');
        return got.length >= attempts && got;
      },
      { timeoutMs: 40_000, intervalMs: 100 },
    );
    for (let retry = 1; retry <= schedule.retryLimit; retry++) {
      const gap = received[retry]!.at - received[retry - 1]!.at;
      const ceiling = retryDelayCeilingMs(retry, schedule);
      // Retry n waits between half and all of 2 s × 2^(n−1), at most 8 s: 1–2, 2–4, 4–8, 4–8 s.
      expect(gap, `retry ${retry}`).toBeGreaterThanOrEqual(ceiling / 2);
      expect(gap, `retry ${retry}`).toBeLessThanOrEqual(ceiling + LATENESS_MS);
    }
    expect(new Set(received.map((d) => d.headers['webhook-id'])).size).toBe(1);
    const id = received[0]!.headers['webhook-id']!;
    expect(
      await until('given up', async () => (await message(id))?.status === 'failed' && message(id)),
    ).toEqual({ status: 'failed', attempt_count: attempts });
    // No attempt past the last retry.
    await sleep(retryDelayCeilingMs(attempts, schedule) + LATENESS_MS);
    expect(await receiver.received('failing')).toHaveLength(attempts);
  }, 60_000);

  it('attempts a test event once: a failure is not retried', async () => {
    const { ctx, endpoint } = await failingEndpoint('tested');
    const id = await sendTestEvent(ctx, endpoint.id);
    await receiver.receivedAtLeast('tested', 1);
    expect(
      await until('recorded', async () => (await message(id))?.status === 'failed' && message(id)),
    ).toEqual({
      status: 'failed',
      attempt_count: 1,
    });
    await sleep(retryDelayCeilingMs(1, schedule) + LATENESS_MS);
    expect(await receiver.received('tested')).toHaveLength(1);
  });
});
