/** One request as the client sent it. */
export interface RecordedRequest {
  method: string;
  url: string;
  /** Header names in lower case, as `Headers` reports them. */
  headers: Record<string, string>;
  /** The JSON body, parsed; undefined when there was none. */
  body: unknown;
  /** The time of the test's clock when the request was sent. */
  at: number;
  signal: AbortSignal | undefined;
}

/** How the fake server answers one request. */
export type Reply = (request: RecordedRequest) => Response | Promise<Response>;

/** A JSON answer. */
export const json =
  (status: number, body: unknown, headers: Record<string, string> = {}): Reply =>
  () =>
    new Response(JSON.stringify(body), {
      status,
      headers: { 'content-type': 'application/json; charset=utf-8', ...headers },
    });

/** An error answer as the API writes it. */
export const error = (
  status: number,
  message: string,
  options: { code?: string; headers?: Record<string, string> } = {},
): Reply =>
  json(
    status,
    { error: message, ...(options.code ? { code: options.code } : {}) },
    options.headers,
  );

/** A 200 (or `status`) `{ data }` answer. */
export const item = (data: unknown, status = 200, headers: Record<string, string> = {}): Reply =>
  json(status, { data }, headers);

/** The `X-RateLimit-*` headers of a window. */
export const rateLimitHeaders = (
  limit: number,
  remaining: number,
  reset: number,
): Record<string, string> => ({
  'x-ratelimit-limit': String(limit),
  'x-ratelimit-remaining': String(remaining),
  'x-ratelimit-reset': String(reset),
});

/** The connection fails the way `fetch` reports it. */
export const networkError =
  (message = 'socket hang up'): Reply =>
  () => {
    throw new TypeError('fetch failed', { cause: new Error(message) });
  };

/** The server never answers: the request only ends when its signal aborts it. */
export const hang =
  (): Reply =>
  ({ signal }) =>
    new Promise<Response>((_, reject) => {
      // As `fetch` does: reject with the signal's reason (an `AbortError` unless given another).
      const abort = () => {
        const reason: unknown = signal?.reason;
        reject(reason instanceof Error ? reason : new DOMException('aborted', 'AbortError'));
      };
      if (signal?.aborted) abort();
      signal?.addEventListener('abort', abort, { once: true });
    });

/** The server sends the status line and headers, then stalls in the middle of the body. */
export const stallBody =
  (status = 200): Reply =>
  ({ signal }) => {
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('{"data":'));
        signal?.addEventListener('abort', () => controller.error(signal.reason), { once: true });
      },
    });
    return new Response(body, { status, headers: { 'content-type': 'application/json' } });
  };

function headersOf(init: HeadersInit | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  new Headers(init).forEach((value, name) => (out[name] = value));
  return out;
}

/**
 * A `fetch` that answers from a script: a queue of replies taken in order, then `fallback` (if any)
 * for every further request. Records every request it receives.
 */
export class ScriptedFetch {
  readonly requests: RecordedRequest[] = [];
  private readonly queue: Reply[] = [];

  constructor(private readonly options: { fallback?: Reply; now?: () => number } = {}) {}

  /** Queues replies for the next requests. */
  reply(...replies: Reply[]): this {
    this.queue.push(...replies);
    return this;
  }

  /** Replies queued and not yet used. */
  get unused(): number {
    return this.queue.length;
  }

  readonly fetch = async (input: RequestInfo | URL, init: RequestInit = {}): Promise<Response> => {
    const request: RecordedRequest = {
      method: init.method ?? 'GET',
      url: input instanceof Request ? input.url : String(input),
      headers: headersOf(init.headers),
      body: typeof init.body === 'string' ? JSON.parse(init.body) : undefined,
      at: this.options.now?.() ?? 0,
      signal: init.signal ?? undefined,
    };
    this.requests.push(request);
    const reply = this.queue.shift() ?? this.options.fallback;
    if (!reply) {
      // Surfaces as a connection error in the client; tests also count requests.
      throw new Error(`unscripted request ${request.method} ${request.url}`);
    }
    return reply(request);
  };
}

/**
 * A server with the API's fixed-window rate limit, on the test's clock: a window opens with the
 * first request after the last one ended and lasts `windowMs`; each answered request counts; past
 * `limit` it answers 429 with `Retry-After`. `X-RateLimit-Reset` is in whole seconds, rounded up,
 * as the API sends it. While `down` is set, requests fail as refused connections and count nothing.
 */
export class WindowedServer {
  /** Each request as the server saw it: when, and whether it was refused with a 429. */
  readonly log: { at: number; status: number }[] = [];
  down = false;
  private windowStart: number | undefined;
  private count = 0;

  constructor(
    private readonly options: {
      limit: number;
      windowMs?: number;
      now: () => number;
      /** A window already open: when it began and how many requests it has counted. */
      open?: { start: number; count: number };
      /** How long an answer takes after the request is counted, on the test's clock. */
      latency?: { ms: number; sleep: (ms: number) => Promise<void> };
    },
  ) {
    this.windowStart = options.open?.start;
    this.count = options.open?.count ?? 0;
  }

  get refused(): number {
    return this.log.filter((entry) => entry.status === 429).length;
  }

  /** Forgets every window, as a server restarted with an in-memory store does. */
  restart(): void {
    this.windowStart = undefined;
    this.count = 0;
  }

  readonly reply = (data: unknown): Reply => {
    return async (request) => {
      const response = this.answer(data, request);
      const { latency } = this.options;
      if (latency) await latency.sleep(latency.ms);
      return response;
    };
  };

  private answer(data: unknown, request: RecordedRequest): Response | Promise<Response> {
    {
      if (this.down) return networkError('connect ECONNREFUSED 127.0.0.1:3000')(request);
      const { limit, windowMs = 60_000, now } = this.options;
      const at = now();
      if (this.windowStart === undefined || at >= this.windowStart + windowMs) {
        this.windowStart = at;
        this.count = 0;
      }
      const reset = Math.max(1, Math.ceil((this.windowStart + windowMs - at) / 1000));
      if (this.count >= limit) {
        this.log.push({ at, status: 429 });
        return error(429, 'Rate limit exceeded', {
          code: 'rate_limited',
          headers: { 'retry-after': String(reset), ...rateLimitHeaders(limit, 0, reset) },
        })(request);
      }
      this.count += 1;
      this.log.push({ at, status: 200 });
      return item(data, 200, rateLimitHeaders(limit, limit - this.count, reset))(request);
    }
  }
}
