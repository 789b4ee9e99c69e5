import { APIPromise, type RawAnswer } from './api-promise';

/** The list envelope of the API. */
export interface ListEnvelope<Item> {
  /** This page's items, in the list's order. */
  data: Item[];
  /** Every match of the filters; on a page reached with a cursor, the count when the walk began. */
  total: number;
  /** This page's number, from 1; on a page reached with a cursor, its place in the walk. */
  page: number;
  /** The most items a page holds, as asked. */
  limit: number;
  /** Send as `cursor`, with the same filters, for the next page; `null` after the last page. */
  next_cursor: string | null;
  /**
   * Where the next sync starts: pass it as `updated_since` (`since` for check-ins). Absent from
   * the webhook endpoints list, which has no sync.
   */
  sync_checkpoint?: string;
}

/**
 * Fetches one page of a list: with no cursor, the list's own query; with one, the same filters
 * continuing after the page that gave it. (A server without cursors is asked for `page` instead.)
 * `onNextCursor` hears the next page's cursor as soon as the answer's headers name it (its `Link:
 * <…>; rel="next"`), before the body has arrived.
 */
export type PageFetcher<Item> = (
  next: { cursor: string } | { page: number } | undefined,
  onNextCursor?: (cursor: string) => void,
) => Promise<RawAnswer<ListEnvelope<Item>>>;

/** A page request under way, and the next page's cursor once its headers have named it. */
interface Fetching<Item> {
  cursor: string | undefined;
  answer: Promise<RawAnswer<ListEnvelope<Item>>>;
  nextCursor?: string;
  onNextCursor?: ((cursor: string) => void) | undefined;
}

function fetching<Item>(
  fetchPage: PageFetcher<Item>,
  from: { cursor: string } | { page: number },
): Fetching<Item> {
  const request: Partial<Fetching<Item>> & { cursor: string | undefined } = {
    cursor: 'cursor' in from ? from.cursor : undefined,
  };
  request.answer = fetchPage(from, (next) => {
    request.nextCursor = next;
    request.onNextCursor?.(next);
  });
  // A page asked for ahead and never reached (the loop stopped first) must not fail the process.
  request.answer.catch(() => undefined);
  return request as Fetching<Item>;
}

/**
 * One page of a list. `data` holds its items; `total` counts every match (when the walk began, on
 * pages after the first). The page knows how to fetch the next one, by its `nextCursor`, and never
 * asks for a page past the end.
 */
export class Page<Item, Sync extends string | undefined = string> implements AsyncIterable<Item> {
  /** This page's items, in the list's order. */
  readonly data: Item[];
  /**
   * How many items match the filters; on pages after the first, the count when the walk began
   * (pages do not recount).
   */
  readonly total: number;
  /** This page's number, from 1; on a page reached with a cursor, its place in the walk. */
  readonly page: number;
  /** The most items a page holds: the `limit` asked for (default 20). */
  readonly limit: number;
  /**
   * Where the next page starts, or `null` after the last one. Store it to resume a walk later
   * (after a crash, say): pass it as `cursor` with the same filters.
   */
  readonly nextCursor: string | null;
  /**
   * Where the next sync starts: pass it as `updated_since` (`since` for check-ins) once this walk
   * is done, and every change committed after the walk began comes again. Items changed in the
   * minute before come twice: de-duplicate by `id`. (`undefined` on the webhook endpoints list,
   * which has no sync.)
   */
  readonly syncCheckpoint: Sync;
  /** The raw response of this page. */
  readonly response: Response;
  /** `X-Request-Id` of this page's response. */
  readonly requestId: string | undefined;
  private readonly cursorless: boolean;

  /** Made by `list()` and `getNextPage()`: there is no need to make one. */
  constructor(
    envelope: ListEnvelope<Item>,
    response: Response,
    private readonly fetchPage: PageFetcher<Item>,
  ) {
    this.data = envelope.data;
    this.total = envelope.total;
    this.page = envelope.page;
    this.limit = envelope.limit;
    // A server older than cursor pages sends no `next_cursor` at all.
    this.cursorless = !('next_cursor' in envelope);
    this.nextCursor = this.cursorless ? null : envelope.next_cursor;
    this.syncCheckpoint = envelope.sync_checkpoint as Sync;
    this.response = response;
    this.requestId = response.headers.get('x-request-id') ?? undefined;
  }

  /**
   * Whether items remain after this page (no empty last request is ever needed).
   *
   * @example
   * ```ts
   * let page = await client.payouts.list({ status: 'paid' });
   * while (page.hasNextPage()) page = await page.getNextPage();
   * ```
   */
  hasNextPage(): boolean {
    if (this.cursorless) return this.data.length > 0 && this.page * this.limit < this.total;
    return this.nextCursor !== null;
  }

  /**
   * The next page, with the same filters; throws if there is none (check `hasNextPage()` first).
   * Nothing is asked for ahead: one request, when called.
   *
   * @example
   * ```ts
   * const first = await client.orders.list({ status: 'completed', limit: 100 });
   * const second = first.hasNextPage() ? await first.getNextPage() : undefined;
   * ```
   */
  async getNextPage(): Promise<Page<Item, Sync>> {
    if (!this.hasNextPage()) {
      throw new Error('No next page: check hasNextPage() before calling getNextPage().');
    }
    const { data, response } = await this.fetchPage(
      this.nextCursor === null ? { page: this.page + 1 } : { cursor: this.nextCursor },
    );
    return new Page<Item, Sync>(data, response, this.fetchPage);
  }

  /**
   * This page, then each following one. While the loop waits for a page, the next one is asked for
   * as soon as the server names it (in the headers, before the body), so the server prepares it
   * while this one is read: at most one request runs ahead, and a loop that stops early may leave
   * that one unused.
   *
   * @example
   * ```ts
   * const first = await client.tickets.list({ event_id: 'evt_…' });
   * for await (const page of first.iterPages()) console.log(page.page, page.data.length);
   * ```
   */
  async *iterPages(): AsyncGenerator<Page<Item, Sync>, void, undefined> {
    yield* pagesFrom(this, this.fetchPage);
  }

  /**
   * Every item from this page on, fetching pages as the loop reaches them (as `iterPages()` does).
   *
   * @example
   * ```ts
   * const page = await client.attendees.list({ event_id: 'evt_…' });
   * for await (const attendee of page) console.log(attendee.first_name, attendee.checked_in);
   * ```
   */
  async *[Symbol.asyncIterator](): AsyncGenerator<Item, void, undefined> {
    for await (const page of this.iterPages()) yield* page.data;
  }
}

/** `first`, then each page after it (see `Page#iterPages`). */
async function* pagesFrom<Item, Sync extends string | undefined>(
  first: Page<Item, Sync>,
  fetchPage: PageFetcher<Item>,
): AsyncGenerator<Page<Item, Sync>, void, undefined> {
  yield first;
  let page = first;
  let ahead: Fetching<Item> | undefined;
  while (page.hasNextPage()) {
    const cursor = page.nextCursor;
    const current =
      ahead !== undefined && cursor !== null && ahead.cursor === cursor
        ? ahead
        : fetching(fetchPage, cursor === null ? { page: page.page + 1 } : { cursor });
    ahead = undefined;
    const askAhead = (next: string) => {
      ahead = fetching(fetchPage, { cursor: next });
    };
    if (current.nextCursor !== undefined) askAhead(current.nextCursor);
    else current.onNextCursor = askAhead;
    const { data, response } = await current.answer;
    current.onNextCursor = undefined;
    page = new Page<Item, Sync>(data, response, fetchPage);
    yield page;
  }
}

/**
 * What `list()` returns: await it for the first `Page`, `for await` over it for every item across
 * pages, or call `.iterPages()` to go page by page.
 */
export class PagePromise<Item, Sync extends string | undefined = string>
  extends APIPromise<Page<Item, Sync>>
  implements AsyncIterable<Item>
{
  /** Made by `list()`, which sends the first page's request: there is no need to make one. */
  constructor(fetchPage: PageFetcher<Item>) {
    super(
      fetchPage(undefined).then(({ data, response, text }) => ({
        data: new Page<Item, Sync>(data, response, fetchPage),
        response,
        text,
      })),
    );
  }

  /**
   * Every page of the list, from the first. While the loop waits for a page, the next one is asked
   * for as soon as the server names it, so at most one request runs ahead (see `Page#iterPages`).
   *
   * @example
   * ```ts
   * for await (const page of client.tickets.list({ event_id: 'evt_…' }).iterPages()) {
   *   console.log(`page ${page.page}: ${page.data.length} tickets`);
   * }
   * ```
   */
  async *iterPages(): AsyncGenerator<Page<Item, Sync>, void, undefined> {
    const first = await this;
    yield* first.iterPages();
  }

  /**
   * Every item of the list, across pages: `for await` over `list()` itself.
   *
   * @example
   * ```ts
   * for await (const attendee of client.attendees.list({ event_id: 'evt_…', limit: 100 })) {
   *   console.log(attendee.first_name, attendee.last_name, attendee.checked_in);
   * }
   * ```
   */
  async *[Symbol.asyncIterator](): AsyncGenerator<Item, void, undefined> {
    const first = await this;
    yield* first;
  }
}
