import autocannon from 'autocannon';
import { Samples } from './stats.ts';

/** One request of a load run: built afresh for every request (key rotation, a new ticket). */
export interface LoadRequest {
  method: 'GET' | 'POST';
  path: string;
  headers: Record<string, string>;
  body?: string;
}

export interface LoadRun {
  connections: number;
  /** Seconds from the first request to the stop, as autocannon measured them. */
  durationS: number;
  /** Completed responses of any status. */
  responses: number;
  /** Responses with a status outside 2xx, by status. */
  non2xx: Record<string, number>;
  /** Connection errors and timeouts. */
  errors: number;
  timeouts: number;
  /** Latency of every 2xx response, in milliseconds. */
  latencies: Samples;
}

/**
 * Loads `baseUrl` for `durationS` seconds over `connections` keep-alive connections; or, with
 * `amount`, until that many requests have been answered (every one of them, however long it takes).
 */
export function load(options: {
  baseUrl: string;
  connections: number;
  durationS: number;
  amount?: number;
  next: () => LoadRequest;
}): Promise<LoadRun> {
  const latencies = new Samples();
  let responses = 0;
  const non2xx: Record<string, number> = {};
  return new Promise((resolve, reject) => {
    const instance = autocannon(
      {
        url: options.baseUrl,
        connections: options.connections,
        duration: options.durationS,
        ...(options.amount === undefined ? {} : { amount: options.amount }),
        // A server that stops answering fails the run instead of stalling it.
        timeout: 10,
        requests: [
          {
            setupRequest: (request) => {
              const next = options.next();
              return { ...request, ...next, headers: { ...request.headers, ...next.headers } };
            },
          },
        ],
      },
      (error: unknown, result) => {
        if (error) {
          reject(error instanceof Error ? error : new Error('autocannon failed', { cause: error }));
          return;
        }
        resolve({
          connections: options.connections,
          durationS: result.duration,
          responses,
          non2xx,
          errors: result.errors,
          timeouts: result.timeouts,
          latencies,
        });
      },
    );
    instance.on('response', (_client, statusCode, _bytes, responseTime) => {
      responses++;
      if (statusCode >= 200 && statusCode < 300) latencies.push(responseTime);
      else non2xx[statusCode] = (non2xx[statusCode] ?? 0) + 1;
    });
  });
}
