/** A parsed result together with the raw `Response` it came from. */
export interface WithResponse<T> {
  data: T;
  response: Response;
}

/**
 * What every SDK method returns: await it for the result, or call `.withResponse()` for the
 * result and the raw `Response` (to read `X-RateLimit-Remaining`, `X-Request-Id`, …).
 */
export class APIPromise<T> implements PromiseLike<T> {
  private parsed: Promise<T> | undefined;

  constructor(protected readonly responsePromise: Promise<WithResponse<T>>) {}

  /** The result and the `Response` it was read from. */
  withResponse(): Promise<WithResponse<T>> {
    return this.responsePromise;
  }

  private result(): Promise<T> {
    this.parsed ??= this.responsePromise.then((r) => r.data);
    return this.parsed;
  }

  then<R1 = T, R2 = never>(
    onfulfilled?: ((value: T) => R1 | PromiseLike<R1>) | null,
    onrejected?: ((reason: unknown) => R2 | PromiseLike<R2>) | null,
  ): Promise<R1 | R2> {
    return this.result().then(onfulfilled, onrejected);
  }

  catch<R = never>(onrejected?: ((reason: unknown) => R | PromiseLike<R>) | null): Promise<T | R> {
    return this.result().catch(onrejected);
  }

  finally(onfinally?: (() => void) | null): Promise<T> {
    return this.result().finally(onfinally);
  }

  get [Symbol.toStringTag](): string {
    return 'APIPromise';
  }
}
