/** A parsed result together with the raw `Response` it came from. */
export interface WithResponse<T> {
  /** The result, as `await` gives it. */
  data: T;
  /** The response; its body has been read into `data` (`.asResponse()` gives a readable one). */
  response: Response;
  /** `X-Request-Id` of the response: quote it when reporting a problem. */
  requestId: string | undefined;
}

/** What the engine resolves to: the result, its response and the body as text. */
export interface RawAnswer<T> {
  data: T;
  response: Response;
  text: string;
}

/**
 * What every SDK method returns: await it for the result, or call `.withResponse()` for the
 * result and the raw `Response` (to read `X-RateLimit-Remaining`, `X-Request-Id`, …).
 */
export class APIPromise<T> implements PromiseLike<T> {
  private parsed: Promise<T> | undefined;

  /** Made by every method of the client: there is no need to make one. */
  constructor(protected readonly responsePromise: Promise<RawAnswer<T>>) {}

  /**
   * The result, the `Response` it was read from and its request id.
   *
   * @example
   * ```ts
   * const { data: event, requestId } = await client.events.get('evt_…').withResponse();
   * ```
   */
  withResponse(): Promise<WithResponse<T>> {
    return this.responsePromise.then(({ data, response }) => ({
      data,
      response,
      requestId: response.headers.get('x-request-id') ?? undefined,
    }));
  }

  /**
   * The raw `Response`, with its status and headers and a body you can read, without parsing it.
   * Errors are thrown as by `await`: a `Response` here is always a success.
   *
   * @example
   * ```ts
   * const response = await client.orders.get('ord_…').asResponse();
   * console.log(response.headers.get('x-ratelimit-remaining'), await response.text());
   * ```
   */
  asResponse(): Promise<Response> {
    return this.responsePromise.then(
      ({ response, text }) =>
        new Response(text, {
          status: response.status,
          statusText: response.statusText,
          headers: response.headers,
        }),
    );
  }

  private result(): Promise<T> {
    this.parsed ??= this.responsePromise.then((r) => r.data);
    return this.parsed;
  }

  /**
   * What `await` calls: the result, or the error the call failed with. The call starts when the
   * method is called, whether or not anything awaits it.
   *
   * @example
   * ```ts
   * const event = await client.events.get('evt_…');
   * ```
   */
  then<R1 = T, R2 = never>(
    onfulfilled?: ((value: T) => R1 | PromiseLike<R1>) | null,
    onrejected?: ((reason: unknown) => R2 | PromiseLike<R2>) | null,
  ): Promise<R1 | R2> {
    return this.result().then(onfulfilled, onrejected);
  }

  /**
   * As a promise's `catch`: handles the error the call failed with.
   *
   * @example
   * ```ts
   * const event = await client.events.get('evt_…').catch((err) => {
   *   if (err instanceof NotFoundError) return null;
   *   throw err;
   * });
   * ```
   */
  catch<R = never>(onrejected?: ((reason: unknown) => R | PromiseLike<R>) | null): Promise<T | R> {
    return this.result().catch(onrejected);
  }

  /**
   * As a promise's `finally`: runs once the call has succeeded or failed.
   *
   * @example
   * ```ts
   * const page = await client.orders.list({ limit: 100 }).finally(() => spinner.stop());
   * ```
   */
  finally(onfinally?: (() => void) | null): Promise<T> {
    return this.result().finally(onfinally);
  }

  /** `APIPromise`, as `Object.prototype.toString` shows it. */
  get [Symbol.toStringTag](): string {
    return 'APIPromise';
  }
}
