import type { EntityManager } from '@mikro-orm/postgresql';
import { Worker } from 'node:worker_threads';
import type { Logger } from 'pino';
import type { WebhookEngineOptions } from './webhook-engine';

/** The engine's settings, as the thread receives them (its logger and metrics stay here). */
export type ThreadOptions = Omit<WebhookEngineOptions, 'logger' | 'onAttempt'>;

export interface ThreadData {
  options: ThreadOptions;
  /**
   * 1 from a commit's `changes` message until the thread's next fan-out round starts (which reads
   * that commit's changes): commits meanwhile send no message.
   */
  wake: Int32Array;
}

export type ToThread = { type: 'changes' } | { type: 'stop'; timeoutMs: number };

export type FromThread =
  | { type: 'started' }
  | { type: 'failed'; error: unknown }
  | { type: 'log'; level: 'warn' | 'debug'; fields: object; message: string }
  | { type: 'attempts'; succeeded: number; failed: number }
  | { type: 'stopped' };

export interface WebhookThreadOptions extends ThreadOptions {
  logger: Pick<Logger, 'warn' | 'debug' | 'error'>;
  onAttempt?: (outcome: 'succeeded' | 'failed', count: number) => void;
  /** The thread's code: by default the engine's (webhook-thread-main.ts). */
  entry?: URL;
}

/**
 * The engine's thread, beside this module: the build's dist/webhook-thread.js, or the source run
 * by tsx (whose loader the thread inherits with the process's flags).
 */
function defaultEntry(): URL {
  return import.meta.url.endsWith('.ts')
    ? new URL('./webhook-thread-main.ts', import.meta.url)
    : new URL('./webhook-thread.js', import.meta.url);
}

/** A thread that stops unasked is started again after this long. */
const RESTART_DELAY_MS = 1000;

/**
 * The webhook engine in a thread of its own (webhook-thread-main.ts), so that fanning out,
 * signing and sending never hold up the event loop that answers API requests. Same interface as
 * the engine: `start`, `followCommits`, `changesCommitted`, `stop`. A thread that dies is logged
 * and started again.
 */
export class WebhookThread {
  readonly #options: WebhookThreadOptions;
  readonly #wake = new Int32Array(new SharedArrayBuffer(4));
  #worker: Worker | undefined;
  #stopping = false;
  #restart: NodeJS.Timeout | undefined;
  /** `followCommits` was called: the thread's engine spaces out its idle rounds. */
  #followsCommits = false;

  constructor(options: WebhookThreadOptions) {
    this.#options = options;
  }

  /** Starts the thread; resolves once its queue has started, rejects if it cannot. */
  start(): Promise<void> {
    const { logger, onAttempt, entry = defaultEntry(), ...options } = this.#options;
    const data: ThreadData = {
      options: { ...options, followsCommits: this.#followsCommits || options.followsCommits },
      wake: this.#wake,
    };
    const worker = new Worker(entry, { workerData: data, name: 'webhooks' });
    this.#worker = worker;
    Atomics.store(this.#wake, 0, 0);
    return new Promise((resolve, reject) => {
      let started = false;
      worker.on('message', (message: FromThread) => {
        switch (message.type) {
          case 'started':
            started = true;
            resolve();
            break;
          case 'failed':
            reject(
              message.error instanceof Error ? message.error : new Error(String(message.error)),
            );
            void worker.terminate();
            break;
          case 'log':
            logger[message.level](message.fields, message.message);
            break;
          case 'attempts':
            onAttempt?.('succeeded', message.succeeded);
            onAttempt?.('failed', message.failed);
            break;
          case 'stopped':
            break;
        }
      });
      worker.on('error', (error: Error) => {
        if (!started) reject(error);
        else logger.error({ err: error }, 'webhook thread failed');
      });
      worker.on('exit', (code) => {
        if (this.#worker !== worker) return;
        this.#worker = undefined;
        if (!started || this.#stopping) return;
        logger.error({ code }, 'webhook thread stopped; starting it again');
        this.#restart = setTimeout(() => {
          this.start().catch((error: unknown) =>
            logger.error({ err: error }, 'webhook thread failed to start'),
          );
        }, RESTART_DELAY_MS);
      });
    });
  }

  /**
   * Calls `changesCommitted` whenever a transaction of this entity manager's ORM commits. Before
   * `start`: the thread learns it when it starts.
   */
  followCommits(em: EntityManager): void {
    this.#followsCommits = true;
    em.getEventManager().registerSubscriber({
      afterTransactionCommit: () => this.changesCommitted(),
    });
  }

  /** Wakes the thread's fan-out: one message per round at most, however many commits come. */
  changesCommitted(): void {
    const worker = this.#worker;
    if (!worker || this.#stopping) return;
    if (Atomics.exchange(this.#wake, 0, 1) === 0) {
      worker.postMessage({ type: 'changes' } satisfies ToThread);
    }
  }

  /** Lets the deliveries in flight finish (within `timeoutMs`), then ends the thread. */
  async stop(timeoutMs = 10_000): Promise<void> {
    this.#stopping = true;
    clearTimeout(this.#restart);
    const worker = this.#worker;
    if (!worker) return;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      new Promise<void>((resolve) => {
        worker.on('message', (message: FromThread) => {
          if (message.type === 'stopped') resolve();
        });
        worker.on('exit', () => resolve());
        worker.postMessage({ type: 'stop', timeoutMs } satisfies ToThread);
      }),
      new Promise((resolve) => (timer = setTimeout(resolve, timeoutMs + 1000))),
    ]);
    clearTimeout(timer);
    await worker.terminate();
  }
}
