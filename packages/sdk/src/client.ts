import { contract } from '@boxoffice/contract';
import { systemClock, type Clock } from './core/clock';
import { BoxofficeError } from './core/errors';
import type { RateLimitClass, RateLimitSnapshot } from './core/rate-limit';
import { DEFAULT_RETRY } from './core/retry';
import { Engine } from './internal/engine';
import { isBrowserLike, readEnv } from './internal/env';
import { isLogLevel, leveled, type Logger, type LogLevel } from './internal/log';
import { Attendees } from './resources/attendees';
import { Checkins } from './resources/checkins';
import { Events } from './resources/events';
import { Orders } from './resources/orders';
import { Payouts } from './resources/payouts';
import { Tickets } from './resources/tickets';
import { Tiers } from './resources/tiers';

export const DEFAULT_BASE_URL = 'http://localhost:3000/api/v1';

export interface ClientOptions {
  /** `bxo_live_…`; defaults to `process.env.BOXOFFICE_API_KEY`. */
  apiKey?: string | undefined;
  /** Defaults to `process.env.BOXOFFICE_BASE_URL`, else `http://localhost:3000/api/v1`. */
  baseURL?: string | undefined;
  /** Milliseconds one attempt may take before it is abandoned (and retried). Default 60 000. */
  timeout?: number | undefined;
  /** Retries after the first attempt, for connection errors, timeouts, 408, 429 and 5xx. Default 2. */
  maxRetries?: number | undefined;
  /** The longest `Retry-After` (ms) the client waits on a 429; longer ones are thrown. Default 60 000. */
  maxRetryAfter?: number | undefined;
  /** Milliseconds a call may take over all its attempts and waits; 0 for no limit. Default 120 000. */
  totalTimeout?: number | undefined;
  /**
   * Hold calls back when the key's rate-limit window is used up, instead of sending them to be
   * refused; and after a 429, pause every call of that class once. Default true.
   */
  throttle?: boolean | undefined;
  /** A `fetch` implementation; defaults to the global one. */
  fetch?: typeof fetch | undefined;
  /** Where the client logs (retries at `info`, every request at `debug`). Defaults to `console`. */
  logger?: Logger | undefined;
  /** Defaults to `process.env.BOXOFFICE_LOG`, else `warn`. */
  logLevel?: LogLevel | undefined;
  /** Headers sent with every request. */
  defaultHeaders?: Record<string, string> | undefined;
  /**
   * API keys must stay on servers: in a browser every visitor could read it. Set this only for a
   * page that the key's owner alone uses.
   */
  dangerouslyAllowBrowser?: boolean | undefined;
  /** Time source for waits and backoff; tests pass a fake clock. */
  clock?: Clock | undefined;
  /** Random source for backoff jitter (0 ≤ x < 1). */
  random?: (() => number) | undefined;
}

/** The Boxoffice API client. One instance per API key; share it across your program. */
export class Boxoffice {
  readonly events: Events;
  readonly tiers: Tiers;
  readonly orders: Orders;
  readonly tickets: Tickets;
  readonly attendees: Attendees;
  readonly checkins: Checkins;
  readonly payouts: Payouts;
  readonly baseURL: string;
  private readonly engine: Engine;

  constructor(options: ClientOptions = {}) {
    const apiKey = options.apiKey ?? readEnv('BOXOFFICE_API_KEY');
    if (!apiKey) {
      throw new BoxofficeError(
        'No API key: set the BOXOFFICE_API_KEY environment variable, or pass one: new Boxoffice({ apiKey: "bxo_live_…" }).',
      );
    }
    if (isBrowserLike() && !options.dangerouslyAllowBrowser) {
      throw new BoxofficeError(
        'The Boxoffice client is running in a browser, where every visitor could read its API key. Call the API from your server instead; if this page is only ever used by the key’s owner, pass dangerouslyAllowBrowser: true.',
      );
    }
    const fetchImpl = options.fetch ?? globalThis.fetch;
    if (typeof fetchImpl !== 'function') {
      throw new BoxofficeError('No fetch implementation found: pass one as the `fetch` option.');
    }
    const envLevel = readEnv('BOXOFFICE_LOG');
    const logLevel = options.logLevel ?? (isLogLevel(envLevel) ? envLevel : 'warn');
    this.baseURL = (options.baseURL ?? readEnv('BOXOFFICE_BASE_URL') ?? DEFAULT_BASE_URL).replace(
      /\/+$/,
      '',
    );
    this.engine = new Engine({
      apiKey,
      baseURL: this.baseURL,
      timeout: options.timeout ?? 60_000,
      retry: {
        ...DEFAULT_RETRY,
        maxRetries: options.maxRetries ?? DEFAULT_RETRY.maxRetries,
        maxRetryAfterMs: options.maxRetryAfter ?? DEFAULT_RETRY.maxRetryAfterMs,
      },
      totalTimeout: options.totalTimeout ?? 120_000,
      throttle: options.throttle ?? true,
      fetch: (input, init) => fetchImpl(input, init),
      clock: options.clock ?? systemClock,
      random: options.random ?? Math.random,
      logger: leveled(options.logger ?? console, logLevel),
      defaultHeaders: options.defaultHeaders ?? {},
    });
    this.events = new Events(this.engine, contract.events);
    this.tiers = new Tiers(this.engine, contract.tiers);
    this.orders = new Orders(this.engine, contract.orders);
    this.tickets = new Tickets(this.engine, contract.tickets);
    this.attendees = new Attendees(this.engine, contract.attendees);
    this.checkins = new Checkins(this.engine, contract.checkins);
    this.payouts = new Payouts(this.engine, contract.payouts);
  }

  /** What the client has learned of the key's current rate-limit window for reads or writes. */
  rateLimit(kind: RateLimitClass): Readonly<RateLimitSnapshot> {
    return this.engine.rateLimits.snapshot(kind);
  }
}
