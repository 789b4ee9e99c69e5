/** Time as the client sees it; replaceable so that tests (and simulations) never really wait. */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Resolves after `ms`; rejects with `AbortError` if `signal` fires first. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

export class AbortError extends Error {
  override name = 'AbortError';
}

export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: (ms, signal) =>
    new Promise<void>((resolve, reject) => {
      if (signal?.aborted) {
        reject(new AbortError('aborted'));
        return;
      }
      const onAbort = () => {
        clearTimeout(timer);
        reject(new AbortError('aborted'));
      };
      const timer = setTimeout(() => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      }, ms);
      signal?.addEventListener('abort', onAbort, { once: true });
    }),
};
