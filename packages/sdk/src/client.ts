import { version } from '../package.json';
import { systemClock, type Clock } from './core/clock';
import { BoxofficeError } from './core/errors';
import type { RateLimitClass, RateLimitSnapshot, RateLimitTracker } from './core/rate-limit';
import { DEFAULT_RETRY } from './core/retry';
import { Engine } from './internal/engine';
import { checkBaseURL, checkRequestOptions } from './internal/options';
import { isBrowserLike, readEnv } from './internal/env';
import { isLogLevel, leveled, type Logger, type LogLevel } from './internal/log';
import { Attendees } from './resources/attendees';
import { Checkins } from './resources/checkins';
import { Events } from './resources/events';
import { Exports } from './resources/exports';
import { Orders } from './resources/orders';
import { Payouts } from './resources/payouts';
import { TestHelpers } from './resources/test-helpers';
import { Tickets } from './resources/tickets';
import { Tiers } from './resources/tiers';
import { WebhookEndpoints } from './resources/webhook-endpoints';
import { Webhooks } from './webhooks';

/** The `baseURL` when neither the option nor `BOXOFFICE_BASE_URL` gives one: a local server. */
export const DEFAULT_BASE_URL = 'http://localhost:3000/api/v1';

/** A derived client's link to the rate-limit picture of the client it came from. */
const SHARED_WINDOWS = Symbol('boxoffice.sharedWindows');
type InternalOptions = ClientOptions & { [SHARED_WINDOWS]?: RateLimitTracker };

/** `node/24.11.1 (linux x64)`, `bun/1.2.0`, `deno/2.1.0`, or what else the runtime tells. */
function runtimeName(): string {
  const g = globalThis as {
    Bun?: { version?: string };
    Deno?: { version?: { deno?: string } };
    process?: { versions?: { node?: string }; platform?: string; arch?: string };
    navigator?: { userAgent?: string };
  };
  if (g.Bun?.version) return `bun/${g.Bun.version}`;
  if (g.Deno?.version?.deno) return `deno/${g.Deno.version.deno}`;
  const node = g.process?.versions?.node;
  if (node) return `node/${node} (${g.process?.platform ?? '?'} ${g.process?.arch ?? '?'})`;
  return g.navigator?.userAgent ? 'browser' : 'unknown';
}

/** The options of `new Boxoffice({ … })` and `client.withOptions({ … })`; all are optional. */
export interface ClientOptions {
  /** `bxo_live_…` (or a test key, `bxo_test_…`); defaults to `process.env.BOXOFFICE_API_KEY`. */
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
  /**
   * More options for every `fetch` (a request's own `fetchOptions` go over them): undici's
   * `dispatcher` for a proxy, `keepalive`, … `method`, `headers`, `body` and `signal` are the
   * client's own.
   */
  fetchOptions?: RequestInit | undefined;
  /**
   * Where the client logs: retries at `info`; each attempt and its answer (method, URL, status,
   * duration, attempt, request id) at `debug`. Defaults to `console`.
   */
  logger?: Logger | undefined;
  /** Defaults to `process.env.BOXOFFICE_LOG` (an unknown value is warned about), else `warn`. */
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
  /** Events: `list`, `get`, `create`, `update`. */
  readonly events: Events;
  /** Ticket tiers: `list`, `get`, `create`, `update`. */
  readonly tiers: Tiers;
  /** Orders: `list`, `get`. */
  readonly orders: Orders;
  /** Tickets: `list`, `get`. */
  readonly tickets: Tickets;
  /** Attendees: `list`, `get`. */
  readonly attendees: Attendees;
  /** Check-ins: `list`, `get`, `create`. */
  readonly checkins: Checkins;
  /** Payouts: `list`, `get`. */
  readonly payouts: Payouts;
  /** Webhook endpoints: `list`, `get`, `create`, `update`, `delete` (with the `write` scope). */
  readonly webhookEndpoints: WebhookEndpoints;
  /**
   * Exports of whole lists into one file: `create`, `get`, `list`, `waitUntilReady`, `rows` (typed
   * rows of an NDJSON file, streamed) and `download`.
   */
  readonly exports: Exports;
  /**
   * Test helpers, for a test key (`bxo_test_…`) only: `orders.create`, `orders.refund`,
   * `payouts.advance`, `reset`.
   */
  readonly testHelpers: TestHelpers;
  /** Verifies and parses webhook deliveries: `unwrap(rawBody, headers, secret)`. */
  readonly webhooks = new Webhooks();
  /** The API's address, without a trailing slash. */
  readonly baseURL: string;
  private readonly engine: Engine;
  private readonly options: ClientOptions;

  /**
   * A client for one API key. Without options it reads `BOXOFFICE_API_KEY` and
   * `BOXOFFICE_BASE_URL` from the environment (the base URL defaults to `DEFAULT_BASE_URL`). Throws
   * a `BoxofficeError` without an API key or a `fetch`, in a browser (unless
   * `dangerouslyAllowBrowser`), or for an invalid option.
   *
   * @example
   * ```ts
   * const client = new Boxoffice({
   *   apiKey: process.env['BOXOFFICE_API_KEY'], // the default; can be omitted
   *   baseURL: 'https://boxoffice.example.com/api/v1',
   * });
   * ```
   */
  constructor(options: ClientOptions = {}) {
    const { [SHARED_WINDOWS]: sharedWindows, ...own } = options as InternalOptions;
    this.options = own;
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
    checkRequestOptions(options);
    if (options.logLevel !== undefined && !isLogLevel(options.logLevel)) {
      throw new BoxofficeError(
        `Invalid option logLevel: ${JSON.stringify(options.logLevel)}; expected one of off, error, warn, info, debug.`,
      );
    }
    const sink = options.logger ?? console;
    const envLevel = readEnv('BOXOFFICE_LOG');
    const logLevel = options.logLevel ?? (isLogLevel(envLevel) ? envLevel : 'warn');
    const logger = leveled(sink, logLevel);
    if (options.logLevel === undefined && envLevel !== undefined && !isLogLevel(envLevel)) {
      logger.warn(
        `boxoffice: BOXOFFICE_LOG=${JSON.stringify(envLevel)} is not a log level (off, error, warn, info, debug); logging at warn.`,
      );
    }
    this.baseURL = checkBaseURL(
      options.baseURL ?? readEnv('BOXOFFICE_BASE_URL') ?? DEFAULT_BASE_URL,
    );
    this.engine = new Engine(
      {
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
        fetchOptions: options.fetchOptions ?? {},
        clock: options.clock ?? systemClock,
        random: options.random ?? Math.random,
        logger,
        defaultHeaders: options.defaultHeaders ?? {},
        userAgent: `boxoffice-sdk/${version} ${runtimeName()}`,
      },
      sharedWindows,
    );
    this.events = new Events(this.engine, '/events');
    this.tiers = new Tiers(this.engine, '/tiers');
    this.orders = new Orders(this.engine, '/orders');
    this.tickets = new Tickets(this.engine, '/tickets');
    this.attendees = new Attendees(this.engine, '/attendees');
    this.checkins = new Checkins(this.engine, '/checkins');
    this.payouts = new Payouts(this.engine, '/payouts');
    this.webhookEndpoints = new WebhookEndpoints(this.engine, '/webhook_endpoints');
    this.exports = new Exports(this.engine, '/exports');
    this.testHelpers = new TestHelpers(this.engine, '/test_helpers');
  }

  /**
   * A client like this one with some options changed: for one part of a program that needs other
   * timeouts or retries, say. With the same API key and base URL (and clock) it shares this
   * client's picture of the key's rate limits, so both hold back for the same window.
   *
   * @example
   * ```ts
   * const door = client.withOptions({ maxRetryAfter: 2_000, totalTimeout: 5_000 });
   * await door.checkins.create({ code: scannedCode });
   * ```
   */
  withOptions(options: ClientOptions): Boxoffice {
    const merged: InternalOptions = {
      ...this.options,
      ...options,
      defaultHeaders: { ...this.options.defaultHeaders, ...options.defaultHeaders },
      fetchOptions: { ...this.options.fetchOptions, ...options.fetchOptions },
    };
    const sameWindows =
      (merged.apiKey ?? readEnv('BOXOFFICE_API_KEY')) === this.engine.config.apiKey &&
      (merged.baseURL === undefined || merged.baseURL.replace(/\/+$/, '') === this.baseURL) &&
      (merged.clock ?? systemClock) === this.engine.config.clock;
    if (sameWindows) merged[SHARED_WINDOWS] = this.engine.rateLimits;
    return new Boxoffice({ ...merged, baseURL: merged.baseURL ?? this.baseURL });
  }

  /**
   * What the client has learned of the key's current rate-limit window for reads or writes.
   *
   * @example
   * ```ts
   * const { remaining, resetAt } = client.rateLimit('read');
   * ```
   */
  rateLimit(kind: RateLimitClass): Readonly<RateLimitSnapshot> {
    return this.engine.rateLimits.snapshot(kind);
  }
}
