import { describe, expect, it } from 'vitest';
import { DoorServer } from '../../test/door-server';
import { FakeClock, turn, until } from '../../test/fake-clock';
import { harness, TEST_BASE_URL } from '../../test/harness';
import { error, type RecordedRequest } from '../../test/scripted-fetch';
import type { CheckinBatchItemFields } from '../resources/types';
import {
  memoryStore,
  openDoor,
  type DoorConflict,
  type DoorErrorEvent,
  type DoorJournalEntry,
  type DoorOptions,
  type DoorStore,
} from './index';

const EVENT = 'evt_door';

/**
 * A door on a fake clock (nothing waits for real) and a scripted fetch whose fallback is the
 * in-memory API of `DoorServer`, with `tickets` sold before it opens.
 */
function setup(
  options: Partial<DoorOptions> & { tickets?: number; server?: DoorServer; clock?: FakeClock } = {},
) {
  const { tickets = 3, server: given, clock: givenClock, ...doorOptions } = options;
  const clock = givenClock ?? new FakeClock({ auto: false });
  const server = given ?? new DoorServer(() => clock.now(), EVENT);
  if (!given) for (let i = 0; i < tickets; i++) server.sell(`Guest${i + 1}`);
  const { client, script } = harness({ clock, fallback: server.reply, logLevel: 'off' });
  const store = doorOptions.store ?? memoryStore();
  const door = openDoor(client, {
    eventId: EVENT,
    gate: 'North',
    deviceId: 'north-1',
    refreshIntervalMs: 0,
    ...doorOptions,
    store,
  });
  const requests = (method?: string) =>
    script.requests.filter((r) => method === undefined || r.method === method);
  /** The scans of each batch sent, in order. */
  const batches = () =>
    requests('POST').map((r) => (r.body as { checkins: CheckinBatchItemFields[] }).checkins);
  return { door, server, script, store, clock, client, requests, batches };
}

const path = (request: RecordedRequest) =>
  `${request.method} ${request.url.slice(TEST_BASE_URL.length)}`;

const param = (request: RecordedRequest | undefined, name: string) =>
  request && new URL(request.url).searchParams.get(name);

/** Records the events of a door. */
function recorder(door: ReturnType<typeof openDoor>) {
  const seen = {
    conflicts: [] as DoorConflict[],
    errors: [] as DoorErrorEvent[],
    flushed: [] as number[],
    status: [] as string[],
  };
  door.on('conflict', (c) => seen.conflicts.push(c));
  door.on('error', (e) => seen.errors.push(e));
  door.on('flushed', (f) => seen.flushed.push(f.acknowledged));
  door.on('online', () => seen.status.push('online'));
  door.on('offline', () => seen.status.push('offline'));
  return seen;
}

describe('load', () => {
  it('downloads tickets, attendees and admissions by cursor walks of 100, and keeps the checkpoints', async () => {
    const clock = new FakeClock({ auto: false });
    const server = new DoorServer(() => clock.now(), EVENT);
    for (let i = 0; i < 250; i++) server.sell(`Guest${i + 1}`);
    server.sell('Elsewhere', 'evt_other');
    server.scanElsewhere('tkt_0002', { gate: 'South', device_id: 'south-2' });
    const { door, script, store } = setup({ server, clock });

    const loaded = await door.load();
    expect(loaded).toEqual({
      downloaded: true,
      refreshed: true,
      tickets: 250,
      pending: 0,
      resending: 0,
    });
    expect(script.requests.map(path)).toEqual([
      'GET /tickets?event_id=evt_door&limit=100',
      'GET /tickets?event_id=evt_door&limit=100&cursor=at100',
      'GET /tickets?event_id=evt_door&limit=100&cursor=at200',
      'GET /attendees?event_id=evt_door&limit=100',
      'GET /attendees?event_id=evt_door&limit=100&cursor=at100',
      'GET /attendees?event_id=evt_door&limit=100&cursor=at200',
      'GET /checkins?event_id=evt_door&direction=entry&limit=100',
    ]);
    const checkpoint = new Date(clock.now() - 60_000).toISOString();
    const snapshot = (await store.get('snapshot')) as { checkpoints: unknown; tickets: unknown[] };
    expect(snapshot.checkpoints).toEqual({
      tickets: checkpoint,
      attendees: checkpoint,
      checkins: checkpoint,
    });
    expect(snapshot.tickets).toHaveLength(250);

    // The ticket of the other event was never listed; the admission came with its gate.
    expect((await door.scan('CODE0251')).result).toBe('unknown');
    const inside = await door.scan('CODE0002');
    expect(inside).toMatchObject({
      result: 'already_in',
      attendee: { first_name: 'Guest2' },
      admission: { gate: 'South', device_id: 'south-2' },
    });

    // A refresh asks only for what changed since the checkpoints.
    script.requests.length = 0;
    await door.refresh();
    const first = (route: string) =>
      script.requests.find((r) => new URL(r.url).pathname === `/api/v1${route}`);
    expect(param(first('/tickets'), 'updated_since')).toBe(checkpoint);
    expect(param(first('/attendees'), 'updated_since')).toBe(checkpoint);
    expect(param(first('/checkins'), 'since')).toBe(checkpoint);
    expect(param(first('/checkins'), 'event_id')).toBe(EVENT);
    await door.close({ flush: false });
  });

  it('refuses to scan before it has tickets, and rejects a download it cannot make', async () => {
    const { door, server, clock } = setup();
    await expect(door.scan('CODE0001')).rejects.toThrow(/load\(\)/);
    server.down = true;
    // The download's reads are retried as the client retries (2 by default), then it gives up.
    const failing = expect(door.load()).rejects.toThrow(/Connection error/);
    await until(() => clock.pending === 1);
    await clock.advance(10_000);
    await failing;
    await expect(door.scan('CODE0001')).rejects.toThrow(/load\(\)/);
    server.down = false;
    expect((await door.load()).tickets).toBe(3);
    expect((await door.scan('CODE0001')).result).toBe('admitted');
    await door.close({ flush: false });
  });

  it('checks its options', () => {
    const { client } = harness({ logLevel: 'off' });
    const base = { eventId: EVENT, gate: 'North', deviceId: 'north-1' };
    expect(() => openDoor(client, { ...base, gate: '  ' })).toThrow(/gate/);
    expect(() => openDoor(client, { ...base, deviceId: 'x'.repeat(101) })).toThrow(/deviceId/);
    expect(() => openDoor(client, { ...base, eventId: '' })).toThrow(/eventId/);
    expect(() => openDoor(client, { ...base, flushIntervalMs: 0 })).toThrow(/flushIntervalMs/);
    expect(() => openDoor(client, { ...base, refreshIntervalMs: -1 })).toThrow(/refreshIntervalMs/);
    expect(openDoor(client, { ...base, gate: ' North ' }).gate).toBe('North');
  });
});

describe('scan', () => {
  it('answers each kind of scan from the door’s own state', async () => {
    const { door, server, clock } = setup({ tickets: 5 });
    server.scanElsewhere('tkt_0002', { gate: 'South', device_id: 'south-2' });
    server.void('tkt_0003');
    await door.load();
    server.down = true; // none of this needs the network

    const admitted = await door.scan('CODE0001');
    expect(admitted).toMatchObject({
      result: 'admitted',
      code: 'CODE0001',
      direction: 'entry',
      ticket: { id: 'tkt_0001', status: 'checked_in' },
      attendee: { first_name: 'Guest1', last_name: 'Number 1' },
      scan: {
        ticket_id: 'tkt_0001',
        event_id: EVENT,
        direction: 'entry',
        gate: 'North',
        device_id: 'north-1',
        scanned_at: new Date(clock.now()).toISOString(),
      },
    });
    expect(admitted.scan?.idempotency_key).toMatch(/^north-1:[0-9a-f-]{32,36}$/);

    // This door's own admission, before the server has heard of it.
    expect(await door.scan('CODE0001')).toMatchObject({
      result: 'already_in',
      admission: { gate: 'North', device_id: 'north-1', scanned_at: admitted.scan?.scanned_at },
    });
    expect(await door.scan('CODE0002')).toMatchObject({
      result: 'already_in',
      admission: { gate: 'South', device_id: 'south-2' },
    });
    expect(await door.scan('CODE0003')).toMatchObject({
      result: 'void',
      attendee: { first_name: 'Guest3' },
    });
    expect(await door.scan('no-such-code')).toEqual({
      result: 'unknown',
      code: 'no-such-code',
      direction: 'entry',
    });
    expect(await door.scan('CODE0004', { direction: 'exit' })).toMatchObject({
      result: 'not_inside',
    });
    expect(await door.scan('CODE0002', { direction: 'exit' })).toMatchObject({
      result: 'exited',
      ticket: { status: 'valid' },
      scan: { direction: 'exit' },
    });
    expect((await door.scan('CODE0002')).result).toBe('admitted');
    expect(await door.scan('CODE0003', { direction: 'exit' })).toMatchObject({ result: 'void' });
    // Only the accepted scans are queued: two entries and an exit.
    expect(door.pending).toBe(3);
    await door.close({ flush: false });
  });

  it('says wrong_event for a ticket the server placed in another event', async () => {
    const { door, server } = setup();
    await door.load();
    const seen = recorder(door);
    server.ticket('tkt_0001').event_id = 'evt_other';
    expect((await door.scan('CODE0001')).result).toBe('admitted');
    await until(() => seen.conflicts.length === 1);
    expect(seen.conflicts[0]?.result).toMatchObject({ status: 422, code: 'wrong_event' });
    expect(seen.conflicts[0]?.ticket).toBeUndefined();
    expect(await door.scan('CODE0001')).toEqual({
      result: 'wrong_event',
      code: 'CODE0001',
      direction: 'entry',
    });
    await door.close({ flush: false });
  });

  it('keeps an accepted scan in the store before it answers, and undoes it if the store fails', async () => {
    const inner = memoryStore();
    let hold: Promise<void> | undefined;
    let failNext = false;
    const appended: DoorJournalEntry[] = [];
    const store: DoorStore = {
      ...inner,
      async append(entries) {
        if (failNext) {
          failNext = false;
          throw new Error('disk full');
        }
        await hold;
        appended.push(...entries);
        await inner.append(entries);
      },
    };
    const { door, server } = setup({ store });
    await door.load();
    server.down = true;

    let release: () => void = () => {};
    hold = new Promise((resolve) => (release = resolve));
    let answered = false;
    const scanning = door.scan('CODE0001').then((outcome) => {
      answered = true;
      return outcome;
    });
    for (let i = 0; i < 5; i++) await turn();
    expect(answered).toBe(false);
    expect(appended).toHaveLength(0);
    // Meanwhile a second scan of the same ticket already sees it inside.
    expect((await door.scan('CODE0001')).result).toBe('already_in');
    release();
    const outcome = await scanning;
    expect(appended).toEqual([{ key: outcome.scan?.idempotency_key, scan: outcome.scan }]);

    // The process dies here: a door on the same store has the scan, queued, without the network.
    const again = setup({ store, server });
    expect(await again.door.resume()).toBe(true);
    expect(again.door.pending).toBe(1);
    expect((await again.door.scan('CODE0001')).result).toBe('already_in');
    expect(again.requests('GET')).toHaveLength(0);

    // A scan the store cannot keep is refused, and leaves nothing behind.
    hold = undefined;
    failNext = true;
    await expect(door.scan('CODE0002')).rejects.toThrow('disk full');
    expect(door.pending).toBe(1);
    expect((await door.scan('CODE0002')).result).toBe('admitted');
    const kept = (await inner.journal()).filter((e) => 'scan' in e && e.scan.code === 'CODE0002');
    expect(kept).toHaveLength(1);
    await door.close({ flush: false });
    await again.door.close({ flush: false });
  });
});

describe('flush', () => {
  it('sends at most one batch per interval, a full one sooner, never more than 100 scans', async () => {
    const { door, clock, batches } = setup({ tickets: 400 });
    await door.load();
    const code = (n: number) => `CODE${String(n).padStart(4, '0')}`;

    // The first scan goes at once: nothing was sent in the last interval.
    await door.scan(code(1));
    await until(() => batches().length === 1);
    for (let n = 2; n <= 31; n++) await door.scan(code(n));
    await clock.advance(5_999);
    expect(batches()).toHaveLength(1);
    await clock.advance(1);
    await until(() => batches().length === 2);
    expect(batches()[1]).toHaveLength(30);
    expect(door.pending).toBe(0);

    // 250 scans within the interval: each full batch goes as soon as it is full.
    for (let n = 32; n <= 281; n++) await door.scan(code(n));
    await until(() => batches().length === 4);
    expect(batches()[2]).toHaveLength(100);
    expect(batches()[3]).toHaveLength(100);
    expect(door.pending).toBe(50);
    await clock.advance(6_000);
    await until(() => batches().length === 5);
    expect(batches()[4]).toHaveLength(50);

    const sent = batches().flat();
    expect(sent).toHaveLength(281);
    expect(new Set(sent.map((s) => s.idempotency_key)).size).toBe(281);
    expect(sent.every((s) => s.gate === 'North' && s.device_id === 'north-1')).toBe(true);
    expect(door.pending).toBe(0);
    await door.close({ flush: false });
  });

  it('holds a full batch for the interval when the key’s write window is used up', async () => {
    const { door, server, clock, batches } = setup({ tickets: 150 });
    await door.load();
    server.writeWindow = { limit: 10, remaining: 0, reset: 60 };
    await door.scan('CODE0001');
    await until(() => batches().length === 1);
    for (let n = 2; n <= 101; n++) await door.scan(`CODE${String(n).padStart(4, '0')}`);
    for (let i = 0; i < 20; i++) await turn();
    expect(batches()).toHaveLength(1);
    expect(door.pending).toBe(100);
    server.writeWindow = { limit: 10, remaining: 9, reset: 60 };
    // The interval passes, but the client holds the request for the window's end.
    await clock.advance(6_000);
    expect(batches()).toHaveLength(1);
    await clock.advance(54_000);
    await until(() => batches().length === 2);
    expect(batches()[1]).toHaveLength(100);
    await door.close({ flush: false });
  });

  it('flush() sends everything queued now, and close() stops every timer', async () => {
    const { door, clock, batches } = setup({ tickets: 250, flushIntervalMs: 600_000 });
    await door.load();
    await door.scan('CODE0001');
    await until(() => batches().length === 1);
    for (let n = 2; n <= 250; n++) await door.scan(`CODE${String(n).padStart(4, '0')}`);
    // Two full batches went; the rest waits for the long interval, or a flush.
    await until(() => batches().length === 3);
    expect(door.pending).toBe(49);
    expect(await door.flush()).toEqual({ acknowledged: 49, conflicts: 0, pending: 0 });
    expect(batches().map((b) => b.length)).toEqual([1, 100, 100, 49]);

    await door.scan('CODE0001', { direction: 'exit' });
    await door.close();
    expect(batches()).toHaveLength(5);
    expect(clock.pending).toBe(0);
    await expect(door.scan('CODE0002')).rejects.toThrow(/closed/);
  });
});

describe('offline', () => {
  it('answers scans with the network down, keeps them queued, backs off, and catches up', async () => {
    const { door, server, clock, requests, batches } = setup({ tickets: 10 });
    await door.load();
    const seen = recorder(door);
    server.down = true;

    for (let n = 1; n <= 5; n++) {
      expect((await door.scan(`CODE000${n}`)).result).toBe('admitted');
    }
    await until(() => requests('POST').length === 1);
    await until(() => seen.status.length === 1);
    expect(seen.status).toEqual(['offline']);
    expect(door.online).toBe(false);
    expect(door.pending).toBe(5);

    // Retries back off: 6 s, 12 s, 24 s, 48 s, then the 60 s cap (no jitter in tests).
    const start = clock.now();
    for (const wait of [6_000, 12_000, 24_000, 48_000, 60_000, 60_000]) {
      const before = requests('POST').length;
      await clock.advance(wait - 1);
      expect(requests('POST')).toHaveLength(before);
      await clock.advance(1);
      await until(() => requests('POST').length === before + 1);
    }
    expect(requests('POST').map((r) => r.at - start)).toEqual([
      0, 6_000, 18_000, 42_000, 90_000, 150_000, 210_000,
    ]);
    expect(door.pending).toBe(5);
    expect(seen.errors).toEqual([]);

    // The network is back: the next attempt sends every scan, once, with its own key.
    server.down = false;
    await clock.advance(60_000);
    await until(() => door.pending === 0);
    expect(seen.status).toEqual(['offline', 'online']);
    // Every attempt after the first carried all five scans, with the same keys.
    const keys = batches()
      .slice(1)
      .map((b) => b.map((s) => s.idempotency_key).join());
    expect(new Set(keys).size).toBe(1);
    expect(
      new Set(
        batches()
          .flat()
          .map((s) => s.idempotency_key),
      ).size,
    ).toBe(5);
    expect(server.checkins).toHaveLength(5);
    await door.close({ flush: false });
  });

  it('waits what a 429 asks for (Retry-After) before the next batch', async () => {
    const { door, script, clock, batches, server } = setup();
    await door.load();
    script.reply(
      error(429, 'Rate limit exceeded', {
        code: 'rate_limited',
        headers: { 'retry-after': '45' },
      }),
    );
    await door.scan('CODE0001');
    await until(() => batches().length === 1);
    await door.scan('CODE0002');
    await clock.advance(44_999);
    expect(batches()).toHaveLength(1);
    await clock.advance(1);
    await until(() => door.pending === 0);
    expect(batches().map((b) => b.length)).toEqual([1, 2]);
    expect(server.checkins).toHaveLength(2);
    await door.close({ flush: false });
  });

  it('after a restart, resends what was not acknowledged with the same keys: nobody is admitted twice', async () => {
    const store = memoryStore();
    const first = setup({ tickets: 5, store });
    const { server } = first;
    await first.door.load();
    // The server records the first batch, but its answer is lost.
    server.loseNextAnswer = true;
    await first.door.scan('CODE0001');
    await until(() => first.batches().length === 1);
    server.down = true;
    await first.door.scan('CODE0002');
    await first.door.scan('CODE0003');
    await first.door.scan('CODE0003', { direction: 'exit' });
    expect(first.door.pending).toBe(4);
    expect(server.checkins).toHaveLength(1);
    const queued = (await store.journal()).flatMap((e) => ('scan' in e ? [e.scan] : []));

    // The process is killed; another starts on the same store, with the network back.
    server.down = false;
    const second = setup({ store, server });
    const seen = recorder(second.door);
    const loaded = await second.door.load();
    expect(loaded).toMatchObject({ downloaded: false, refreshed: true, resending: 4 });
    await until(() => second.door.pending === 0);
    const resent = second.batches().flat();
    expect(resent.map((s) => s.idempotency_key)).toEqual(queued.map((s) => s.idempotency_key));
    expect(resent.map((s) => s.scanned_at)).toEqual(queued.map((s) => s.scanned_at));
    // The first scan's answer is the server's first one, replayed: one check-in, no conflict.
    expect(server.checkins.filter((c) => c.ticket_id === 'tkt_0001')).toHaveLength(1);
    expect(second.batches().flat().length).toBe(4);
    expect(server.checkins).toHaveLength(4);
    expect(seen.conflicts).toEqual([]);
    expect((await second.door.scan('CODE0001')).result).toBe('already_in');
    expect((await second.door.scan('CODE0002')).result).toBe('already_in');
    expect((await second.door.scan('CODE0003')).result).toBe('admitted');
    await first.door.close({ flush: false });
    await second.door.close({ flush: false });
  });

  it('restores answers it had not folded into the snapshot yet, without sending again', async () => {
    const store = memoryStore();
    const first = setup({ tickets: 3, store });
    await first.door.load();
    await first.door.scan('CODE0001');
    await until(() => first.door.pending === 0);
    const journal = await store.journal();
    expect(journal.map((e) => ('scan' in e ? 'scan' : e.result.status))).toEqual(['scan', 201]);

    const second = setup({ store, server: first.server });
    expect(await second.door.resume()).toBe(true);
    expect(second.door.pending).toBe(0);
    expect((await second.door.scan('CODE0001')).result).toBe('already_in');
    // Once a snapshot holds the answer, the journal drops the scan and its answer.
    await second.door.refresh();
    expect(await store.journal()).toEqual([]);
    const snapshot = (await store.get('snapshot')) as { applied: string[] };
    expect(snapshot.applied).toEqual([journal[0]?.key]);
    const third = setup({ store, server: first.server });
    expect(await third.door.resume()).toBe(true);
    expect((await third.door.scan('CODE0001')).result).toBe('already_in');
    for (const { door } of [first, second, third]) await door.close({ flush: false });
  });
});

describe('conflicts and refresh', () => {
  it('emits a conflict when the server refuses a scan the door accepted, and corrects its state', async () => {
    const { door, server, clock } = setup({ tickets: 3 });
    await door.load();
    const seen = recorder(door);
    // While this door knew nothing of it, another admitted ticket 1 and ticket 2 was refunded.
    await clock.advance(1_000);
    server.scanElsewhere('tkt_0001', { gate: 'South', device_id: 'south-2' });
    server.void('tkt_0002');
    server.down = true;
    await door.scan('CODE0001');
    await door.scan('CODE0002');
    await until(() => seen.status.includes('offline'));
    server.down = false;
    await door.flush();

    expect(seen.conflicts).toHaveLength(2);
    const [admitted, voided] = seen.conflicts;
    expect(admitted).toMatchObject({
      scan: { code: 'CODE0001', gate: 'North' },
      result: {
        status: 409,
        code: 'already_checked_in',
        admission: { gate: 'South', device_id: 'south-2' },
      },
      ticket: { status: 'checked_in', admission: { gate: 'South' } },
      attendee: { first_name: 'Guest1' },
    });
    expect(voided).toMatchObject({ result: { status: 409, code: 'ticket_void' } });
    expect(await door.scan('CODE0001')).toMatchObject({
      result: 'already_in',
      admission: { gate: 'South', device_id: 'south-2' },
    });
    expect((await door.scan('CODE0002')).result).toBe('void');
    expect(door.pending).toBe(0);
    await door.close({ flush: false });
  });

  it('refresh brings other doors’ admissions, voided tickets and new sales', async () => {
    const { door, server, clock, requests } = setup({ tickets: 3, refreshIntervalMs: 30_000 });
    await door.load();
    const refreshed: number[] = [];
    door.on('refreshed', (r) => refreshed.push(r.checkins));
    await clock.advance(5_000);
    server.scanElsewhere('tkt_0001', { gate: 'East', device_id: 'east-3' });
    server.void('tkt_0002');
    const sold = server.sell('Latecomer');
    expect((await door.scan(sold.code)).result).toBe('unknown');

    // The background refresh runs every 30 s.
    const reads = requests('GET').length;
    await clock.advance(24_999);
    expect(requests('GET')).toHaveLength(reads);
    await clock.advance(1);
    await until(() => refreshed.length === 1);
    expect(refreshed).toEqual([1]);
    expect(await door.scan('CODE0001')).toMatchObject({
      result: 'already_in',
      admission: { gate: 'East', device_id: 'east-3' },
    });
    expect((await door.scan('CODE0002')).result).toBe('void');
    expect(await door.scan(sold.code)).toMatchObject({
      result: 'admitted',
      attendee: { first_name: 'Latecomer' },
    });
    // It leaves out a ticket the door admitted that the server has not heard of yet.
    server.down = true;
    await door.scan('CODE0003');
    server.down = false;
    await door.refresh();
    expect((await door.scan('CODE0003')).result).toBe('already_in');
    await door.close({ flush: false });
  });

  it('stops flushing on a fatal error, keeps the scans, and goes on when flush() is called', async () => {
    const { door, script, clock, batches, server } = setup();
    await door.load();
    const seen = recorder(door);
    script.reply(error(401, 'Invalid API key provided', { code: 'invalid_api_key' }));
    await door.scan('CODE0001');
    await until(() => seen.errors.length === 1);
    expect(seen.errors[0]).toMatchObject({ during: 'flush', fatal: true });
    expect((seen.errors[0]?.error as { status?: number }).status).toBe(401);
    await door.scan('CODE0002');
    await clock.advance(600_000);
    expect(batches()).toHaveLength(1);
    expect(door.pending).toBe(2);
    // Scans are still answered.
    expect((await door.scan('CODE0001')).result).toBe('already_in');

    expect(await door.flush()).toEqual({ acknowledged: 2, conflicts: 0, pending: 0 });
    expect(server.checkins).toHaveLength(2);
    await door.close({ flush: false });
  });

  it('emits events to typed listeners, and off() stops one', async () => {
    const { door } = setup();
    await door.load();
    const flushed: number[] = [];
    const listener = (f: { acknowledged: number }) => flushed.push(f.acknowledged);
    door.on('flushed', listener);
    const stop = door.on('flushed', () => flushed.push(-1));
    await door.scan('CODE0001');
    await until(() => flushed.length === 2);
    door.off('flushed', listener);
    stop();
    await door.scan('CODE0002');
    await door.flush();
    expect(flushed).toEqual([1, -1]);
    await door.close({ flush: false });
  });
});

describe('memoryStore', () => {
  it('keeps JSON copies, appends in order and drops by key', async () => {
    const store = memoryStore();
    const value = { a: [1, 2] };
    await store.set('k', value);
    value.a.push(3);
    expect(await store.get('k')).toEqual({ a: [1, 2] });
    expect(await store.get('missing')).toBeUndefined();
    const scan = (key: string) => ({
      key,
      scan: {
        idempotency_key: key,
        code: 'C',
        ticket_id: 't',
        event_id: 'e',
        direction: 'entry' as const,
        gate: 'g',
        device_id: 'd',
        scanned_at: '2030-01-01T00:00:00.000Z',
      },
    });
    await store.append([scan('a'), scan('b')]);
    await store.append([{ key: 'a', result: { status: 201, data: null, replayed: false } }]);
    await store.append([scan('c')]);
    expect((await store.journal()).map((e) => e.key)).toEqual(['a', 'b', 'a', 'c']);
    await store.drop(['a']);
    expect((await store.journal()).map((e) => e.key)).toEqual(['b', 'c']);
  });
});
