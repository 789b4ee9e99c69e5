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
