/**
 * The webhook engine's thread (webhook-thread.ts starts it): the fan-out, the sending and the
 * recording run here, off the event loop that answers API requests. Messages from the server's
 * thread: `changes` (transactions committed since the last round started; the shared flag is set
 * until the next one starts, and commits meanwhile send nothing) and `stop`.
 * Messages to it: `started` or `failed`, `log` lines, attempt counts, and `stopped`.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { EngineLogger } from './webhook-engine';
import { WebhookEngine } from './webhook-engine';
import type { FromThread, ThreadData, ToThread } from './webhook-thread';

if (!parentPort)
  throw new Error('webhook-thread-main.ts runs as a worker thread (webhook-thread.ts)');
const port = parentPort;
const { options, wake } = workerData as ThreadData;
const post = (message: FromThread) => port.postMessage(message);

const logger: EngineLogger = {
  warn: (fields, message) => post({ type: 'log', level: 'warn', fields, message }),
  debug: (fields, message) => post({ type: 'log', level: 'debug', fields, message }),
};

// Attempt outcomes go to the server's metrics in counts, at most four times a second.
const counts = { succeeded: 0, failed: 0 };
let countsTimer: NodeJS.Timeout | undefined;
function sendCounts(): void {
  clearTimeout(countsTimer);
  countsTimer = undefined;
  if (counts.succeeded + counts.failed === 0) return;
  post({ type: 'attempts', ...counts });
  counts.succeeded = 0;
  counts.failed = 0;
}

const engine = new WebhookEngine({
  ...options,
  logger,
  onAttempt: (outcome) => {
    counts[outcome]++;
    countsTimer ??= setTimeout(sendCounts, 250);
  },
  // The round reads every change committed so far: a commit from now on sends another message.
  // (Cleared here rather than when a message arrives: under load, a message per round, not per
  // commit.)
  onRound: () => Atomics.store(wake, 0, 0),
});

port.on('message', (message: ToThread) => {
  if (message.type === 'changes') {
    engine.changesCommitted();
  } else {
    void engine.stop(message.timeoutMs).finally(() => {
      sendCounts();
      post({ type: 'stopped' });
    });
  }
});

engine.start().then(
  () => post({ type: 'started' }),
  (error: unknown) => post({ type: 'failed', error }),
);
