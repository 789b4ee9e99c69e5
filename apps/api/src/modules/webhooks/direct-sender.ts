import type { Send } from './attempt';
import type { DirectMessage, EngineLogger, Lease, NewMessage } from './engine-types';
import type { Recorder } from './recorder';

/** Messages waiting in this process for their first attempt, in all and per endpoint. */
const DIRECT_BACKLOG = 5000;
const DIRECT_BACKLOG_PER_ENDPOINT = 500;
/**
 * Room left at the end of the lease, past the time an answer may take: an attempt not started by
 * then is handed to the queue. A quarter of the lease, at most this long.
 */
const LEASE_MARGIN_MS = 15_000;

export interface DirectSenderOptions {
  logger: EngineLogger;
  leaseSeconds: number;
  timeoutMs: number;
  retryLimit: number;
}

/** One endpoint's messages to send at once, one after another in the order they were made. */
interface Line {
  waiting: DirectMessage[];
  sending: Promise<void> | undefined;
}

/**
 * First attempts made by the replica whose fan-out made the messages, right after its round
 * commits: a line per endpoint (its messages one after another, in change order; endpoints side by
 * side). Each attempt goes to the recorder; a message whose attempt cannot start in time for its
 * lease, or when the engine stops, is handed to the queue instead.
 */
export class DirectSender {
  readonly #options: DirectSenderOptions;
  readonly #send: Send;
  readonly #recorder: Recorder;
  readonly #lines = new Map<string, Line>();
  #stopping = false;

  constructor(options: DirectSenderOptions, send: Send, recorder: Recorder) {
    this.#options = options;
    this.#send = send;
    this.#recorder = recorder;
  }

  /**
   * A round's messages: those this process sends at once (to endpoints not failing, while it has
   * room), and those for the queue.
   */
  split(messages: NewMessage[]): { direct: NewMessage[]; queued: NewMessage[] } {
    const direct: NewMessage[] = [];
    const queued: NewMessage[] = [];
    const added = new Map<string, number>();
    let backlog = 0;
    for (const line of this.#lines.values()) backlog += line.waiting.length;
    for (const message of messages) {
      const endpointId = message.endpoint.id;
      const waiting =
        (this.#lines.get(endpointId)?.waiting.length ?? 0) + (added.get(endpointId) ?? 0);
      const room =
        !this.#stopping &&
        message.endpoint.failing_since === null &&
        backlog + direct.length < DIRECT_BACKLOG &&
        waiting < DIRECT_BACKLOG_PER_ENDPOINT;
      if (room) {
        direct.push(message);
        added.set(endpointId, (added.get(endpointId) ?? 0) + 1);
      } else {
        queued.push(message);
      }
    }
    return { direct, queued };
  }

  /** Queues the first attempts of a round's messages (under `lease`), one line per endpoint. */
  send(messages: NewMessage[], lease: Lease): void {
    const now = Date.now();
    const leaseMs = this.#options.leaseSeconds * 1000;
    const margin = Math.min(LEASE_MARGIN_MS, leaseMs / 4);
    const sendBy = Math.max(now + leaseMs - margin - this.#options.timeoutMs, now);
    for (const message of messages) {
      const endpointId = message.endpoint.id;
      let line = this.#lines.get(endpointId);
      if (!line) {
        line = { waiting: [], sending: undefined };
        this.#lines.set(endpointId, line);
      }
      line.waiting.push({ message, lease, sendBy });
      line.sending ??= this.#sendLine(endpointId, line);
    }
  }

  /** From now on, every message not yet attempted is handed to the queue. */
  stopping(): void {
    this.#stopping = true;
  }

  /** The attempts under way finished, or `deadline` (this process's clock) passed. */
  async settled(deadline: number): Promise<void> {
    const lines = [...this.#lines.values()].flatMap((line) => line.sending ?? []);
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.all(lines),
      new Promise((resolve) => (timer = setTimeout(resolve, deadline - Date.now()))),
    ]);
    clearTimeout(timer);
  }

  /** Sends one endpoint's waiting messages one after another, in the order they were made. */
  async #sendLine(endpointId: string, line: Line): Promise<void> {
    for (let direct = line.waiting.shift(); direct; direct = line.waiting.shift()) {
      // Stopping, or too late for the lease: the queue sends it.
      if (this.#stopping || Date.now() > direct.sendBy) {
        this.#recorder.handOff(direct);
        continue;
      }
      const { message } = direct;
      try {
        const { at, result } = await this.#send(message.id, message.endpoint, message.payload);
        this.#recorder.attempted(direct, {
          messageId: message.id,
          endpointId,
          at,
          result,
          final: !result.ok && this.#options.retryLimit === 0,
        });
      } catch (error) {
        this.#options.logger.warn({ err: error, messageId: message.id }, 'webhook not sent');
        this.#recorder.handOff(direct);
      }
    }
    this.#lines.delete(endpointId);
  }
}
