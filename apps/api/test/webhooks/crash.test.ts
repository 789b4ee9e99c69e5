import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Orm } from '../../src/db/orm';
import { eventInput } from '../fixtures';
import {
  createTenantIn,
  request,
  startApi,
  stopAll,
  until,
  type ApiProcess,
} from '../scale/harness';
import { createMigratedDatabase, type MigratedDatabase } from '../setup';
import { deliveringApiEnv, Receiver } from './harness';

/**
 * An API instance killed (SIGKILL) while it sends a round's messages itself, before it has
 * recorded them: another instance sends them once the round's lease has passed, with the same
 * webhook-ids. A database of its own: the run's shared one is watched by the delivery suite's
 * instances, which would take the rounds.
 */
describe('webhook messages of an instance killed mid-round', () => {
  // Unset if the set-up failed part way: the clean-up does what there is to do.
  let database: MigratedDatabase | undefined;
  let orm: Orm | undefined;
  const receiver = new Receiver();

  const env = () => deliveringApiEnv(database!.url);

  const sql = <T>(text: string, params: unknown[] = []) =>
    orm!.em.fork().execute<T[]>(text, params);

  beforeAll(async () => {
    database = await createMigratedDatabase('boxoffice_webhook_crash');
    orm = database.orm;
    await receiver.start();
  });

  afterAll(async () => {
    await stopAll();
    await receiver.stop();
    await database?.drop();
  });

  it('sends every message again, once, with the same webhook-id, after its lease', async () => {
    // Answers may take 2 s and a round's lease is 10 s: a message not started 5.5 s after its
    // round is left to the queue, so at the kill the other two are still waiting in memory.
    let api: ApiProcess = await startApi({
      ...env(),
      WEBHOOK_LEASE_SECONDS: '10',
      WEBHOOK_TIMEOUT_MS: '2000',
    });
    const tenant = await createTenantIn(orm!);
    const { secret } = await receiver.subscribe(api.baseUrl, tenant.key, 'door', ['event.created']);
    // The first delivery is answered late: the instance is killed before it has the answer.
    await receiver.plan('door', [{ status: 200, delayMs: 1500 }]);
    for (let i = 0; i < 3; i++) {
      const event = await request(api.baseUrl, 'POST', '/api/v1/events', {
        key: tenant.key,
        body: eventInput(`Door ${i}`),
      });
      expect(event.status).toBe(201);
    }
    const [last] = await sql<{ tx: string; pos: string }>(
      `select transaction_id::text as tx, position::text as pos from change_records
        where organisation_id = ? order by transaction_id desc, position desc limit 1`,
      [tenant.organisationId],
    );
    await until('the round past the three changes', async () => {
      const [state] = await sql<{ past: boolean }>(
        `select (transaction_id, position) >= (?::xid8, ?::bigint) as past from webhook_fanout_state`,
        [last!.tx, last!.pos],
      );
      return state!.past;
    });
    const [first] = await receiver.receivedAtLeast('door', 1);
    const exit = await api.stop('SIGKILL');
    expect(exit.signal).toBe('SIGKILL');
    // Nothing was written but the round's lease: the messages lived in the killed process.
    expect(await sql(`select id from webhook_messages`)).toEqual([]);
    expect(await sql(`select id from webhook_fanout_leases`)).toHaveLength(1);

    api = await startApi(env());
    const received = await receiver.receivedAtLeast('door', 4, 30_000);
    const events = received.map(
      (delivery) =>
        new Webhook(secret).verify(delivery.body, delivery.headers) as {
          id: string;
          data: { object: { name: string } };
        },
    );
    expect(new Set(events.map((event) => event.id)).size).toBe(3);
    expect(events.map((event) => event.data.object.name).sort()).toEqual([
      'Door 0',
      'Door 0',
      'Door 1',
      'Door 2',
    ]);
    const again = received
      .slice(1)
      .find((d) => d.headers['webhook-id'] === first!.headers['webhook-id']);
    expect(again?.body).toBe(first!.body);
    const messages = await until('the three recorded as delivered', async () => {
      const rows = await sql<{ id: string; status: string }>(
        `select id, status from webhook_messages order by id`,
      );
      return rows.length === 3 && rows.every((row) => row.status === 'delivered') && rows;
    });
    expect(new Set(messages.map((row) => row.id))).toEqual(new Set(events.map((e) => e.id)));
    expect(await sql(`select id from webhook_fanout_leases`)).toEqual([]);
    // And no further delivery.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(await receiver.received('door')).toHaveLength(4);
  }, 60_000);
});
