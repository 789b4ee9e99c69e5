import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { WebhookThread, type ThreadOptions } from '../../src/modules/webhooks/webhook-thread';
import { until } from '../scale/harness';
import { getTestOrm } from '../setup';

/**
 * A stand-in for the engine's thread, speaking its protocol: it counts its starts and the
 * `changes` messages it receives in a shared array; its first start ends the thread unasked; it
 * clears the wake flag 50 ms after a `changes` message, as the fan-out round it asks for would.
 */
const STAND_IN = `
import { parentPort, workerData } from 'node:worker_threads';
const counts = new Int32Array(workerData.options.counts);
const start = Atomics.add(counts, 0, 1);
parentPort.postMessage({ type: 'started' });
parentPort.postMessage({ type: 'attempts', succeeded: 2, failed: 1 });
if (start === 0) setTimeout(() => process.exit(3), 20);
parentPort.on('message', (message) => {
  if (message.type === 'changes') {
    Atomics.add(counts, 1, 1);
    setTimeout(() => Atomics.store(workerData.wake, 0, 0), 50);
  }
  if (message.type === 'stop') parentPort.postMessage({ type: 'stopped' });
});
`;

describe('the webhook thread', () => {
  it('starts a thread that stopped unasked again, and wakes it once per round however many commits come', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'webhook-thread-'));
    const entry = path.join(dir, 'stand-in.mjs');
    writeFileSync(entry, STAND_IN);
    const counts = new Int32Array(new SharedArrayBuffer(8));
    const errors: string[] = [];
    const attempts = { succeeded: 0, failed: 0 };
    const thread = new WebhookThread({
      ...({ counts: counts.buffer } as unknown as ThreadOptions),
      entry: pathToFileURL(entry),
      logger: {
        warn: () => undefined,
        debug: () => undefined,
        error: (_fields: object, message: string) => void errors.push(message),
      } as never,
      onAttempt: (outcome, count) => (attempts[outcome] += count),
    });
    await thread.start();
    await until('started again', () => Atomics.load(counts, 0) === 2);
    expect(errors).toEqual(['webhook thread stopped; starting it again']);
    await until('both threads’ attempts counted', () => attempts.succeeded === 4);
    expect(attempts.failed).toBe(2);

    // The flag stays set until the round starts: a hundred commits, one message; a hundred
    // more after it started, one more.
    for (let i = 0; i < 100; i++) thread.changesCommitted();
    await until('a message', () => Atomics.load(counts, 1) === 1);
    await new Promise((resolve) => setTimeout(resolve, 150));
    for (let i = 0; i < 100; i++) thread.changesCommitted();
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(Atomics.load(counts, 1)).toBe(2);
    await thread.stop(1000);
    expect(errors).toHaveLength(1);
  });

  it('tells the thread its process follows commits, so its idle rounds are spaced out', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'webhook-thread-'));
    const entry = path.join(dir, 'options.mjs');
    writeFileSync(
      entry,
      `import { parentPort, workerData } from 'node:worker_threads';
       new Int32Array(workerData.options.seen)[0] = workerData.options.followsCommits ? 1 : 2;
       parentPort.postMessage({ type: 'started' });
       parentPort.on('message', (m) => m.type === 'stop' && parentPort.postMessage({ type: 'stopped' }));`,
    );
    const seen = new Int32Array(new SharedArrayBuffer(4));
    const logger = { warn: () => undefined, debug: () => undefined, error: () => undefined };
    const thread = new WebhookThread({
      ...({ seen: seen.buffer } as unknown as ThreadOptions),
      entry: pathToFileURL(entry),
      logger: logger as never,
    });
    const orm = await getTestOrm();
    thread.followCommits(orm.em.fork());
    await thread.start();
    expect(seen[0]).toBe(1);
    await thread.stop(1000);
  });
});
