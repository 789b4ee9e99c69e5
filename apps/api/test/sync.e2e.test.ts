import { Boxoffice } from '@boxoffice/sdk';
import { describe, expect, it, vi } from 'vitest';
import { MAX_WRITE_TRANSACTION_MS, transaction } from '../src/db/driver';
import { createEvent } from '../src/modules/events/event.service';
import { insertEvents } from './fixtures';
import { createTenant, getTestOrm, useTestServer, type TestTenant } from './setup';

const server = useTestServer();

const clientFor = (tenant: TestTenant) =>
  new Boxoffice({ apiKey: tenant.key, baseURL: `${server.baseUrl}/api/v1`, logLevel: 'off' });

/** `updated_at` as the API renders it: UTC, milliseconds, `Z`. */
const ISO_MS = `to_char(updated_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as updated_at`;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** `count` events of the organisation, written straight to the table an hour ago. */
const seedEvents = (organisationId: string, count: number): Promise<string[]> => {
  const start = Date.now() - 3600_000;
  return insertEvents(
    organisationId,
    Array.from({ length: count }, (_, n) => new Date(start + n).toISOString()),
  );
};

interface Delivery {
  id: string;
  name: string;
  updated_at: string;
}

/** Walks `updated_since` with the SDK, page by page; returns what came and the checkpoint. */
async function syncOnce(client: Boxoffice, since: string, pause = 0) {
  const delivered: Delivery[] = [];
  let checkpoint = '';
  for await (const page of client.events.list({ updated_since: since, limit: 50 }).iterPages()) {
    for (const event of page.data) {
      delivered.push({ id: event.id, name: event.name, updated_at: event.updated_at });
    }
    checkpoint = page.syncCheckpoint;
    if (pause) await sleep(pause);
  }
  return { delivered, checkpoint, endedAt: Date.now() };
}

describe('syncing with updated_since and the sync checkpoint', () => {
  it('brings a write stamped before the last item seen but committed after the walk', async () => {
    const tenant = await createTenant();
    const [late, early] = await seedEvents(tenant.organisationId, 10);
    const since = new Date(Date.now() - 2 * 3600_000).toISOString();
    const client = clientFor(tenant);
    const orm = await getTestOrm();

    // One write stamps its row and holds its transaction open; another, stamped after it,
    // commits at once.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let stamped!: (at: string) => void;
    const stampedAt = new Promise<string>((resolve) => (stamped = resolve));
    const slow = orm.em.fork().transactional(async (tx) => {
      const [row] = await tx.execute<{ updated_at: string }[]>(
        `update events set name = 'late', updated_at = clock_timestamp() where id = ? returning ${ISO_MS}`,
        [late],
      );
      stamped(row!.updated_at);
      await held;
    });
    const lateStamp = await stampedAt;
    await sleep(5);
    await client.events.update(early!, { name: 'early' });

    const first = await syncOnce(client, since);
    expect(first.delivered.find((d) => d.id === early)?.name).toBe('early');
    expect(first.delivered.find((d) => d.id === late)?.name).toBe('v0');
    release();
    await slow;

    // The largest updated_at seen is past the late write's stamp: a sync from it never sees it.
    const largestSeen = first.delivered
      .map((d) => d.updated_at)
      .sort()
      .at(-1)!;
    expect(largestSeen > lateStamp).toBe(true);
    const fromLargest = await syncOnce(client, largestSeen);
    expect(fromLargest.delivered.map((d) => d.name)).not.toContain('late');
    // The walk's checkpoint does.
    expect(first.checkpoint < lateStamp).toBe(true);
    const second = await syncOnce(client, first.checkpoint);
    expect(second.delivered.find((d) => d.id === late)?.name).toBe('late');
  });

  it('delivers every object, and every update acknowledged before the walk ended, while others keep writing', async () => {
    const tenant = await createTenant();
    const ids = await seedEvents(tenant.organisationId, 3000);
    const since = new Date(Date.now() - 2 * 3600_000).toISOString();
    const writer = clientFor(tenant);

    // Writers, each with objects of its own (so each object's updates are sequential): two update
    // through the API; one holds its transaction open a while after stamping, like a slow request.
    interface Ack {
      id: string;
      updated_at: string;
      at: number;
    }
    const acks: Ack[] = [];
    let writing = true;
    const apiWriter = async (mine: string[]) => {
      let version = 0;
      while (writing) {
        const id = mine[Math.floor(Math.random() * mine.length)]!;
        const event = await writer.events.update(id, { name: `v${++version}` });
        acks.push({ id, updated_at: event.updated_at, at: Date.now() });
      }
    };
    const orm = await getTestOrm();
    const slowWriter = async (mine: string[]) => {
      let version = 0;
      while (writing) {
        const id = mine[Math.floor(Math.random() * mine.length)]!;
        const em = orm.em.fork();
        const stamp = await em.transactional(async (tx) => {
          const [row] = await tx.execute<{ updated_at: string }[]>(
            `update events set name = ?, updated_at = clock_timestamp() where id = ? returning ${ISO_MS}`,
            [`slow v${++version}`, id],
          );
          await sleep(150 + Math.random() * 300);
          return row!.updated_at;
        });
        acks.push({ id, updated_at: stamp, at: Date.now() });
      }
    };
    const writers = [
      apiWriter(ids.filter((_, i) => i % 3 === 0)),
      apiWriter(ids.filter((_, i) => i % 3 === 1)),
      slowWriter(ids.filter((_, i) => i % 3 === 2)),
    ];
    await sleep(100);

    const reader = clientFor(tenant);
    const first = await syncOnce(reader, since, 15);
    // Writes go on for a while after the walk, then the next incremental sync runs.
    await sleep(200);
    writing = false;
    await Promise.all(writers);
    const second = await syncOnce(reader, first.checkpoint);

    // Every object once at least, in the walk itself.
    expect(new Set(first.delivered.map((d) => d.id))).toEqual(new Set(ids));
    // Every update acknowledged before the walk ended reached the reader: in the walk, or in the
    // sync from its checkpoint.
    const latest = new Map<string, string>();
    for (const d of [...first.delivered, ...second.delivered]) {
      if ((latest.get(d.id) ?? '') < d.updated_at) latest.set(d.id, d.updated_at);
    }
    const before = acks.filter((ack) => ack.at <= first.endedAt);
    expect(before.length).toBeGreaterThan(50);
    const missed = before.filter((ack) => (latest.get(ack.id) ?? '') < ack.updated_at);
    expect(missed).toEqual([]);
  });
});

describe('a write transaction', () => {
  it('rolls back instead of committing once it has run past the bound', async () => {
    const tenant = await createTenant();
    const orm = await getTestOrm();
    const start = performance.now();
    const clock = vi.spyOn(performance, 'now');
    clock.mockReturnValueOnce(start);
    clock.mockReturnValue(start + MAX_WRITE_TRANSACTION_MS + 1);
    try {
      const em = orm.em.fork();
      await expect(
        transaction(em, (tx) =>
          createEvent(
            { em: tx, organisationId: tenant.organisationId, livemode: true },
            {
              name: 'Too slow',
              timezone: 'UTC',
              starts_at: '2027-01-01T18:00:00Z',
              ends_at: '2027-01-01T20:00:00Z',
              currency: 'EUR',
            },
          ),
        ),
      ).rejects.toMatchObject({ status: 503 });
    } finally {
      clock.mockRestore();
    }
    const [row] = await orm.em
      .fork()
      .execute<{ count: string }[]>(`select count(*) from events where organisation_id = ?`, [
        tenant.organisationId,
      ]);
    expect(Number(row!.count)).toBe(0);
  });
});
