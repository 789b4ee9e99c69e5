/**
 * One door of the door-night simulation, as its own process: an SDK door session over a file
 * store, driven by its parent over IPC. The parent says which code is scanned when; the door
 * answers each scan from its own state and reports how long the answer took, and forwards its
 * `conflict` events. Started with tsx and the SDK's source (`--conditions=@boxoffice/source`).
 */
import { Boxoffice } from '@boxoffice/sdk';
import { openDoor } from '@boxoffice/sdk/doors';
import { FileDoorStore } from '../../../../examples/door-checkin/src/file-store';
import type { DoorMessage, ParentMessage } from './door-protocol';

const env = (name: string): string => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set`);
  return value;
};

const send = (message: DoorMessage) => process.send?.(message);

// A dead access point hangs requests rather than refusing them: a door gives up on one quickly
// and tries again later, its scans kept.
const client = new Boxoffice({
  apiKey: env('DOOR_API_KEY'),
  baseURL: env('DOOR_BASE_URL'),
  timeout: 5_000,
  logLevel: 'off',
});
const door = openDoor(client, {
  eventId: env('DOOR_EVENT_ID'),
  gate: env('DOOR_GATE'),
  deviceId: env('DOOR_DEVICE_ID'),
  store: await FileDoorStore.open(env('DOOR_STORE_DIR')),
  refreshIntervalMs: 10_000,
});

door.on('conflict', ({ scan, result }) =>
  send({
    type: 'conflict',
    code: scan.code,
    status: result.status,
    errorCode: result.code,
    admittedAtGate: result.admission?.gate ?? null,
  }),
);

process.on('message', (message: ParentMessage) => {
  void handle(message).catch((error: unknown) => {
    send({
      type: 'failed',
      reason: error instanceof Error ? (error.stack ?? error.message) : String(error),
    });
  });
});

async function handle(message: ParentMessage): Promise<void> {
  switch (message.type) {
    case 'scan': {
      const started = performance.now();
      const outcome = await door.scan(message.code);
      const ms = performance.now() - started;
      send({ type: 'scanned', id: message.id, result: outcome.result, ms });
      return;
    }
    case 'status':
      send({ type: 'status', pending: door.pending });
      return;
    case 'drain': {
      while (door.pending > 0) {
        await door.flush().catch(() => undefined);
        if (door.pending > 0) await new Promise((resolve) => setTimeout(resolve, 500));
      }
      send({ type: 'drained' });
      return;
    }
    case 'close':
      await door.close({ flush: false });
      process.exit(0);
  }
}

const loaded = await door.load();
send({
  type: 'ready',
  downloaded: loaded.downloaded,
  tickets: loaded.tickets,
  pending: loaded.pending,
});
