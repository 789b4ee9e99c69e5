import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Boxoffice, type Checkin, type Ticket } from '@boxoffice/sdk';
import { openDoor, type DoorJournalEntry } from '@boxoffice/sdk/doors';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FileDoorStore } from './file-store';

let dir: string;

beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'door-store-'));
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const scanEntry = (key: string): DoorJournalEntry => ({
  key,
  scan: {
    idempotency_key: key,
    code: `CODE-${key}`,
    ticket_id: `tkt_${key}`,
    event_id: 'evt_1',
    direction: 'entry',
    gate: 'North',
    device_id: 'north-1',
    scanned_at: '2030-01-01T19:00:00.000Z',
  },
});

const keys = (entries: DoorJournalEntry[]) => entries.map((entry) => entry.key);

describe('FileDoorStore', () => {
  it('keeps values as JSON files, replaced whole, and leaves no temporary file behind', async () => {
    const store = await FileDoorStore.open(path.join(dir, 'door'));
    expect(await store.get('snapshot')).toBeUndefined();
    const value = { tickets: [{ id: 'tkt_1' }] };
    const saving = store.set('snapshot', value);
    value.tickets.push({ id: 'tkt_2' }); // changed after the call: not what is stored
    await saving;
    expect(await store.get('snapshot')).toEqual({ tickets: [{ id: 'tkt_1' }] });
    await store.set('snapshot', { tickets: [] });
    expect(JSON.parse(await readFile(path.join(dir, 'door', 'snapshot.json'), 'utf8'))).toEqual({
      tickets: [],
    });
    expect((await readdir(path.join(dir, 'door'))).sort()).toEqual([
      'journal.ndjson',
      'snapshot.json',
    ]);
    await expect(store.set('../escape', 1)).rejects.toThrow(/not a store key/);
  });

  it('appends the journal in order, drops by key, and keeps it across a reopen', async () => {
    const store = await FileDoorStore.open(dir);
    expect(await store.journal()).toEqual([]);
    await Promise.all(['a', 'b', 'c', 'd'].map((key) => store.append([scanEntry(key)])));
    await store.append([{ key: 'b', result: { status: 201, data: null, replayed: false } }]);
    expect(keys(await store.journal())).toEqual(['a', 'b', 'c', 'd', 'b']);
    await store.drop(['b', 'd']);
    expect(keys(await store.journal())).toEqual(['a', 'c']);

    const reopened = await FileDoorStore.open(dir);
    expect(await reopened.journal()).toEqual([scanEntry('a'), scanEntry('c')]);
  });

  it('keeps the scans appended while a drop rewrites the journal', async () => {
    const store = await FileDoorStore.open(dir);
    await store.append(['a', 'b', 'c'].map(scanEntry));
    // Appends while the drop runs: they go on at once, and are in the journal it leaves.
    const dropping = store.drop(['a']);
    await Promise.all(['d', 'e'].map((key) => store.append([scanEntry(key)])));
    await dropping;
    await store.append([scanEntry('f')]);
    expect(keys(await store.journal())).toEqual(['b', 'c', 'd', 'e', 'f']);
    await store.close();
    const reopened = await FileDoorStore.open(dir);
    expect(keys(await reopened.journal())).toEqual(['b', 'c', 'd', 'e', 'f']);
    expect(await readdir(dir)).toEqual(['journal.ndjson']);
    await reopened.close();
  });

  it('forgets a journal line cut short by a crash, and appends after it cleanly', async () => {
    const file = path.join(dir, 'journal.ndjson');
    const whole = JSON.stringify(scanEntry('a'));
    await writeFile(file, `${whole}\n${whole.slice(0, 40)}`);
    const store = await FileDoorStore.open(dir);
    expect(keys(await store.journal())).toEqual(['a']);
    await store.append([scanEntry('b')]);
    expect(keys(await store.journal())).toEqual(['a', 'b']);
    expect(await readFile(file, 'utf8')).toBe(`${whole}\n${JSON.stringify(scanEntry('b'))}\n`);
  });
});

describe('a door on the file store', () => {
  const at = '2024-01-01T18:00:00.000Z';
  const ticket = (n: number): Ticket => ({
    id: `tkt_${n}`,
    order_id: 'ord_1',
    event_id: 'evt_1',
    tier_id: 'tier_1',
    attendee_id: `att_${n}`,
    code: `CODE${n}`,
    status: 'valid',
    price: 1000,
    currency: 'GBP',
    checked_in_at: null,
    voided_at: null,
    created_at: at,
    updated_at: at,
    livemode: true,
  });

  /** The API as the door reads it (two tickets, no attendees, no admissions); batches as told. */
  function server() {
    const state = { online: false, sent: [] as string[] };
    const answer = (body: unknown) =>
      new Response(JSON.stringify(body), { headers: { 'content-type': 'application/json' } });
    const fetch = (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
      const url = new URL(input instanceof Request ? input.url : input);
      if (init?.method === 'POST') {
        if (!state.online) return Promise.reject(new TypeError('fetch failed'));
        const { checkins } = JSON.parse(init.body as string) as {
          checkins: { ticket_id: string; idempotency_key: string; scanned_at: string }[];
        };
        const results = checkins.map((scan) => {
          state.sent.push(scan.idempotency_key);
          const checkin: Checkin = {
            id: `chk_${state.sent.length}`,
            ticket_id: scan.ticket_id,
            attendee_id: 'att_1',
            event_id: 'evt_1',
            direction: 'entry',
            gate: 'North',
            device_id: 'north-1',
            scanned_at: scan.scanned_at,
            api_key_id: null,
            created_at: new Date().toISOString(),
            updated_at: new Date().toISOString(),
            livemode: true,
          };
          return { status: 201, data: checkin, replayed: false };
        });
        return Promise.resolve(answer({ data: results }));
      }
      const data = url.pathname.endsWith('/tickets') ? [ticket(1), ticket(2)] : [];
      return Promise.resolve(
        answer({
          data,
          total: data.length,
          page: 1,
          limit: 100,
          next_cursor: null,
          sync_checkpoint: at,
        }),
      );
    };
    const client = new Boxoffice({
      apiKey: 'bxo_live_filestoretest',
      baseURL: 'http://door.test/api/v1',
      fetch,
      maxRetries: 0,
      logLevel: 'off',
    });
    return { state, client };
  }

  it('keeps a scan made offline through a restart, and sends it once the server answers', async () => {
    const { state, client } = server();
    const options = { eventId: 'evt_1', gate: 'North', deviceId: 'north-1', refreshIntervalMs: 0 };
    const first = openDoor(client, { ...options, store: await FileDoorStore.open(dir) });
    await first.load();
    const scanned = await first.scan('CODE1');
    expect(scanned.result).toBe('admitted');
    // The process is killed here (its timers stopped, nothing more written).
    await first.close({ flush: false });

    const store = await FileDoorStore.open(dir);
    const second = openDoor(client, { ...options, store });
    expect(await second.resume()).toBe(true);
    expect(second.pending).toBe(1);
    expect((await second.scan('CODE1')).result).toBe('already_in');
    expect((await second.scan('CODE2')).result).toBe('admitted');

    state.online = true;
    expect(await second.flush()).toMatchObject({ acknowledged: 2, pending: 0 });
    expect(state.sent[0]).toBe(scanned.scan?.idempotency_key);
    await second.close();
    // The snapshot now holds both admissions; the journal has nothing left to send.
    expect(await store.journal()).toEqual([]);
    const third = openDoor(client, { ...options, store: await FileDoorStore.open(dir) });
    expect(await third.resume()).toBe(true);
    expect((await third.scan('CODE2')).result).toBe('already_in');
    await third.close({ flush: false });
  });
});
